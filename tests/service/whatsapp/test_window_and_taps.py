"""WhatsApp's rules as a person meets them: the 24-hour window (a template outside it,
whose tap brings the prompt back), old and duplicated taps, typed moves, forged posts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial

import httpx
import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.table.room import Room
from tests.service.inproc import Hook, running_service
from tests.service.play import room_in
from tests.service.whatsapp.play import (
    choices,
    last_out,
    moves,
    newest_prompt,
    outgoing,
    play_game,
)
from tests.service.whatsapp.test_family_table import player_id
from tests.service.whatsapp.test_whatsapp_game import open_game

DAY = 24 * 3600


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("window")
    with running_service(
        folder, whatsapp_pair_rate=0.0, turn_timeout=3 * DAY, game_target=2
    ) as running:
        yield running


def prompt_after(wa: WhatsAppDriver, user: str, seen: int) -> WaChatMessage:
    return wa.wait_for(partial(newest_prompt, wa, user, seen), timeout=20, what="a prompt")


def template_after(wa: WhatsAppDriver, user: str, seen: int) -> WaChatMessage | None:
    found = [m for m in outgoing(wa, user) if m.type == "template" and m.seq > seen]
    return found[-1] if found else None


def test_outside_the_window_a_template_comes_and_its_tap_brings_the_prompt(hook: Hook) -> None:
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None and hook.clock is not None
    lobby = open_game(wa, "Abuela", "nueva spanish")
    prompt = prompt_after(wa, "Abuela", lobby)
    wa.advance(DAY + 3600)  # a day and an hour without a word from her
    worker.reach(hook.clock() + DAY + 3600)  # her reminder is long due
    template = wa.wait_for(
        partial(template_after, wa, "Abuela", prompt.seq), timeout=20, what="the template"
    )
    assert [b.title for b in template.buttons] == ["Jugar ahora", "Sin recordatorios"]
    assert "Es tu turno en Burro" in template.text
    assert not [m for m in outgoing(wa, "Abuela") if m.seq > prompt.seq and m.status == "failed"]
    wa.tap_quick_reply("Abuela", template, "Jugar ahora")
    again = prompt_after(wa, "Abuela", template.seq)
    assert choices(again) == choices(prompt)  # the same turn, its moves again
    worker.settle()
    # The word that would have kept her chat open came due once it had closed: it is
    # not said then, nor later (she is back: it would mean nothing).
    keep = [m for m in outgoing(wa, "Abuela") if "Seguir jugando" in str(choices(m))]
    assert keep == []


def test_play_now_from_a_table_still_in_its_lobby_is_answered(hook: Hook) -> None:
    """Tía's game, whose template she kept, has ended; she sits at Prima's family table,
    not started yet. Her tap on the old template's Play now tells her that her cards
    will come when it starts (nothing else would answer it)."""
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None and hook.clock is not None
    wa.add_user("Tía", country="ES", language="es", username="tia.carmen")
    wa.add_user("Prima", country="ES", language="es", username="prima.lucia")
    prompt = prompt_after(wa, "Tía", open_game(wa, "Tía", "hola cangkul"))
    wa.advance(DAY + 3600)
    worker.reach(hook.clock() + DAY + 3600)
    template = wa.wait_for(
        partial(template_after, wa, "Tía", prompt.seq), timeout=20, what="the template"
    )
    wa.tap_quick_reply("Tía", template, "Jugar ahora")
    assert play_game(wa, "Tía", template.seq, worker=worker).final is not None
    wa.send("Prima", "familia")
    code = wa.wait_for(partial(own_table, hook, "Prima"), what="Prima's table").id
    host = player_id(hook, "Prima")
    wa.send("Tía", f"unirme {code}")
    wa.wait_for(lambda: len(room_in(hook, host).seats) == 2 or None, what="Tía seated")
    before = len(outgoing(wa, "Tía"))
    wa.tap_quick_reply("Tía", template, "Jugar ahora")
    wa.wait_for(
        lambda: any("tus cartas llegarán aquí" in m.text for m in outgoing(wa, "Tía")[before:]),
        what="Tía told her cards come when it starts",
    )
    assert room_in(hook, host).status == "lobby"


def own_table(hook: Hook, user: str) -> Room | None:
    """The table in the person's own chat, once they have one."""
    player = hook.redis.get(f"wa:id:{hook.emu.whatsapp.user(user)['user_id']}")
    return None if player is None else hook.store().room_in_chat(int(player), None)


