"""The story's share bench (bench/story.py) on a small run: whole games measured, the
story a part of every drawing's characters, and none of a screen drawn without it."""

from __future__ import annotations

import random

from bench import story


def test_the_story_share_of_a_spanish_game() -> None:
    shares = story.share_of("spanish", 1)
    for share in shares.values():
        assert share.screens > 10
        assert 0 < share.story < share.total
    # The same screens in both drawings; the table's lines make the WhatsApp one longer.
    assert shares["edits"].screens == shares["new messages"].screens
    assert shares["new messages"].total > shares["edits"].total


def test_a_screen_drawn_without_its_story_keeps_the_rest() -> None:
    room = story.new_room("cangkul", 0)
    changes = story.changes(room, random.Random(0))
    for _ in range(40):
        next(changes)
    whole = story.drawn(room, 0, 0, True, story=True)
    bare = story.drawn(room, 0, 0, True, story=False)
    assert len(bare) < len(whole) and bare.split("\n")[0] == whole.split("\n")[0]
