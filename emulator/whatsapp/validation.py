"""Meta's limits on what a business sends: the message objects of
`POST /<PHONE_NUMBER_ID>/messages` and the templates of `POST /<WABA_ID>/message_templates`.

What Meta refuses is refused here with its codes (errors.py): 100 for a malformed
request (a wrong type, an unknown key, an unknown value), 131008 for a required field
that is absent, 131009 for a value past a limit. Where Meta's pages leave a rule unsaid
or two pages disagree, the stricter one is kept (noted where it is). Lengths are counted
in UTF-16 code units, as Meta's clients count them (an emoji outside the BMP is 2).

Sources: developers.facebook.com/docs/whatsapp/cloud-api/reference/messages,
.../cloud-api/messages/text-messages, .../interactive-reply-buttons-messages,
.../interactive-list-messages, .../interactive-cta-url-messages, .../template-messages,
.../document-messages, .../reaction-messages, .../guides/mark-message-as-read, and
developers.facebook.com/docs/whatsapp/business-management-api/message-templates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from emulator.whatsapp.errors import (
    INVALID_PARAMETER,
    TEMPLATE_PARAM_TEXT,
    GraphError,
    invalid,
    missing,
    out_of_range,
)

JSON = dict[str, Any]

TEXT_BODY_MAX = 4096
BUTTON_BODY_MAX = 1024
CTA_BODY_MAX = 1024  # a call-to-action URL message's body (.../interactive-cta-url-messages)
CTA_DISPLAY_TEXT_MAX = 20  # … and its button's label
# Meta's list page says 4096 for a list's body; its reply-button page and older list
# pages say 1024: the emulator keeps 1024 for both.
LIST_BODY_MAX = 1024
HEADER_TEXT_MAX = 60
FOOTER_TEXT_MAX = 60
BUTTONS_MAX = 3
BUTTON_ID_MAX = 256
BUTTON_TITLE_MAX = 20
LIST_BUTTON_MAX = 20
SECTIONS_MAX = 10
SECTION_TITLE_MAX = 24
ROWS_MAX = 10  # over all sections together
ROW_ID_MAX = 200
ROW_TITLE_MAX = 24
ROW_DESCRIPTION_MAX = 72
CAPTION_MAX = 1024
TEMPLATE_NAME_MAX = 512
TEMPLATE_BODY_MAX = 1024
TEMPLATE_HEADER_MAX = 60
TEMPLATE_FOOTER_MAX = 60
# Meta allows 25 characters on a template's button; the emulator keeps 20, a reply
# button's limit, so that one label fits both.
TEMPLATE_BUTTON_MAX = 20
TEMPLATE_BUTTONS_MAX = 10
CATEGORIES = ("UTILITY", "MARKETING", "AUTHENTICATION")
# message_send_ttl_seconds by category (-1: 30 days) (.../message-templates/time-to-live).
TTL_RANGES = {
    "AUTHENTICATION": (30, 900),
    "UTILITY": (30, 43200),
    "MARKETING": (43200, 2592000),
}

# The template languages Meta supports (.../message-templates/supported-languages).
LANGUAGES = frozenset(
    """af sq ar ar_EG ar_AE ar_LB ar_MA ar_QA az be_BY bn bn_IN bg ca zh_CN zh_HK zh_TW hr cs
    da prs_AF nl nl_BE en en_GB en_US en_AE en_AU en_CA en_GH en_IE en_IN en_JM en_MY en_NZ
    en_QA en_SG en_UG en_ZA et fil fi fr fr_BE fr_CA fr_CH fr_CI fr_MA ka de de_AT de_CH el
    gu ha he hi hu id ga it ja kn kk rw_RW ko ky_KG lo lv lt mk ms ml mr nb ps_AF fa pl pt_BR
    pt_PT pa ro ru sr si_LK sk sl es es_AR es_CL es_CO es_CR es_DO es_EC es_HN es_MX es_PA
    es_PE es_ES es_UY sw sv ta te th tr uk ur uz vi zu""".split()
)

PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")
TEMPLATE_NAME = re.compile(r"[a-z0-9_]+")
BSUID = re.compile(r"[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}")
PHONE_PUNCTUATION = re.compile(r"[\s().-]")
INTERACTIVE_TYPES = ("button", "list", "cta_url")
INTERACTIVE_TYPES_NOT_MODELLED = (
    "flow",
    "product",
    "product_list",
    "catalog_message",
    "location_request_message",
    "address_message",
    "call_permission_request",
    "carousel",
    "voice_call",
)
MESSAGE_TYPES = ("text", "interactive", "template", "document", "reaction")
MESSAGE_TYPES_NOT_MODELLED = (
    "audio",
    "contacts",
    "image",
    "location",
    "sticker",
    "video",
)
FREE_FORM = ("text", "interactive", "document", "reaction")


def length(text: str) -> int:
    """Characters as Meta counts them: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


