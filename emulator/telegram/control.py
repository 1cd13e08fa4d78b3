"""The control API under `/_emulator/`: what tests, benchmarks and the web chat use to act
as users and to read what happened. JSON in, `{"ok": true, "result": ...}` out; a refused
action is `{"ok": false, "error_code": 400, "description": ...}`.

Users are named by id, first name or username; chats by id, group title, or a user (that
user's private chat with the bot; `bot` picks the bot when there are several).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.common.control import Args, fail, request_args
from emulator.common.events import event_stream
from emulator.telegram.actions import ActionError
from emulator.telegram.errors import ApiError
from emulator.telegram.world import JSON, PRESENT, Conversation, Message, World

if TYPE_CHECKING:
    from emulator.app import Emulator


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


def endpoint(fn: Callable[[Args], Any]) -> Callable[[Request], Awaitable[Response]]:
    async def handler(request: Request) -> Response:
        try:
            args = await request_args(request)
        except ValueError as error:
            return fail(str(error))
        try:
            result = fn(args)
            if inspect.isawaitable(result):
                result = await result
        except (LookupError, ActionError, ValueError, TypeError) as error:
            text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
            return fail(str(text))
        except ApiError as error:
            return fail(error.description, error.error_code)
        return JSONResponse({"ok": True, "result": result})

    return handler


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def control_routes(emu: Emulator) -> list[Route]:
    world = emu.world
    actions = emu.actions

    def user(args: Args) -> Any:
        if "user" not in args:
            raise ValueError("missing 'user'")
        return world.find_user(args["user"])

    def conversation(args: Args, key: str = "chat") -> Conversation:
        if "chat_id" in args and "scope" in args:
            return world.conversation(int(args["chat_id"]), int(args["scope"]))
        if key not in args:
            raise ValueError(f"missing '{key}'")
        return world.find_conversation(args[key], args.get("bot"))

    def message(args: Args) -> Message:
        if args.get("inline_message_id"):
            found = world.find_inline_message(str(args["inline_message_id"]))
        else:
            conv = conversation(args)
            found = world.find_message(conv.chat.id, conv.scope, int(args["message_id"]))
        if found is None:
            raise LookupError("no such message (or it was deleted)")
        return found

    def conversations_of(user_id: int) -> list[JSON]:
        out: list[JSON] = []
        for conv in world.conversations.values():
            chat = conv.chat
            if chat.migrated_to is not None:
                continue  # an upgraded group: its supergroup is listed instead
            if chat.is_group and chat.members.get(user_id) in PRESENT:
                out.append(group_entry(conv))
            elif chat.type == "private" and chat.id == user_id:
                bot = world.bots[conv.scope]
                out.append(
                    {
                        "chat_id": chat.id,
                        "scope": bot.id,
                        "title": bot.account.first_name,
                        "type": "private",
                        "bot_username": bot.username,
                        "started": (bot.id, user_id) in world.started,
                        "blocked": (bot.id, user_id) in world.blocked,
                    }
                )
        out.sort(key=lambda c: (c["type"] == "private", c["title"] or ""))
        return out

    def group_entry(conv: Conversation) -> JSON:
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

    def state(args: Args) -> JSON:
        return {
            "users": [u.to_api() for u in world.users.values()],
            "bots": [
                {
                    **b.account.to_api(),
                    "commands": b.commands.get("default|||", []),
                    "menus": {  # "<user id>:private" or ":group" -> what that user sees
                        f"{u.id}:{kind}": b.menu(kind == "private", u.language_code)
                        for u in world.users.values()
                        for kind in ("private", "group")
                    },
                    "webhook": b.webhook.url if b.webhook else None,
                    "inline_mode": b.inline_mode,  # BotFather's settings (see bot_settings)
                    "inline_feedback": b.inline_feedback,
                    "privacy_mode": b.privacy_mode,
                }
                for b in world.bots.values()
            ],
            "chats": [
                {
                    **c.to_api(),
                    "members": {str(k): v for k, v in c.members.items()},
                    "migrated_to": c.migrated_to,
                    "topics": [{**t.to_api(), "closed": t.closed} for t in c.topics.values()],
                }
                for c in world.chats.values()
                if c.is_group
            ],
            "conversations": {str(uid): conversations_of(uid) for uid in world.users},
            "flood_limits": emu.flood.limits.enabled,
        }

    def messages(args: Args) -> list[JSON]:
        conv = conversation(args)
        include_deleted = _flag(args.get("include_deleted", False))
        return [
            world.message_view(m)
            for m in conv.messages.values()
            if include_deleted or not m.deleted
        ]

    def conversation_info(args: Args) -> JSON:
        conv = conversation(args)
        return {
            "chat": conv.chat.to_api(),
            "scope": conv.scope,
            "reply_keyboard": conv.reply_keyboard,
        }

    def send_message(args: Args) -> JSON:
        reply_to = args.get("reply_to")
        thread = args.get("thread_id")
        sent = actions.send_message(
            user(args),
            conversation(args),
            str(args.get("text", "")),
            int(reply_to) if reply_to is not None else None,
            int(thread) if thread is not None else None,
            str(args["send_as"]) if args.get("send_as") else None,
        )
        return world.message_view(sent)

    def tap(args: Args) -> JSON:
        button = args.get("button")
        if isinstance(button, list) and len(button) == 2:
            button = (int(button[0]), int(button[1]))
        if not isinstance(button, str | int | tuple):
            raise ValueError("'button' must be a text, a callback_data, an index or [row, column]")
        target = conversation(args, "target_chat") if args.get("target_chat") else None
        return actions.tap(user(args), message(args), button, target)

    def inline_query(args: Args) -> JSON:
        conv = conversation(args) if args.get("chat") or "chat_id" in args else None
        query = actions.inline_query(
            user(args),
            world.find_bot(args.get("bot")),
            conv,
            str(args.get("query", "")),
            str(args.get("offset", "")),
        )
        return {"query_id": query.id, "query": query.query}

    def inline_query_state(args: Args) -> JSON:
        return inline_query_view(world, str(args["query_id"]))

    def choose_inline_result(args: Args) -> JSON:
        query = world.inline_queries.get(str(args.get("query_id")))
        if query is None:
            raise LookupError("no such inline query")
        sent = actions.choose_inline_result(user(args), query, str(args.get("result_id")))
        return world.message_view(sent)

    def callback_query_state(args: Args) -> JSON:
        return callback_query_view(world, str(args["query_id"]))

    def answers(args: Args, kind: str) -> list[JSON]:
        wanted = world.find_user(args["user"]).id if args.get("user") else None
        found: list[JSON] = []
        source = world.callback_queries if kind == "callback" else world.inline_queries
        for query in source.values():
            if query.answer is not None and (wanted is None or query.user_id == wanted):
                entry = callback_query_state if kind == "callback" else inline_query_state
                found.append(entry({"query_id": query.id}))
        return found

    def open_link(args: Args) -> JSON:
        return actions.open_link(user(args), str(args.get("url", "")))

    def block(args: Args) -> bool:
        actions.block_bot(user(args), world.find_bot(args.get("bot")))
        return True

    def unblock(args: Args) -> bool:
        actions.unblock_bot(user(args), world.find_bot(args.get("bot")))
        return True

    def add_bot(args: Args) -> bool:
        actions.add_bot_to_group(user(args), world.find_bot(args.get("bot")), conversation(args))
        return True

    def remove_bot(args: Args) -> bool:
        actions.remove_bot_from_group(
            user(args),
            world.find_bot(args.get("bot")),
            conversation(args),
            kick=_flag(args.get("kick", False)),
        )
        return True

    def migrate(args: Args) -> JSON:
        return actions.migrate_group(user(args), conversation(args)).to_api()

    def set_forum(args: Args) -> bool:
        actions.set_forum(user(args), conversation(args), _flag(args.get("enabled", True)))
        return True

    def create_topic(args: Args) -> JSON:
        conv = conversation(args)
        thread = actions.create_topic(user(args), conv, str(args.get("name", "")))
        return conv.chat.topics[thread].to_api()

    def close_topic(args: Args, closed: bool) -> bool:
        actions.close_topic(user(args), conversation(args), int(args["thread_id"]), closed)
        return True

    def delete_topic(args: Args) -> bool:
        actions.delete_topic(user(args), conversation(args), int(args["thread_id"]))
        return True

    def delete_message(args: Args) -> bool:
        actions.delete_message(user(args), conversation(args), int(args["message_id"]))
        return True

    def log(args: Args) -> list[JSON]:
        since = int(args.get("since", 0))
        kind = args.get("kind")
        method = str(args.get("method", "")).lower()
        bot_id = world.find_bot(args["bot"]).id if args.get("bot") else None
        limit = int(args.get("limit", 0))
        out: list[JSON] = []
        for entry in world.entries(since):
            if kind and entry["kind"] != kind:
                continue
            if method and str(entry.get("method", "")).lower() != method:
                continue
            if bot_id is not None and entry.get("bot_id") != bot_id:
                continue
            out.append(entry)
        return out[-limit:] if limit > 0 else out

    def notifications(args: Args) -> list[JSON]:
        """The notifications new messages gave, oldest first: of one user (`user`), in one
        chat (`chat`, with `bot` for a private one), after `since`."""
        user_id = world.find_user(args["user"]).id if args.get("user") else None
        conv = conversation(args) if args.get("chat") else None
        out: list[JSON] = []
        for entry in world.entries(int(args.get("since", 0))):
            if entry["kind"] != "notification" or user_id not in (None, entry["user_id"]):
                continue
            if conv is not None and (entry["chat_id"], entry["scope"]) != (
                conv.chat.id,
                conv.scope,
            ):
                continue
            out.append(entry)
        return out

    def settings(args: Args) -> JSON:
        if "flood_limits" in args:
            emu.set_flood_limits(_flag(args["flood_limits"]))
        return {"flood_limits": emu.flood.limits.enabled}

    def bot_settings(args: Args) -> JSON:
        """BotFather's settings of a bot (`bot` picks it): read, or change those given."""
        bot = world.find_bot(args.get("bot"))
        if "privacy_mode" in args:
            bot.privacy_mode = _flag(args["privacy_mode"])
        if "inline_mode" in args:
            bot.inline_mode = _flag(args["inline_mode"])
        if "inline_placeholder" in args:
            bot.inline_placeholder = str(args["inline_placeholder"])
        if "inline_feedback" in args:
            percent = int(args["inline_feedback"])
            if not 0 <= percent <= 100:
                raise ValueError("'inline_feedback' is a percentage, 0 to 100")
            bot.inline_feedback = percent
        if set(args) & {"privacy_mode", "inline_mode", "inline_placeholder", "inline_feedback"}:
            world.events.publish({"type": "world"})
        return {
            "privacy_mode": bot.privacy_mode,
            "inline_mode": bot.inline_mode,
            "inline_placeholder": bot.inline_placeholder,
            "inline_feedback": bot.inline_feedback,
        }

    def inject_error(args: Args) -> bool:
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
        queue = emu.api.injected.setdefault(str(args["method"]).lower(), [])
        queue.extend([error] * int(args.get("times", 1)))
        return True

    def inject_delay(args: Args) -> bool:
        """Hold the next `times` calls of `method` for `seconds` before answering."""
        queue = emu.api.delays.setdefault(str(args["method"]).lower(), [])
        queue.extend([float(args.get("seconds", 1.0))] * int(args.get("times", 1)))
        return True

    def unknown_parameters(args: Args) -> list[JSON]:
        """What the bots sent that Telegram would silently ignore or misread."""
        return emu.api.unknown_parameters

    def webhook(args: Args) -> JSON:
        delivery = emu.delivery(world.find_bot(args.get("bot")))
        return {**delivery.info(), "pending": [p.update for p in delivery.pending]}

    async def events(request: Request) -> Response:
        return event_stream(world.events)

    async def file_content(request: Request) -> Response:
        stored = world.files.get(request.path_params["file_id"])
        if stored is None:
            return fail("no such file", 404)
        return Response(
            stored.content,
            media_type=stored.mime_type,
            headers={"Content-Disposition": f'attachment; filename="{stored.file_name}"'},
        )

    get, post = ["GET"], ["POST"]
    return [
        Route("/state", endpoint(state), methods=get),
        Route("/messages", endpoint(messages), methods=get),
        Route("/conversation", endpoint(conversation_info), methods=get),
        Route("/send_message", endpoint(send_message), methods=post),
        Route("/tap", endpoint(tap), methods=post),
        Route("/inline_query", endpoint(inline_query), methods=post),
        Route("/inline_queries/{query_id}", endpoint(inline_query_state), methods=get),
        Route("/choose_inline_result", endpoint(choose_inline_result), methods=post),
        Route("/callback_queries/{query_id}", endpoint(callback_query_state), methods=get),
        Route("/callback_answers", endpoint(lambda a: answers(a, "callback")), methods=get),
        Route("/inline_answers", endpoint(lambda a: answers(a, "inline")), methods=get),
        Route("/open_link", endpoint(open_link), methods=post),
        Route("/block", endpoint(block), methods=post),
        Route("/unblock", endpoint(unblock), methods=post),
        Route("/add_bot", endpoint(add_bot), methods=post),
        Route("/remove_bot", endpoint(remove_bot), methods=post),
        Route("/migrate", endpoint(migrate), methods=post),
        Route("/set_forum", endpoint(set_forum), methods=post),
        Route("/create_topic", endpoint(create_topic), methods=post),
        Route("/close_topic", endpoint(lambda a: close_topic(a, True)), methods=post),
        Route("/reopen_topic", endpoint(lambda a: close_topic(a, False)), methods=post),
        Route("/delete_topic", endpoint(delete_topic), methods=post),
        Route("/delete_message", endpoint(delete_message), methods=post),
        Route("/log", endpoint(log), methods=get),
        Route("/notifications", endpoint(notifications), methods=get),
        Route("/settings", endpoint(settings), methods=[*get, *post]),
        Route("/bot_settings", endpoint(bot_settings), methods=[*get, *post]),
        Route("/inject_error", endpoint(inject_error), methods=post),
        Route("/inject_delay", endpoint(inject_delay), methods=post),
        Route("/webhook", endpoint(webhook), methods=get),
        Route("/unknown_parameters", endpoint(unknown_parameters), methods=get),
        Route("/events", events, methods=get),
        Route("/files/{file_id}", file_content, methods=get),
    ]
