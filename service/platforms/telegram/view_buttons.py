"""The "🖼 Table" button on Telegram: it opens the table's view (service.view) as the bot's
Mini App (docs/mini-app.md).

Telegram takes a `web_app` button only in a private chat with the bot; in a group it
refuses one (BUTTON_TYPE_INVALID), so there the button is a `url` one with the direct
link to the bot's Mini App, the table in `startapp`:

    private   {"web_app": {"url": "<public_url>/view?tgWebAppStartParam=<room>"}}
    group     {"url": "https://t.me/<bot>/<short name>?startapp=<room>"}

Either way the page learns the table from `tgWebAppStartParam` (Telegram puts a direct
link's `startapp` there too) and the person from the `initData` Telegram signs. With no
public URL or no Mini App short name the button is left out: never a broken button.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from service.settings import Settings
from service.ui.intents import OpenView

VIEW_PATH = "/view"  # where `serve` draws a table (service.view)


@dataclass(frozen=True)
class MiniApp:
    """The bot's Mini App as BotFather knows it: its page's address and short name."""

    public_url: str  # serve's address, as BURRO_PUBLIC_URL gives it
    short_name: str  # /newapp's short name: the direct link's path

    def page(self, room: str) -> str:
        """The view's address for a `web_app` button, the table as its start parameter."""
        base = self.public_url.rstrip("/") + VIEW_PATH
        return f"{base}?{urlencode({'tgWebAppStartParam': room})}"

    def direct_link(self, bot_username: str, room: str) -> str:
        """The Mini App's direct link, opening the view on the table from any chat."""
        return f"https://t.me/{bot_username}/{self.short_name}?{urlencode({'startapp': room})}"


def mini_app(settings: Settings) -> MiniApp | None:
    """The bot's Mini App from the settings, None unless both its parts are set."""
    url, name = settings.public_url, settings.telegram_mini_app
    return MiniApp(url, name) if url and name else None


def view_button(label: str, intent: OpenView, app: MiniApp, bot_username: str) -> dict[str, Any]:
    """The button's Bot API form: the page itself in a private chat, else the link."""
    if intent.private:
        return {"text": label, "web_app": {"url": app.page(intent.room)}}
    return {"text": label, "url": app.direct_link(bot_username, intent.room)}
