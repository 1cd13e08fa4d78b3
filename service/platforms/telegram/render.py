"""Screens as Bot API parameters (plain text, inline keyboards): pure, no I/O."""

from __future__ import annotations

from typing import Any

from service.ui.screens import Button, Screen

MAX_TEXT = 4096


def keyboard(screen: Screen, inline: bool = True) -> dict[str, Any] | None:
    """The screen's buttons; without `inline` (the bot has no inline mode, see
    tg.botfather) none that opens an inline query."""
    rows = [[b for b in row if inline or b.switch_inline is None] for row in screen.rows]
    rows = [row for row in rows if row]
    if not rows:
        return None
    return {"inline_keyboard": [[button(b) for b in row] for row in rows]}


def button(b: Button) -> dict[str, Any]:
    if b.data is not None:
        return {"text": b.label, "callback_data": b.data}
    if b.switch_inline is not None:
        return {"text": b.label, "switch_inline_query_current_chat": b.switch_inline}
    return {"text": b.label, "url": b.url}


def message_params(screen: Screen, inline: bool = True) -> dict[str, Any]:
    """sendMessage / editMessageText parameters for a screen (chat and ids added later)."""
    text = screen.text if len(screen.text) <= MAX_TEXT else screen.text[: MAX_TEXT - 1] + "…"
    params: dict[str, Any] = {"text": text}
    markup = keyboard(screen, inline)
    if markup is not None:
        params["reply_markup"] = markup
    return params
