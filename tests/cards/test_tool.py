"""tools.card_faces: the faces as files, and the contact sheet's page."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from service.cards.faces import codes, face
from tools.card_faces import HANDS, sheet_html, write_svgs


def test_every_face_and_back_is_written_as_a_file(tmp_path: Path) -> None:
    assert write_svgs(tmp_path) == 48 + 1 + 53 + 1
    for style in ("spanish", "french"):
        files = sorted(p.stem for p in (tmp_path / style).glob("*.svg"))
        assert files == sorted([*codes(style), "back"])
        for path in (tmp_path / style).glob("*.svg"):
            ET.parse(path)
    assert (tmp_path / "french" / "QH.svg").read_text() == face("QH", "french")


def test_the_sheet_shows_both_decks_and_a_hand_of_twelve_of_each() -> None:
    page, height = sheet_html()
    drawn = page.split("<script>")[0]  # the hands are drawn by the script
    assert drawn.count("<svg xmlns") == 48 + 1 + 53 + 1
    assert 'id="spanish"' in page and 'id="french"' in page
    assert all(len(hand) == 12 for hand in HANDS.values())
    assert 1000 < height < 3000
