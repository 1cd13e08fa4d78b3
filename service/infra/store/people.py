"""People: their hashes (name, languages), and the index of where each has data."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import redis

from service.infra.keys import user_key, user_rooms_key
from service.infra.store.base import MISSING, StoreBase, text


class People(StoreBase):
    def remember_user(self, user_id: int, name: str, lang: str, started: bool = False) -> None:
        key = user_key(user_id)
        self._forget(key)
        with self.redis.pipeline() as pipe:
            pipe.hset(key, "name", name)
            pipe.hset(key, "lang_tg", lang)
            if started:
                pipe.hset(key, "started", "1")
            pipe.expire(key, self.people_ttl)
            pipe.execute()

    def rooms_of(self, user_id: int) -> list[str]:
        """The rooms a person has sat in lately (the people index)."""
        return sorted(text(member) for member in self.redis.smembers(user_rooms_key(user_id)))

    def user(self, user_id: int) -> dict[str, str]:
        raw = self._take(user_key(user_id))
        if raw is MISSING:
            raw = self.redis.hgetall(user_key(user_id))
        return {text(k): text(v) for k, v in raw.items()}

    def set_user_language(self, user_id: int, lang: str) -> None:
        self._forget(user_key(user_id))
        with self.redis.pipeline() as pipe:
            pipe.hset(user_key(user_id), "lang", lang)
            pipe.expire(user_key(user_id), self.people_ttl)
            pipe.execute()

    def _index_people(
        self,
        pipe: redis.client.Pipeline,
        index: Callable[[int], str],
        member: object,
        users: Iterable[int],
    ) -> None:
        """Remember where each person has data (`index`: user_rooms_key or
        user_chats_key), so that forgetting them (service.table.privacy) needs no scan
        of every key."""
        for user_id in users:
            key = index(user_id)
            pipe.sadd(key, str(member))
            pipe.expire(key, self.people_ttl)
