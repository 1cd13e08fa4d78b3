"""The links that open a table from each platform, for the desk (service.desk.ports.Links):
the Telegram bot's private chat (its deep links), and every platform's join link."""

from __future__ import annotations

from service.platforms import registry
from service.platforms.telegram import callbacks
from service.services import Services


class ServiceLinks:
    """Links as this process's settings make them (the bot's name is read when asked:
    it is known once `serve` has started)."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc

    def private(self, room: str, join: bool = False) -> str | None:
        return callbacks.deep_link(self.svc.bot_username, room, join=join)

    def invitations(self, room: str, lang: str) -> dict[str, str]:
        links = {
            name: registry.join_link(self.svc, name, room, lang) for name in registry.entries()
        }
        return {name: link for name, link in links.items() if link}
