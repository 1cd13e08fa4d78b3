"""The table's view in `burro serve` (#39; docs/mini-app.md): one more front end behind
the desk, which no platform's code imports.

- `GET /view`: the page (service/view/page.*: HTML, CSS and JavaScript inline, nothing
  loaded from elsewhere), under a strict Content-Security-Policy.
- `POST /view/open` {init_data, room | link, lang}: who is looking, checked through
  `ViewAccess` (Telegram's signed initData, or a link this server signed), answered with
  a view token (a link token for that person and table), the picture their seat may see
  (the public table for someone without one), the page's words in their language, and
  when the token ends. A refusal is 401 with its reason said in the page's language.
- `GET /view/events` (the token in `Authorization: Bearer`, never in the address):
  server-sent events, each a whole picture for that reader, from `service.view.live`;
  a comment every `HEARTBEAT` seconds; a new token before the current one ends (until
  the link's lifetime is over: then an `end` event says so, as when the table is gone).
- `POST /view/press` {tap, mark} with the token: the tap as a button's press of that
  person, handled by the desk (its dedupe by `mark`, a per-tap id the page makes; its
  stale check; its answer), answered with the popup's words.

Who may look is `service.access` (pure checks), wired to the settings and each person's
link key by `service.infra.view_links`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import redis
import redis.asyncio
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from service.access.checks import MiniAppLaunch, Refused, ViewGrant
from service.desk.asks import Place, PressAsk, Request, Sender
from service.desk.desk import Desk
from service.desk.ports import Links, Manual
from service.i18n import LANGUAGES, Translator, _, language_for
from service.infra.keys import room_key
from service.infra.outage import UNAVAILABLE
from service.infra.view_links import ViewAccess
from service.platforms.base import Webhook
from service.services import Services
from service.settings import Settings
from service.table.games import rules_of
from service.table.identity import TELEGRAM
from service.table.room import Room
from service.ui import games, tokens
from service.ui.intents import Move, Press
from service.ui.picture import BOT, YOU, Picture, SeatPicture, pack
from service.ui.screens import spanish_suits, table_name
from service.view import page, texts
from service.view.live import Live, Paint, Watcher, reader_of

log = logging.getLogger("burro.view")
HEARTBEAT = 15.0  # seconds between comments on a quiet stream (proxies drop idle ones)
RENEW_BEFORE = 300  # seconds before a token ends that the stream sends the next one
MAX_BODY = 16 * 1024  # bytes: an initData is under 1 KB, a tap 64 bytes
_MARK = re.compile(r"[A-Za-z0-9_-]{8,40}")
_TOKEN_DOMAIN = b"burro view tokens 1"  # the view's own key, without a link secret
NOT_STARTED = _("The game has not started yet.")


def webhook(
    settings: Settings,
    svc: Services,
    client: redis.Redis,
    aclient: redis.asyncio.Redis,
    links: Links,
    manuals: Mapping[str, Manual],
) -> Webhook:
    """The view's routes, and its live updates started and stopped with `serve`."""
    view = TableView(ViewAccess.of(client, settings, bot_token(settings)), svc, aclient)
    view.desks = {name: Desk(svc, manual, links) for name, manual in manuals.items()}
    return Webhook(view.routes(), view.live.start, view.live.stop)


def bot_token(settings: Settings) -> str:
    token = settings.telegram_token
    return token.get_secret_value() if token is not None else ""


def with_token_key(access: ViewAccess) -> ViewAccess:
    """The view signs its tokens with the link secret; without one (WhatsApp's links are
    off) with a key drawn from the bot's token, so a Mini App's view works all the same."""
    if access.link_secret is not None:
        return access
    key = hmac.new(access.bot_token.encode(), _TOKEN_DOMAIN, hashlib.sha256).digest()
    return replace(access, link_secret=key)


@dataclass(frozen=True)
class Opened:
    """A person let in: who, which table, in which language when they have no seat, and
    their token with what it grants."""

    person: int
    room_id: str
    lang: str
    token: str
    grant: ViewGrant


