"""Configuration from the environment (docs/interfaces.md section 5); a `.env` file may set it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BURRO_", env_file=".env", extra="ignore")

    telegram_token: SecretStr | None = None  # required by `serve`
    telegram_api_url: str = "https://api.telegram.org"
    webhook_secret: SecretStr | None = None  # required by `serve`
    redis_url: str | None = None  # None: embedded Redis in `data_dir`
    redis_cluster: bool = False  # redis_url is a node of a Redis (or Valkey) Cluster
    # RQ's queues and the send budget; None: redis_url's Redis (not with a cluster)
    jobs_redis_url: str | None = None
    durable_replicas: int = 0  # replicas that must have a move before it is answered
    durable_wait_ms: int = 500  # how long a move waits for them (WAIT), then is refused
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: Path = Path("data")  # the embedded Redis keeps its files here
    max_body_bytes: int = 1 << 20  # larger webhook bodies get 413
    dedupe_ttl: int = 24 * 3600  # seconds an update_id is remembered
    retention: int = 7 * 24 * 3600  # seconds a finished game is kept
    lobby_idle: int = 2 * 24 * 3600  # seconds a lobby waits for a press before it is ended
    game_idle: int = 14 * 24 * 3600  # seconds a game waits for a player's move before it ends
    people_retention: int = 365 * 24 * 3600  # seconds a person's data outlives their last visit
    rooms_per_chat: int = 5  # open rooms (lobbies and games) at once in one chat's topics
    rooms_per_user: int = 10  # open rooms at once that one person opened
    rules_cooldown: int = 60  # seconds the Rules button posts to a chat at most once
    bot_delay: float = 1.5  # seconds a bot "thinks" before moving (0 in tests)
    bot_username: str = "burro_bot"  # used in deep links until getMe answers
    turn_timeout: int = 12 * 3600  # seconds, for new tables (each table may change it)
    reminder_after: int = 3 * 3600  # seconds, for new tables
    live_window: float = 60  # seconds since a player last acted or was prompted: live play
    pass_window: float | None = None  # passing game, new tables: seconds to choose a card
    response_window: float | None = None  # passing game, new tables: seconds to respond
    # new tables: the wins, points or letters a game ends at (None: the game's own, 5);
    # at most 5, the letters of B-U-R-R-O, so that it suits every game
    game_target: int | None = Field(default=None, ge=1, le=5)
    worker_maintenance: int = 5  # seconds between a worker's upkeep (revives its scheduler)
    sweep_every: int = 30  # seconds between sweeps for lost jobs
    sweep_grace: int = 30  # seconds a job may be late before the sweeper reschedules it
    rate_limits: bool = True  # hold Telegram's send limits (off for fast local tests)
    # Hands drawn as widgets (Bot API 10.4) in private chats, where the Bot API takes them
    # (serve's probe) and the player has not chosen text (/look); off: always text.
    telegram_widgets: bool = True
    # Widgets in groups too: the group's table drawn (Telegram's test server; production
    # takes widgets in private chats only). Off by default.
    telegram_widgets_in_groups: bool = False
    log_format: Literal["json", "console"] = "json"  # JSON lines for log collectors
    log_level: str = "INFO"
    worker_metrics_port: int | None = None  # a worker's /metrics and /healthz (None: off)
    shutdown_grace: int = 20  # seconds `serve` lets in-flight requests finish on SIGTERM
    public_url: str | None = None  # where Telegram reaches `serve` (for `burro set-webhook`)
    webhook_max_connections: int = 100  # Telegram's parallel webhook connections (1-100)
    # WhatsApp (the Cloud API): off unless the token, phone id, app secret and verify
    # token are all set (docs/interfaces.md section 5; service.platforms.whatsapp).
    whatsapp_token: SecretStr | None = None
    whatsapp_phone_id: str | None = None  # the business phone number's id
    whatsapp_app_secret: SecretStr | None = None  # key of the X-Hub-Signature-256 HMAC
    whatsapp_verify_token: SecretStr | None = None  # the GET handshake's hub.verify_token
    whatsapp_api_url: str = "https://graph.facebook.com"
    whatsapp_api_version: str = "v21.0"
    whatsapp_number: str | None = None  # the business number's digits, for wa.me invite links
    whatsapp_waba_id: str | None = None  # the Business Account (`burro whatsapp templates`)
    whatsapp_pair_rate: float = 6.0  # seconds between messages to one person (bursts aside)
    # The view of a table (#39; docs/mini-app.md). Telegram's Mini App: how old its signed
    # initData may be, and how far ahead of our clock its auth_date may run.
    webapp_max_age: int = Field(default=3600, ge=1)  # seconds
    webapp_clock_skew: int = Field(default=60, ge=0)  # seconds
    # WhatsApp's signed links to the view: the key they are signed with (None: no links),
    # how long one lasts, and how long an open view may renew it from the chat's link.
    view_link_secret: SecretStr | None = None
    view_link_ttl: int = Field(default=30 * 60, ge=60)  # seconds
    view_link_lifetime: int = Field(default=12 * 3600, ge=60)  # seconds renewals may reach
    # The bot's Mini App (BotFather's /newapp short name): the "🖼 Table" button opens the
    # view with it (service.platforms.telegram.view_buttons); "" leaves the button out.
    telegram_mini_app: str = Field(default="table", pattern=r"^([A-Za-z0-9_]{3,30})?$")

    @property
    def whatsapp(self) -> bool:
        """Whether WhatsApp is configured (all four of its secrets and ids given)."""
        values = (
            self.whatsapp_token,
            self.whatsapp_phone_id,
            self.whatsapp_app_secret,
            self.whatsapp_verify_token,
        )
        return all(
            v.get_secret_value() if isinstance(v, SecretStr) else v for v in values if v
        ) and all(values)

    def require_serve(self) -> tuple[str, str]:
        """The token and webhook secret, or a clear error naming what is missing."""
        missing = [
            name
            for name, value in (
                ("BURRO_TELEGRAM_TOKEN", self.telegram_token),
                ("BURRO_WEBHOOK_SECRET", self.webhook_secret),
            )
            if value is None or not value.get_secret_value()
        ]
        if missing:
            raise SystemExit(f"burro serve: set {' and '.join(missing)} (see README)")
        assert self.telegram_token is not None and self.webhook_secret is not None
        return self.telegram_token.get_secret_value(), self.webhook_secret.get_secret_value()
