"""Statistics: the counters of a chat and of a person, counted as a game finishes."""

from __future__ import annotations

import redis

from engine.kernel.protocol import Result
from service.infra.keys import chat_stats_key, user_chats_key, user_stats_key
from service.infra.store.base import text
from service.infra.store.people import People
from service.table.games import game_of
from service.table.room import Room


class Statistics(People):
    def stats(self, key: str) -> dict[str, int]:
        """A hash of counters (keys.chat_stats_key, keys.user_stats_key)."""
        raw = self.redis.hgetall(key)
        return {text(k): int(v) for k, v in raw.items()}

    def user_stats(self, user_id: int) -> dict[str, int]:
        """A person's counters: games, wins, lost, burro."""
        return self.stats(user_stats_key(user_id))

    def chat_stats(self, chat_id: int) -> dict[str, int]:
        """A chat's counters: games, and `burro:<user>` for each person."""
        return self.stats(chat_stats_key(chat_id))

    def _count_finished(self, pipe: redis.client.Pipeline, room: Room) -> None:
        game = game_of(room.settings.preset)
        result = game.result(room.game) or Result((), ())  # ended early: nobody won
        self._index_people(pipe, user_chats_key, room.chat_id, room.humans())
        chat = chat_stats_key(room.chat_id)
        pipe.hincrby(chat, "games", 1)
        pipe.expire(chat, self.people_ttl)
        for seat, info in enumerate(room.seats):
            if info.user_id is None:
                continue
            key = user_stats_key(info.user_id)
            pipe.hincrby(key, "games", 1)
            pipe.expire(key, self.people_ttl)
            if seat in result.winners:
                pipe.hincrby(key, "wins", 1)
            if seat in result.losers:
                pipe.hincrby(key, "lost", 1)
            burros = game.burros(room.game, seat)
            if burros:
                pipe.hincrby(key, "burro", burros)
                pipe.hincrby(chat, f"burro:{info.user_id}", burros)
