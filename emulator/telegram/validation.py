"""Checks Telegram makes on what a bot sends: sizes, keyboards, inline results.

Each check raises `ApiError` with Telegram's own wording, so the service meets these
refusals here before it meets them in production.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from emulator.telegram import api_table
from emulator.telegram.api_table import Method, Param, element_types, object_type
from emulator.telegram.errors import QUERY_TOO_OLD, ApiError, bad_request
from emulator.telegram.formatting import Entity, format_text, utf16_len
from emulator.telegram.params import TRUE_WORDS, Params

# Sizes the reference states (api_table); the rest are Telegram's, known by trying.
MAX_TEXT = api_table.size("sendMessage", "text")[1]
MAX_CAPTION = api_table.size("sendDocument", "caption")[1]
MAX_CALLBACK_DATA_BYTES = api_table.size("InlineKeyboardButton", "callback_data")[1]
MAX_CALLBACK_ANSWER = api_table.size("answerCallbackQuery", "text")[1]
MAX_SECRET_TOKEN = api_table.size("setWebhook", "secret_token")[1]
MAX_START_PARAMETER = api_table.size("InlineQueryResultsButton", "start_parameter")[1]
MAX_INLINE_BUTTONS = 100
MAX_INLINE_ROW = 8
MAX_REPLY_BUTTONS = 300
MAX_REPLY_ROW = 12
MAX_MARKUP_BYTES = 10 * 1024
MAX_INLINE_RESULTS = 50
MAX_INLINE_RESULT_ID_BYTES = 64
MAX_NEXT_OFFSET_BYTES = 64

# A button's action is the first of these it has, in Telegram's order; the others are
# ignored (url and callback_data count only when not empty).
_INLINE_ACTIONS = (
    "url",
    "callback_data",
    "callback_game",
    "pay",
    "switch_inline_query",
    "switch_inline_query_chosen_chat",
    "switch_inline_query_current_chat",
    "login_url",
    "web_app",
    "copy_text",
)
# A button's `style` as Telegram's server reads it (telegram-bot-api's Client.cpp,
# get_button_style, in its 10.0 tree): any case; none, "" or "default" is the app's own
# look; any other word is refused. The reference documents the three colours only.
BUTTON_STYLES = ("danger", "success", "primary")
_URL_RE = re.compile(r"(?:https?|tg)://\S+|t\.me/\S+", re.IGNORECASE)
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]+")
_START_PARAMETER_RE = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_START_PARAMETER}}}")


def message_text(
    text: str | None, parse_mode: str | None, entities: Any
) -> tuple[str, list[Entity]]:
    """The text of a message to send or an edit: formatted, not empty, at most 4096."""
    if text is None:
        raise bad_request("message text is empty")
    plain, found = format_text(text, parse_mode, entities)
    if not plain:
        raise bad_request("message text is empty")
    if utf16_len(plain) > MAX_TEXT:
        raise bad_request("message is too long")
    return plain, found


def caption_text(
    text: str | None, parse_mode: str | None, entities: Any
) -> tuple[str, list[Entity]]:
    if not text:
        return "", []
    plain, found = format_text(text, parse_mode, entities)
    if utf16_len(plain) > MAX_CAPTION:
        raise bad_request("message caption is too long")
    return plain, found


def callback_data(data: Any) -> str:
    if not isinstance(data, str) or not (1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES):
        raise bad_request("BUTTON_DATA_INVALID")
    return data


def _markup_size(markup: Any) -> None:
    if len(json.dumps(markup, ensure_ascii=False).encode("utf-8")) > MAX_MARKUP_BYTES:
        raise bad_request("reply markup is too long")


def inline_keyboard(markup: Any) -> dict[str, Any]:
    """An InlineKeyboardMarkup, checked button by button."""
    if not isinstance(markup, dict) or not isinstance(markup.get("inline_keyboard"), list):
        raise bad_request("can't parse inline keyboard markup JSON object")
    rows: list[list[dict[str, Any]]] = []
    total = 0
    for row in markup["inline_keyboard"]:
        if not isinstance(row, list):
            raise bad_request("can't parse inline keyboard markup JSON object")
        if len(row) > MAX_INLINE_ROW:
            raise bad_request("BUTTONS_TOO_WIDE")
        checked = [inline_button(button) for button in row]
        total += len(checked)
        if checked:
            rows.append(checked)
    if total > MAX_INLINE_BUTTONS:
        raise bad_request("reply markup is too long")
    result: dict[str, Any] = {"inline_keyboard": rows}
    _markup_size(result)
    return result


def _button_error(detail: str) -> ApiError:
    return bad_request(f"can't parse inline keyboard button: {detail}")


def _keyboard_button_error(detail: str) -> ApiError:
    return bad_request(f"can't parse keyboard button: {detail}")


def _string_field(button: dict[str, Any], name: str, *, required: bool = False) -> str:
    """A button's string field as Telegram reads it (a number is its text)."""
    if name not in button:
        if required:
            raise _button_error(f'Can\'t find field "{name}"')
        return ""
    value = button[name]
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    raise _button_error(f'Field "{name}" must be of type String')


