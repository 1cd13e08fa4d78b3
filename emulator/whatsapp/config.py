"""What the local WhatsApp Cloud API starts with: the business's ids and secrets, its cast
of WhatsApp users, and its knobs. Defaults are for local use; `fast()` is for tests."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class WaUserSpec:
    """A WhatsApp user. `user_id` is the business-scoped user id (BSUID): a two-letter
    country code, a dot, digits. `phone` is the wa_id (digits, country code first), None
    for a user who adopted a username and hides their number. `language` is only the
    cast's: WhatsApp never tells a business a user's language."""

    name: str
    user_id: str
    language: str
    phone: str | None = None
    username: str | None = None


# The WhatsApp side of the family (the Telegram one is emulator.config.FAMILY).
GRANDPARENTS: tuple[WaUserSpec, ...] = (
    WaUserSpec("Abuela", "ES.1502576394655801", "es", phone="34600000001"),
    WaUserSpec("Avó", "PT.1502576394655802", "pt-PT", phone="351910000002"),
    WaUserSpec("Vovó", "BR.1502576394655803", "pt-BR", username="vovo.rosa"),
    WaUserSpec("Nenek", "ID.1502576394655804", "id", phone="6281200000004"),
    WaUserSpec("Grandma", "US.1502576394655805", "en", phone="15550000005"),
)

# Meta's webhook retries: "with decreasing frequency ... for up to 7 days"
# (developers.facebook.com/docs/whatsapp/cloud-api/guides/set-up-webhooks). The delays
# between attempts, in seconds; the last one repeats until 7 days have gone by.
RETRY_SCHEDULE: tuple[float, ...] = (
    5,
    15,
    60,
    300,
    900,
    1800,
    3600,
    2 * 3600,
    4 * 3600,
    8 * 3600,
    12 * 3600,
)
RETRY_FOR = 7 * 24 * 3600.0


@dataclass(frozen=True)
class WhatsAppConfig:
    token: str = "local-whatsapp-token"
    phone_number_id: str = "100000000000001"
    display_phone_number: str = "15550009999"
    waba_id: str = "200000000000001"
    app_secret: str = "local-app-secret"
    verified_name: str = "Burro"
    users: tuple[WaUserSpec, ...] = GRANDPARENTS
    # Pacing (off for tests of other things, like the Telegram side's --no-flood-limits):
    # a token bucket per user of `pair_burst` messages refilled one per
    # `pair_refill_seconds`, and `throughput` messages a second per phone number.
    limits: bool = True
    pair_burst: int = 5
    pair_refill_seconds: float = 6.0
    throughput: int = 80
    # A new template is APPROVED this many seconds (emulator clock) after it was made.
    approval_delay: float = 0.0
    # Webhook delivery: Meta's schedule divided by `retry_compression` (real seconds);
    # an answer slower than `webhook_timeout` is a failure; at most `webhook_concurrency`
    # POSTs at once.
    retry_compression: float = 1.0
    webhook_timeout: float = 20.0
    webhook_concurrency: int = 1
    # Delivery knobs, drawn from one random generator seeded with `seed`: the chance
    # that a POST is delivered twice, that an event waits to go in one POST with the
    # next (`batch_max` events at most), that an event goes after the next one.
    seed: int = 0
    duplicates: float = 0.0
    batch: float = 0.0
    batch_max: int = 5
    reorder: float = 0.0
    # How long (real seconds) a batched or reordered event waits for the next one.
    hold: float = 0.5
    # The log keeps at most this many entries (oldest dropped).
    log_limit: int = 100_000

    def replace(self, **changes: object) -> WhatsAppConfig:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def fast() -> WhatsAppConfig:
    """For fast tests: no pacing limits, Meta's retry schedule a thousand times quicker,
    short holds."""
    return WhatsAppConfig(limits=False, retry_compression=1000.0, hold=0.05)


__all__ = ["GRANDPARENTS", "RETRY_FOR", "RETRY_SCHEDULE", "WaUserSpec", "WhatsAppConfig", "fast"]
