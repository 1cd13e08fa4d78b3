"""Product bugs the chaos soak (bench/chaos.py) found with WhatsApp players, each kept as
the minimal test that failed before its fix: titles cut by code points where Meta counts
UTF-16 units (a prompt refused with 131009, the player left without their turn), a
500 instead of 503 when Redis went away while a message was handled, a late
"window closed" status shutting the window a tap had just opened again, and a typed
move delivered again after its turn had passed, played on the next."""

from __future__ import annotations

import hashlib
import hmac
import json
from functools import partial
from typing import Any, cast

import fakeredis
import pytest
import redis
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.testclient import TestClient

from service.desk import desk as desk_module
from service.desk import prompts
from service.desk.asks import PressAsk, Reply
from service.desk.desk import Desk
from service.i18n import Translator
from service.infra.store import Store
from service.platforms.links import ServiceLinks
from service.platforms.whatsapp import people, render, window
from service.platforms.whatsapp.inbound import Handler
from service.platforms.whatsapp.message import Inbound
from service.platforms.whatsapp.webhook import PATH, webhook
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import Room
from service.ui.intents import Move, Press
from service.ui.screens import Button, Screen
from tests.desk.fakes import FakeGraph

ROOM = "k3j9x0qa"
SECRET = "local-app-secret"
START = 1_700_000_000.0


def utf16(text: str) -> int:
    """A length as Meta counts it: UTF-16 code units (an emoji past the BMP is 2)."""
    return len(text.encode("utf-16-le")) // 2


def titles_of(content: dict[str, object]) -> list[str]:
    interactive = content["interactive"]
    assert isinstance(interactive, dict)
    action = interactive["action"]
    if "buttons" in action:
        return [b["reply"]["title"] for b in action["buttons"]]
    return [row["title"] for section in action["sections"] for row in section["rows"]]


def test_a_cuartetos_prompt_in_indonesian_keeps_meta_s_title_limits() -> None:
    tr = Translator("id")
    fake = tr.gettext("🎭 Fake call: {word}", word="¡BARRO!")
    assert fake == "🎭 Teriakan palsu: ¡BARRO!"  # the label the soak's prompt carried
    moves = ["burro", "fake:Barro", "pass:KS", "pass:KH", "pass:KD"]
    labels = ["🫏 ¡Burro!", fake, "Raja pedang", "Raja cawan", "Raja koin"]
    row = tuple(
        Button(label, Press(ROOM, 4, Move(move))) for label, move in zip(labels, moves, strict=True)
    )
    content = render.render(Screen("Pilih kartu untuk dioper.", (row,)), "id")
    too_long = [t for t in titles_of(content) if utf16(t) > render.ROW_TITLE]
    assert too_long == []


def test_a_reply_button_with_an_emoji_keeps_meta_s_limit() -> None:
    label = "🎭 " + "x" * 30
    row = (Button(label, Press(ROOM, 4, Move("burro"))),)
    content = render.render(Screen("?", (row,)), "en")
    assert all(utf16(t) <= render.BUTTON_TITLE for t in titles_of(content))


DOWN = redis.ConnectionError("Error 111 connecting to 127.0.0.1. Connection refused.")


def gone(*_args: object, **_kwargs: object) -> None:
    raise DOWN


async def agone(*_args: object, **_kwargs: object) -> None:
    raise DOWN


async def anothing(*_args: object, **_kwargs: object) -> Reply:
    return Reply()


def wa_settings() -> Settings:
    return Settings(
        whatsapp_token=SecretStr("t"),
        whatsapp_phone_id="1",
        whatsapp_app_secret=SecretStr(SECRET),
        whatsapp_verify_token=SecretStr("v"),
    )


def app_of(client: redis.Redis) -> Starlette:
    settings = wa_settings()
    svc = Services(settings, Store(client, 3600, 3600))
    return Starlette(routes=webhook(settings, svc, client, ServiceLinks(svc)).routes)


def signed_post() -> tuple[bytes, dict[str, str]]:
    message = {
        "from_user_id": "ES.1502576394655801",
        "id": "wamid.gone",
        "timestamp": "1700000000",
        "type": "text",
        "text": {"body": "hola"},
    }
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550009999", "phone_number_id": "1"},
        "contacts": [],
        "messages": [message],
    }
    entry = {"id": "1", "changes": [{"field": "messages", "value": value}]}
    body = json.dumps({"object": "whatsapp_business_account", "entry": [entry]}).encode()
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return body, {"X-Hub-Signature-256": signature}


