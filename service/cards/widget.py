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

`table.js` draws a whole table from a packed picture (`service.ui.picture.pack`'s JSON)
with those cards, into a page's element:

- `Table.draw(root, state, {width, onTap})`: `state` the packed JSON (text or parsed),
  `width` the px to fill (else the root's own width), `onTap(text)` called with a tap's
  whole press text (`k` + the tap) when a raised card or a move is tapped. The root
  becomes the table (its class `T`, its font size set to scale with `width`; its own
  styles inside it; leave its content to `Table`); drawing again into it updates it in
  place. For screen readers: a visually hidden text of the whole table (`.V`: the
  title, each seat, the cards on the table, the stock, the hand) stands for the drawing
  (the title is drawn nowhere else: the page or message around it shows its own),
  each tappable card is a button named by its card, and the status line
  (`[role=status]`) is read aloud as it changes.

`VIEW_JS` is both scripts (`Cards` and `Table`), for a page that inlines it (the table's
web view). `WIDGET_HTML` is the Telegram widget: one document with both scripts and the
glue to the in-widget API (emulator/web/widget_bridge.js gives it locally). It reads the
state from `TelegramWidget.chatData` (else `getState().chat_data`), redraws on
`onStateChange`, sends a tap as `TelegramWidget.request(text)` and shows a refusal's
answer (`result`, when not empty) for a few seconds, and calls `ready()` after its first
drawing; every API name is guarded, the API being partly a guess (widgets.md, section 5).
Both stay within a widget's limits (tests/cards/test_widget_html.py): 32768 bytes, and
4096 after zlib level 9.
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


# The table around the cards (Table.draw), and the widget's page and glue.
_TABLE: Final = (Path(__file__).parent / "table.js").read_text(encoding="utf-8")
MAX_HTML: Final = 32768  # bytes of a widget's HTML (Bot API 10.4)
MAX_HTML_COMPRESSED: Final = 4096  # the same after zlib at level 9


def _joined(script: str) -> str:
    """A script on one line, without its comment lines: each line ends where JavaScript
    needs no break (the scripts are written so)."""
    lines = (line.strip() for line in script.splitlines())
    return "".join(line for line in lines if not line.startswith("//"))


WIDGET_JS: Final = _joined(_TEMPLATE).replace("@DATA@", _data_json()) + "\n"
VIEW_JS: Final = WIDGET_JS + _joined(_TABLE) + "\n"

# The widget's own lines: state in, taps out, a refusal's words shown for 4 seconds.
_GLUE: Final = _joined(
    """
var W=window.TelegramWidget||{},r=document.body,n;
function g(){return W.chatData||W.getState&&W.getState().chat_data}
function p(d){d&&Table.draw(r,d,{onTap:tap});n||W.ready&&W.ready();n=1}
function tap(t){var q=W.request&&W.request(t);
q&&q.then(function(a){a=a&&a.result;if(a){r.T[2].textContent=a;setTimeout(function(){p(g())},4e3)}},g)}
W.onStateChange&&W.onStateChange(function(s){p(s&&s.chat_data||g())});
p(g());
"""
)

WIDGET_HTML: Final = (
    "<!doctype html><meta charset=utf-8><body><script>" + VIEW_JS + _GLUE + "</script>"
)
