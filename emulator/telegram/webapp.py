"""Mini Apps: the `initData` Telegram gives a Mini App's page when a user opens it, signed
as Telegram signs it for the bot (its Mini Apps page, "Validating data received via the
Mini App"): every field but `hash`, sorted by key as `key=value` lines, HMAC-SHA256'd
with the key HMAC-SHA256("WebAppData", bot token), in hex. The web chat and the driver
(`EmulatorDriver.open_mini_app`) both launch a Mini App through `launch`: tapping a
`web_app` button, following a direct link (`t.me/<bot>/<app>?startapp=`) to an app set
up with `EmulatorDriver.set_mini_app` (BotFather's /newapp), or asked for directly.

Telegram takes a Mini App's page over HTTPS only, but on its test server plain HTTP
too, for development. The local Telegram plays the test server for pages on this
machine (`127.0.0.1`, `localhost`, `::1`: `burro local` serves the view there, where no
certificate is) and production for any other address: plain HTTP to one is refused
with Telegram's words (`page_allowed`).

Telegram also adds `signature` (Ed25519 with its own secret key, for checks without the
token); nobody but Telegram can make one, so the emulator leaves it out, as older
Telegram apps did."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlparse

from starlette.routing import Route

from emulator.common.control import GET, POST, Args
from emulator.telegram.errors import bad_request
from emulator.telegram.world import JSON, PRESENT, Account, Bot, Chat

WEB_APP_VERSION = "9.1"  # the Mini Apps version the emulated Telegram apps report
START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,512}")  # what a direct link's `startapp` may be
APP_NAME = re.compile(r"[A-Za-z0-9_]{3,30}")  # a Mini App's short name (BotFather's /newapp)
MAIN_APP = ""  # the short name the bot's main Mini App is kept under
LOOPBACK = {"127.0.0.1", "localhost", "::1"}  # pages taken over plain HTTP (the test server's way)


@dataclass(frozen=True)
class Launch:
    """A Mini App opened by a user: what its page gets."""

    init_data: str  # Telegram.WebApp.initData, as the page reads it
    fields: dict[str, str]  # the same, decoded (hash included)

    def url(self, app_url: str) -> str:
        """The page's address as Telegram opens it: initData in the fragment's
        `tgWebAppData`, and a direct link's `startapp` as `tgWebAppStartParam`."""
        start = self.fields.get("start_param")
        base = app_url
        if start is not None:
            base += ("&" if "?" in app_url else "?") + urlencode({"tgWebAppStartParam": start})
        fragment = urlencode(
            {
                "tgWebAppData": self.init_data,
                "tgWebAppVersion": WEB_APP_VERSION,
                "tgWebAppPlatform": "web",
            }
        )
        return f"{base}#{fragment}"


def web_app_buttons(chat: Chat, markup: JSON | None) -> None:
    """Refuse `web_app` buttons where Telegram does: outside the private chat with the
    bot (BUTTON_TYPE_INVALID; a group gets a direct link instead), or not over HTTPS."""
    rows = (markup or {}).get("inline_keyboard") or []
    for button in (b for row in rows for b in row if "web_app" in b):
        if chat.type != "private":
            raise bad_request("BUTTON_TYPE_INVALID")
        url = button["web_app"].get("url") if isinstance(button["web_app"], dict) else None
        if not isinstance(url, str) or not page_allowed(url):
            raise bad_request(
                f"inline keyboard button Web App URL '{url}' is invalid: "
                "Only HTTPS links are allowed"
            )


def page_allowed(url: str) -> bool:
    """Whether a Mini App's page may be at `url`: HTTPS, or plain HTTP on this machine
    (as Telegram's test server takes plain HTTP: the module's doc)."""
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    return scheme == "https" or (scheme == "http" and parsed.hostname in LOOPBACK)


def init_data_hash(bot_token: str, fields: dict[str, str]) -> str:
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def sign(bot_token: str, fields: dict[str, str]) -> Launch:
    """The signed initData for these fields (any `hash` among them is replaced)."""
    signed = {k: v for k, v in fields.items() if k != "hash"}
    signed["hash"] = init_data_hash(bot_token, signed)
    # Percent-encoded as Telegram's apps do (spaces as %20, no `+`).
    raw = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in signed.items())
    return Launch(raw, signed)


def user_json(user: Account) -> str:
    """The `user` field: the WebAppUser object, compact JSON as Telegram sends it."""
    out = user.to_api()
    out.pop("is_bot", None)
    out["allows_write_to_pm"] = True
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def chat_instance(bot: Bot, chat: Chat) -> str:
    """A stable id of the chat the Mini App was opened from, as Telegram gives one."""
    digest = hashlib.sha256(f"{bot.id}:{chat.id}".encode()).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1)