class Refusal(Exception):
    """A request the view turns down: its status and reason (service.view.texts)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class TableView:
    """The view's routes over one process's `Live` updates."""

    def __init__(
        self,
        access: ViewAccess,
        svc: Services,
        aclient: redis.asyncio.Redis,
        paint: Paint | None = None,  # the game's painter, unless a test paints by hand
    ) -> None:
        self.access, self.svc, self.aclient = with_token_key(access), svc, aclient
        self.paint: Paint = paint or self.painted
        self.live = Live(aclient, self.load, self.paint)
        self.desks: dict[str, Desk] = {}

    def routes(self) -> list[Route]:
        return [
            Route("/view", self.page, methods=["GET"]),
            Route("/view/open", guarded(self.open), methods=["POST"]),
            Route("/view/events", guarded(self.events), methods=["GET"]),
            Route("/view/press", guarded(self.press), methods=["POST"]),
        ]

    # ----- the room and its pictures ----------------------------------------------------

    async def load(self, room_id: str) -> Room | None:
        return self.svc.store.parse(await self.aclient.get(room_key(room_id)))

    def painted(self, room: Room, seat: int | None, lang: str) -> str:
        """The reader's picture as the page's JSON (a seat's, or the public table's)."""
        painter = games.painter(room, lang, self.svc.bot_username)
        if room.game is None:  # a lobby, or a table cancelled before its game
            return pack(waiting(room, seat, painter.tr), limit=None)
        return pack(painter.picture(seat), limit=None)

    # ----- GET /view ------------------------------------------------------------------

    async def page(self, request: HttpRequest) -> Response:
        made = page.page()
        return Response(made.html, media_type="text/html; charset=utf-8", headers=made.headers)

    # ----- POST /view/open --------------------------------------------------------------

    async def open(self, request: HttpRequest) -> Response:
        body = await json_body(request)
        hint = lang_of(body.get("lang"))
        try:
            opened = await self.opened(body, hint)
            room = await self.load(opened.room_id)
            if room is None:
                raise Refusal(404, "gone")
        except Refusal as refusal:
            return refused(refusal, hint)
        seat, lang = reader_of(room, opened.person, opened.lang)
        answer = {
            "token": opened.token,
            "expires": opened.grant.expires,
            "renew": self.renew_at(opened.grant),
            "lang": lang,
            "seated": seat is not None,
            "picture": json.loads(self.paint(room, seat, lang)),
            "words": texts.page_words(Translator(lang)),
            "help": texts.help_texts(room, lang, self.svc.bot_username),
        }
        return JSONResponse(answer, headers=page.NO_STORE)

    async def opened(self, body: dict[str, Any], hint: str) -> Opened:
        init_data, link = body.get("init_data"), body.get("link")
        if isinstance(init_data, str):
            return self.launched(self.access.telegram(init_data), body.get("room"), hint)
        if isinstance(link, str):
            grant = self.granted(link)
            token = self.access.renew(grant)  # the same line: its lifetime is not reset
            if isinstance(token, Refused):
                raise Refusal(401, token.reason)
            return Opened(grant.person, grant.room_id, self.lang(grant.person, hint), token, grant)
        raise Refusal(400, "malformed")

    def launched(self, launch: MiniAppLaunch | Refused, asked: object, hint: str) -> Opened:
        """A Mini App's launch: the table its signed start parameter names, else the one
        the page's address names (it only says where to look: the seat decides)."""
        if isinstance(launch, Refused):
            raise Refusal(401, launch.reason)
        room_id = launch.start_param or (asked if isinstance(asked, str) else None)
        if not room_id:
            raise Refusal(400, "no_table")
        try:
            token = self.access.link(launch.user_id, room_id)
        except ValueError:  # no table's id
            raise Refusal(400, "no_table") from None
        assert token is not None  # with_token_key: there is always a key
        grant = self.granted(token)
        lang = self.lang(launch.user_id, launch.language_code or hint)
        return Opened(launch.user_id, room_id, lang, token, grant)

    def lang(self, person: int, hint: str | None) -> str:
        """The language of a person's view where they have no seat: theirs as chosen in
        the chat, else the one their Mini App or browser gives."""
        return self.svc.user_lang(person, hint)

    def granted(self, token: str) -> ViewGrant:
        grant = self.access.whatsapp(token)
        if isinstance(grant, Refused):
            raise Refusal(401, grant.reason)
        return grant

    def bearer(self, request: HttpRequest) -> tuple[ViewGrant, str]:
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise Refusal(401, "malformed")
        return self.granted(token.strip()), token.strip()

    def renew_at(self, grant: ViewGrant) -> int:
        """When an open view's stream sends the token after this one."""
        return grant.expires - min(RENEW_BEFORE, (grant.expires - grant.issued) // 3)

    # ----- GET /view/events -------------------------------------------------------------

    async def events(self, request: HttpRequest) -> Response:
        hint = lang_of(request.query_params.get("lang"))
        try:
            grant, _ = self.bearer(request)
        except Refusal as refusal:
            return refused(refusal, hint)
        # Watched before the room is read: a change from then on is painted for it too.
        watcher = self.live.watch(grant.person, grant.room_id, self.lang(grant.person, hint))
        try:
            room = await self.load(grant.room_id)
        except BaseException:
            self.live.unwatch(watcher)
            raise
        if room is None:
            self.live.unwatch(watcher)
            return refused(Refusal(404, "gone"), hint)
        seat, lang = reader_of(room, grant.person, watcher.lang)
        if watcher.latest is None:  # else a change's picture, newer, came first
            watcher.offer(self.paint(room, seat, lang))
        stream = self.stream(watcher, grant, Translator(lang))
        headers = page.NO_STORE | {"x-accel-buffering": "no"}
        return StreamingResponse(stream, media_type="text/event-stream", headers=headers)

    async def stream(
        self, watcher: Watcher, grant: ViewGrant, tr: Translator
    ) -> AsyncIterator[str]:
        """The reader's pictures as they change, their next tokens, and the end."""
        due = self.renew_at(grant)
        try:
            yield event("picture", watcher.latest or "{}")
            watcher.fresh.clear()
            while True:
                wait = due - self.access.clock()
                if wait <= 0:
                    renewed = self.renewed(grant)
                    if isinstance(renewed, str):  # the reason it ends
                        yield ended(renewed, tr)
                        return
                    # The last token of a line ends with it: nothing to renew until then.
                    last = renewed[0].expires <= grant.expires
                    grant, token = renewed
                    due = grant.expires if last else self.renew_at(grant)
                    if not last:
                        yield event("token", json.dumps({"token": token, "expires": grant.expires}))
                elif not await watcher.next(min(HEARTBEAT, wait)):
                    yield ": \n\n"
                elif watcher.gone:
                    yield ended("gone", tr)
                    return
                else:
                    yield event("picture", watcher.latest or "{}")
        finally:
            self.live.unwatch(watcher)

    def renewed(self, grant: ViewGrant) -> tuple[ViewGrant, str] | str:
        """The token after `grant`'s, checked as any other, or why there is none."""
        token = self.access.renew(grant)
        if isinstance(token, Refused):
            return str(token.reason)
        fresh = self.access.whatsapp(token)
        return str(fresh.reason) if isinstance(fresh, Refused) else (fresh, token)

    # ----- POST /view/press -------------------------------------------------------------

    async def press(self, request: HttpRequest) -> Response:
        body = await json_body(request)
        hint = lang_of(body.get("lang"))
        try:
            grant, _ = self.bearer(request)
            press, mark = pressed(body, grant)
            room = await self.load(grant.room_id)
            if room is None:
                raise Refusal(404, "gone")
        except Refusal as refusal:
            return refused(refusal, hint)
        handled = await self.desk_of(room, grant.person).handle(
            as_request(room, grant.person, press, mark)
        )
        if handled.outcome == "retry":
            words = texts.page_words(Translator(hint))
            return JSONResponse({"popup": words["busy"], "retry": True}, status_code=503)
        reply = handled.reply
        popup = texts.for_the_view(reply.popup, Translator(hint))
        answer = {"popup": popup, "alert": reply.alert, "outcome": handled.outcome}
        return JSONResponse(answer, headers=page.NO_STORE)

    def desk_of(self, room: Room, person: int) -> Desk:
        """The desk of the person's platform (its words, should the desk need them)."""
        seat = room.seat_of(person)
        platform = room.seats[seat].platform if seat is not None else TELEGRAM
        return self.desks.get(platform) or self.desks[TELEGRAM]


def waiting(room: Room, seat: int | None, tr: Translator) -> Picture:
    """A table with no game yet: who sits there, and that the game has not started."""
    people = tuple(
        SeatPicture(s.name, 0, "", (YOU if i == seat else 0) | (BOT if s.bot else 0))
        for i, s in enumerate(room.seats)
    )
    words = _("The game was cancelled.") if room.status == "cancelled" else NOT_STARTED
    rules = rules_of(room.settings)
    style: Literal["spanish", "french"] = (
        "spanish" if spanish_suits(rules.deck, rules.suit_style) else "french"
    )
    return Picture(style, table_name(room, tr), people, status=tr.gettext(words))


def guarded(
    handler: Callable[[HttpRequest], Awaitable[Response]],
) -> Callable[[HttpRequest], Awaitable[Response]]:
    """A route answering 503 while Redis is away: the page tries again by itself."""

    async def route(request: HttpRequest) -> Response:
        try:
            return await handler(request)
        except UNAVAILABLE as error:
            log.warning("view: %s not answered, Redis away: %r", request.url.path, error)
            content = {"reason": "unavailable", "retry": True}
            return JSONResponse(content, status_code=503, headers=page.NO_STORE)

    return route


def pressed(body: dict[str, Any], grant: ViewGrant) -> tuple[Press, str]:
    """The move a tap asks, at the token's own table, and the tap's mark."""
    tap, mark = body.get("tap"), body.get("mark")
    if not isinstance(mark, str) or not _MARK.fullmatch(mark):
        raise Refusal(400, "malformed")
    press = tokens.press(tap if isinstance(tap, str) else None)
    if press is None or press.room != grant.room_id or not isinstance(press.what, Move):
        raise Refusal(400, "malformed")
    return press, mark


def as_request(room: Room, person: int, press: Press, mark: str) -> Request:
    """A tap as the desk reads a button's press of the person, on the table's chat; its
    mark is theirs alone (another person's page cannot spend it)."""
    seat = room.seat_of(person)
    name = room.seats[seat].name if seat is not None else ""
    platform = room.seats[seat].platform if seat is not None else TELEGRAM
    place = Place(room.chat_id, room.thread_id, room.private)
    return Request(
        f"view:{person:x}:{mark}", Sender(person, name, None, platform), place, PressAsk(press)
    )


async def json_body(request: HttpRequest) -> dict[str, Any]:
    """The request's JSON object ({} for anything else, too long included)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return {}
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return {}
    try:
        found = json.loads(body)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def lang_of(hint: object) -> str:
    """The language a page asks its words in (a Telegram-style code, or one of ours)."""
    if not isinstance(hint, str) or len(hint) > 16:
        return language_for(None)
    return hint if hint in LANGUAGES else language_for(hint)


def refused(refusal: Refusal, lang: str) -> Response:
    said = texts.refused(refusal.reason, Translator(lang))
    content = {"reason": refusal.reason, "message": said}
    return JSONResponse(content, status_code=refusal.status, headers=page.NO_STORE)


def event(name: str, data: str) -> str:
    """One server-sent event (`data` is one line of JSON)."""
    return f"event: {name}\ndata: {data}\n\n"


def ended(reason: str, tr: Translator) -> str:
    said = texts.refused(reason, tr)
    return event("end", json.dumps({"reason": reason, "message": said}, ensure_ascii=False))
