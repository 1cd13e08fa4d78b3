"""Who may open a table's view (POST /view/open): a Mini App's signed initData or a link
signed here, each checked through ViewAccess; anything else refused with its reason, in
the language the page asked. Pictures are painted by hand here: what is checked is
whose seat and which language the view paints for."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from service.table.room import Room
from tests.view.harness import Views

Scenario = Callable[[Views], Awaitable[None]]


def by_hand(room: Room, seat: int | None, lang: str) -> str:
    """A picture that says only whom it was painted for."""
    return json.dumps({"room": room.id, "version": room.version, "seat": seat, "lang": lang})


def run(scenario: Scenario, **options: Any) -> None:
    async def main() -> None:
        async with Views(paint=by_hand, **options) as views:
            await scenario(views)

    asyncio.run(main())


def test_a_players_mini_app_opens_their_seat_in_their_language() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(3, langs=("en", "es", "pt_BR"))
        found = await views.opened(init_data=views.launch(1002, room.id, lang="id"))
        assert found["picture"] == {
            "room": room.id,
            "version": room.version,
            "seat": 1,
            "lang": "es",
        }
        assert found["seated"] and found["lang"] == "es"
        assert found["words"]["expired"].startswith("Esta vista")
        assert found["help"]["rules"] and found["help"]["tips"]
        assert found["expires"] > views.clock() and found["renew"] < found["expires"]

    run(scenario)


def test_someone_without_a_seat_sees_the_public_table_in_their_apps_language() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(2)
        found = await views.opened(init_data=views.launch(5555, room.id, lang="pt-br"))
        assert found["picture"]["seat"] is None and found["picture"]["lang"] == "pt_BR"
        assert not found["seated"]

    run(scenario)


def test_a_private_buttons_launch_names_its_table_in_the_address() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(2)
        found = await views.opened(init_data=views.launch(1001, None), room=room.id)
        assert found["picture"]["seat"] == 0
        refused = await views.open(init_data=views.launch(1001, None))
        assert refused.status_code == 400 and refused.json()["reason"] == "no_table"

    run(scenario)


def test_forged_and_old_launches_are_refused_in_the_pages_language() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(2)
        good = views.launch(1001, room.id)
        forged = good.replace("start_param=" + room.id, "start_param=Zz9Zz9Zz")
        answer = await views.open(init_data=forged, lang="es")
        assert answer.status_code == 401 and answer.json()["reason"] == "forged"
        assert answer.json()["message"].startswith("Este enlace")
        old = await views.open(init_data=views.launch(1001, room.id, age=7200), lang="pt-PT")
        assert old.status_code == 401 and old.json()["reason"] == "too_old"
        for junk in ({"init_data": "user=1"}, {"link": "nope"}, {}):
            answer = await views.open(**junk)
            assert answer.status_code in (400, 401) and answer.json()["message"]
        assert "token" not in answer.json()

    run(scenario)


def test_a_whatsapp_link_opens_its_owners_seat_and_expires() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(3)
        link = views.link(1003, room.id)
        found = await views.opened(link=link)
        assert found["picture"]["seat"] == 2
        views.clock.now += views.settings.view_link_ttl + 1
        answer = await views.open(link=link)
        assert answer.status_code == 401 and answer.json()["reason"] == "expired"
        tampered = link[:-2] + ("AA" if not link.endswith("AA") else "BB")
        answer = await views.open(link=tampered)
        assert answer.status_code == 401 and answer.json()["reason"] in ("forged", "malformed")

    run(scenario)


def test_a_table_that_is_gone_is_said_so() -> None:
    async def scenario(views: Views) -> None:
        answer = await views.open(init_data=views.launch(1001, "Gone1234"))
        assert answer.status_code == 404 and answer.json()["reason"] == "gone"

    run(scenario)


def test_a_mini_app_opens_without_a_link_secret() -> None:
    """Without WhatsApp's link secret the view signs its tokens with a key of its own."""

    async def scenario(views: Views) -> None:
        room = views.new_game(2)
        found = await views.opened(init_data=views.launch(1002, room.id))
        assert found["picture"]["seat"] == 1
        answer = await views.open(link=views.link(1001, room.id))  # the view's own tokens
        assert answer.status_code == 200

    run(scenario, view_link_secret=None)


def test_while_redis_is_away_the_view_asks_the_page_to_try_again() -> None:
    async def scenario(views: Views) -> None:
        room = views.new_game(2)
        found = await views.opened(init_data=views.launch(1001, room.id))
        views.server.connected = False
        answer = await views.open(init_data=views.launch(1001, room.id))
        assert answer.status_code == 503 and answer.json()["retry"]
        answer = await views.press(found["token"], room.id + ".1.p4D", "tap000009")
        assert answer.status_code == 503
        views.server.connected = True
        answer = await views.open(init_data=views.launch(1001, room.id))
        assert answer.status_code == 200

    run(scenario)
