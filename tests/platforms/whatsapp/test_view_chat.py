"""The table's view in a WhatsApp game, through the local WhatsApp with the whole product
in this process: the game's first prompt is followed by the view's call-to-action
message once; "mesa" typed, or the "🖼 Mesa" row tapped, brings another, each link
accepted by the view's door for that person and table only; a person with no table is
told so; and with links off, the word says the picture is not available here."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from pydantic import SecretStr

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.access.checks import ViewGrant
from service.infra.view_links import ViewAccess
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import act, choices, next_prompt, outgoing, pick
from tests.service.whatsapp.test_whatsapp_game import open_game, player_of

PUBLIC = "https://burro.example"


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_service(
        tmp_path_factory.mktemp("view"),
        whatsapp_pair_rate=0.0,
        public_url=PUBLIC,
        view_link_secret=SecretStr("v" * 64),
    ) as running:
        yield running


def ctas(wa: WhatsAppDriver, user: str, after: int = 0) -> list[WaChatMessage]:
    return [m for m in outgoing(wa, user) if m.cta is not None and m.seq > after]


def nth_cta(wa: WhatsAppDriver, user: str, n: int, after: int = 0) -> WaChatMessage:
    found = wa.wait_for(
        lambda: (lambda got: got if len(got) >= n else None)(ctas(wa, user, after)),
        timeout=20,
        what=f"{user}'s view message {n}",
    )
    return found[n - 1]


def grant_of(hook: Hook, message: WaChatMessage) -> ViewGrant:
    assert message.cta is not None
    url = message.cta.url
    assert url.startswith(f"{PUBLIC}/view#l=")
    found = ViewAccess.of(hook.redis, hook.settings, "").whatsapp(url.split("#l=", 1)[1])
    assert isinstance(found, ViewGrant), found
    return found


def test_a_game_offers_its_view_once_and_a_word_or_a_row_brings_a_fresh_link(
    hook: Hook,
) -> None:
    wa = hook.emu.whatsapp
    after = open_game(wa, "Abuela", "nueva spanish")
    offer = nth_cta(wa, "Abuela", 1, after)
    abuela = player_of(hook, "Abuela")
    room = hook.store().room_in_chat(abuela, None)
    assert room is not None and room.status == "playing"
    assert grant_of(hook, offer).person == abuela and grant_of(hook, offer).room_id == room.id
    assert offer.cta is not None and offer.cta.display_text == "🖼 Abrir la mesa"
    assert "Mesa de Abuela" in offer.text

    assert hook.clock is not None
    hook.clock.advance(2)  # a link a moment later: another token
    asked = wa.send("Abuela", "Mesa").seq
    typed = nth_cta(wa, "Abuela", 1, asked)
    assert typed.cta is not None and offer.cta.url != typed.cta.url
    assert (grant_of(hook, typed).person, grant_of(hook, typed).room_id) == (abuela, room.id)

    hook.clock.advance(2)
    tapped = tap_the_view(hook, wa, "Abuela", room.id, after=after)
    chosen = nth_cta(wa, "Abuela", 1, tapped)
    assert (grant_of(hook, chosen).person, grant_of(hook, chosen).room_id) == (abuela, room.id)
    assert len(ctas(wa, "Abuela", after)) == 3  # the offer went once


def tap_the_view(hook: Hook, wa: WhatsAppDriver, user: str, room_id: str, after: int) -> int:
    """Play the person's prompts until one has the view's button or row (a prompt of
    three moves or of ten has none), and tap it; the tap's place."""
    seen, ident = after, f"view:{room_id}"
    for _ in range(50):
        prompt = wa.wait_for(
            partial(next_prompt, wa, user, seen, 0, hook.worker), timeout=20, what="a prompt"
        )
        offered = [c for c in choices(prompt) if c[0] == ident]
        if offered:
            return (wa.tap if prompt.buttons else wa.choose)(user, prompt, ident).seq
        seen = prompt.seq
        act(wa, user, prompt, pick(prompt))
    raise AssertionError("no prompt with the view's button in 50")


def test_someone_with_no_table_is_told_so(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    before = len(outgoing(wa, "Nenek"))
    wa.send("Nenek", "meja")
    said = wa.wait_for(
        lambda: outgoing(wa, "Nenek")[before:] or None, timeout=20, what="Nenek's answer"
    )
    assert said[-1].cta is None
    assert "tidak di meja" in said[-1].text


def test_with_links_off_the_word_says_the_picture_is_not_here(tmp_path: Path) -> None:
    with running_service(tmp_path, whatsapp_pair_rate=0.0) as running:
        wa = running.emu.whatsapp
        after = open_game(wa, "Abuela", "nueva spanish")
        wa.send("Abuela", "mesa")
        said = wa.wait_for(
            lambda: [m for m in outgoing(wa, "Abuela") if "imagen de la mesa" in m.text] or None,
            timeout=20,
            what="the word's answer",
        )
        assert said[-1].seq > after
        assert ctas(wa, "Abuela") == []
        assert not any(r.id.startswith("view:") for m in outgoing(wa, "Abuela") for r in m.rows)
