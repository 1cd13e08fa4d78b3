"""A folded suit's row of an old prompt (issue #37): tapped after the turn moved on, it
is refused once, with the live prompt's moves offered again, as an old button is."""

from __future__ import annotations

import itertools
from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.platforms.whatsapp import render
from service.table import lobby
from service.table.room import KEY_BITS
from tests.service.inproc import Hook
from tests.service.whatsapp.play import act, choices, is_final, moves, next_prompt, outgoing


def prompt_with_pick(wa: WhatsAppDriver, hook: Hook, user: str) -> WaChatMessage:
    """Play (a card each turn) until a prompt folds a suit into a row."""
    for _game in range(4):
        seen = wa.send(user, "new spanish").seq
        while True:
            prompt = wa.wait_for(
                partial(next_prompt, wa, user, seen, 0, hook.worker), timeout=20, what="a prompt"
            )
            if any(render.pick_of(c) for c, _t in choices(prompt)):
                return prompt
            if is_final(prompt):
                break
            seen = prompt.seq
            act(wa, user, prompt, moves(prompt)[0][0])
    raise AssertionError("no prompt folded a suit in four games")


def test_an_old_rows_refusal_offers_the_live_moves(
    hook: Hook, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = itertools.count(1)  # the same deals every run: whether a suit folds is the deal's
    monkeypatch.setattr(lobby, "new_game_key", lambda: next(keys) | (1 << (KEY_BITS - 1)))
    wa = hook.emu.whatsapp
    old = prompt_with_pick(wa, hook, "Avó")
    live = old
    while live is old or len(choices(live)) != len(moves(live)):  # on to a small prompt
        act(wa, "Avó", live, moves(live)[0][0])
        live = wa.wait_for(
            partial(next_prompt, wa, "Avó", live.seq, 0, hook.worker), timeout=20, what="a prompt"
        )
        assert not is_final(live), "the game ended before a prompt without a folded suit"
    before = len(outgoing(wa, "Avó"))
    act(wa, "Avó", old, next(c for c, _t in choices(old) if render.pick_of(c)))
    refusal = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Avó")[before:] if "anterior" in m.text), None),
        timeout=20,
        what="the refusal",
    )
    assert [c for c, _t in choices(refusal)] == [c for c, _t in moves(live)]
