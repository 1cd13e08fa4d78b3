"""Secrets stay secret in the view: games played in the chat with a view open for every
seat and one for someone without a seat, every picture each view is sent checked
against the engine: a seat's hand is exactly its own cards, and no picture names a card
of another hand or of the stock (only cards played, seen or set aside in public)."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from engine.registry import find_game
from service.table.room import Room
from tests.view.harness import Stream, Views

MOVES = 80  # moves played per game (or until it ends)


def public_cards(view: Any) -> set[str]:
    """Every card the table has shown anyone (follow-suit and passing games): in a
    passing game, the four of a kind that ended the last hand too."""
    shown = {card for _seat, card in getattr(view, "trick", ())}
    shown |= set(getattr(view, "discard", ()))
    shown |= {card for seen in getattr(view, "known", ()) for card in seen}
    shown |= {action.partition(":")[2] for _seat, action in getattr(view, "history", ())}
    shown |= set(getattr(getattr(view, "last_hand", None), "shown", ()))
    return shown - {""}


def codes_in(picture: dict[str, Any]) -> set[str]:
    """Every card a packed picture names: its hand, the table's middle, the names."""
    return {c[0] for c in picture["h"]} | {c[1] for c in picture["m"]} | set(picture["n"])


def check(room: Room, seat: int | None, picture: dict[str, Any]) -> None:
    game = find_game(room.settings.preset)[0]
    public = public_cards(game.public_view(room.game))
    own = set(game.hand(room.game, seat)) if seat is not None else set()
    assert {c[0] for c in picture["h"]} == own, (seat, picture["h"], own)
    leaked = codes_in(picture) - own - public
    assert not leaked, f"seat {seat} was shown {leaked}"


async def play(views: Views, room: Room, streams: dict[int | None, Stream], seed: int) -> int:
    """Moves in the chat, each followed by a picture in every view, each checked."""
    game = find_game(room.settings.preset)[0]
    pick = random.Random(seed)
    moves = 0
    for _ in range(MOVES):
        room = views.room(room.id)
        if room.status != "playing":
            break
        movers = [s for s in range(len(room.seats)) if game.legal_actions(room.game, s)]
        seat = pick.choice(movers)
        user = room.seats[seat].user_id
        assert user is not None
        await views.chat_press(room, user, pick.choice(game.legal_actions(room.game, seat)))
        moves += 1
        after = views.room(room.id)
        for reader, stream in streams.items():
            await caught_up(views, after, reader, stream)
    return moves


async def caught_up(views: Views, room: Room, reader: int | None, stream: Stream) -> None:
    """The view's pictures until it shows the room as it is now (none comes when the
    move changed nothing it shows), each checked."""
    now = json.loads(views.view.painted(room, reader, "en"))
    while stream.last != now:
        found = await stream.event()
        assert found is not None and found[0] == "picture"
        check(room, reader, found[1])


def run_game(preset: str, people: int, seed: int) -> None:
    async def main() -> None:
        async with Views() as views:
            room = views.new_game(people, preset=preset)
            readers: list[tuple[int, int | None]] = [(1001 + i, i) for i in range(people)]
            readers.append((99999, None))  # in the group, not at the table
            streams: dict[int | None, Stream] = {}
            for person, seat in readers:
                opened = await views.opened(init_data=views.launch(person, room.id))
                check(room, seat, opened["picture"])
                streams[seat] = views.stream(opened["token"])
                found = await streams[seat].event()
                assert found is not None
                check(room, seat, found[1])
            assert await play(views, room, streams, seed) > 10
            for stream in streams.values():
                await stream.close()

    asyncio.run(main())


def test_a_follow_suit_games_views_show_each_seat_its_own_cards_only() -> None:
    run_game("spanish", 3, seed=1)


def test_a_french_decks_views_show_each_seat_its_own_cards_only() -> None:
    run_game("cangkul", 4, seed=2)


def test_a_passing_games_views_show_each_seat_its_own_cards_only() -> None:
    run_game("cuartetos", 4, seed=3)
