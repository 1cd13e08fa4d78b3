"""A room: one game at one table in one chat, from its lobby to its end.

It is the only thing stored per game (one Redis key, see `service.infra.store`): the seats,
the settings, the engine's state, the chat messages that show it, and a short log of
recent public events for the table message.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, model_validator

from engine.kernel.rng import keyed
from engine.registry import find_game, preset_names
from service.table import packed_games
from service.table.buckets import new_room_id as new_room_id  # re-exported
from service.table.identity import TELEGRAM, ChatRef, PlayerRef
from service.table.log import LogLine as LogLine  # re-exported: it was defined here

Status = Literal["lobby", "playing", "over", "cancelled"]
LIVE: tuple[Status, ...] = ("lobby", "playing")  # a room still open: its keys live on
TimeoutAction = Literal["bot", "remove"]
BOT_LEVELS = ("easy", "heuristic", "strong")
MAX_SEATS = 8


# A room's `seed` is its game's secret key: every deal and bot choice is drawn from it
# one-way (engine.kernel.rng.keyed), and it never leaves Redis. At least 128 bits; keys made
# before that (below 2**64, drawn reversibly, so possibly learnt from an export) are
# replaced when the room is loaded.
KEY_BITS = 128
LEGACY_KEY_LIMIT = 1 << 64
BOT_SALT = 0xB07  # keyed(seed, BOT_SALT, seat): a bot seat's own seed
# The preset a table plays unless its opener names one: the first built-in game's first
# (engine.registry lists the built-in games first).
DEFAULT_PRESET = preset_names()[0]


@cache
def state_adapter(preset: str) -> TypeAdapter[Any]:
    """How the states of a preset's game are checked when a room is loaded."""
    return TypeAdapter(find_game(preset)[0].state_type)


def new_game_key(randbits: Callable[[int], int] = secrets.randbits) -> int:
    """A fresh secret key, its top bit set so it can never look like a legacy one
    (`randbits`: where its bits come from; a seeded one only for pictures and tests)."""
    return randbits(KEY_BITS) | (1 << (KEY_BITS - 1))


HANDLED_KEPT = 8  # a redelivery comes within seconds; eight changes take longer


def handled_id(update_id: int | str) -> str:
    """An update's id as a room keeps it: a long one (a WhatsApp message's) hashed short."""
    text = str(update_id)
    return text if len(text) <= 12 else hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


class Seat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: int | None = None  # None for a bot
    platform: str = TELEGRAM  # where the player plays from
    name: str
    bot: str | None = None  # the bot level of a bot seat
    lang: str = "en"  # the language of this player's private messages
    timeouts: int = 0  # turns this player let time out
    removed: bool = False  # removed after too many timeouts: a bot plays on

    @property
    def player(self) -> PlayerRef | None:
        """Who sits here (None for a bot)."""
        return None if self.user_id is None else PlayerRef(self.platform, self.user_id)


class RoomSettings(BaseModel):
    """What the creator chooses in the lobby. The rule set they make is its game's
    (`service.table.games.rules_of`)."""

    model_config = ConfigDict(extra="forbid")

    preset: str = DEFAULT_PRESET
    options: dict[str, Any] = Field(default_factory=dict)  # engine options on the preset
    turn_timeout: int = 12 * 3600  # seconds before a turn is played for the player
    reminder_after: int = 3 * 3600  # seconds before the player is nudged
    timeout_action: TimeoutAction = "bot"  # bot: a bot plays that turn; remove: see below
    max_timeouts: int = 3  # with "remove": timeouts before the seat goes to a bot for good
    language: str | None = None  # the group's language; None: the creator's
    auto_forced: bool = True  # play forced moves (a single legal action) at once
    bot_level: str = "heuristic"  # the level of bots added in the lobby
    quiet_hours: tuple[int, int] | None = None  # (from, to) local hours: no reminders then
    timezone: str = "UTC"  # the group's time zone, for quiet hours
    tips: bool = False  # players may ask for a tip (always at a table with bots)


