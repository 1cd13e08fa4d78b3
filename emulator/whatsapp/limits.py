"""Pacing, as the Cloud API applies it to a business's messages, on the emulator's clock.

- The pair rate: about one message every 6 seconds to the same user, short bursts
  allowed; past it 131056 "(Business Account, Consumer Account) pair rate limit hit".
  Modelled as a token bucket per user: `pair_burst` tokens, one back every
  `pair_refill_seconds`.
- Throughput: 80 messages a second per business phone number (Meta's default); past it
  130429 "Rate limit hit". A sliding window of one second.

Both refuse synchronously (HTTP 400) and a refused message costs nothing.
developers.facebook.com/docs/whatsapp/cloud-api/overview#throughput and
developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.common.limits import SlidingWindow, TokenBucket
from emulator.whatsapp.config import WhatsAppConfig
from emulator.whatsapp.errors import PAIR_RATE, THROUGHPUT, GraphError

PAIR_DETAILS = (
    "Message failed to send because there were too many messages sent from this phone "
    "number to the same phone number in a short period of time."
)
THROUGHPUT_DETAILS = "Cloud API message throughput has been reached."


class Pacing:
    def __init__(self, config: WhatsAppConfig, clock: Callable[[], float]) -> None:
        self.config = config
        self.enabled = config.limits
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}  # by recipient
        self._sent = SlidingWindow()

    def take(self, recipient: str) -> None:
        """Count one message to `recipient`, or refuse it (131056 or 130429)."""
        if not self.enabled:
            return
        now = self._clock()
        if self._sent.wait(now, self.config.throughput, 1.0) > 0:
            raise GraphError(THROUGHPUT, THROUGHPUT_DETAILS)
        burst = self.config.pair_burst
        bucket = self._buckets.setdefault(recipient, TokenBucket(burst, now))
        if bucket.wait(now, burst, 1.0 / self.config.pair_refill_seconds) > 0:
            raise GraphError(PAIR_RATE, PAIR_DETAILS)
        bucket.take()
        self._sent.take(now)
