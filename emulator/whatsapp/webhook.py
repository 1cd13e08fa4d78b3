"""Webhook delivery, as Meta does it for a WhatsApp Business Account.

Subscribing: before a callback URL is taken, Meta calls it once,
`GET <url>?hub.mode=subscribe&hub.challenge=<number>&hub.verify_token=<token>`, and
takes it only if the answer is 200 with exactly the challenge as its body.

Delivering: each event (a user's message, a message's status, a template's review) is
POSTed as `{"object": "whatsapp_business_account", "entry": [...]}`, signed with
`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app
secret>` (and the older `X-Hub-Signature: sha1=...`). The body is JSON with non-ASCII
characters and slashes escaped (`\\u00e9`, `\\/`), as Meta writes it: a service must
check the signature on the bytes it got, not on JSON it re-serialised. An answer other
than 2xx, or none in time, is a failure: the same body is posted again later, "with
decreasing frequency", for up to 7 days; nothing is dropped before then. Meta gives no
order and may deliver an event twice; these knobs make that happen here, each drawn from
one random generator seeded by the config (repeatable runs):

- `duplicates`: the chance that a POST, once answered 2xx, is posted once more;
- `batch`: the chance that an event waits to share its POST with the next one (up to
  `batch_max` events: several `entry[]`, several `changes[]`, several `messages[]` or
  `statuses[]` in one value);
- `reorder`: the chance that an event is posted after the next one.

A batched or reordered event waits at most `hold` seconds for the next one. For runs
that must repeat exactly, pause delivery, act, then resume: the plan is then made from
the same events in the same order.

developers.facebook.com/docs/whatsapp/cloud-api/guides/set-up-webhooks,
developers.facebook.com/docs/graph-api/webhooks/getting-started (signatures),
developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components (payloads).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from emulator.whatsapp.config import RETRY_FOR, RETRY_SCHEDULE, WhatsAppConfig
from emulator.whatsapp.world import WaWorld

JSON = dict[str, Any]
FIELDS = ("messages", "message_template_status_update")


class WebhookRefused(Exception):
    """The callback URL did not pass Meta's verification request."""


@dataclass
class Subscription:
    url: str
    verify_token: str
    fields: tuple[str, ...] = ("messages",)


@dataclass
class Knobs:
    duplicates: float = 0.0
    batch: float = 0.0
    batch_max: int = 5
    reorder: float = 0.0
    hold: float = 0.5

    @classmethod
    def of(cls, config: WhatsAppConfig) -> Knobs:
        return cls(config.duplicates, config.batch, config.batch_max, config.reorder, config.hold)


@dataclass
class Event:
    id: int
    field: str
    value: JSON
    queued: float  # real (monotonic) time
    duplicate: bool
    join_next: bool
    swap: bool
    swapped: bool = False


@dataclass
class Post:
    id: int
    events: list[int]
    body: bytes
    signature: str
    signature_sha1: str
    created: float  # emulator time
    duplicate: bool = False  # post it once more after it is answered 2xx
    duplicate_of: int | None = None
    attempts: int = 0
    step: int = 0  # where it is in the retry schedule
    waited: float = 0.0  # seconds of the (uncompressed) schedule waited so far
    due_real: float = 0.0
    due_clock: float = 0.0
    key: int = 0  # unique to this Post (a duplicate shares its original's id)