def test_redis_gone_while_a_message_is_handled_is_503(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(desk_module, "END_CLAIM_WAITS", (0.0,))
    monkeypatch.setattr(Desk, "route", agone)  # Redis went away mid-message ...
    monkeypatch.setattr(Store, "arelease", agone)  # ... and is still away a moment later
    body, headers = signed_post()
    with TestClient(app_of(fakeredis.FakeRedis()), raise_server_exceptions=False) as http:
        answer = http.post(PATH, content=body, headers=headers)
    assert answer.status_code == 503  # Meta sends it again once Redis is back


def test_a_claim_is_released_once_redis_is_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the chaos soak: Redis restarted while a message was handled, its busy
    mark stayed, and Meta's redeliveries were turned away for half a minute."""
    monkeypatch.setattr(desk_module, "END_CLAIM_WAITS", (0.0, 0.0))
    release, failures = Store.arelease, [DOWN]

    async def back_soon(store: Store, update_id: str) -> None:
        if failures:
            raise failures.pop()
        await release(store, update_id)

    monkeypatch.setattr(Desk, "route", agone)
    monkeypatch.setattr(Store, "arelease", back_soon)
    client = fakeredis.FakeRedis()
    body, headers = signed_post()
    with TestClient(app_of(client), raise_server_exceptions=False) as http:
        assert http.post(PATH, content=body, headers=headers).status_code == 503
        monkeypatch.undo()
        monkeypatch.setattr(Desk, "route", anothing)
        assert http.post(PATH, content=body, headers=headers).status_code == 200
    assert client.exists("update:wa:wamid.gone")  # the redelivery was handled


def test_a_late_closed_window_status_keeps_the_window_a_later_tap_opened() -> None:
    client, tapped = fakeredis.FakeRedis(), 1_700_000_000.0
    window.note_inbound(client, 7, tapped)
    # failed before she tapped (statuses come late): open still, nothing to send again
    assert not window.close(client, 7, at=tapped - 3)
    assert window.is_open(client, 7, tapped + 10)
    assert window.close(client, 7, at=tapped + 5)  # failed after her last word: closed
    assert not window.is_open(client, 7, tapped + 10)


def test_a_move_typed_for_an_earlier_turn_and_delivered_late_is_left_alone() -> None:
    """Found by the chaos soak: a typed move whose webhook failed was delivered again
    after the person's turn had passed (a timeout played for them), and was played on
    their next turn, as if typed for it. A button names its phase; typed words do not:
    their timestamp says which turn they were typed for."""
    now = [START]
    svc = Services(wa_settings(), Store(fakeredis.FakeRedis(), 3600, 3600), lambda: now[0])
    handler = Handler(svc, svc.store.redis, cast(Any, FakeGraph()), ServiceLinks(svc))
    typed = partial(Inbound, bsuid="ES.1502576394655801", name="Abuela", kind="text")
    sender = people.sender_of(svc.store.redis, svc.store, typed(wamid="wamid.hi", at=START))
    room, label = her_turn(svc, sender.player)
    began = room.turn_started
    assert began is not None
    now[0] = began + 30  # the redelivery comes half a minute on
    before = typed(wamid="wamid.late", at=began - 10, text=label)
    assert handler.own_work(sender, before) is not None  # left alone
    asked = typed(wamid="wamid.story", at=began - 9, text="historia")
    assert handler.own_work(sender, asked) is None  # no move: still read
    during = typed(wamid="wamid.now", at=began + 1, text=label)
    assert handler.own_work(sender, during) is None
    ask = handler.ask_of(sender.player, during)
    assert isinstance(ask, PressAsk) and ask.press.version == room.phase_version


def her_turn(svc: Services, player: int) -> tuple[Room, str]:
    """A one-to-one Spanish game of hers against a bot, saved, where she leads (the
    seat after the dealer's); the label of a move her prompt offers."""
    actor = Actor(player, "Abuela", "es", platform="whatsapp")
    room = lobby.create_room(player, None, actor, START, private=True)
    lobby.add_bot(room, actor)
    outcome = lobby.start(room, actor, START)
    assert svc.store.create(room, outcome, None)
    screen = prompts.screen_for(room, player, svc)
    assert screen is not None
    moves = [b.label for row in screen.rows for b in row if isinstance(b.intent, Press)]
    return room, next(m for m in moves if m[:1].isdigit() or " de " in m)
