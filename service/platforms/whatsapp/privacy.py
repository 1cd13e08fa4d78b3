"""What WhatsApp keeps of a person beside the store's keys, deleted when they ask to be
forgotten (service.desk's `forget`): the names that lead to their player id (their
BSUID and phone), the count of messages sent them, their pace and their template mark."""

from __future__ import annotations

import redis

from service.infra import keys
from service.infra.store import text


def forget(client: redis.Redis, player: int) -> None:
    """Delete the person's WhatsApp keys (read before their `user:` hash goes)."""
    names = [text(n) for n in client.hmget(keys.user_key(player), ["wa", "phone"]) if n]
    client.delete(
        *(keys.wa_id_key(name) for name in names),
        keys.wa_seq_key(player),
        keys.wa_pace_key(player),
        keys.wa_template_key(player),
    )