def test_a_tap_on_an_old_prompt_is_refused_once_and_moves_nothing(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    lobby = open_game(wa, "Vovó", "jogar brazilian")
    first = prompt_after(wa, "Vovó", lobby)
    first_choice = moves(first)[0][1]
    (wa.tap if first.buttons else wa.choose)("Vovó", first, first_choice)
    second = prompt_after(wa, "Vovó", first.seq)
    before = len(outgoing(wa, "Vovó"))
    for _ in range(2):  # the same old prompt, tapped twice
        (wa.tap if first.buttons else wa.choose)("Vovó", first, choices(first)[-1][1])
    refusal = wa.wait_for(partial(answered, wa, "Vovó", before), what="a refusal")
    assert "rodada anterior" in refusal.text
    wa.wait_idle()
    told = [m for m in outgoing(wa, "Vovó")[before:] if "anterior" in m.text]
    assert len(told) == 1  # said once per old prompt
    # nothing was played for it: the refusal offers the live prompt's moves again
    assert moves(told[0]) == moves(second) or not moves(told[0])
    assert newest_prompt(wa, "Vovó", second.seq) in (None, told[0])


def answered(wa: WhatsAppDriver, user: str, before: int) -> WaChatMessage | None:
    """Our newest message to the person, once there are more than `before`."""
    return last_out(wa, user) if len(outgoing(wa, user)) > before else None


def test_typed_moves_play_in_each_language(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    for user, command in (
        ("Nenek", "main spanish"),
        ("Grandma", "new spanish"),
        ("Avó", "jogar spanish"),
    ):
        lobby = open_game(wa, user, command)
        prompt = prompt_after(wa, user, lobby)
        card = moves(prompt)[0][1]  # e.g. "7 de oros": typed as its label, lower case
        wa.send(user, card.lower())
        after = prompt_after(wa, user, prompt.seq)
        assert after.seq > prompt.seq


def test_a_post_without_the_right_signature_is_refused_and_applies_nothing(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    before = len(outgoing(wa, "Abuela"))
    sender = "ES.1502576394655801"
    message = {"from_user_id": sender, "id": "wamid.forged", "timestamp": "1700000000"}
    value = {
        "messaging_product": "whatsapp",
        "contacts": [{"profile": {"name": "Abuela"}, "user_id": sender}],
        "messages": [message | {"type": "text", "text": {"body": "nueva"}}],
    }
    change = {"field": "messages", "value": value}
    body = {"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [change]}]}
    raw = json.dumps(body).encode()
    url = hook.url + "/whatsapp/webhook"
    for headers in ({}, {"X-Hub-Signature-256": "sha256=" + "0" * 64}):
        answer = httpx.post(
            url, content=raw, headers=headers | {"Content-Type": "application/json"}
        )
        assert answer.status_code == 403
    assert not hook.redis.exists("update:wa:wamid.forged")
    assert len(outgoing(wa, "Abuela")) == before
    handshake = httpx.get(
        url, params={"hub.mode": "subscribe", "hub.verify_token": "wrong", "hub.challenge": "42"}
    )
    assert handshake.status_code == 403
    good = httpx.get(
        url,
        params={
            "hub.mode": "subscribe",
            "hub.verify_token": "local-verify-token",
            "hub.challenge": "42",
        },
    )
    assert (good.status_code, good.text) == (200, "42")


def test_a_body_over_the_limit_is_refused_before_it_is_read(hook: Hook) -> None:
    url = hook.url + "/whatsapp/webhook"
    big = b"{" + b" " * (1 << 20) + b"}"  # over serve's 1 MiB, signed or not
    declared = httpx.post(url, content=big, headers={"Content-Type": "application/json"})
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:  # no declared length: refused as it comes
        yield from (big[i : i + 65536] for i in range(0, len(big), 65536))

    streamed = httpx.post(url, content=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413
