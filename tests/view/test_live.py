"""The views' live stream (GET /view/events): a picture at once, another after each
change of the room, painted once per (seat, language) however many views show it; the
token renewed before it ends, and the stream's end said; the subscription back after
Redis went away, and a view back on a restarted `serve`. Pictures are painted by hand:
what they hold is the painter's (tests/view/test_secrets.py)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import fakeredis

from service.infra.keys import room_key
from service.table.outcome import Outcome
from service.table.room import Room
from tests.view.harness import Views
from tests.view.test_opening import by_hand


def touch(views: Views, room: Room) -> None:
    """A change of the room, as any committed move is (its version moves on)."""

    def change(fresh: Room) -> Outcome:
        fresh.version += 1
        return Outcome(changed=True)

    assert views.store.update(room.id, change) is not None


async def token_of(views: Views, person: int, room: Room) -> str:
    found = await views.opened(init_data=views.launch(person, room.id))
    token: str = found["token"]
    return token


def test_a_view_gets_the_picture_at_once_and_again_after_each_change() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(3)
            stream = views.stream(await token_of(views, 1001, room))
            assert await stream.event() == ("picture", by_json(room, 0))
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["cache-control"] == "no-store"
            for _ in range(3):
                touch(views, room)
                room = views.room(room.id)
                assert await stream.event() == ("picture", by_json(room, 0))
            await stream.close()
            assert views.view.live.views == 0

    asyncio.run(main())


def by_json(room: Room, seat: int | None, lang: str = "en") -> dict[str, Any]:
    return {"room": room.id, "version": room.version, "seat": seat, "lang": lang}


def test_many_views_cost_one_paint_per_seat_and_language() -> None:
    painted: Counter[tuple[int | None, str]] = Counter()

    def counting(room: Room, seat: int | None, lang: str) -> str:
        painted[(seat, lang)] += 1
        return by_hand(room, seat, lang)

    async def main() -> None:
        async with Views(paint=counting) as views:
            room = views.new_game(2)
            people = [1001] * 5 + [1002] * 5 + [7777] * 5 + [8888] * 5  # 10 seated, 10 not
            streams = [views.stream(await token_of(views, p, room)) for p in people]
            for stream in streams:
                assert (await stream.event() or ("", {}))[0] == "picture"
            painted.clear()
            touch(views, room)
            for stream, person in zip(streams, people, strict=True):
                found = await stream.event()
                assert found is not None and found[1]["seat"] == {1001: 0, 1002: 1}.get(person)
            assert painted == {(0, "en"): 1, (1, "en"): 1, (None, "en"): 1}
            for stream in streams:
                await stream.close()

    asyncio.run(main())


def test_a_stream_without_a_good_token_is_refused() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(2)
            token = await token_of(views, 1001, room)
            stream = views.stream(token[:-3] + "xyz", lang="es")
            assert (await stream.event()) is None and stream.status == 401
            views.clock.now += views.settings.view_link_ttl + 1
            stream = views.stream(token)
            assert (await stream.event()) is None and stream.status == 401

    asyncio.run(main())


def test_the_token_is_renewed_before_it_ends_until_the_links_lifetime() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(2)
            opened = await views.opened(link=views.link(1002, room.id))
            stream = views.stream(opened["token"])
            assert (await stream.event() or ("", {}))[0] == "picture"
            views.clock.now = opened["renew"] + 1
            touch(views, room)  # the stream looks at the clock as it wakes
            assert (await stream.event() or ("", {}))[0] == "picture"
            found = await stream.event()
            assert found is not None and found[0] == "token"
            renewed = found[1]["token"]
            assert renewed != opened["token"] and found[1]["expires"] > opened["expires"]
            answer = await views.open(link=renewed)
            assert answer.status_code == 200
            views.clock.now += views.settings.view_link_lifetime
            touch(views, room)
            assert (await stream.event() or ("", {}))[0] == "picture"
            found = await stream.event()
            assert found is not None and found[0] == "end" and found[1]["reason"] == "expired"
            assert found[1]["message"] and (await stream.event()) is None
            assert views.view.live.views == 0

    asyncio.run(main())


def test_a_table_that_goes_ends_its_streams() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(2)
            stream = views.stream(await token_of(views, 1001, room))
            assert (await stream.event() or ("", {}))[0] == "picture"
            views.redis.delete(room_key(room.id))
            views.view.live.changed(room.id)  # as a publish would say
            found = await stream.event()
            assert found is not None and found[0] == "end" and found[1]["reason"] == "gone"

    asyncio.run(main())


def test_the_subscription_comes_back_after_redis_went_away() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(2)
            stream = views.stream(await token_of(views, 1001, room))
            assert (await stream.event() or ("", {}))[0] == "picture"
            live = views.view.live
            views.server.connected = False
            live.changed(room.id)  # noticed at once where a socket would say so at once
            await asyncio.wait_for(wait_until(lambda: not live.listening.is_set()), 10)
            views.server.connected = True
            touched = views.room(room.id)  # a change nobody heard: told as it subscribes
            touch(views, touched)
            found = await stream.event(timeout=10)
            assert found == ("picture", by_json(views.room(room.id), 0))
            await stream.close()

    asyncio.run(main())


async def wait_until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.01)


def test_a_restarted_serve_gives_a_reconnecting_view_the_whole_picture() -> None:
    """The page reconnects to whichever process answers; its token holds there too."""
    server = fakeredis.FakeServer()

    async def main() -> None:
        async with Views(server=server, paint=by_hand) as first:
            room = first.new_game(2)
            token = await token_of(first, 1002, room)
            stream = first.stream(token)
            assert (await stream.event() or ("", {}))[0] == "picture"
        async with Views(server=server, paint=by_hand, clock=first.clock) as second:
            touch(second, room)
            again = second.stream(token)
            assert await again.event() == ("picture", by_json(second.room(room.id), 1))
            touch(second, room)
            assert await again.event() == ("picture", by_json(second.room(room.id), 1))
            await again.close()

    asyncio.run(main())


def test_the_last_token_of_a_line_is_sent_once_and_the_stream_ends_with_it() -> None:
    async def main() -> None:
        async with Views(paint=by_hand) as views:
            room = views.new_game(2)
            link = views.link(1002, room.id)
            end = views.clock() + views.settings.view_link_lifetime
            opened = await views.opened(link=link)
            stream = views.stream(opened["token"])
            assert (await stream.event() or ("", {}))[0] == "picture"
            views.clock.now = end - 100  # within the last renewal's reach
            touch(views, room)
            assert (await stream.event() or ("", {}))[0] == "picture"
            found = await stream.event()
            assert found is not None and found[0] == "token"
            assert found[1]["expires"] == int(end)
            for _ in range(2):  # no token again: pictures only, until the end
                touch(views, room)
                assert (await stream.event() or ("", {}))[0] == "picture"
            views.clock.now = end
            touch(views, room)
            assert (await stream.event() or ("", {}))[0] == "picture"
            found = await stream.event()
            assert found is not None and found[0] == "end" and found[1]["reason"] == "expired"

    asyncio.run(main())