def button_actions(button: dict[str, Any]) -> list[str]:
    """The actions a button has, in Telegram's order: the first is the one it takes."""
    return [
        name
        for name in _INLINE_ACTIONS
        if name in button and (name not in ("url", "callback_data") or _string_field(button, name))
    ]


def button_style(button: dict[str, Any], error: Callable[[str], ApiError]) -> dict[str, str]:
    """A button's style as its message keeps it (`{}`: the app's own look); refused in
    Telegram's words when it is none of the colours (`error` names the button's kind)."""
    value = button.get("style", "")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = json.dumps(value)  # a number is its text, as for every string field
    if not isinstance(value, str):
        raise error('Field "style" must be of type String')
    style = value.lower()
    if style in ("", "default"):
        return {}
    if style not in BUTTON_STYLES:
        raise error("invalid button style specified")
    return {"style": style}


def inline_button(button: Any) -> dict[str, Any]:
    if not isinstance(button, dict):
        raise _button_error("InlineKeyboardButton must be an Object")
    text = _string_field(button, "text", required=True)
    style = button_style(button, _button_error)  # read before the action, as Telegram does
    if not text.strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = button_actions(button)
    if not actions:
        raise _button_error("Text buttons are unallowed in the inline keyboard")
    action = actions[0]
    value = button[action]
    if action == "callback_data":
        value = callback_data(_string_field(button, action))
    elif action == "url":
        value = _string_field(button, action)
        if not _URL_RE.fullmatch(value.strip()):
            raise bad_request("BUTTON_URL_INVALID")
    elif action in ("switch_inline_query", "switch_inline_query_current_chat"):
        value = _string_field(button, action, required=True)
    return {"text": text, action: value, **style}  # the action first: it names the kind


def reply_keyboard(markup: dict[str, Any]) -> dict[str, Any]:
    rows = markup.get("keyboard")
    if not isinstance(rows, list):
        raise bad_request("can't parse reply keyboard markup JSON object")
    total = 0
    for row in rows:
        if not isinstance(row, list):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if len(row) > MAX_REPLY_ROW:
            raise bad_request("BUTTONS_TOO_WIDE")
        for button in row:
            text = button.get("text") if isinstance(button, dict) else button
            if not isinstance(text, str) or not text:
                raise bad_request(
                    'can\'t parse keyboard button: Field "text" must be of type String'
                )
            if isinstance(button, dict):
                button_style(button, _keyboard_button_error)
        total += len(row)
    if total > MAX_REPLY_BUTTONS:
        raise bad_request("reply markup is too long")
    _markup_size(markup)
    return markup


