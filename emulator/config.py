"""What an emulator starts with: its cast of users and chats, and its knobs."""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.telegram.limits import FloodLimits
from emulator.whatsapp.config import WhatsAppConfig
from emulator.whatsapp.config import fast as fast_whatsapp


@dataclass(frozen=True)
class UserSpec:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    started_bot: bool = False  # has already pressed START in the bot's private chat


@dataclass(frozen=True)
class GroupSpec:
    id: int
    title: str
    members: tuple[str, ...]  # first names of users in the cast
    owner: str | None = None
    type: str = "supergroup"  # "group" or "supergroup"
    bot_member: bool = True  # every bot is a member from the start


@dataclass(frozen=True)
class Cast:
    users: tuple[UserSpec, ...]
    groups: tuple[GroupSpec, ...]


FAMILY = Cast(
    users=(
        UserSpec(100001, "Ana", "García", "ana_garcia", "es"),
        UserSpec(100002, "Ben", "Souza", "ben_souza", "pt-br"),
        UserSpec(100003, "Carla", "Jones", "carla_jones", "en"),
        UserSpec(100004, "Dan", "Putra", "dan_putra", "id"),
    ),
    groups=(
        GroupSpec(
            -1001000000001,
            "Family",
            members=("Ana", "Ben", "Carla", "Dan"),
            owner="Ana",
        ),
        # A basic group: Telegram upgrades such a group to a supergroup (a new id) when,
        # say, its history is made visible; the web chat's ⋯ menu does it here.
        GroupSpec(
            -4000000001,
            "Cousins",
            members=("Ana", "Ben", "Carla", "Dan"),
            owner="Ben",
            type="group",
        ),
    ),
)


@dataclass(frozen=True)
class EmulatorConfig:
    cast: Cast = FAMILY
    flood_limits: FloodLimits = field(default_factory=FloodLimits)
    # Bots are created on their token's first call; these exist from the start.
    tokens: tuple[str, ...] = ()
    # The first bot gets this username; later ones burro<N>_bot.
    bot_username: str = "burro_bot"
    bot_first_name: str = "Burro"
    # BotFather's per-bot settings, as a new bot has them on Telegram: privacy mode on
    # (/setprivacy), inline mode off (/setinline), inline feedback off
    # (/setinlinefeedback: the percentage of chosen inline results reported).
    privacy_mode: bool = True
    inline_mode: bool = False
    inline_placeholder: str = ""
    inline_feedback: int = 0
    # The Bot API version played: the newest reference's, or an older one's that lacks
    # ephemeral messages (emulator/telegram/older.py: "10.1").
    bot_api: str = "10.4"
    # Widgets (Bot API 10.4) in groups too, as on Telegram's test server; production
    # sends them to private chats only (emulator/telegram/widgets.py).
    widgets_in_groups: bool = False
    # Webhook delivery: a failed update is retried after retry_delay, doubling up to
    # retry_max_delay; an answer slower than webhook_timeout is a failure.
    webhook_retry_delay: float = 1.0
    webhook_retry_max_delay: float = 30.0
    webhook_timeout: float = 30.0
    # A callback or inline query not answered within this many seconds is "too old".
    answer_timeout: float = 15.0
    # The call and update log keeps at most this many entries (oldest dropped).
    log_limit: int = 200_000
    # The local WhatsApp Cloud API served beside it (emulator/whatsapp/).
    whatsapp: WhatsAppConfig = field(default_factory=WhatsAppConfig)


def fast_config(**overrides: object) -> EmulatorConfig:
    """A config for fast tests: no flood limits, quick webhook retries (and so for the
    WhatsApp side: no pacing limits, Meta's retry schedule a thousand times quicker)."""
    values: dict[str, object] = {
        "flood_limits": FloodLimits(enabled=False),
        "webhook_retry_delay": 0.05,
        "webhook_retry_max_delay": 0.5,
        "webhook_timeout": 10.0,
        "whatsapp": fast_whatsapp(),
    }
    values.update(overrides)
    return EmulatorConfig(**values)  # type: ignore[arg-type]
