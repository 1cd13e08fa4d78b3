"""The links that open a table from each platform, for the desk (service.desk.ports.Links):
the Telegram bot's private chat (its deep links), and every platform's join link."""

from __future__ import annotations

from service.infra.keys import msgs_key
from service.infra.store import text
from service.platforms import registry
from service.platforms.telegram import callbacks, invite
from service.services import Services
from service.table import targets
from service.table.identity import TELEGRAM
from service.table.room import Room


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

    def group(self, room: Room) -> str | None:
        """A Telegram group's table message (the only platform with groups of ours)."""
        if room.platform != TELEGRAM or targets.in_own_chat(room):
            return None
        shown = self.svc.store.redis.hget(msgs_key(room.id), targets.TABLE)
        return invite.group_link(room.chat_id, int(text(shown)) if shown else None)
