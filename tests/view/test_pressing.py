"""A tap in the view (POST /view/press) is the person's button press: the desk queues the
move, a worker applies it, the views and the chat follow; the same tap sent again is
answered once; a stale tap, a tap of another table, or a tap without a good token is
refused."""

from __future__ import annotations

import asyncio
from typing import Any

from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.table.room import Room
from tests.view.harness import Views

STALE = "The table changed meanwhile: look again, then choose."


def first_tap(picture: dict[str, Any]) -> str:
    """The whole press text of the first card the picture lets its reader play."""
    taps = [card[1] for card in picture["h"] if card[1]] + [move[1] for move in picture["a"]]
    assert taps, picture
    return str(picture["k"] + taps[0])


def mover(room: Room) -> int:
    from engine.follow_suit.game import to_move

    seat = to_move(room.game)
    assert seat is not None
    return seat


def test_a_tap_plays_the_card_and_the_views_and_the_chat_follow() -> None:
    async def main() -> None:
        async with Views() as views:
            room = views.new_game(3)
            seat = mover(room)
            opened = await views.opened(init_data=views.launch(1001 + seat, room.id))
            other = await views.opened(init_data=views.launch(1001 + (seat + 1) % 3, room.id))
            mine, theirs = views.stream(opened["token"]), views.stream(other["token"])
            await mine.event()
            await theirs.event()
            indexes.clear(views.redis, PENDING_SYNC)
            answer = await views.press(opened["token"], first_tap(opened["picture"]), "tap000001")
            assert answer.status_code == 200 and answer.json()["popup"] is None
            after = views.apply_queued(room.id)  # the worker's press job
            assert after.version > room.version and mover(after) != seat
            assert (await mine.event() or ("", {}))[0] == "picture"
            assert (await theirs.event() or ("", {}))[0] == "picture"
            pending = set(indexes.members(views.redis, PENDING_SYNC))
            assert any(m.startswith(f"{room.id}|") for m in pending)  # the chat's messages
            again = await views.press(opened["token"], first_tap(opened["picture"]), "tap000001")
            assert again.status_code == 200 and again.json()["outcome"] == "duplicate"
            await mine.close()
            await theirs.close()

    asyncio.run(main())


def test_a_stale_tap_is_refused_as_an_old_button_is() -> None:
    async def main() -> None:
        async with Views() as views:
            room = views.new_game(3)
            seat = mover(room)
            opened = await views.opened(init_data=views.launch(1001 + seat, room.id))
            user = room.seats[seat].user_id
            assert user is not None
            legal = [c for c in opened["picture"]["h"] if c[1]] or opened["picture"]["a"]
            await views.chat_press(room, user, "play:" + legal[0][0] if legal else "draw")
            answer = await views.press(opened["token"], first_tap(opened["picture"]), "tap000002")
            assert answer.status_code == 200 and answer.json()["popup"] == STALE
            assert views.room(room.id).version == views.apply_queued(room.id).version

    asyncio.run(main())


def test_taps_that_are_not_the_readers_are_refused() -> None:
    async def main() -> None:
        async with Views() as views:
            room, elsewhere = views.new_game(3), views.new_game(2, chat=-200)
            seat = mover(room)
            opened = await views.opened(init_data=views.launch(1001 + seat, room.id))
            tap = first_tap(opened["picture"])
            token = opened["token"]
            moved = tap.replace(room.id, elsewhere.id)
            for bad in (moved, "nonsense", room.id + ".1.J"):  # another table; junk; a join
                answer = await views.press(token, bad, "tap000003")
                assert answer.status_code == 400, (bad, answer.text)
            answer = await views.press(token, tap, "short")  # a mark the page never makes
            assert answer.status_code == 400
            answer = await views.press(token[:-2] + "zz", tap, "tap000004")
            assert answer.status_code == 401 and answer.json()["message"]
            stranger = await views.opened(init_data=views.launch(4242, room.id))
            answer = await views.press(stranger["token"], tap, "tap000005")
            assert answer.json()["popup"] == "You are not playing in this game."
            assert views.room(room.id).version == room.version

    asyncio.run(main())
