"""An older Bot API server (`burro emulator --bot-api 10.1`, `EmulatorConfig.bot_api`):
one from before ephemeral messages (10.2), as a self-hosted telegram-bot-api server not
yet updated would be, so that the service's probe and its fallbacks can be tried.

What 10.1 lacks is the 10.1 reference (/work/shared/telegram-bot-api/api.json) compared
with `api_table.json`: the methods added since answer 404 "Not Found", as any method the
server does not know; the parameters and input-type fields added since are left out of
the call and recorded as unknown (`BotApi.unknown_parameters`), as Telegram ignores what
it does not read. The types new since 10.1 (rich messages' blocks, the button and entity
variants) and getMe's 10.5 shape stay the newest reference's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.telegram.api_table import Method, element_types
from emulator.telegram.errors import ApiError
from emulator.telegram.params import Params

NEWEST = "10.4"
VERSIONS = ("10.1", NEWEST)


@dataclass(frozen=True)
class Lacks:
    """What a Bot API version does not know of the newest reference."""

    methods: frozenset[str] = frozenset()  # lowercase, as the emulator looks them up
    params: frozenset[str] = frozenset()  # of any method
    fields: Mapping[str, frozenset[str]] = field(default_factory=dict)  # per input type

    def method(self, name: str) -> bool:
        return name.lower() in self.methods


BEFORE_10_2 = Lacks(
    methods=frozenset(
        {
            "editephemeralmessagetext",
            "editephemeralmessagecaption",
            "editephemeralmessagemedia",
            "editephemeralmessagereplymarkup",
            "deleteephemeralmessage",
            "sendwidget",
            "sendsharedwidget",
            "answerwidgetquery",
            "editmessagewidgetdata",
            "editsharedwidgetdata",
        }
    ),
    params=frozenset(
        {"ephemeral_message_parameters", "can_stop", "keep_on_stop", "can_send_welcome_messages"}
    ),
    fields={
        "BotCommand": frozenset({"is_ephemeral"}),
        "ReplyParameters": frozenset({"ephemeral_message_id"}),
        "ChatAdministratorRights": frozenset({"can_send_welcome_messages"}),
    },
)
_LACKS = {"10.1": BEFORE_10_2, NEWEST: Lacks()}


def lacks(version: str) -> Lacks:
    """What that version lacks; ValueError for a version not modelled here."""
    try:
        return _LACKS[version]
    except KeyError:
        raise ValueError(f"Bot API {version!r}: one of {', '.join(VERSIONS)}") from None


def strip(lacking: Lacks, method: Method, params: Params) -> tuple[Params, list[dict[str, str]]]:
    """The call as a server lacking these would read it, and what it left out (each a
    `{"parameter", "problem": "unknown"}`, as `validation.parameter_problems` says)."""
    if not lacking.params and not lacking.fields:
        return params, []
    changes: dict[str, Any] = {}
    problems: list[dict[str, str]] = []
    for name in params.names():
        if name in lacking.params:
            changes[name] = None
            problems.append({"parameter": name, "problem": "unknown"})
            continue
        param = method.params.get(name)
        if param is None:
            continue
        kept, dropped = _without_fields(lacking, param.types, params, name)
        if dropped:
            changes[name] = kept
            problems += [{"parameter": f"{name}.{key}", "problem": "unknown"} for key in dropped]
    return (params.changed(changes) if changes else params), problems


def _without_fields(
    lacking: Lacks, types: tuple[str, ...], params: Params, name: str
) -> tuple[Any, list[str]]:
    """A JSON parameter without the fields its type lacks, and their names."""
    names, depth = element_types(types)
    gone = frozenset().union(*(lacking.fields.get(kind, frozenset()) for kind in names))
    if not gone:
        return None, []
    try:
        value = params.json(name)
    except ApiError:  # not JSON: the method's own checks refuse it
        return None, []
    dropped: dict[str, None] = {}
    return _drop(value, depth, gone, dropped), list(dropped)


def _drop(value: Any, depth: int, gone: frozenset[str], dropped: dict[str, None]) -> Any:
    if depth > 0:
        if not isinstance(value, list):
            return value
        return [_drop(item, depth - 1, gone, dropped) for item in value]
    if not isinstance(value, dict):
        return value
    dropped.update(dict.fromkeys(key for key in value if key in gone))
    return {key: item for key, item in value.items() if key not in gone}
