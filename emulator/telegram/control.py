"""The control API under `/_emulator/`: what tests, benchmarks and the web chat use to act
as users and to read what happened. JSON in, `{"ok": true, "result": ...}` out; a refused
action is `{"ok": false, "error_code": 400, "description": ...}`.

Users are named by id, first name or username; chats by id, group title, or a user (that
user's private chat with the bot; `bot` picks the bot when there are several).
"""

from __future__ import annotations

from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.common.control import GET, POST, Args, ControlApi, fail, flag
from emulator.common.events import event_stream
from emulator.telegram.actions import ActionError, UserActions
from emulator.telegram.botapi import BotApi
from emulator.telegram.date_time import DEFAULT_ZONE, text_view, valid_zone
from emulator.telegram.ephemeral import restart_app
from emulator.telegram.errors import ApiError
from emulator.telegram.limits import FloodControl
from emulator.telegram.webapp import MiniAppControl
from emulator.telegram.webhook import Delivery
from emulator.telegram.widgets import WidgetControl
from emulator.telegram.world import JSON, PRESENT, Bot, Conversation, Message, World


def callback_query_view(world: World, query_id: str) -> JSON:
    """What /callback_queries/<id> answers: the press and how the bot answered it."""
    query = world.callback_queries.get(query_id)
    if query is None:
        raise LookupError("no such callback query")
    return {
        "query_id": query.id,
        "user_id": query.user_id,
        "data": query.data,
        "chat_id": query.chat_id,
        "message_id": query.message_id,
        "answer": query.answer,
    }


def inline_query_view(world: World, query_id: str) -> JSON:
    """What /inline_queries/<id> answers: the query and the bot's answer to it."""
    query = world.inline_queries.get(query_id)
    if query is None:
        raise LookupError("no such inline query")
    return {
        "query_id": query.id,
        "user_id": query.user_id,
        "query": query.query,
        "chat_id": query.chat_id,
        "answer": query.answer,
    }


class TelegramHalf(Protocol):
    """What the control API acts on: the local Telegram's parts (emulator.app.Emulator)."""

    world: World
    flood: FloodControl
    api: BotApi
    actions: UserActions

    def delivery(self, bot: Bot) -> Delivery: ...

    def set_flood_limits(self, enabled: bool) -> None: ...


