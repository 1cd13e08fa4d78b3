"""What every handler and job needs: settings, the store and a clock. Built once per
process from the environment; holds no game state (that lives in Redis)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.i18n import language_for
from service.infra.store import Store
from service.settings import Settings
from service.table.lobby import Actor
from service.table.room import Room


@dataclass
class Services:
    settings: Settings
    store: Store
    clock: Callable[[], float] = field(default=time.time)
    bot_username: str = "burro_bot"

    def now(self) -> float:
        return self.clock()

    def user_lang(self, user_id: int, telegram_code: str | None) -> str:
        """The user's chosen language, else their Telegram one."""
        chosen = self.store.user(user_id).get("lang")
        return chosen or language_for(telegram_code)

    def room_lang(self, room: Room) -> str:
        """The language of a room's group messages: the group's choice, else the creator's."""
        if room.settings.language:
            return room.settings.language
        creator = room.seat_of(room.creator)
        return room.seats[creator].lang if creator is not None else "en"

    def actor(
        self, user_id: int, name: str, telegram_code: str | None, admin: bool = False
    ) -> Actor:
        return Actor(user_id, name, self.user_lang(user_id, telegram_code), admin)
