"""The view's page (#39), made once, on first use: `page.html` with `page.css`
and, in one inline script, the drawing script every front end shares
(service.cards.widget.VIEW_JS: `Table.draw`) followed by `page.js` (who is looking, the
live stream, taps, the "?" panel). Nothing is loaded from elsewhere, so the policy
below allows no source but the page's own script, by its hash, and its own address
for the requests it makes.

`HEADERS` go with the page: that policy, no referrer (the page's address carries a
secret in its fragment until it reads it), no sniffing, nothing cached, and no framing
but by Telegram's web clients, which show a Mini App in a frame.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

_HERE = Path(__file__).parent
FRAMED_BY: Final = "https://web.telegram.org"  # Telegram Web (K and A) frames Mini Apps


def _read(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Page:
    html: str
    headers: dict[str, str]


@functools.cache
def page() -> Page:
    """The page and its headers, made on first use."""
    from service.cards.widget import VIEW_JS  # the drawing script, shared with the widget

    script = VIEW_JS + "\n" + _read("page.js")
    if "</script" in script.lower():
        raise ValueError("the view's script would end its element early")
    html = _read("page.html").replace("@CSS@", _read("page.css")).replace("@JS@", script)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return Page(html, HEADERS | {"content-security-policy": policy(digest)})


def policy(script_hash: str) -> str:
    """No source but the page's own script (by its hash) and its own address."""
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'sha256-{script_hash}'",
            "style-src 'unsafe-inline'",  # the page's own <style>, and drawn cards' attributes
            "img-src data:",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            f"frame-ancestors {FRAMED_BY}",
        ]
    )


NO_STORE: Final = {"cache-control": "no-store", "referrer-policy": "no-referrer"}
HEADERS: Final = NO_STORE | {
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