class TelegramControl(ControlApi):
    """The control API's routes, one method each (a route's arguments in `args`)."""

    refused = (LookupError, ActionError, ValueError, TypeError)

    def __init__(self, emu: TelegramHalf) -> None:
        self.emu = emu
        self.world = emu.world
        self.actions = emu.actions

    def refusal(self, error: Exception) -> JSONResponse | None:
        """A Bot API error (a user's action refused as Telegram refuses it)."""
        if isinstance(error, ApiError):
            return fail(error.description, error.error_code)
        return None

    def routes(self) -> list[Route]:
        route = self.route
        return [
            route("/state", self.state, GET),
            route("/messages", self.messages, GET),
            route("/conversation", self.conversation_info, GET),
            route("/send_message", self.send_message, POST),
            route("/tap", self.tap, POST),
            route("/inline_query", self.inline_query, POST),
            route("/inline_queries/{query_id}", self.inline_query_state, GET),
            route("/choose_inline_result", self.choose_inline_result, POST),
            route("/callback_queries/{query_id}", self.callback_query_state, GET),
            route("/callback_answers", self.callback_answers, GET),
            route("/inline_answers", self.inline_answers, GET),
            route("/open_link", self.open_link, POST),
            route("/block", self.block, POST),
            route("/unblock", self.unblock, POST),
            route("/add_bot", self.add_bot, POST),
            route("/remove_bot", self.remove_bot, POST),
            route("/migrate", self.migrate, POST),
            route("/set_forum", self.set_forum, POST),
            route("/create_topic", self.create_topic, POST),
            route("/close_topic", self.close_topic, POST),
            route("/reopen_topic", self.reopen_topic, POST),
            route("/delete_topic", self.delete_topic, POST),
            route("/delete_message", self.delete_message, POST),
            route("/set_online", self.set_online, POST),
            route("/restart_app", self.restart_app, POST),
            route("/time_zone", self.time_zone, POST),
            route("/log", self.log, GET),
            route("/notifications", self.notifications, GET),
            route("/settings", self.settings, [*GET, *POST]),
            route("/bot_settings", self.bot_settings, [*GET, *POST]),
            route("/inject_error", self.inject_error, POST),
            route("/inject_delay", self.inject_delay, POST),
            route("/held", self.held, GET),
            route("/webhook", self.webhook, GET),
            route("/unknown_parameters", self.unknown_parameters, GET),
            *MiniAppControl(self).routes(),
            *WidgetControl(self, self.emu.api.widgets).routes(),
            Route("/events", self.events, methods=GET),
            Route("/files/{file_id}", self.file_content, methods=GET),
        ]

    # ----- naming users, chats and messages -----------------------------------

    def user(self, args: Args) -> Any:
        if "user" not in args:
            raise ValueError("missing 'user'")
        return self.world.find_user(args["user"])

    def conversation(self, args: Args, key: str = "chat") -> Conversation:
        if "chat_id" in args and "scope" in args:
            return self.world.conversation(int(args["chat_id"]), int(args["scope"]))
        if key not in args:
            raise ValueError(f"missing '{key}'")
        return self.world.find_conversation(args[key], args.get("bot"))

    def message(self, args: Args) -> Message:
        if args.get("ephemeral_message_id"):
            conv = self.conversation(args)
            ephemeral = conv.ephemeral.get(int(args["ephemeral_message_id"]))
            if ephemeral is None or ephemeral.deleted:
                raise LookupError("no such ephemeral message (or it was deleted)")
            return ephemeral
        if args.get("inline_message_id"):
            found = self.world.find_inline_message(str(args["inline_message_id"]))
        else:
            conv = self.conversation(args)
            found = self.world.find_message(conv.chat.id, conv.scope, int(args["message_id"]))
        if found is None:
            raise LookupError("no such message (or it was deleted)")
        return found

    def conversations_of(self, user_id: int) -> list[JSON]:
        out: list[JSON] = []
        for conv in self.world.conversations.values():
            chat = conv.chat
            if chat.migrated_to is not None:
                continue  # an upgraded group: its supergroup is listed instead
            if chat.is_group and chat.members.get(user_id) in PRESENT:
                out.append(self.group_entry(conv))
            elif chat.type == "private" and chat.id == user_id:
                bot = self.world.bots[conv.scope]
                out.append(
                    {
                        "chat_id": chat.id,
                        "scope": bot.id,
                        "title": bot.account.first_name,
                        "type": "private",
                        "bot_username": bot.username,
                        "started": (bot.id, user_id) in self.world.started,
                        "blocked": (bot.id, user_id) in self.world.blocked,
                    }
                )
        out.sort(key=lambda c: (c["type"] == "private", c["title"] or ""))
        return out

    def group_entry(self, conv: Conversation) -> JSON:
        chat = conv.chat
        topics = [{**topic.to_api(), "closed": topic.closed} for topic in chat.topics.values()]
        return {
            "chat_id": chat.id,
            "scope": 0,
            "title": chat.title,
            "type": chat.type,
            "is_forum": chat.is_forum,
            "topics": topics,
        }

    # ----- the routes --------------------------------------------------------

    def state(self, args: Args) -> JSON:
        return {
            "users": [
                {
                    **u.to_api(),
                    "online": u.id not in self.world.offline,
                    "time_zone": self.world.time_zones.get(u.id, DEFAULT_ZONE),
                }
                for u in self.world.users.values()
            ],
            "bots": [
                {
                    **b.account.to_api(),
                    "commands": b.commands.get("default|||", []),
                    "menus": {  # "<user id>:private" or ":group" -> what that user sees
                        f"{u.id}:{kind}": b.menu(kind == "private", u.language_code)
                        for u in self.world.users.values()
                        for kind in ("private", "group")
                    },
                    "webhook": b.webhook.url if b.webhook else None,
                    "inline_mode": b.inline_mode,  # BotFather's settings (see bot_settings)
                    "inline_feedback": b.inline_feedback,
                    "privacy_mode": b.privacy_mode,
                }
                for b in self.world.bots.values()
            ],
            "chats": [
                {
                    **c.to_api(),
                    "members": {str(k): v for k, v in c.members.items()},
                    "migrated_to": c.migrated_to,
                    "topics": [{**t.to_api(), "closed": t.closed} for t in c.topics.values()],
                }
                for c in self.world.chats.values()
                if c.is_group
            ],
            "conversations": {str(uid): self.conversations_of(uid) for uid in self.world.users},
            "flood_limits": self.emu.flood.limits.enabled,
        }

    def messages(self, args: Args) -> list[JSON]:
        """A chat's messages as everyone sees them, or (`user`) as that user's app shows
        them: their ephemeral messages too, and date_time entities in their time zone
        (`_emulator.text_view`)."""
        conv = self.conversation(args)
        include_deleted = flag(args.get("include_deleted", False))
        viewer = self.user(args).id if args.get("user") else None
        shown = self.world.visible_messages(conv, viewer)
        views = [self.world.message_view(m) for m in shown if include_deleted or not m.deleted]
        if viewer is not None:
            zone = self.world.time_zones.get(viewer, DEFAULT_ZONE)
            for view in views:
                view["_emulator"]["text_view"] = text_view(view, zone, self.world.now())
        return views

    def conversation_info(self, args: Args) -> JSON:
        conv = self.conversation(args)
        return {
            "chat": conv.chat.to_api(),
            "scope": conv.scope,
            "reply_keyboard": conv.reply_keyboard,
        }

    def send_message(self, args: Args) -> JSON:
        reply_to = args.get("reply_to")
        thread = args.get("thread_id")
        sent = self.actions.send_message(
            self.user(args),
            self.conversation(args),
            str(args.get("text", "")),
            int(reply_to) if reply_to is not None else None,
            int(thread) if thread is not None else None,
            str(args["send_as"]) if args.get("send_as") else None,
        )
        return self.world.message_view(sent)

    def tap(self, args: Args) -> JSON:
        button = args.get("button")
        if isinstance(button, list) and len(button) == 2:
            button = (int(button[0]), int(button[1]))
        if not isinstance(button, str | int | tuple):
            raise ValueError("'button' must be a text, a callback_data, an index or [row, column]")
        target = self.conversation(args, "target_chat") if args.get("target_chat") else None
        shown = str(args["data"]) if args.get("data") is not None else None
        return self.actions.tap(self.user(args), self.message(args), button, target, shown)

    def inline_query(self, args: Args) -> JSON:
        conv = self.conversation(args) if args.get("chat") or "chat_id" in args else None
        query = self.actions.inline_query(
            self.user(args),
            self.world.find_bot(args.get("bot")),
            conv,
            str(args.get("query", "")),
            str(args.get("offset", "")),
        )
        return {"query_id": query.id, "query": query.query}

    def inline_query_state(self, args: Args) -> JSON:
        return inline_query_view(self.world, str(args["query_id"]))

    def choose_inline_result(self, args: Args) -> JSON:
        query = self.world.inline_queries.get(str(args.get("query_id")))
        if query is None:
            raise LookupError("no such inline query")
        sent = self.actions.choose_inline_result(self.user(args), query, str(args.get("result_id")))
        return self.world.message_view(sent)

    def callback_query_state(self, args: Args) -> JSON:
        return callback_query_view(self.world, str(args["query_id"]))

    def callback_answers(self, args: Args) -> list[JSON]:
        """The presses a bot answered (of `user`, when given)."""
        return [
            callback_query_view(self.world, query.id)
            for query in self.world.callback_queries.values()
            if query.answer is not None and self.asked_by(args, query.user_id)
        ]

    def inline_answers(self, args: Args) -> list[JSON]:
        """The inline queries a bot answered (of `user`, when given)."""
        return [
            inline_query_view(self.world, query.id)
            for query in self.world.inline_queries.values()
            if query.answer is not None and self.asked_by(args, query.user_id)
        ]

    def asked_by(self, args: Args, user_id: int) -> bool:
        return not args.get("user") or self.world.find_user(args["user"]).id == user_id

    def open_link(self, args: Args) -> JSON:
        return self.actions.open_link(self.user(args), str(args.get("url", "")))

    def block(self, args: Args) -> bool:
        self.actions.block_bot(self.user(args), self.world.find_bot(args.get("bot")))
        return True

    def unblock(self, args: Args) -> bool:
        self.actions.unblock_bot(self.user(args), self.world.find_bot(args.get("bot")))
        return True

    def add_bot(self, args: Args) -> bool:
        self.actions.add_bot_to_group(
            self.user(args), self.world.find_bot(args.get("bot")), self.conversation(args)
        )
        return True

    def remove_bot(self, args: Args) -> bool:
        self.actions.remove_bot_from_group(
            self.user(args),
            self.world.find_bot(args.get("bot")),
            self.conversation(args),
            kick=flag(args.get("kick", False)),
        )
        return True

    def migrate(self, args: Args) -> JSON:
        return self.actions.migrate_group(self.user(args), self.conversation(args)).to_api()

    def set_forum(self, args: Args) -> bool:
        self.actions.set_forum(
            self.user(args), self.conversation(args), flag(args.get("enabled", True))
        )
        return True

    def create_topic(self, args: Args) -> JSON:
        conv = self.conversation(args)
        thread = self.actions.create_topic(self.user(args), conv, str(args.get("name", "")))
        return conv.chat.topics[thread].to_api()

    def close_topic(self, args: Args, closed: bool = True) -> bool:
        thread = int(args["thread_id"])
        self.actions.close_topic(self.user(args), self.conversation(args), thread, closed)
        return True

    def reopen_topic(self, args: Args) -> bool:
        return self.close_topic(args, closed=False)

    def delete_topic(self, args: Args) -> bool:
        self.actions.delete_topic(self.user(args), self.conversation(args), int(args["thread_id"]))
        return True

    def delete_message(self, args: Args) -> bool:
        self.actions.delete_message(
            self.user(args), self.conversation(args), int(args["message_id"])
        )
        return True

    def set_online(self, args: Args) -> bool:
        """Mark a user's app online or offline: an ephemeral message sent to them while
        offline never reaches them."""
        user = self.user(args)
        if flag(args.get("online", True)):
            self.world.offline.discard(user.id)
        else:
            self.world.offline.add(user.id)
        self.world.events.publish({"type": "world"})
        return True

    def restart_app(self, args: Args) -> int:
        """The user's app restarts: the ephemeral messages it showed are gone."""
        return restart_app(self.world, self.user(args).id)

    def time_zone(self, args: Args) -> str:
        """Set the time zone a user's app shows date_time entities in (IANA name)."""
        user = self.user(args)
        zone = valid_zone(str(args.get("zone", "")))
        self.world.time_zones[user.id] = zone
        self.world.events.publish({"type": "world"})
        return zone

    def log(self, args: Args) -> list[JSON]:
        since = int(args.get("since", 0))
        kind = args.get("kind")
        method = str(args.get("method", "")).lower()
        bot_id = self.world.find_bot(args["bot"]).id if args.get("bot") else None
        limit = int(args.get("limit", 0))
        out: list[JSON] = []
        for entry in self.world.entries(since):
            if kind and entry["kind"] != kind:
                continue
            if method and str(entry.get("method", "")).lower() != method:
                continue
            if bot_id is not None and entry.get("bot_id") != bot_id:
                continue
            out.append(entry)
        return out[-limit:] if limit > 0 else out

    def notifications(self, args: Args) -> list[JSON]:
        """The notifications new messages gave, oldest first: of one user (`user`), in one
        chat (`chat`, with `bot` for a private one), after `since`."""
        user_id = self.world.find_user(args["user"]).id if args.get("user") else None
        conv = self.conversation(args) if args.get("chat") else None
        out: list[JSON] = []
        for entry in self.world.entries(int(args.get("since", 0))):
            if entry["kind"] != "notification" or user_id not in (None, entry["user_id"]):
                continue
            if conv is not None and (entry["chat_id"], entry["scope"]) != (
                conv.chat.id,
                conv.scope,
            ):
                continue
            out.append(entry)
        return out

    def settings(self, args: Args) -> JSON:
        if "flood_limits" in args:
            self.emu.set_flood_limits(flag(args["flood_limits"]))
        return {"flood_limits": self.emu.flood.limits.enabled}

    def bot_settings(self, args: Args) -> JSON:
        """BotFather's settings of a bot (`bot` picks it): read, or change those given."""
        bot = self.world.find_bot(args.get("bot"))
        if "privacy_mode" in args:
            bot.privacy_mode = flag(args["privacy_mode"])
        if "inline_mode" in args:
            bot.inline_mode = flag(args["inline_mode"])
        if "inline_placeholder" in args:
            bot.inline_placeholder = str(args["inline_placeholder"])
        if "inline_feedback" in args:
            percent = int(args["inline_feedback"])
            if not 0 <= percent <= 100:
                raise ValueError("'inline_feedback' is a percentage, 0 to 100")
            bot.inline_feedback = percent
        if set(args) & {"privacy_mode", "inline_mode", "inline_placeholder", "inline_feedback"}:
            self.world.events.publish({"type": "world"})
        return {
            "privacy_mode": bot.privacy_mode,
            "inline_mode": bot.inline_mode,
            "inline_placeholder": bot.inline_placeholder,
            "inline_feedback": bot.inline_feedback,
        }

    def inject_error(self, args: Args) -> bool:
        """Make the next `times` calls of `method` fail with the given error."""
        code = int(args.get("error_code", 500))
        retry_after = args.get("retry_after")
        default = {429: "Too Many Requests: retry after {}", 500: "Internal Server Error"}
        description = str(args.get("description") or default.get(code, "Bad Request: injected"))
        error = ApiError(
            code,
            description.format(retry_after),
            retry_after=int(retry_after) if retry_after is not None else None,
        )
        queue = self.emu.api.injected.setdefault(str(args["method"]).lower(), [])
        queue.extend([error] * int(args.get("times", 1)))
        return True

    def inject_delay(self, args: Args) -> bool:
        """Hold the next `times` calls of `method` for `seconds` before answering."""
        queue = self.emu.api.delays.setdefault(str(args["method"]).lower(), [])
        queue.extend([float(args.get("seconds", 1.0))] * int(args.get("times", 1)))
        return True

    def held(self, args: Args) -> int:
        """How many calls of `method` an injected delay is holding now."""
        return self.emu.api.held.get(str(args["method"]).lower(), 0)

    def unknown_parameters(self, args: Args) -> list[JSON]:
        """What the bots sent that Telegram would silently ignore or misread."""
        return self.emu.api.unknown_parameters

    def webhook(self, args: Args) -> JSON:
        delivery = self.emu.delivery(self.world.find_bot(args.get("bot")))
        return {**delivery.info(), "pending": [p.update for p in delivery.pending]}

    async def events(self, request: Request) -> Response:
        """The web chat's live events (Server-Sent Events)."""
        return event_stream(self.world.events)

    async def file_content(self, request: Request) -> Response:
        stored = self.world.files.get(request.path_params["file_id"])
        if stored is None:
            return fail("no such file", 404)
        return Response(
            stored.content,
            media_type=stored.mime_type,
            headers={"Content-Disposition": f'attachment; filename="{stored.file_name}"'},
        )
