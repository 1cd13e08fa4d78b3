"""The Bot API methods: `<base>/bot<token>/<method>`, answered as Telegram answers.

Each handler takes the calling bot and its parameters and returns the `result`, or raises
`ApiError`. Method names are case-insensitive, as on Telegram.
"""

from __future__ import annotations

import asyncio
import inspect
import mimetypes
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from emulator.telegram import api_table, older
from emulator.telegram.ephemeral import (
    Ephemeral,
    EphemeralMethods,
    check_markup,
    destination,
    make_ephemeral,
    replied_ephemeral,
)
from emulator.telegram.errors import (
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    ApiError,
    bad_request,
    not_found,
    not_implemented,
)
from emulator.telegram.forum import ForumMethods
from emulator.telegram.limits import FloodControl
from emulator.telegram.params import Params, Upload
from emulator.telegram.validation import (
    callback_answer_text,
    caption_text,
    integer_arg,
    message_text,
    next_offset,
    parameter_problems,
    reply_markup,
    require,
    results_button,
    secret_token,
)
from emulator.telegram.validation import inline_results as check_inline_results
from emulator.telegram.webapp import web_app_buttons
from emulator.telegram.webhook import Delivery, parse_allowed_updates
from emulator.telegram.widgets import WidgetMethods
from emulator.telegram.world import (
    ADMIN_RIGHTS,
    ADMINISTRATOR,
    CREATOR,
    JSON,
    KICKED,
    LEFT,
    Bot,
    Conversation,
    Message,
    StoredFile,
    Webhook,
    World,
)

Handler = Callable[[Bot, Params], Any]

CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
MAX_UPLOAD = 50 * 1024 * 1024
DELETE_WINDOW = 48 * 3600  # seconds a bot may delete a message after it was sent
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")


