"""The widget's card drawing: small enough for a widget, and the very same faces as the
Python drawing (run in Node, a JavaScript engine without a DOM, as a widget's is)."""

from __future__ import annotations

import json
import shutil
import subprocess
import zlib

import pytest

from service.cards.faces import STYLES, back, codes, face
from service.cards.widget import WIDGET_JS

# A widget's whole HTML: 32768 bytes, 4096 compressed (zlib, level 9). The cards may take
# this much of the compressed budget, leaving the rest for the table around them.
JS_COMPRESSED = 2500


def test_the_drawing_fits_a_widget() -> None:
    raw = WIDGET_JS.encode()
    assert len(zlib.compress(raw, 9)) <= JS_COMPRESSED
    assert len(raw) <= 8192
    for breaker in ("</script", "<!--"):  # it can sit inline in the widget's HTML
        assert breaker not in WIDGET_JS.lower()


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_widget_draws_the_same_cards_as_python() -> None:
    cases = [
        (code, style, size, label)
        for style in STYLES
        for code in codes(style)
        for size, label in ((44, ""), (97, 'Rey de "oros" & <copas>'), (60, "Ás de copas 🃏"))
    ]
    script = (
        WIDGET_JS
        + f"var cases={json.dumps(cases)},out=cases.map(function(a){{"
        + "return Cards.face(a[0],a[1],a[2],a[3])});"
        + "['spanish','french'].forEach(function(d){"
        + "out.push(Cards.back(d,60,''),Cards.back(d,61,'Back'))});"
        + "process.stdout.write(JSON.stringify(out));"
    )
    run = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, timeout=60, check=True
    )
    drawn = json.loads(run.stdout)
    expected = [face(*case) for case in cases]
    for style in STYLES:
        expected += [back(style, 60, ""), back(style, 61, "Back")]
    assert len(drawn) == len(expected)
    for got, want in zip(drawn, expected, strict=True):
        assert got == want
