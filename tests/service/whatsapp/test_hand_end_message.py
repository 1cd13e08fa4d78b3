"""A hand's end on WhatsApp (issue #37): where every change is a new message, a hand's
end comes in a message of its own, once: the hand's last moves, how it ended and the
scores; the next hand's prompt starts after it and does not tell the end again."""

from __future__ import annotations

import re

from tests.service.inproc import Hook
from tests.service.whatsapp.play import outgoing, play_game

ENDED = re.compile(r"(is the burro of hand (\d+)!|won hand (\d+)!|^Hand (\d+) ended)", re.M)


def test_each_hand_end_is_told_once_in_a_message_of_its_own(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    asked = wa.send("Grandma", "new spanish").seq
    played = play_game(wa, "Grandma", after=asked, worker=hook.worker)
    assert played.final is not None
    sent = [m for m in outgoing(wa, "Grandma") if m.seq > asked]
    ends: dict[str, list[int]] = {}
    for index, message in enumerate(sent):
        for found in ENDED.finditer(message.text or ""):
            hand = next(g for g in found.groups()[1:] if g)
            ends.setdefault(hand, []).append(index)
            assert len(ENDED.findall(message.text or "")) == 1  # once in a message
    assert ends, "the game ended without a hand's end"
    last = max(ends, key=int)
    for hand, where in ends.items():
        assert len(where) == 1, (hand, where)  # told once in the whole chat
        message = sent[where[0]]
        if hand == last:
            continue  # the game's last message tells it with the game's end
        assert not message.buttons and not message.rows  # a message of its own
        following = sent[where[0] + 1 :]
        assert any(f"· hand {int(hand) + 1}" in (m.text or "") for m in following)