def launch(
    bot: Bot,
    user: Account,
    *,
    chat: Chat | None = None,
    start_param: str | None = None,
    query_id: str | None = None,
    auth_date: int | None = None,
) -> Launch:
    """What a user's Telegram gives the bot's Mini App: from a `web_app` button (a
    `query_id`, for answerWebAppQuery), or from a direct link in a chat (`chat_type`,
    `chat_instance`, and its `startapp` as `start_param`)."""
    if start_param is not None and not START_PARAM.fullmatch(start_param):
        raise ValueError(f"startapp must be 1-512 of A-Z a-z 0-9 _ -: {start_param!r}")
    fields = {"user": user_json(user)}
    if chat is not None:
        fields["chat_instance"] = chat_instance(bot, chat)
        own = chat.type == "private" and chat.user is not None and chat.user.id == user.id
        fields["chat_type"] = "sender" if own else chat.type
    if start_param is not None:
        fields["start_param"] = start_param
    if query_id is not None:
        fields["query_id"] = query_id
    fields["auth_date"] = str(int(time.time()) if auth_date is None else auth_date)
    return sign(bot.token, fields)


def opened_json(opened: Launch, app_url: str | None, kind: str = "mini_app") -> JSON:
    """What the control API says of a Mini App opened (`url` only when it has one)."""
    return {
        "kind": kind,
        "init_data": opened.init_data,
        "fields": opened.fields,
        "url": opened.url(app_url) if app_url else None,
    }


def open_by_button(bot: Bot, user: Account, web_app: JSON) -> JSON:
    """A `web_app` button tapped (in the private chat with the bot: the only place it
    can be): the page at its URL, with a `query_id` for answerWebAppQuery."""
    opened = launch(bot, user, query_id=secrets.token_urlsafe(12))
    return opened_json(opened, str(web_app.get("url", "")), kind="web_app")


def open_by_link(bot: Bot, user: Account, path: str, query: str, chat: Chat | None) -> JSON | None:
    """A direct link to a Mini App, `t.me/<bot>/<app>?startapp=<param>` or, for the bot's
    main Mini App, `t.me/<bot>?startapp=<param>`, opened from `chat` (None: from no
    chat); None if the link is no such link."""
    parts = path.strip("/").split("/")
    asked = dict(parse_qsl(query, keep_blank_values=True))
    if len(parts) == 1 and "startapp" not in asked:
        return None  # a deep link to the bot's chat (?start=), not to a Mini App
    name = parts[1] if len(parts) > 1 else MAIN_APP
    app_url = bot.mini_apps.get(name)
    if len(parts) > 2 or app_url is None:
        raise ValueError(f"@{bot.username} has no Mini App {name or '(main)'}")
    start = asked.get("startapp") or None  # a bare ?startapp opens it with no parameter
    return opened_json(launch(bot, user, chat=chat, start_param=start), app_url)


class MiniAppControl:
    """The control API's Mini App routes: BotFather's /newapp (and the main Mini App of
    Bot Settings), and a user opening the bot's Mini App, from a button in their private
    chat with it or from a direct link in a chat (`chat`)."""

    def __init__(self, control: Any) -> None:
        self.control = control  # TelegramControl: names users, bots and chats

    def routes(self) -> list[Route]:
        route = self.control.route
        return [route("/mini_app", self.open, POST), route("/mini_apps", self.apps, [*GET, *POST])]

    def apps(self, args: Args) -> JSON:
        """The bot's Mini Apps by short name ("" the main one); `name` and `url` add one."""
        bot = self.control.world.find_bot(args.get("bot"))
        if "url" in args:
            name, url = str(args.get("name", MAIN_APP)), str(args["url"])
            if name != MAIN_APP and not APP_NAME.fullmatch(name):
                raise ValueError("a Mini App's short name is 3-30 of A-Z a-z 0-9 _")
            if not page_allowed(url):
                raise ValueError("a Mini App's URL must be HTTPS (or HTTP on this machine)")
            bot.mini_apps[name] = url
        return dict(bot.mini_apps)

    def open(self, args: Args) -> JSON:
        user = self.control.user(args)
        bot = self.control.world.find_bot(args.get("bot"))
        chat = self.control.conversation(args).chat if "chat" in args else None
        if chat is not None and not opens_from(user, chat):
            raise ValueError(f"{user.first_name} is not in that chat")
        query_id = None if chat is not None else secrets.token_urlsafe(12)
        start = args.get("start_param")
        opened = launch(bot, user, chat=chat, start_param=start, query_id=query_id)
        app_url = args.get("app_url")
        return opened_json(opened, str(app_url) if app_url else None)


def opens_from(user: Account, chat: Chat) -> bool:
    """Whether the user sees the chat (their own private chat, or a group they are in)."""
    if chat.type == "private":
        return chat.user is not None and chat.user.id == user.id
    return chat.members.get(user.id) in PRESENT