# An interactive message's body, by its type.
BODY_MAX = {"button": BUTTON_BODY_MAX, "list": LIST_BODY_MAX, "cta_url": CTA_BODY_MAX}


# ----- small checks -----------------------------------------------------------


def obj(value: Any, where: str) -> JSON:
    if not isinstance(value, dict):
        raise invalid(f"Param {where} must be a JSON object")
    return value


def only(value: JSON, where: str, allowed: tuple[str, ...]) -> None:
    """Meta refuses a key it does not know (`Unexpected key "x" on param "y"`)."""
    for key in value:
        if key not in allowed:
            raise invalid(f'Unexpected key "{key}" on param "{where}".')


def text(
    value: JSON,
    key: str,
    where: str,
    maximum: int | None,
    *,
    required: bool = True,
    allow_empty: bool = False,
) -> str | None:
    name = f"{where}['{key}']" if where else key
    if key not in value or value[key] is None:
        if required:
            raise missing(f"The parameter {name} is required.")
        return None
    found = value[key]
    if not isinstance(found, str):
        raise invalid(f"Param {name} must be a string.")
    if not allow_empty and not found.strip():
        raise out_of_range(f"Param {name} must be at least 1 character long (not blank).")
    if maximum is not None and length(found) > maximum:
        raise out_of_range(
            f"Param {name} must be at most {maximum} characters long (it is {length(found)})."
        )
    return found


def array(value: JSON, key: str, where: str, low: int, high: int) -> list[Any]:
    name = f"{where}['{key}']"
    if key not in value:
        raise missing(f"The parameter {name} is required.")
    found = value[key]
    if not isinstance(found, list):
        raise invalid(f"Param {name} must be an array.")
    if not low <= len(found) <= high:
        raise out_of_range(f"Param {name} must have {low} to {high} items (it has {len(found)}).")
    return found


