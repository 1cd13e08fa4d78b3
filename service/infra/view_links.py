"""Each person's link key (service.access.checks: WhatsApp's links to a table's view are
signed with it), a field of their `user:<id>` hash. It is made on their first link and
dies with the hash when they are forgotten (service.infra.forget deletes it), so every
link made before is refused then; a new key is random, so no old link ever matches it.
`ViewAccess` is the view's one door: it checks both kinds of visitor with the settings."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import redis

from service.access.checks import (
    MiniAppLaunch,
    Refusal,
    Refused,
    ViewGrant,
    check_init_data,
    check_link,
    new_link,
    renew_link,
)
from service.infra.keys import user_key
from service.settings import Settings

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


@dataclass(frozen=True)
class ViewAccess:
    """Who opens a view, with this service's settings: the checks of service.access.checks
    wired to the bot's token, the link secret, the lifetimes, Redis and the clock."""

    client: redis.Redis
    bot_token: str
    link_secret: bytes | None  # None: WhatsApp's links are off
    max_age: int
    skew: int
    link_ttl: int
    link_lifetime: int
    people_ttl: int
    clock: Callable[[], float] = time.time

    @classmethod
    def of(cls, client: redis.Redis, settings: Settings, bot_token: str) -> ViewAccess:
        secret = settings.view_link_secret
        return cls(
            client,
            bot_token,
            secret.get_secret_value().encode() if secret and secret.get_secret_value() else None,
            settings.webapp_max_age,
            settings.webapp_clock_skew,
            settings.view_link_ttl,
            settings.view_link_lifetime,
            settings.people_retention,
        )

    def telegram(self, init_data: str) -> MiniAppLaunch | Refused:
        """The person a Mini App's initData names, if Telegram signed it for our bot."""
        return check_init_data(
            init_data, self.bot_token, now=self.clock(), max_age=self.max_age, skew=self.skew
        )

    def whatsapp(self, token: str) -> ViewGrant | Refused:
        """The person and table a view link names, if we signed it and it still holds."""
        if self.link_secret is None:
            return Refused(Refusal.NO_LINKS)
        key_of = partial(known_link_key, self.client)
        return check_link(token, self.link_secret, key_of, now=self.clock())

    def link(self, person: int, room_id: str) -> str | None:
        """A fresh link token for the person's view of a table (None: links are off)."""
        if self.link_secret is None:
            return None
        key = link_key(self.client, person, self.people_ttl)
        return new_link(self.link_secret, key, person, room_id, now=self.clock(), ttl=self.link_ttl)

    def renew(self, grant: ViewGrant) -> str | Refused:
        """The next token of a link just checked (`whatsapp`), for an open view."""
        key = known_link_key(self.client, grant.person)
        if self.link_secret is None or key is None:
            return Refused(Refusal.REVOKED)
        now, ttl, lifetime = self.clock(), self.link_ttl, self.link_lifetime
        return renew_link(self.link_secret, key, grant, now=now, ttl=ttl, lifetime=lifetime)