def reply_markup(markup: Any, *, inline_only: bool = False) -> dict[str, Any] | None:
    """Any reply_markup a message may carry (edits and inline results: inline keyboards only)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        return inline_keyboard(markup)
    if inline_only:
        raise bad_request("can't parse inline keyboard markup JSON object")
    if "keyboard" in markup:
        return reply_keyboard(markup)
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return markup
    raise bad_request("can't parse reply keyboard markup JSON object")


def callback_answer_text(text: str | None) -> str | None:
    if text is not None and len(text) > MAX_CALLBACK_ANSWER:
        raise bad_request("MESSAGE_TOO_LONG")
    return text


def secret_token(token: str | None) -> str | None:
    if token is None or token == "":
        return None
    if len(token) > MAX_SECRET_TOKEN:
        raise bad_request("secret token is too long")
    if not _SECRET_RE.fullmatch(token):
        raise bad_request("secret token contains unallowed characters")
    return token


def inline_results(results: Any) -> list[dict[str, Any]]:
    """The `results` of answerInlineQuery: at most 50, unique ids, each well formed."""
    if not isinstance(results, list):
        raise bad_request("can't parse inline query results JSON object")
    if len(results) > MAX_INLINE_RESULTS:
        raise bad_request("RESULTS_TOO_MUCH")
    seen: set[str] = set()
    checked: list[dict[str, Any]] = []
    for result in results:
        if not isinstance(result, dict):
            raise bad_request("can't parse InlineQueryResult: InlineQueryResult must be an Object")
        result_id = result.get("id")
        if not isinstance(result_id, str) or not (
            1 <= len(result_id.encode("utf-8")) <= MAX_INLINE_RESULT_ID_BYTES
        ):
            raise bad_request("RESULT_ID_INVALID")
        if result_id in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(result_id)
        checked.append(inline_result(result))
    return checked


def inline_result(result: dict[str, Any]) -> dict[str, Any]:
    kind = result.get("type")
    if not isinstance(kind, str):
        raise bad_request('can\'t parse InlineQueryResult: Field "type" must be of type String')
    out = dict(result)
    if kind == "article":
        if not isinstance(result.get("title"), str) or not result["title"]:
            raise bad_request(
                'can\'t parse InlineQueryResult: Field "title" must be of type String'
            )
        if not isinstance(result.get("input_message_content"), dict):
            raise bad_request(
                "can't parse InlineQueryResult: "
                'Field "input_message_content" must be of type Object'
            )
    content = result.get("input_message_content")
    if content is not None:
        if not isinstance(content, dict):
            raise bad_request("can't parse InputMessageContent: object expected")
        if "message_text" in content:
            text, entities = message_text(
                content.get("message_text"), content.get("parse_mode"), content.get("entities")
            )
            out["input_message_content"] = {**content, "message_text": text, "entities": entities}
    if result.get("reply_markup") is not None:
        out["reply_markup"] = reply_markup(result["reply_markup"], inline_only=True)
    return out


def next_offset(value: str | None) -> str:
    if value is None:
        return ""
    if len(value.encode("utf-8")) > MAX_NEXT_OFFSET_BYTES:
        raise bad_request("NEXT_OFFSET_INVALID")
    return value


def results_button(button: Any) -> dict[str, Any] | None:
    if button is None:
        return None
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request("can't parse InlineQueryResultsButton")
    start = button.get("start_parameter")
    if start is not None and (
        not isinstance(start, str) or not _START_PARAMETER_RE.fullmatch(start)
    ):
        raise bad_request("START_PARAM_INVALID")
    return button


# ----- a call's parameters against the reference (api_table) ---------------------

# What Telegram answers when a parameter it needs is missing, in the order its server
# (telegram-bot-api, Client.cpp) checks them; None: Telegram does without it (setWebhook
# without a url deletes the webhook). Another method missing a required parameter of the
# reference: "chat_id is empty" (every chat check's first words), else Telegram's
# generic 'parameter "<name>" is required'.
MISSING: dict[str, tuple[tuple[str, str | None], ...]] = {
    "sendmessage": (("text", "message text is empty"), ("chat_id", "chat_id is empty")),
    "senddocument": (
        ("document", "there is no document in the request"),
        ("chat_id", "chat_id is empty"),
    ),
    "sendchataction": (
        ("action", "wrong parameter action in request"),
        ("chat_id", "chat_id is empty"),
    ),
    "editmessagetext": (("text", "message text is empty"),),
    "deletemessage": (
        ("chat_id", "chat identifier is not specified"),
        ("message_id", "message identifier is not specified"),
    ),
    "deletemessages": (
        ("message_ids", "message identifiers are not specified"),
        ("chat_id", "chat_id is empty"),
    ),
    "answercallbackquery": (("callback_query_id", QUERY_TOO_OLD),),
    "answerinlinequery": (("results", None), ("inline_query_id", QUERY_TOO_OLD)),
    "getchatmember": (("user_id", "invalid user_id specified"), ("chat_id", "chat_id is empty")),
    "getchat": (("chat_id", "chat_id is empty"),),
    "getchatmembercount": (("chat_id", "chat_id is empty"),),
    "getfile": (("file_id", "file_id not specified"),),
    "setwebhook": (("url", None),),
    "setmycommands": (("commands", None),),
}
# Integers Telegram brings into a range rather than refuse (Client.cpp's get_integer_arg):
# method -> parameter -> (least, greatest).
CLAMPED: dict[str, dict[str, tuple[int, int]]] = {
    "getupdates": {"limit": (1, 100), "timeout": (0, 50)},
    "setwebhook": {"max_connections": (1, 100)},
    "answercallbackquery": {"cache_time": (0, 30 * 24 * 3600)},
    "answerinlinequery": {"cache_time": (0, 24 * 3600)},
}
_BOOLEAN_WORDS = TRUE_WORDS | {"false", "no", "0"}
_INTEGER_RE = re.compile(r"-?[0-9]+")


def require(method: Method, params: Params) -> None:
    """Refuse a call missing a parameter Telegram needs, in Telegram's words."""
    checks = MISSING.get(method.name.lower(), ())
    for name, text in checks:
        if text is not None and not params.has(name) and not excused(method, params, name):
            raise bad_request(text)
    checked = {name for name, _ in checks}
    missing = [p.name for p in method.required if p.name not in checked and not params.has(p.name)]
    if "chat_id" in missing:
        raise bad_request("chat_id is empty")
    if missing:
        raise bad_request(f'parameter "{missing[0]}" is required')