def unique(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise out_of_range(f"{what} must be unique: {value!r} is repeated.")
        seen.add(value)


# ----- the messages endpoint ----------------------------------------------------


@dataclass(frozen=True)
class Recipient:
    kind: str  # "phone" (`to`) or "bsuid" (`recipient`)
    value: str  # digits, or the BSUID
    input: str  # as sent


@dataclass(frozen=True)
class Outgoing:
    recipient: Recipient
    type: str
    content: JSON  # {type: the type's object}
    context_id: str | None
    callback_data: str | None = None  # biz_opaque_callback_data: echoed in its statuses


@dataclass(frozen=True)
class MarkRead:
    message_id: str
    typing: bool


TOP_LEVEL = (
    "messaging_product",
    "recipient_type",
    "to",
    "recipient",
    "type",
    "context",
    "biz_opaque_callback_data",
)


def messaging_product(body: JSON) -> None:
    if "messaging_product" not in body:
        raise invalid("The parameter messaging_product is required.")
    if body["messaging_product"] != "whatsapp":
        raise invalid(
            f"Param messaging_product must be one of {{WHATSAPP}} - got "
            f"{body['messaging_product']!r}."
        )


def parse_request(body: JSON) -> Outgoing | MarkRead:
    """A messages request, checked: a message to send, or a mark-as-read."""
    messaging_product(body)
    if "status" in body:
        return mark_read(body)
    kind = body.get("type", "text")  # Meta: type defaults to text
    if not isinstance(kind, str):
        raise invalid("Param type must be a string.")
    if kind in MESSAGE_TYPES_NOT_MODELLED:
        raise invalid(f"type {kind!r}: the local emulator does not model it ({MESSAGE_TYPES})")
    if kind not in MESSAGE_TYPES:
        raise invalid(f"Param type must be one of {MESSAGE_TYPES} - got {kind!r}.")
    only(body, "", (*TOP_LEVEL, kind))
    if body.get("recipient_type", "individual") != "individual":
        raise invalid("Param recipient_type must be 'individual' (no groups).")
    recipient = parse_recipient(body)
    context_id: str | None = None
    if "context" in body:
        context = obj(body["context"], "context")
        only(context, "context", ("message_id",))
        context_id = text(context, "message_id", "context", None)
    callback_data = None
    if "biz_opaque_callback_data" in body:
        callback_data = text(body, "biz_opaque_callback_data", "", 512)
    if kind not in body:
        raise missing(f"The parameter {kind} is required.")
    content = obj(body[kind], kind)
    CHECKS[kind](content)
    return Outgoing(recipient, kind, {kind: content}, context_id, callback_data)


def parse_recipient(body: JSON) -> Recipient:
    """`to`: a phone number (digits, maybe +, spaces, dashes); `recipient`: a BSUID.
    Both at once is refused (the emulator's choice: Meta's pages do not say)."""
    if "to" in body and "recipient" in body:
        raise invalid("Send one of to (a phone number) and recipient (a BSUID), not both.")
    if "recipient" in body:
        value = body["recipient"]
        if not isinstance(value, str) or not BSUID.fullmatch(value):
            raise invalid(f"Param recipient must be a business-scoped user id - got {value!r}.")
        return Recipient("bsuid", value, value)
    if "to" not in body:
        raise missing("The parameter to (or recipient) is required.")
    value = body["to"]
    if not isinstance(value, str):
        raise invalid("Param to must be a string.")
    digits = PHONE_PUNCTUATION.sub("", value).removeprefix("+")
    if not digits.isdigit() or not 7 <= len(digits) <= 15:
        raise invalid(f"Param to must be a phone number - got {value!r}.")
    return Recipient("phone", digits, value)


def mark_read(body: JSON) -> MarkRead:
    only(body, "", ("messaging_product", "status", "message_id", "typing_indicator"))
    if body["status"] != "read":
        raise invalid(f"Param status must be 'read' - got {body['status']!r}.")
    message_id = text(body, "message_id", "", None)
    assert message_id is not None
    typing = False
    if "typing_indicator" in body:
        indicator = obj(body["typing_indicator"], "typing_indicator")
        only(indicator, "typing_indicator", ("type",))
        if indicator.get("type") != "text":
            raise invalid("Param typing_indicator['type'] must be 'text'.")
        typing = True
    return MarkRead(message_id, typing)


def check_text(content: JSON) -> None:
    only(content, "text", ("body", "preview_url"))
    text(content, "body", "text", TEXT_BODY_MAX)
    if "preview_url" in content and not isinstance(content["preview_url"], bool):
        raise invalid("Param text['preview_url'] must be a boolean.")


def check_interactive(content: JSON) -> None:
    only(content, "interactive", ("type", "header", "body", "footer", "action"))
    kind = text(content, "type", "interactive", None)
    if kind in INTERACTIVE_TYPES_NOT_MODELLED:
        raise invalid(
            f"interactive type {kind!r}: the local emulator models button, list and cta_url"
        )
    if kind not in INTERACTIVE_TYPES:
        raise invalid(f"Param interactive['type'] must be button, list or cta_url - got {kind!r}.")
    if "header" in content:
        header = obj(content["header"], "interactive['header']")
        only(header, "header", ("type", "text"))
        if header.get("type") != "text":
            raise invalid(
                "Param interactive['header']['type'] must be 'text' (the emulator models "
                "text headers only; a list's header can only be text)."
            )
        text(header, "text", "header", HEADER_TEXT_MAX)
    if "body" not in content:
        raise missing("The parameter interactive['body'] is required.")
    body = obj(content["body"], "interactive['body']")
    only(body, "body", ("text",))
    text(body, "text", "body", BODY_MAX[kind])
    if "footer" in content:
        footer = obj(content["footer"], "interactive['footer']")
        only(footer, "footer", ("text",))
        text(footer, "text", "footer", FOOTER_TEXT_MAX)
    if "action" not in content:
        raise missing("The parameter interactive['action'] is required.")
    action = obj(content["action"], "interactive['action']")
    if kind == "button":
        check_buttons(action)
    elif kind == "list":
        check_list(action)
    else:
        check_cta_url(action)


def check_cta_url(action: JSON) -> None:
    """A call-to-action URL button: `name` cta_url, and its `parameters`: the button's
    `display_text` (20 at most) and the `url` it opens (http or https, with a host)."""
    only(action, "action", ("name", "parameters"))
    name = text(action, "name", "action", None)
    if name != "cta_url":
        raise invalid(f"Param action['name'] must be 'cta_url' - got {name!r}.")
    if "parameters" not in action:
        raise missing("The parameter action['parameters'] is required.")
    parameters = obj(action["parameters"], "action['parameters']")
    where = "action['parameters']"
    only(parameters, where, ("display_text", "url"))
    text(parameters, "display_text", where, CTA_DISPLAY_TEXT_MAX)
    url = text(parameters, "url", where, None)
    assert url is not None
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or url != url.strip():
        raise invalid(f"Param {where}['url'] must be a valid http or https URL - got {url!r}.")


def check_buttons(action: JSON) -> None:
    only(action, "action", ("buttons",))
    buttons = array(action, "buttons", "action", 1, BUTTONS_MAX)
    ids: list[str] = []
    titles: list[str] = []
    for index, raw in enumerate(buttons):
        where = f"action['buttons'][{index}]"
        button = obj(raw, where)
        only(button, where, ("type", "reply"))
        if button.get("type") != "reply":
            raise invalid(f"Param {where}['type'] must be 'reply'.")
        if "reply" not in button:
            raise missing(f"The parameter {where}['reply'] is required.")
        reply = obj(button["reply"], f"{where}['reply']")
        only(reply, f"{where}['reply']", ("id", "title"))
        found_id = text(reply, "id", f"{where}['reply']", BUTTON_ID_MAX)
        title = text(reply, "title", f"{where}['reply']", BUTTON_TITLE_MAX)
        assert found_id is not None and title is not None
        ids.append(found_id)
        titles.append(title)
    unique(ids, "Button ids")
    unique(titles, "Button titles")


def check_list(action: JSON) -> None:
    only(action, "action", ("button", "sections"))
    text(action, "button", "action", LIST_BUTTON_MAX)
    sections = array(action, "sections", "action", 1, SECTIONS_MAX)
    ids: list[str] = []
    for index, raw in enumerate(sections):
        where = f"action['sections'][{index}]"
        section = obj(raw, where)
        only(section, where, ("title", "rows"))
        text(section, "title", where, SECTION_TITLE_MAX, required=len(sections) > 1)
        rows = array(section, "rows", where, 1, ROWS_MAX)
        for row_index, raw_row in enumerate(rows):
            row_where = f"{where}['rows'][{row_index}]"
            row = obj(raw_row, row_where)
            only(row, row_where, ("id", "title", "description"))
            row_id = text(row, "id", row_where, ROW_ID_MAX)
            text(row, "title", row_where, ROW_TITLE_MAX)
            text(row, "description", row_where, ROW_DESCRIPTION_MAX, required=False)
            assert row_id is not None
            ids.append(row_id)
    if len(ids) > ROWS_MAX:
        raise out_of_range(
            f"A list has at most {ROWS_MAX} rows over all sections (it has {len(ids)})."
        )
    unique(ids, "Row ids")


def check_template(content: JSON) -> None:
    only(content, "template", ("name", "language", "components"))
    text(content, "name", "template", TEMPLATE_NAME_MAX)
    if "language" not in content:
        raise missing("The parameter template['language'] is required.")
    language = obj(content["language"], "template['language']")
    only(language, "template['language']", ("code", "policy"))
    text(language, "code", "template['language']", None)
    if language.get("policy", "deterministic") != "deterministic":
        raise invalid("Param template['language']['policy'] must be 'deterministic'.")
    components = content.get("components", [])
    if not isinstance(components, list):
        raise invalid("Param template['components'] must be an array.")
    for index, raw in enumerate(components):
        where = f"template['components'][{index}]"
        component = obj(raw, where)
        kind = component.get("type")
        if kind in ("body", "header"):
            only(component, where, ("type", "parameters"))
            parameters = component.get("parameters", [])
            if not isinstance(parameters, list):
                raise invalid(f"Param {where}['parameters'] must be an array.")
            for p_index, raw_param in enumerate(parameters):
                p_where = f"{where}['parameters'][{p_index}]"
                param = obj(raw_param, p_where)
                only(param, p_where, ("type", "text"))
                if param.get("type") != "text":
                    raise invalid(
                        f"Param {p_where}['type'] must be 'text' (the emulator models text "
                        "parameters only)."
                    )
                if not isinstance(param.get("text"), str) or not param["text"]:
                    raise missing("Parameter of type text is missing text value")
        elif kind == "button":
            only(component, where, ("type", "sub_type", "index", "parameters"))
            if component.get("sub_type") != "quick_reply":
                raise invalid(
                    f"Param {where}['sub_type'] must be 'quick_reply' (the emulator models "
                    "quick replies only)."
                )
            index_value = component.get("index")
            if not isinstance(index_value, str) or not index_value.isdigit():
                raise invalid(f"Param {where}['index'] must be a string of digits, as '0'.")
            parameters = array(component, "parameters", where, 1, 1)
            param = obj(parameters[0], f"{where}['parameters'][0]")
            only(param, f"{where}['parameters'][0]", ("type", "payload"))
            if param.get("type") != "payload":
                raise invalid(f"Param {where}['parameters'][0]['type'] must be 'payload'.")
            text(param, "payload", f"{where}['parameters'][0]", None)
        else:
            raise invalid(f"Param {where}['type'] must be body, header or button - got {kind!r}.")


def check_document(content: JSON) -> None:
    only(content, "document", ("id", "link", "caption", "filename"))
    if "id" in content and "link" in content:
        raise invalid("Param document takes one of id and link, not both.")
    if "id" not in content and "link" not in content:
        raise missing("The parameter document['id'] (or document['link']) is required.")
    if "id" in content:
        text(content, "id", "document", None)
    else:
        link = text(content, "link", "document", None)
        assert link is not None
        if not re.match(r"https?://", link):
            raise invalid("Param document['link'] must be an http(s) URL.")
    text(content, "caption", "document", CAPTION_MAX, required=False)
    text(content, "filename", "document", 240, required=False)


def check_reaction(content: JSON) -> None:
    only(content, "reaction", ("message_id", "emoji"))
    text(content, "message_id", "reaction", None)
    emoji = text(content, "emoji", "reaction", 16, allow_empty=True)  # "": remove it
    assert emoji is not None
    if re.search(r"[A-Za-z0-9\s]", emoji):
        raise out_of_range("Param reaction['emoji'] must be one emoji (or empty to remove).")


CHECKS = {
    "text": check_text,
    "interactive": check_interactive,
    "template": check_template,
    "document": check_document,
    "reaction": check_reaction,
}


def placeholders(body: str) -> list[int]:
    """The {{n}} of a template's text, in order; 100 for a named or malformed one."""
    found: list[int] = []
    for match in PLACEHOLDER.finditer(body):
        inside = match.group(1)
        if not inside.isdigit():
            raise invalid(
                f"Placeholder {{{{{inside}}}}}: the emulator models positional ones ({{{{1}}}})."
            )
        found.append(int(inside))
    return found


def fill(body: str, values: list[str]) -> str:
    return PLACEHOLDER.sub(lambda m: values[int(m.group(1)) - 1], body)


def check_param_text(value: str) -> None:
    """Template parameters cannot hold a new line, a tab or more than 4 spaces in a row."""
    if "\n" in value or "\t" in value or "     " in value:
        raise GraphError(
            TEMPLATE_PARAM_TEXT,
            "Param text cannot have new-line/tab characters or more than 4 consecutive "
            f"spaces: {value!r}",
        )


# ----- templates ---------------------------------------------------------------


@dataclass(frozen=True)
class NewTemplate:
    name: str
    language: str
    category: str
    components: list[JSON]
    ttl: int | None


def template_error(details: str) -> GraphError:
    return GraphError(
        INVALID_PARAMETER,
        details,
        message="Invalid parameter",
        user_title="Invalid parameter",
        user_msg=details,
    )


def parse_template(body: JSON) -> NewTemplate:
    """A template to create, checked as Meta's review would refuse it at once."""
    allowed = (
        "name",
        "language",
        "category",
        "components",
        "message_send_ttl_seconds",
        "parameter_format",
        "allow_category_change",
    )
    for key in body:
        if key not in allowed:
            raise template_error(f'Unexpected key "{key}" on a message template.')
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise template_error("The parameter name is required.")
    if not TEMPLATE_NAME.fullmatch(name) or len(name) > TEMPLATE_NAME_MAX:
        raise template_error(
            "Template names hold lowercase letters, digits and underscores only "
            f"(at most {TEMPLATE_NAME_MAX}) - got {name!r}."
        )
    language = body.get("language")
    if not isinstance(language, str) or language not in LANGUAGES:
        raise template_error(
            f"Param language must be a supported language code - got {language!r}."
        )
    category = body.get("category")
    if category not in CATEGORIES:
        raise template_error(f"Param category must be one of {CATEGORIES} - got {category!r}.")
    if body.get("parameter_format", "POSITIONAL") != "POSITIONAL":
        raise template_error("parameter_format: the emulator models POSITIONAL only.")
    ttl = body.get("message_send_ttl_seconds")
    if ttl is not None:
        low, high = TTL_RANGES[category]
        if not isinstance(ttl, int) or isinstance(ttl, bool):
            raise template_error("Param message_send_ttl_seconds must be an integer.")
        if not (low <= ttl <= high or (ttl == -1 and category != "MARKETING")):
            raise template_error(
                f"message_send_ttl_seconds of a {category} template is {low} to {high}"
                + (" or -1" if category != "MARKETING" else "")
                + f" - got {ttl}."
            )
    components = body.get("components")
    if not isinstance(components, list) or not components:
        raise template_error("The parameter components is required (a BODY at least).")
    kinds: list[str] = []
    for index, raw in enumerate(components):
        if not isinstance(raw, dict):
            raise template_error(f"components[{index}] must be an object.")
        kind = raw.get("type")
        if kind not in ("HEADER", "BODY", "FOOTER", "BUTTONS"):
            raise template_error(
                f"components[{index}]['type'] must be HEADER, BODY, FOOTER or BUTTONS - "
                f"got {kind!r}."
            )
        if kind in kinds:
            raise template_error(f"A template has one {kind} component at most.")
        kinds.append(kind)
        CHECK_COMPONENT[kind](raw, index)
    if "BODY" not in kinds:
        raise template_error("A template needs a BODY component.")
    return NewTemplate(name, language, category, components, ttl)


def template_placeholders(body: str) -> list[int]:
    try:
        return placeholders(body)
    except GraphError as error:
        raise template_error(error.details or error.message) from None


def check_examples(raw: JSON, index: int, body: str, key: str) -> None:
    numbers = template_placeholders(body)
    if numbers != list(range(1, len(numbers) + 1)):
        raise template_error(
            f"components[{index}]: placeholders must be {{{{1}}}}, {{{{2}}}}, ... in order - "
            f"got {numbers}."
        )
    if not numbers:
        return
    stripped = body.strip()
    if PLACEHOLDER.match(stripped) or re.search(r"\{\{\d+\}\}$", stripped):
        raise template_error(
            f"components[{index}]: variables can't be at the start or end of the template."
        )
    example = raw.get("example")
    values = example.get(key) if isinstance(example, dict) else None
    if key == "body_text":
        values = values[0] if isinstance(values, list) and values else None
    if not isinstance(values, list) or len(values) != len(numbers):
        raise template_error(
            f"components[{index}]: example['{key}'] must give {len(numbers)} sample value(s)."
        )


def check_header(raw: JSON, index: int) -> None:
    for key in raw:
        if key not in ("type", "format", "text", "example"):
            raise template_error(f'Unexpected key "{key}" on components[{index}].')
    if raw.get("format") != "TEXT":
        raise template_error("HEADER format: the emulator models TEXT headers only.")
    value = raw.get("text")
    if not isinstance(value, str) or not value or length(value) > TEMPLATE_HEADER_MAX:
        raise template_error(f"HEADER text is 1 to {TEMPLATE_HEADER_MAX} characters.")
    if len(template_placeholders(value)) > 1:
        raise template_error("A HEADER has one variable at most.")
    check_examples(raw, index, value, "header_text")


def check_body(raw: JSON, index: int) -> None:
    for key in raw:
        if key not in ("type", "text", "example"):
            raise template_error(f'Unexpected key "{key}" on components[{index}].')
    value = raw.get("text")
    if not isinstance(value, str) or not value.strip() or length(value) > TEMPLATE_BODY_MAX:
        raise template_error(f"BODY text is 1 to {TEMPLATE_BODY_MAX} characters.")
    check_examples(raw, index, value, "body_text")


def check_footer(raw: JSON, index: int) -> None:
    for key in raw:
        if key not in ("type", "text"):
            raise template_error(f'Unexpected key "{key}" on components[{index}].')
    value = raw.get("text")
    if not isinstance(value, str) or not value or length(value) > TEMPLATE_FOOTER_MAX:
        raise template_error(f"FOOTER text is 1 to {TEMPLATE_FOOTER_MAX} characters.")
    if template_placeholders(value):
        raise template_error("A FOOTER has no variables.")


def check_template_buttons(raw: JSON, index: int) -> None:
    for key in raw:
        if key not in ("type", "buttons"):
            raise template_error(f'Unexpected key "{key}" on components[{index}].')
    buttons = raw.get("buttons")
    if not isinstance(buttons, list) or not 1 <= len(buttons) <= TEMPLATE_BUTTONS_MAX:
        raise template_error(f"BUTTONS holds 1 to {TEMPLATE_BUTTONS_MAX} buttons.")
    texts: list[str] = []
    for button in buttons:
        if not isinstance(button, dict) or button.get("type") != "QUICK_REPLY":
            raise template_error("Template buttons: the emulator models QUICK_REPLY only.")
        for key in button:
            if key not in ("type", "text"):
                raise template_error(f'Unexpected key "{key}" on a template button.')
        value = button.get("text")
        if not isinstance(value, str) or not value or length(value) > TEMPLATE_BUTTON_MAX:
            raise template_error(f"A button's text is 1 to {TEMPLATE_BUTTON_MAX} characters.")
        texts.append(value)
    if len(set(texts)) != len(texts):
        raise template_error("A template's button texts must be unique.")


CHECK_COMPONENT = {
    "HEADER": check_header,
    "BODY": check_body,
    "FOOTER": check_footer,
    "BUTTONS": check_template_buttons,
}


# ----- what Meta accepts and WhatsApp shows literally -------------------------------

HTML_TAG = re.compile(r"</?(?:b|i|u|s|a|em|strong|code|pre|br|span|tg-spoiler|blockquote)\b[^>]*>")
MARKDOWN_LINK = re.compile(r"\[[^\]]+\]\((?:https?|tg)://[^)]+\)")
DOUBLE_STARS = re.compile(r"\*\*[^*]+\*\*")
TELEGRAM_ESCAPE = re.compile(r"\\[_*\[\]()~`>#+\-=|{}.!]")
INLINE_MARKS = re.compile(r"(?<![\w*])\*[^*\s][^*]*\*|(?<![\w_])_[^_\s][^_]*_|~[^~\s][^~]*~")


def literal_markup(kind: str, content: JSON) -> list[tuple[str, str]]:
    """What a message carries that WhatsApp would show as typed, not as meant: HTML
    tags, Telegram's Markdown (links, `**`, backslash escapes), and formatting marks in
    places WhatsApp never formats (headers, footers, button and row titles). Meta
    accepts all of it; the emulator records it (`warnings`). WhatsApp's own formatting
    (*bold*, _italic_, ~strike~, ```mono```) in a body is fine
    (faq.whatsapp.com/539178204879377)."""
    found: list[tuple[str, str]] = []

    def body(where: str, value: Any) -> None:
        if not isinstance(value, str):
            return
        for pattern, problem in (
            (HTML_TAG, "an HTML tag"),
            (MARKDOWN_LINK, "a Markdown link"),
            (DOUBLE_STARS, "**double stars** (WhatsApp bold is *one*)"),
            (TELEGRAM_ESCAPE, "a Telegram MarkdownV2 escape"),
        ):
            match = pattern.search(value)
            if match:
                found.append((where, f"{problem}: {match.group(0)!r} shows literally"))

    def title(where: str, value: Any) -> None:
        body(where, value)
        if isinstance(value, str) and INLINE_MARKS.search(value):
            found.append((where, f"formatting marks in {value!r}: not formatted there"))

    part = content.get(kind, {})
    if kind == "text":
        body("text.body", part.get("body"))
    elif kind == "interactive":
        body("interactive.body.text", (part.get("body") or {}).get("text"))
        title("interactive.header.text", (part.get("header") or {}).get("text"))
        title("interactive.footer.text", (part.get("footer") or {}).get("text"))
        action = part.get("action") or {}
        for index, button in enumerate(action.get("buttons", [])):
            title(f"interactive.action.buttons[{index}].reply.title", button["reply"]["title"])
        if "button" in action:
            title("interactive.action.button", action["button"])
        for s_index, section in enumerate(action.get("sections", [])):
            title(f"interactive.action.sections[{s_index}].title", section.get("title"))
            for r_index, row in enumerate(section.get("rows", [])):
                where = f"interactive.action.sections[{s_index}].rows[{r_index}]"
                title(f"{where}.title", row.get("title"))
                title(f"{where}.description", row.get("description"))
    elif kind == "document":
        body("document.caption", part.get("caption"))
    elif kind == "template":
        for component in part.get("components", []):
            for index, param in enumerate(component.get("parameters", [])):
                body(f"template.{component.get('type')}.parameters[{index}]", param.get("text"))
    return found


# WhatsApp's formatting as it renders in a body: ```mono```, `code`, *bold*, _italic_,
# ~strike~ (faq.whatsapp.com/539178204879377).
FORMATTED = re.compile(r"```[^`]+```|`[^`\s][^`]*`|" + INLINE_MARKS.pattern)
FORMAT_MARKS = frozenset("*_~`")


def formatted_names(
    kind: str, content: JSON, rendered: JSON | None, names: Iterable[str]
) -> list[tuple[str, str]]:
    """Where a person's profile name (`names`: the users') sits in a body with a
    formatting mark of its own opening or closing a span WhatsApp renders: "*Ana*"
    shows as a bold "Ana", "~Ana" strikes through the rest of the line. Meta cannot
    tell a name from the business's own marks and formats both alike, so a business
    must neutralise them; the emulator records each (`warnings`). Titles, headers and
    footers are never formatted (literal_markup warns of marks there)."""
    marked = [name for name in set(names) if FORMAT_MARKS & set(name)]
    found: list[tuple[str, str]] = []
    for where, value in _bodies(kind, content, rendered):
        for name in marked:
            span = _span_opened_by(value, name)
            if span is not None:
                found.append((where, f"the name {name!r} turns into formatting: {span!r}"))
    return found


def _bodies(kind: str, content: JSON, rendered: JSON | None) -> list[tuple[str, str]]:
    """The texts of a message WhatsApp formats, by field (a template's as filled in)."""
    part = content.get(kind, {})
    value: Any = None
    if kind == "text":
        where, value = "text.body", part.get("body")
    elif kind == "interactive":
        where, value = "interactive.body.text", (part.get("body") or {}).get("text")
    elif kind == "document":
        where, value = "document.caption", part.get("caption")
    elif kind == "template":
        where, value = "template.body", (rendered or {}).get("text")
    return [(where, value)] if isinstance(value, str) else []


def _span_opened_by(text: str, name: str) -> str | None:
    """A formatted span of `text` one of whose delimiters lies inside `name` there."""
    starts = [m.start() for m in re.finditer(re.escape(name), text)]
    for span in FORMATTED.finditer(text):
        for start in starts:
            inside = range(start, start + len(name))
            if span.start() in inside or span.end() - 1 in inside:
                return span.group(0)
    return None
