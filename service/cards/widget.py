"""The card faces in JavaScript, for the Telegram widget (docs/card-faces.md).

A widget is one HTML document of at most 32768 bytes, 4096 once compressed, with no
network: it cannot load SVG files, so it draws each card from `DATA` (the shapes, colours
and layouts `service.cards.faces` draws from) with the same steps as `face` and `back`,
written in `cards.js`. `WIDGET_JS`, that script with the data, defines one global, `Cards`:

- `Cards.face(code, style, size, label)` → the SVG text of a card (`"7H"`, `"JK"`),
  `style` `"spanish"` or `"french"`, `size` px wide, `label` its text alternative;
- `Cards.back(style, size, label)` → the back.

Both return the very bytes the Python functions return for the same arguments
(tests/cards check it with Node), so the widget and the web view show the same cards. The
script uses strings only (no DOM), so it runs as well in a page as in an embedded engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from service.cards.faces import DATA

# Mirrors faces._svg, _face_body, _index, _pip, _joker and _back_body step by step.
_TEMPLATE: Final = (Path(__file__).parent / "cards.js").read_text(encoding="utf-8")


def _data_json() -> str:
    """DATA as a JavaScript literal; `</` is escaped so the script cannot end early."""
    text = json.dumps(DATA, separators=(",", ":"))  # in DATA's order: like near like
    return text.replace("</", "<\\/")


# One line, without the comment: each line of cards.js ends where JavaScript needs none.
_LINES = [line for line in _TEMPLATE.splitlines() if not line.startswith("//")]
WIDGET_JS: Final = "".join(_LINES).replace("@DATA@", _data_json()) + "\n"