class BotApi:
    def __init__(
        self, world: World, flood: FloodControl, delivery: Callable[[Bot], Delivery]
    ) -> None:
        self.world = world
        self.flood = flood
        self.delivery = delivery
        # Errors injected by tests: method (lowercase) -> list of errors to raise next.
        self.injected: dict[str, list[ApiError]] = {}
        # Delays injected by tests: method (lowercase) -> seconds to hold the next calls.
        self.delays: dict[str, list[float]] = {}
        # ... and how many calls of each method are being held now.
        self.held: dict[str, int] = {}
        # What Telegram would silently ignore or misread in the calls so far (unknown
        # parameters above all): {"bot_id", "method", "via", "parameter", "problem"}.
        self.unknown_parameters: list[JSON] = []
        # What the Bot API version played lacks (`--bot-api`): nothing by default.
        self.lacks = older.lacks(world.config.bot_api)
        self.widgets = WidgetMethods(world, flood, delivery, self._new_message, self._editable)
        self.methods: dict[str, Handler] = {
            "getme": self.get_me,
            "logout": self.ok,
            "close": self.ok,
            "setwebhook": self.set_webhook,
            "deletewebhook": self.delete_webhook,
            "getwebhookinfo": self.get_webhook_info,
            "getupdates": self.get_updates,
            "sendmessage": self.send_message,
            "senddocument": self.send_document,
            "editmessagetext": self.edit_message_text,
            "editmessagecaption": self.edit_message_caption,
            "editmessagereplymarkup": self.edit_message_reply_markup,
            "deletemessage": self.delete_message,
            "deletemessages": self.delete_messages,
            "answercallbackquery": self.answer_callback_query,
            "answerinlinequery": self.answer_inline_query,
            "sendchataction": self.send_chat_action,
            "getchat": self.get_chat,
            "getchatmember": self.get_chat_member,
            "getchatmembercount": self.get_chat_member_count,
            "getfile": self.get_file,
            "setmycommands": self.set_my_commands,
            "getmycommands": self.get_my_commands,
            "deletemycommands": self.delete_my_commands,
            "setmydescription": self.set_profile("description"),
            "setmyshortdescription": self.set_profile("short_description"),
            "setmyname": self.set_profile("name"),
            "setchatmenubutton": self.ok,
            **ForumMethods(world).handlers(),
            **self.widgets.handlers(),
            **EphemeralMethods(
                world,
                {
                    "text": self._edit_text,
                    "caption": self._edit_caption,
                    "replymarkup": self._edit_reply_markup,
                    "media": self._edit_media,
                },
            ).handlers(),
        }

    async def call(self, token: str, method: str, params: Params, via: str = "http") -> Any:
        """Run one call, log it, and return its result (or raise ApiError). `via`: how it
        came, a request of its own ("http") or in a webhook's answer ("webhook")."""
        bot = self.world.bot_for_token(token)
        name = method.lower()
        entry: JSON = {"bot_id": bot.id, "method": method, "params": params.as_log()}
        if via != "http":
            entry["via"] = via
        try:
            handler, params = self._handler(bot, name, params, via)
            delays = self.delays.get(name)
            if delays:
                await self._hold(name, delays.pop(0))  # a slow Telegram, to catch work mid-call
            injected = self.injected.get(name)
            if injected:
                raise injected.pop(0)
            result = handler(bot, params)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as error:
            self.world.record(
                "call",
                **entry,
                ok=False,
                error_code=error.error_code,
                description=error.description,
            )
            raise
        self.world.record("call", **entry, ok=True, result=result)
        return result

    async def _hold(self, name: str, seconds: float) -> None:
        self.held[name] = self.held.get(name, 0) + 1
        try:
            await asyncio.sleep(seconds)
        finally:
            self.held[name] -= 1

    def _handler(self, bot: Bot, name: str, params: Params, via: str) -> tuple[Handler, Params]:
        """The method's handler once its parameters pass the reference's checks, and
        the parameters as the configured Bot API version reads them (`older`); what
        Telegram would ignore or misread in them goes to `unknown_parameters`."""
        spec = api_table.method(name)
        if spec is None or self.lacks.method(name):
            raise not_found()
        params, left_out = older.strip(self.lacks, spec, params)
        for problem in [*left_out, *parameter_problems(spec, params)]:
            self.unknown_parameters.append(
                {"bot_id": bot.id, "method": spec.name, "via": via, **problem}
            )
        handler = self.methods.get(name)
        if handler is None:
            raise not_implemented(spec.name)
        require(spec, params)
        return handler, params

    def ok(self, bot: Bot, params: Params) -> bool:
        return True

    # ----- the bot itself ----------------------------------------------------

    def get_me(self, bot: Bot, params: Params) -> JSON:
        """A BotFullInfo, as Bot API 10.5 answers getMe: the bot's identity and its
        bot-only fields (10.5 took those out of User). The references name no field of
        BotFullInfo: these are 10.3's UserFromGetMe's, every one given (the stricter
        reading: a bot may rely on none being absent), and nothing a User has that a bot
        does not (no last_name, language_code, is_premium)."""
        return {
            "id": bot.id,
            "is_bot": True,
            "first_name": bot.account.first_name,
            "username": bot.username,
            "can_join_groups": True,
            "can_read_all_group_messages": not bot.privacy_mode,
            "supports_inline_queries": bot.inline_mode,
            "supports_guest_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
            "has_topics_enabled": False,
            "allows_users_to_create_topics": False,
            "can_manage_bots": False,
            "supports_join_request_queries": False,
        }

    def set_profile(self, key: str) -> Handler:
        def handler(bot: Bot, params: Params) -> bool:
            bot.profile[key] = params.string(key) or ""
            return True

        return handler

    def _commands_key(self, params: Params) -> str:
        scope = params.json("scope") or {"type": "default"}
        if not isinstance(scope, dict) or not isinstance(scope.get("type"), str):
            raise bad_request("can't parse BotCommandScope JSON object")
        parts = [scope["type"], str(scope.get("chat_id", "")), str(scope.get("user_id", ""))]
        return "|".join([*parts, params.string("language_code") or ""])

    def set_my_commands(self, bot: Bot, params: Params) -> bool:
        commands = params.json("commands") or []  # none: Telegram clears the list
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("can't parse commands JSON object")
        checked: list[JSON] = []
        for command in commands:
            if not isinstance(command, dict):
                raise bad_request("can't parse BotCommand JSON object")
            name = command.get("command")
            description = command.get("description")
            if not isinstance(name, str) or not _COMMAND_RE.fullmatch(name):
                raise bad_request("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            ephemeral = {"is_ephemeral": True} if command.get("is_ephemeral") is True else {}
            checked.append({"command": name, "description": description, **ephemeral})
        bot.commands[self._commands_key(params)] = checked
        self.world.events.publish({"type": "world"})
        return True

    def get_my_commands(self, bot: Bot, params: Params) -> list[JSON]:
        return bot.commands.get(self._commands_key(params), [])

    def delete_my_commands(self, bot: Bot, params: Params) -> bool:
        bot.commands.pop(self._commands_key(params), None)
        return True

    # ----- updates -----------------------------------------------------------

    def set_webhook(self, bot: Bot, params: Params) -> bool:
        url = params.string("url") or ""
        if not url:
            self.delivery(bot).delete_webhook(params.flag("drop_pending_updates"))
            return True
        if not re.match(r"https?://[^/\s]+", url):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        max_connections = integer_arg("setWebhook", params, "max_connections", 40)
        webhook = Webhook(
            url=url,
            secret_token=secret_token(params.string("secret_token")),
            max_connections=max_connections,
            allowed_updates=parse_allowed_updates(params.json("allowed_updates")),
            ip_address=params.string("ip_address"),
        )
        self.delivery(bot).set_webhook(webhook, params.flag("drop_pending_updates"))
        return True

    def delete_webhook(self, bot: Bot, params: Params) -> bool:
        self.delivery(bot).delete_webhook(params.flag("drop_pending_updates"))
        return True

    def get_webhook_info(self, bot: Bot, params: Params) -> JSON:
        return self.delivery(bot).info()

    def get_updates(self, bot: Bot, params: Params) -> Awaitable[list[JSON]]:
        allowed = params.json("allowed_updates")
        return self.delivery(bot).get_updates(
            params.integer("offset"),
            integer_arg("getUpdates", params, "limit", 100),
            float(integer_arg("getUpdates", params, "timeout", 0)),
            parse_allowed_updates(allowed) if allowed is not None else None,
        )

    # ----- sending -----------------------------------------------------------

    def _target(self, bot: Bot, params: Params) -> Conversation:
        conv = self.world.bot_conversation(bot, params.chat_id())
        self.world.check_can_write(bot, conv)
        return conv

    def _destination(self, bot: Bot, params: Params) -> tuple[Conversation, Ephemeral | None]:
        """A send's conversation, and where in it when ephemeral_message_parameters ask."""
        conv, ephemeral = destination(self.world, bot, params)
        self.world.check_can_write(bot, conv)
        return conv, ephemeral

    def _reply_to(
        self, conv: Conversation, params: Params, ephemeral: Ephemeral | None = None
    ) -> int | None:
        reply = params.json("reply_parameters")
        message_id: int | None
        allow_missing = params.flag("allow_sending_without_reply")
        if isinstance(reply, dict) and reply.get("ephemeral_message_id") is not None:
            replied_ephemeral(self.world, conv, int(reply["ephemeral_message_id"]), ephemeral)
            return None  # "this field may be omitted" for replies to ephemeral messages
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
            if not isinstance(message_id, int):
                raise bad_request("can't parse reply parameters JSON object")
        else:
            message_id = params.integer("reply_to_message_id")
        if message_id is None:
            return None
        target = conv.messages.get(message_id)
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return message_id

    def _new_message(
        self, bot: Bot, conv: Conversation, params: Params, ephemeral: Ephemeral | None = None
    ) -> Message:
        markup = inline_buttons_allowed(bot, reply_markup(params.json("reply_markup")))
        web_app_buttons(conv.chat, markup)
        if ephemeral is not None:
            check_markup(markup)
        inline_markup = markup if markup and "inline_keyboard" in markup else None
        thread_id = self.world.topic_to_write(bot, conv, params.integer("message_thread_id"))
        reply_to = self._reply_to(conv, params, ephemeral)
        self.flood.take(bot.id, conv.chat.id, conv.chat.is_group)
        message = Message(
            chat_id=conv.chat.id,
            scope=conv.scope,
            message_id=0 if ephemeral else conv.new_message_id(),  # ephemeral: an id of its own
            sender_id=bot.id,
            date=self.world.now(),
            reply_markup=inline_markup,
            reply_to_message_id=reply_to,
            thread_id=thread_id,
            silent=params.flag("disable_notification"),
        )
        if markup and "inline_keyboard" not in markup:
            conv.reply_keyboard = None if markup.get("remove_keyboard") else markup
            self.world.events.publish(
                {
                    "type": "reply_keyboard",
                    "chat_id": conv.chat.id,
                    "scope": conv.scope,
                    "markup": conv.reply_keyboard,
                }
            )
        return message

    def _add(self, conv: Conversation, message: Message, ephemeral: Ephemeral | None) -> JSON:
        """Add a sent message (an ephemeral one with its own id) and return its JSON."""
        if ephemeral is None:
            self.world.add_message(conv, message)
        else:
            make_ephemeral(self.world, message, ephemeral)
            self.world.add_ephemeral(conv, message)
        return self.world.message_json(message)

    def send_message(self, bot: Bot, params: Params) -> JSON:
        conv, ephemeral = self._destination(bot, params)
        text, entities = message_text(
            params.string("text"), params.string("parse_mode"), params.json("entities")
        )
        message = self._new_message(bot, conv, params, ephemeral)
        message.text, message.entities = text, entities
        return self._add(conv, message, ephemeral)

    def send_document(self, bot: Bot, params: Params) -> JSON:
        conv, ephemeral = self._destination(bot, params)
        document = self._document(params.file("document"))
        caption, caption_entities = caption_text(
            params.string("caption"), params.string("parse_mode"), params.json("caption_entities")
        )
        message = self._new_message(bot, conv, params, ephemeral)
        message.document = document
        message.caption, message.caption_entities = caption or None, caption_entities
        return self._add(conv, message, ephemeral)

    def _document(self, value: Upload | str | None) -> JSON:
        if value is None:
            raise bad_request("there is no document in the request")
        if isinstance(value, str):
            if value.startswith(("http://", "https://")):
                raise bad_request("failed to get HTTP URL content")
            stored = self.world.files.get(value)
            if stored is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
        else:
            if not value.content:
                raise bad_request("file must be non-empty")
            if len(value.content) > MAX_UPLOAD:
                raise ApiError(413, "Request Entity Too Large")
            number = self.world.new_id()
            name = value.filename or f"file_{number}"
            mime = (
                value.content_type
                if value.content_type and value.content_type != "application/octet-stream"
                else mimetypes.guess_type(name)[0] or "application/octet-stream"
            )
            stored = StoredFile(
                file_id=f"BQACAgIAAx{number:06d}{secrets.token_hex(8)}",
                file_unique_id=f"AgAD{number:06d}",
                file_name=name,
                mime_type=mime,
                content=value.content,
                file_path=f"documents/file_{number}{_suffix(name)}",
            )
            self.world.files[stored.file_id] = stored
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_name": stored.file_name,
            "mime_type": stored.mime_type,
            "file_size": len(stored.content),
        }

    def get_file(self, bot: Bot, params: Params) -> JSON:
        stored = self.world.files.get(params.required_str("file_id"))
        if stored is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.content),
            "file_path": stored.file_path,
        }

    def send_chat_action(self, bot: Bot, params: Params) -> bool:
        conv = self._target(bot, params)
        action = params.string("action")
        if action not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        self.world.events.publish(
            {
                "type": "chat_action",
                "chat_id": conv.chat.id,
                "scope": conv.scope,
                "bot_id": bot.id,
                "action": action,
            }
        )
        return True

    # ----- editing -----------------------------------------------------------

    def _editable(self, bot: Bot, params: Params) -> tuple[Message, bool]:
        """The message an edit names, and whether it was named by inline_message_id."""
        inline_id = params.string("inline_message_id")
        if inline_id:
            message = self.world.find_inline_message(inline_id)
            if message is None or message.via_bot_id != bot.id:
                raise bad_request("MESSAGE_ID_INVALID")
            return message, True
        conv = self.world.bot_conversation(bot, params.chat_id())
        message_id = params.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = self.world.find_message(conv.chat.id, conv.scope, message_id)
        if message is None:
            raise bad_request("message to edit not found")
        if message.sender_id != bot.id:
            raise bad_request("message can't be edited")
        self.world.topic_to_write(bot, conv, message.thread_id)  # not in a closed topic
        return message, False

    def _apply_edit(self, bot: Bot, message: Message, by_inline: bool, **changes: Any) -> Any:
        current = {key: getattr(message, key) for key in changes}
        if current == changes:
            raise bad_request(NOT_MODIFIED)
        chat = self.world.chats[message.chat_id]
        web_app_buttons(chat, changes.get("reply_markup"))
        self.flood.take(bot.id, chat.id, chat.is_group)
        message.history.append(
            {
                "text": message.text,
                "entities": message.entities,
                "caption": message.caption,
                "reply_markup": message.reply_markup,
                "edit_date": message.edit_date,
            }
        )
        for key, value in changes.items():
            setattr(message, key, value)
        message.edit_date = self.world.now()
        self.world.publish_message(message)
        return True if by_inline else self.world.message_json(message)

    def edit_message_text(self, bot: Bot, params: Params) -> Any:
        message, by_inline = self._editable(bot, params)
        return self._edit_text(bot, message, params, by_inline)

    def _edit_text(self, bot: Bot, message: Message, params: Params, by_inline: bool = True) -> Any:
        """Change a message's text (`by_inline`, or an ephemeral message: answer True)."""
        if params.has("rich_message"):
            raise not_implemented("rich messages")
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = message_text(
            params.string("text"), params.string("parse_mode"), params.json("entities")
        )
        markup = inline_buttons_allowed(
            bot, reply_markup(params.json("reply_markup"), inline_only=True)
        )
        return self._apply_edit(
            bot, message, by_inline, text=text, entities=entities, reply_markup=markup
        )

    def edit_message_caption(self, bot: Bot, params: Params) -> Any:
        message, by_inline = self._editable(bot, params)
        return self._edit_caption(bot, message, params, by_inline)

    def _edit_caption(
        self, bot: Bot, message: Message, params: Params, by_inline: bool = True
    ) -> Any:
        if message.document is None and message.widget is None:  # a widget has a caption too
            raise bad_request("there is no caption in the message to edit")
        caption, entities = caption_text(
            params.string("caption"), params.string("parse_mode"), params.json("caption_entities")
        )
        markup = inline_buttons_allowed(
            bot, reply_markup(params.json("reply_markup"), inline_only=True)
        )
        return self._apply_edit(
            bot,
            message,
            by_inline,
            caption=caption or None,
            caption_entities=entities,
            reply_markup=markup,
        )

    def edit_message_reply_markup(self, bot: Bot, params: Params) -> Any:
        message, by_inline = self._editable(bot, params)
        return self._edit_reply_markup(bot, message, params, by_inline)

    def _edit_reply_markup(
        self, bot: Bot, message: Message, params: Params, by_inline: bool = True
    ) -> Any:
        markup = inline_buttons_allowed(
            bot, reply_markup(params.json("reply_markup"), inline_only=True)
        )
        return self._apply_edit(bot, message, by_inline, reply_markup=markup)

    def _edit_media(self, bot: Bot, message: Message, params: Params) -> Any:
        """Replace a document with another (a file_id, or a new upload named by
        attach://<name>, which 10.3 allows for ephemeral messages); the emulator has no
        other media."""
        media = params.json("media")
        if not isinstance(media, dict) or not isinstance(media.get("media"), str):
            raise bad_request("can't parse InputMedia JSON object")
        if media.get("type") != "document":
            raise not_implemented("media other than documents")
        if message.document is None:
            raise bad_request("there is no media in the message to edit")  # GUESS: wording
        document = self._document(params.attached(media["media"]))
        caption, entities = caption_text(
            media.get("caption"), media.get("parse_mode"), media.get("caption_entities")
        )
        markup = reply_markup(params.json("reply_markup"), inline_only=True)
        return self._apply_edit(
            bot,
            message,
            True,
            document=document,
            caption=caption or None,
            caption_entities=entities,
            reply_markup=markup,
        )

    def delete_message(self, bot: Bot, params: Params) -> bool:
        conv = self.world.bot_conversation(bot, params.chat_id())
        message = self.world.find_message(
            conv.chat.id, conv.scope, params.required_int("message_id")
        )
        if message is None:
            raise bad_request("message to delete not found")
        refusal = self.undeletable(bot, conv, message)
        if refusal is not None:
            raise bad_request(refusal)
        message.deleted = True
        self.world.publish_message(message)
        return True

    def undeletable(self, bot: Bot, conv: Conversation, message: Message) -> str | None:
        """Why the bot may not delete the message, in Telegram's words; None if it may.
        Only messages sent less than 48 hours ago can be deleted (deleteMessage); in a
        group, others' messages only by an admin."""
        if self.world.now() - message.date >= DELETE_WINDOW:
            return "message can't be deleted for everyone"
        is_admin = conv.chat.members.get(bot.id) in (ADMINISTRATOR, CREATOR)
        if message.sender_id != bot.id and conv.chat.is_group and not is_admin:
            return "message can't be deleted"
        return None

    def delete_messages(self, bot: Bot, params: Params) -> bool:
        """Delete up to 100 messages; those not found or not deletable are skipped."""
        ids = params.json("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad_request("message_ids must be a list of 1 to 100 identifiers")
        conv = self.world.bot_conversation(bot, params.chat_id())
        deleted = 0
        for message_id in ids:
            message = self.world.find_message(conv.chat.id, conv.scope, int(message_id))
            if message is None or self.undeletable(bot, conv, message) is not None:
                continue
            message.deleted = True
            self.world.publish_message(message)
            deleted += 1
        if not deleted:
            raise bad_request("message to delete not found")
        return True

    # ----- answers -----------------------------------------------------------

    def answer_callback_query(self, bot: Bot, params: Params) -> bool:
        query = self.world.callback_queries.get(params.required_str("callback_query_id"))
        if (
            query is None
            or query.bot_id != bot.id
            or query.answer is not None
            or self._too_old(query.created)
        ):
            raise bad_request(QUERY_TOO_OLD)
        text = callback_answer_text(params.string("text"))
        query.answer = {
            "text": text,
            "show_alert": params.flag("show_alert"),
            "url": params.string("url"),
            "cache_time": integer_arg("answerCallbackQuery", params, "cache_time", 0),
        }
        self.world.events.publish(
            {
                "type": "callback_answer",
                "user_id": query.user_id,
                "query_id": query.id,
                **query.answer,
            }
        )
        return True

    def answer_inline_query(self, bot: Bot, params: Params) -> bool:
        query = self.world.inline_queries.get(params.required_str("inline_query_id"))
        if (
            query is None
            or query.bot_id != bot.id
            or query.answer is not None
            or self._too_old(query.created)
        ):
            raise bad_request(QUERY_TOO_OLD)
        results = check_inline_results(params.json("results"))
        button = results_button(params.json("button"))
        if button is None and params.string("switch_pm_text"):
            button = {
                "text": params.string("switch_pm_text"),
                "start_parameter": params.string("switch_pm_parameter") or "",
            }
        query.answer = {
            "results": results,
            "cache_time": integer_arg("answerInlineQuery", params, "cache_time", 300),
            "is_personal": params.flag("is_personal"),
            "next_offset": next_offset(params.string("next_offset")),
            "button": button,
        }
        self.world.events.publish(
            {
                "type": "inline_answer",
                "user_id": query.user_id,
                "query_id": query.id,
                "query": query.query,
                **query.answer,
            }
        )
        return True

    def _too_old(self, created: float) -> bool:
        return time.monotonic() - created > self.world.config.answer_timeout

    # ----- chats -------------------------------------------------------------

    def get_chat(self, bot: Bot, params: Params) -> JSON:
        conv = self.world.bot_conversation(bot, params.chat_id())
        chat = conv.chat
        info: JSON = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.type == "private" and chat.user is not None:
            info["active_usernames"] = [chat.user.username] if chat.user.username else []
        return info

    def get_chat_member(self, bot: Bot, params: Params) -> JSON:
        conv = self.world.bot_conversation(bot, params.chat_id())
        user_id = params.required_int("user_id")
        try:
            account = self.world.account(user_id)
        except KeyError:
            raise bad_request("user not found") from None
        chat = conv.chat
        if chat.type == "private":
            status = "member" if user_id in (chat.id, bot.id) else LEFT
        else:
            status = chat.members.get(user_id, LEFT)
        member: JSON = {"status": status, "user": account.to_api()}
        if status == CREATOR:
            member["is_anonymous"] = False
        elif status == ADMINISTRATOR:
            member.update(ADMIN_RIGHTS)
        elif status == KICKED:
            member["until_date"] = 0
        return member

    def get_chat_member_count(self, bot: Bot, params: Params) -> int:
        conv = self.world.bot_conversation(bot, params.chat_id())
        if conv.chat.type == "private":
            return 2
        return sum(1 for status in conv.chat.members.values() if status not in (LEFT, KICKED))


SWITCH_INLINE = ("switch_inline_query", "switch_inline_query_current_chat",
                 "switch_inline_query_chosen_chat")  # fmt: skip


def inline_buttons_allowed(bot: Bot, markup: JSON | None) -> JSON | None:
    """The markup, unless it has a button that opens inline mode and the bot has none
    (BotFather's /setinline): Telegram refuses such buttons (BUTTON_TYPE_INVALID)."""
    rows = (markup or {}).get("inline_keyboard") or []
    opens_inline = any(key in button for row in rows for button in row for key in SWITCH_INLINE)
    if opens_inline and not bot.inline_mode:
        raise bad_request("BUTTON_TYPE_INVALID")
    return markup


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""
