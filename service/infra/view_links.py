"""Each person's link key (service.view.access: WhatsApp's links to a table's view are
signed with it), a field of their `user:<id>` hash. It is made on their first link and
dies with the hash when they are forgotten (service.infra.forget deletes it), so every
link made before is refused then; a new key is random, so no old link ever matches it."""

from __future__ import annotations

import secrets

import redis

from service.infra.keys import user_key

FIELD = "view_key"
KEY_BYTES = 16


def link_key(client: redis.Redis, person: int, people_ttl: int) -> bytes:
    """The person's link key, made now if they have none (asking for a link is a visit:
    their record's lifetime starts again, as with any other write to it)."""
    key = user_key(person)
    with client.pipeline() as pipe:
        pipe.hsetnx(key, FIELD, secrets.token_hex(KEY_BYTES))
        pipe.hget(key, FIELD)
        pipe.expire(key, people_ttl)
        _, found, _ = pipe.execute()
    return bytes.fromhex(found.decode())


def known_link_key(client: redis.Redis, person: int) -> bytes | None:
    """The person's link key if they have one; checking a link never makes one."""
    found = client.hget(user_key(person), FIELD)
    return bytes.fromhex(found.decode()) if isinstance(found, bytes) else None


def revoke_links(client: redis.Redis, person: int) -> None:
    """Kill every link of the person's at once (their next link gets a new key)."""
    client.hdel(user_key(person), FIELD)