class Room(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    version: int = 0  # bumped by every change: buttons carry it, stale ones are refused
    chat_id: int
    thread_id: int | None = None  # a forum topic
    platform: str = TELEGRAM  # the platform of the room's chat
    private: bool = False  # a one-to-one game against bots in a private chat
    # The table's name where its chat has one (a group's title, as its platform last
    # told it, cleaned); None: it is named after its host (service.ui.screens).
    name: str | None = None
    creator: int
    status: Status = "lobby"
    settings: RoomSettings = Field(default_factory=RoomSettings)
    seats: list[Seat] = Field(default_factory=list)
    game: Any = None  # the state of the preset's game (`Game.state_type`), once started
    # an ended room's game as stored, its packed moves (`stored_json`): read, never kept
    packed_game: dict[str, Any] | None = Field(default=None, exclude=True, repr=False)
    seed: int = Field(default_factory=new_game_key)  # secret: see KEY_BITS
    settings_open: bool = False  # the lobby message shows the settings keyboard
    log: list[LogLine] = Field(default_factory=list)
    deadline: float | None = None  # when the player to move times out
    turn_started: float | None = None
    reminded: bool = False  # the current turn's group mention went out
    phase_version: int = 0  # the version the current phase began at (service.table.play)
    passed: list[int] = Field(default_factory=list)  # bot seats that let this phase go by
    # Human seats that have had their turn in hand `seen_hand` (moved, or timed out):
    # until then a seat's forced moves wait for it, so it sees its cards first.
    seen: list[int] = Field(default_factory=list)
    seen_hand: int = 0
    blocked: list[int] = Field(default_factory=list)  # users whose private chat refused us
    # Users shown their hand in the room's group to them alone (an ephemeral message,
    # service.desk.showing): kept up to date there as the game goes on.
    mine: list[int] = Field(default_factory=list)
    created: float = 0.0
    updated: float = 0.0
    # The updates that changed it last (`handled_id`s), so a redelivery is known by the
    # room itself, in the same write as the change (a cluster keeps the updates' own
    # marks elsewhere; a fail-over that loses the change loses this with it).
    handled: list[str] = Field(default_factory=list)
    # The bytes it was read from (Store.load): updating the room as loaded reuses it.
    _loaded_from: bytes | str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _game_state(self) -> Room:
        """The stored game, as its game's own state type (the preset names the game); an
        ended room's, stored packed (`stored_json`), rebuilt from its moves. (After the
        fields, not before: pydantic then reads the room's JSON in one pass.)"""
        if self.packed_game is not None:
            self.game = packed_games.rebuilt(self.settings.preset, self.packed_game)
            self.packed_game = None
        elif isinstance(self.game, dict):
            self.game = state_adapter(self.settings.preset).validate_python(self.game)
        return self

    @model_validator(mode="after")
    def _phase_of_legacy_game(self) -> Room:
        """Follow-suit rooms saved before phases had no `phase_version`: their phase is
        their version (every move began one), which their buttons and timers carry."""
        if self.phase_version == 0 and self.status == "playing":
            self.phase_version = self.version
        return self

    @model_validator(mode="after")
    def _replace_legacy_key(self) -> Room:
        """A key from before keyed deals may have been worked out from an exported hand:
        the hands still to come and the bots get a fresh one (the hand in play keeps the
        deal it has). Safe to do on every load until saved: the key only feeds draws that
        are saved with the move that makes them."""
        if self.seed < LEGACY_KEY_LIMIT:
            self.seed = new_game_key()
            if self.game is not None:
                self.game = replace(self.game, seed=self.seed)
        return self

    def stored_json(self) -> bytes:
        """The room's JSON as stored: once it ended, its game as its packed moves, which
        take a byte or two each where the whole state takes a kilobyte a hand (the room
        is kept for the retention period); while it is played, the whole state (a move
        must not replay the game). A game that cannot be packed is kept whole."""
        packed = None
        if self.status not in LIVE and self.game is not None:
            packed = packed_games.packed(self.settings.preset, self.game)
        # Fields at their defaults are left out: they load back the same (a third of a
        # room's JSON, most of it its log lines' empty fields).
        if packed is None:
            return self.model_dump_json(exclude_defaults=True).encode()
        data = self.model_dump(mode="json", exclude={"game"}, exclude_defaults=True)
        text = json.dumps(
            {**data, "packed_game": packed}, separators=(",", ":"), ensure_ascii=False
        )
        return text.encode()

    def note_handled(self, update_id: int | str) -> None:
        """The update `update_id` changed the room (the last HANDLED_KEPT are kept)."""
        self.handled = [*self.handled, handled_id(update_id)][-HANDLED_KEPT:]

    def has_handled(self, update_id: int | str) -> bool:
        return handled_id(update_id) in self.handled

    @property
    def chat(self) -> ChatRef:
        """Where the room's table is shown."""
        return ChatRef(self.platform, self.chat_id, self.thread_id)

    def bot_seed(self, seat: int) -> int:
        """The seed of the bot playing `seat`, drawn one-way from the room's key."""
        return keyed(self.seed, BOT_SALT, seat)

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def host(self) -> Seat | None:
        """The seat a table is named after when its chat has no name: its opener's, else
        its first person's (the opener may have left a lobby)."""
        people = [seat for seat in self.seats if seat.user_id is not None]
        opener = [seat for seat in people if seat.user_id == self.creator]
        return next(iter(opener or people), None)

    def tips_shown(self) -> bool:
        """Whether players are offered tips: at a table that asks for them, and always at
        one with bots (a child learning against them)."""
        return self.settings.tips or any(seat.bot is not None for seat in self.seats)

    def humans(self) -> list[int]:
        return [s.user_id for s in self.seats if s.user_id is not None]

    def is_bot_seat(self, seat: int) -> bool:
        return self.seats[seat].bot is not None or self.seats[seat].removed

    def bots_waiting(self) -> list[int]:
        """The bot seats yet to act in this phase (those that let it go by excepted)."""
        if self.game is None or self.status != "playing":
            return []
        to_act = find_game(self.settings.preset)[0].to_act(self.game)
        return [s for s in to_act if self.is_bot_seat(s) and s not in self.passed]

    def next_due(self) -> float:
        """When this room next needs a timer or a bot: the sweeper's clock for it."""
        if self.deadline is None or self.bots_waiting():
            # a bot's turn: due as soon as it began
            return self.updated
        reminder = self.reminder_at()
        if not self.reminded and reminder < self.deadline:
            return reminder
        return self.deadline

    def reminder_at(self) -> float:
        """When the players yet to act in this phase are nudged."""
        return (self.turn_started or self.updated) + self.settings.reminder_after
