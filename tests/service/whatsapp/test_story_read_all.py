"""The whole story on demand (issue #37): a WhatsApp person whose prompt folded its
story ("… 9 earlier moves") writes the word for it, in their language, and is sent
every line of the hand since it was dealt: nothing folded, their own cards drawn named,
nobody else's cards."""

from __future__ import annotations

import re
from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.table.log import LogKind
from tests.service.inproc import Hook
from tests.service.test_table_contract import check_secrets
from tests.service.whatsapp.play import act, is_final, next_prompt, outgoing, pick

FOLDED = {
    "Abuela": re.compile(r"^… \d+ jugadas? anteriore?s?$", re.MULTILINE),
    "Grandma": re.compile(r"^… \d+ earlier moves?$", re.MULTILINE),
}
HEAD = "📜 "  # the story's first line, in the person's language
DRAWN_OWN = {"Abuela": "🫳 Has robado", "Grandma": "🫳 You drew"}


def folded_prompt(wa: WhatsAppDriver, user: str, new_game: str, hook: Hook) -> WaChatMessage:
    """Play on until a prompt's story is folded (a game the deal ends first: another)."""
    seen = wa.send(user, new_game).seq
    for _ in range(200):
        prompt = wa.wait_for(
            partial(next_prompt, wa, user, seen, 0, hook.worker),
            timeout=20,
            what=f"{user}'s next prompt",
        )
        if is_final(prompt):
            seen = wa.send(user, new_game).seq
            continue
        if FOLDED[user].search(prompt.text or ""):
            return prompt
        seen = prompt.seq
        act(wa, user, prompt, pick(prompt))
    raise AssertionError("no prompt folded its story")


@pytest.mark.parametrize(("user", "word"), [("Abuela", "historia"), ("Grandma", "story")])
def test_a_folded_story_is_read_whole(hook: Hook, user: str, word: str) -> None:
    wa = hook.emu.whatsapp
    new_game = "nueva spanish" if user == "Abuela" else "new spanish"
    prompt = folded_prompt(wa, user, new_game, hook)
    before = len(outgoing(wa, user))
    wa.send(user, word)
    told = wa.wait_for(
        lambda: [m for m in outgoing(wa, user)[before:] if (m.text or "").startswith(HEAD)],
        timeout=20,
        what="the whole story",
    )
    text = "\n".join(m.text or "" for m in outgoing(wa, user)[before:])
    assert not FOLDED[user].search(text)  # nothing folded: every line told
    assert told and all(len((m.text or "").encode("utf-16-le")) // 2 <= 4096 for m in told)
    room = hook.store().load(prompt_room(prompt))
    assert room is not None and room.game is not None
    seat = room.seat_of(player_of(hook, user))
    check_secrets(room, {"text": text, "buttons": []}, seat)
    own_draws = [
        line
        for line in room.log
        if line.kind == LogKind.DRAW and line.seat == seat and line.hand_no == room.game.hand_no
    ]
    if own_draws:  # their own cards drawn are named to them
        assert DRAWN_OWN[user] in text


def prompt_room(prompt: WaChatMessage) -> str:
    ids = [b.id for b in prompt.buttons] or [r.id for r in prompt.rows]
    return ids[0].split(".")[0].rsplit(":", 1)[-1]


def player_of(hook: Hook, name: str) -> int:
    bsuid = hook.emu.whatsapp.user(name)["user_id"]
    found = hook.redis.get(f"wa:id:{bsuid}")
    assert found is not None
    return int(found)