def serialise(payload: JSON) -> bytes:
    """JSON as Meta writes it: ASCII only (\\uXXXX, lowercase hex) and `\\/` for `/`."""
    return (
        json.dumps(payload, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/").encode()
    )


def sign(secret: str, body: bytes, digest: str = "sha256") -> str:
    mac = hmac.new(secret.encode(), body, getattr(hashlib, digest)).hexdigest()
    return f"{digest}={mac}"


class Webhooks:
    def __init__(
        self,
        world: WaWorld,
        config: WhatsAppConfig,
        client: Callable[[], httpx.AsyncClient],
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.world = world
        self.config = config
        self.knobs = Knobs.of(config)
        self.rng = random.Random(config.seed)
        self.subscription: Subscription | None = None
        self.paused = False
        self.events: list[Event] = []  # not yet in a POST
        self.posts: list[Post] = []  # waiting to be posted (new, or to retry)
        self.in_flight: set[int] = set()
        self._client = client
        self._monotonic = monotonic
        self._next_event = 1
        self._next_post = 1
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._flush = False
        self._keys = 0

    # ----- settings ----------------------------------------------------------

    def reseed(self, seed: int) -> None:
        self.rng = random.Random(seed)

    async def subscribe(self, url: str, verify_token: str, fields: tuple[str, ...]) -> JSON:
        """Meta's verification request, then the URL is taken (or WebhookRefused)."""
        for name in fields:
            if name not in FIELDS:
                raise ValueError(f"unknown webhook field {name!r} (known: {', '.join(FIELDS)})")
        challenge = str(secrets.randbelow(2**31 - 10**9) + 10**9)
        params = {
            "hub.mode": "subscribe",
            "hub.challenge": challenge,
            "hub.verify_token": verify_token,
        }
        try:
            response = await self._client().get(url, params=params, timeout=10.0)
        except httpx.HTTPError as error:
            self.world.record("verification", url=url, status=None, error=type(error).__name__)
            raise WebhookRefused(
                f"The callback URL couldn't be validated: it could not be reached "
                f"({type(error).__name__})."
            ) from None
        answer = response.content
        self.world.record(
            "verification",
            url=url,
            status=response.status_code,
            challenge=challenge,
            answer=answer[:200].decode(errors="replace"),
        )
        if response.status_code != 200 or answer != challenge.encode():
            raise WebhookRefused(
                "The callback URL or verify token couldn't be validated: expected a 200 "
                f"answer whose body is exactly {challenge!r}, got {response.status_code} "
                f"{answer[:100]!r}."
            )
        self.subscription = Subscription(url, verify_token, fields)
        for post in self.posts:  # what waited goes to the new URL at once
            post.due_real = post.due_clock = 0.0
        self.wake()
        return self.info()

    def unsubscribe(self) -> None:
        self.subscription = None

    def info(self) -> JSON:
        sub = self.subscription
        return {
            "url": sub.url if sub else None,
            "fields": list(sub.fields) if sub else [],
            "paused": self.paused,
            "waiting_events": len(self.events),
            "waiting_posts": len(self.posts),
            "in_flight": len(self.in_flight),
            "knobs": {
                "duplicates": self.knobs.duplicates,
                "batch": self.knobs.batch,
                "batch_max": self.knobs.batch_max,
                "reorder": self.knobs.reorder,
                "hold": self.knobs.hold,
            },
        }

    def pause(self, paused: bool) -> None:
        """Hold POSTs; on resume, what waited is planned at once (no event waits for a
        next one that is not there), so a paused run repeats exactly."""
        if self.paused and not paused:
            self._flush = True
        self.paused = paused
        self.wake()

    @property
    def idle(self) -> bool:
        return not self.events and not self.posts and not self.in_flight

    # ----- events ------------------------------------------------------------

    def enqueue(self, field_name: str, value: JSON) -> Event | None:
        """An event for the business; dropped (and logged) when no callback URL takes it,
        as Meta has nowhere to send it."""
        sub = self.subscription
        draws = (self.rng.random(), self.rng.random(), self.rng.random())
        if sub is None or field_name not in sub.fields:
            self.world.record("event_dropped", field=field_name, value=value, why="no subscription")
            return None
        event = Event(
            id=self._next_event,
            field=field_name,
            value=value,
            queued=self._monotonic(),
            duplicate=draws[0] < self.knobs.duplicates,
            join_next=draws[1] < self.knobs.batch,
            swap=draws[2] < self.knobs.reorder,
        )
        self._next_event += 1
        self.world.record("event", event=event.id, field=field_name, value=value)
        self.events.append(event)
        self.wake()
        return event

    def wake(self) -> None:
        if self._closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no running loop: the pump starts on the next wake
            return
        if self._task is not None and self._task.get_loop() is not loop:
            # A new event loop (a TestClient used without `with` runs one per request).
            self._wake = asyncio.Event()
            self._task = None
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._pump())

    async def close(self) -> None:
        self._closed = True
        tasks = [t for t in (self._task, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ----- planning: events into POSTs ---------------------------------------

    def _plan(self, now: float) -> float | None:
        """Move events into POSTs as the knobs say; when an event waits for the next
        one, the time to look again."""
        events = self.events
        hold = 0.0 if self._flush else self.knobs.hold
        self._flush = False
        while events:
            head = events[0]
            if head.swap and not head.swapped:
                if len(events) >= 2:
                    events[0], events[1] = events[1], events[0]
                    head.swapped = events[0].swapped = True
                    continue
                if now - head.queued < hold:
                    return head.queued + hold
                head.swapped = True
            group = [head]
            while group[-1].join_next and len(group) < self.knobs.batch_max:
                if len(group) < len(events):
                    group.append(events[len(group)])
                elif now - group[-1].queued < hold:
                    return group[-1].queued + hold
                else:
                    break
            del events[: len(group)]
            self.posts.append(self._post(group))
        return None

    def _post(self, group: list[Event]) -> Post:
        config = self.config
        entries: list[JSON] = []
        last_change: JSON | None = None
        for index, event in enumerate(group):
            value = json.loads(json.dumps(event.value))
            if index and last_change is not None and self._merge(last_change, event, value):
                continue
            change = {"value": value, "field": event.field}
            if not entries or (index and self.rng.random() < 0.5):
                entry: JSON = {"id": config.waba_id}
                if event.field != "messages":
                    entry["time"] = int(self.world.clock.now())
                entry["changes"] = []
                entries.append(entry)
            entries[-1]["changes"].append(change)
            last_change = change
        body = serialise({"object": "whatsapp_business_account", "entry": entries})
        post = Post(
            id=self._next_post,
            events=[e.id for e in group],
            body=body,
            signature=sign(config.app_secret, body),
            signature_sha1=sign(config.app_secret, body, "sha1"),
            created=self.world.clock.now(),
            duplicate=any(e.duplicate for e in group),
            key=self._next_key(),
        )
        self._next_post += 1
        return post

    def _next_key(self) -> int:
        self._keys += 1
        return self._keys

    def _merge(self, change: JSON, event: Event, value: JSON) -> bool:
        """Put an event's messages (or statuses) into the previous change's value, now
        and then, as Meta batches them."""
        if change["field"] != "messages" or event.field != "messages":
            return False
        into = change["value"]
        kind = "messages" if "messages" in value else "statuses"
        if kind not in into or self.rng.random() >= 0.5:
            return False
        into[kind].extend(value[kind])
        if kind == "messages":
            known = {c.get("user_id") for c in into["contacts"]}
            into["contacts"].extend(c for c in value["contacts"] if c.get("user_id") not in known)
        return True

    # ----- posting -----------------------------------------------------------

    def _due(self, now_real: float, now_clock: float) -> list[Post]:
        room = max(1, self.config.webhook_concurrency) - len(self.in_flight)
        due = [
            p
            for p in self.posts
            if p.key not in self.in_flight and (p.due_real <= now_real or p.due_clock <= now_clock)
        ]
        return due[: max(0, room)]

    async def _pump(self) -> None:
        while True:
            self._wake.clear()
            now = self._monotonic()
            timeouts: list[float] = []
            if self.subscription is not None and not self.paused:
                held = self._plan(now)
                if held is not None:
                    timeouts.append(held - now)
                for post in self._due(now, self.world.clock.now()):
                    self.in_flight.add(post.key)
                    task = asyncio.get_running_loop().create_task(self._deliver(post))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                waiting = [p.due_real for p in self.posts if p.key not in self.in_flight]
                if waiting:
                    timeouts.append(min(waiting) - now)
            timeout = max(0.0, min(timeouts)) if timeouts else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def _deliver(self, post: Post) -> None:
        try:
            sub = self.subscription
            if sub is None:
                return
            post.attempts += 1
            headers = {
                "Content-Type": "application/json",
                "X-Hub-Signature-256": post.signature,
                "X-Hub-Signature": post.signature_sha1,
                "User-Agent": "facebookexternalua",
            }
            status: int | None = None
            error: str | None = None
            answer = ""
            try:
                response = await self._client().post(
                    sub.url, content=post.body, headers=headers, timeout=self.config.webhook_timeout
                )
                status = response.status_code
                answer = response.text[:500]
                if not 200 <= status < 300:
                    error = f"answered {status}"
            except httpx.TimeoutException:
                error = "timed out"
            except httpx.HTTPError as exc:
                error = f"connection failed: {type(exc).__name__}"
            self.world.record(
                "delivery",
                post=post.id,
                events=post.events,
                attempt=post.attempts,
                url=sub.url,
                status=status,
                error=error,
                answer=answer,
                duplicate_of=post.duplicate_of,
                body=json.loads(post.body),
                raw=post.body.decode(),
                signature=post.signature,
            )
            if error is None:
                self._done(post)
            else:
                self._retry(post)
        finally:
            self.in_flight.discard(post.key)
            self.wake()

    def _done(self, post: Post) -> None:
        if post in self.posts:
            self.posts.remove(post)
        if post.duplicate and post.duplicate_of is None:
            again = Post(  # the same POST once more: its id, its body, its signature
                id=post.id,
                events=post.events,
                body=post.body,
                signature=post.signature,
                signature_sha1=post.signature_sha1,
                created=post.created,
                duplicate_of=post.id,
                key=self._next_key(),
            )
            self.posts.insert(0, again)

    def _retry(self, post: Post) -> None:
        delay = RETRY_SCHEDULE[min(post.step, len(RETRY_SCHEDULE) - 1)]
        post.step += 1
        post.waited += delay
        now = self.world.clock.now()
        if post.waited > RETRY_FOR or now - post.created > RETRY_FOR:
            # Meta's 7 days are over: it gives up on the event.
            self.world.record("delivery_expired", post=post.id, events=post.events)
            if post in self.posts:
                self.posts.remove(post)
            return
        compression = max(self.config.retry_compression, 1e-9)
        post.due_real = self._monotonic() + delay / compression
        post.due_clock = now + delay


__all__ = ["FIELDS", "Knobs", "Subscription", "WebhookRefused", "Webhooks", "serialise", "sign"]