def excused(method: Method, params: Params, name: str) -> bool:
    """Whether the call gives what makes `name` optional (the reference's
    `required_unless`: 10.4's sendMessage needs no chat_id when it answers a callback
    query ephemerally, `ephemeral_message_parameters.callback_query_id`)."""
    path = method.required_unless.get(name)
    if path is None:
        return False
    head, _, field_name = path.partition(".")
    if not field_name:
        return params.has(head)
    try:
        value = params.json(head)
    except ApiError:
        return False
    return isinstance(value, dict) and value.get(field_name) not in (None, "")


def integer_arg(method: str, params: Params, name: str, default: int) -> int:
    """An Integer Telegram brings into its range (CLAMPED), `default` when not given."""
    value = params.integer(name)
    low, high = CLAMPED[method.lower()][name]
    return default if value is None else min(max(value, low), high)


def parameter_problems(method: Method, params: Params) -> list[dict[str, str]]:
    """What Telegram would silently ignore or misread in a call: parameters (and fields of
    its JSON objects) the reference does not know, values not of their type."""
    problems: list[dict[str, str]] = []
    for name in params.names():
        param = method.params.get(name)
        if param is None:
            if not method.knows(name):
                problems.append({"parameter": name, "problem": "unknown"})
            continue
        misread = misread_value(param, params) or out_of_range(method, param, params)
        if misread:
            problems.append({"parameter": name, "problem": misread})
        problems += unknown_fields(param, params)
        if "InlineKeyboardMarkup" in param.types:
            problems += ignored_actions(param.name, params)
    return problems


def ignored_actions(name: str, params: Params) -> list[dict[str, str]]:
    """Inline buttons with more than one action: Telegram takes the first, silently."""
    problems: list[dict[str, str]] = []
    try:
        rows = (params.json(name) or {}).get("inline_keyboard") or []
        for button in (b for row in rows for b in row if isinstance(b, dict)):
            first, *others = button_actions(button) or [""]
            problems += [
                {"parameter": f"{name}.inline_keyboard.{extra}", "problem": f"ignored for {first}"}
                for extra in others
            ]
    except (ApiError, AttributeError, TypeError):
        return []  # malformed: the method's own checks refuse it
    return problems


def misread_value(param: Param, params: Params) -> str | None:
    """Why Telegram would misread this value, or None: it reads an Integer by its leading
    digits and a Boolean as true only for "true", "yes" or "1"."""
    text = params.text(param.name) or ""
    kind = param.scalar
    if not text:
        return None  # as good as not given
    if kind == "Integer" and not _INTEGER_RE.fullmatch(text):
        return f"{text!r} is not an Integer (Telegram reads {params.integer(param.name)})"
    if kind == "Boolean" and text.strip().lower() not in _BOOLEAN_WORDS:
        return f"{text!r} is not a Boolean (Telegram reads false)"
    if kind == "Float" and not _is_float(text):
        return f"{text!r} is not a Float"
    if kind == "String" and isinstance(params.raw(param.name), dict | list):
        return "an object or array is not a String (Telegram reads its JSON text)"
    if param.name.endswith("entities") and params.json(param.name) is None:
        return "not JSON (Telegram drops the entities)"
    return None


def out_of_range(method: Method, param: Param, params: Params) -> str | None:
    """Why an Integer Telegram clamps (CLAMPED) is read as another, or None."""
    limits = CLAMPED.get(method.name.lower(), {}).get(param.name)
    value = params.integer(param.name)
    if limits is None or value is None or limits[0] <= value <= limits[1]:
        return None
    low, high = limits
    return f"{value} is not in {low}-{high} (Telegram reads {min(max(value, low), high)})"


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def unknown_fields(param: Param, params: Params) -> list[dict[str, str]]:
    """Fields the reference does not know in a JSON object parameter (reply_markup,
    results, ...), named by their path: `reply_markup.inline_keyboard.callback_dta`."""
    names, depth = element_types(param.types)
    if not names:
        return []
    try:
        value = params.json(param.name)
    except ApiError:
        return []  # not JSON: the method's own checks refuse it
    found: dict[str, None] = {}
    _walk(value, names, depth, param.name, found)
    return [{"parameter": path, "problem": "unknown"} for path in found]


def _walk(value: Any, names: list[str], depth: int, path: str, found: dict[str, None]) -> None:
    if depth > 0:
        for item in value if isinstance(value, list) else []:
            _walk(item, names, depth - 1, path, found)
        return
    if not isinstance(value, dict):
        return
    types = [found_type for name in names if (found_type := object_type(name)) is not None]
    fields: dict[str, tuple[str, ...]] = {}
    for object_kind in types:
        for key, kinds in object_kind.field_types.items():
            fields.setdefault(key, kinds)
    for key, item in value.items():
        if key not in fields:
            found[f"{path}.{key}"] = None
            continue
        inner, inner_depth = element_types(fields[key])
        if inner:
            _walk(item, inner, inner_depth, f"{path}.{key}", found)
