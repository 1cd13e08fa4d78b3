"""A hand's end on WhatsApp (issue #37): where every change is a new message, a hand's
end comes in a message of its own, once: the hand's last moves, how it ended and the
scores; the next hand's prompt starts after it and does not tell the end again."""

from __future__ import annotations

import re

from emulator.whatsapp.driver import WaChatMessage
from tests.service.inproc import Hook
from tests.service.whatsapp.play import outgoing, play_game

ENDED = re.compile(r"(is the burro of hand (\d+)!|won hand (\d+)!|^Hand (\d+) ended)", re.M)


def hands_ended(message: WaChatMessage) -> list[int]:
    """The hands whose end the message tells."""
    found = ENDED.finditer(message.text or "")
    return [int(next(g for g in match.groups()[1:] if g)) for match in found]


def test_each_hand_end_is_told_once_in_a_message_of_its_own(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    asked = wa.send("Grandma", "new spanish").seq
    played = play_game(wa, "Grandma", after=asked, worker=hook.worker)
    final = played.final
    assert final is not None
    # The game's last message tells its last hand's end with the game's. It is the
    # finished game's table, whose story is whatever the log keeps (service.ui.screens
    # story_after): after a short last hand, the end of the hand before it too.
    last = max(hands_ended(final), default=0)
    assert last, "the game's last message tells no hand's end"
    sent = [m for m in outgoing(wa, "Grandma") if asked < m.seq < final.seq]
    ends: dict[int, list[int]] = {}
    for index, message in enumerate(sent):
        told = hands_ended(message)
        assert len(told) <= 1, told  # once in a message
        for hand in told:
            ends.setdefault(hand, []).append(index)
    assert sorted(ends) == list(range(1, last)), ends  # every earlier hand's end, told
    for hand, where in ends.items():
        assert len(where) == 1, (hand, where)  # told once before the game's end
        message = sent[where[0]]
        assert not message.buttons and not message.rows  # a message of its own
        following = [*sent[where[0] + 1 :], final]
        assert any(f"· hand {hand + 1}" in (m.text or "") for m in following)
