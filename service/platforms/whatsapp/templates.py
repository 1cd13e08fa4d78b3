"""The utility templates Burro sends outside a person's 24-hour window, one per language.

Meta must approve a template before it can be sent (cloud-api/guides/send-message-templates;
business-management-api/message-templates). `burro whatsapp templates` prints these
definitions, and with credentials submits them. The turn template names the table whose
turn waits (a person may sit at more than one) and carries two quick replies, "Play
now" (that table's prompt again: its payload names the room, and the tap opens a new
window) and "Stop reminders"; its time to live keeps it from arriving after the turn has
moved on.
"""

from __future__ import annotations

import re
from typing import Any

from service.i18n import LANGUAGES, Translator, _
from service.ui.screens import HOST_TABLE

TURN = "burro_your_turn"
TTL = 3600  # seconds Meta may keep trying to deliver it (utility: 30 s to 12 h)
PLAY, STOP = "play", "stop"  # the quick replies' payloads ("play:<room>": that table's)
_PLAY_ROOM = re.compile(r"^play:([a-z0-9]{8})$")
# Meta's language codes for ours
META_LANGS = {"en": "en", "es": "es", "pt_BR": "pt_BR", "pt_PT": "pt_PT", "id": "id"}
TURN_BODY = _(
    "🫏 It is your turn in Burro ({{1}}). Tap Play now to see your cards, "
    "or Stop reminders if you would rather not be told."
)
PLAY_NOW = _("Play now")
STOP_REMINDERS = _("Stop reminders")


def definitions() -> list[dict[str, Any]]:
    """Every template in every language, as Meta's template API takes them."""
    return [turn_definition(lang) for lang in LANGUAGES]


def turn_definition(lang: str) -> dict[str, Any]:
    tr = Translator(lang)
    return {
        "name": TURN,
        "language": META_LANGS[lang],
        "category": "UTILITY",
        "message_send_ttl_seconds": TTL,
        "components": [
            {
                "type": "BODY",
                "text": tr.gettext(TURN_BODY),
                "example": {"body_text": [[tr.gettext(HOST_TABLE, name="Grandma")]]},
            },
            {
                "type": "BUTTONS",
                "buttons": [
                    {"type": "QUICK_REPLY", "text": tr.gettext(PLAY_NOW)},
                    {"type": "QUICK_REPLY", "text": tr.gettext(STOP_REMINDERS)},
                ],
            },
        ],
    }


def turn_message(lang: str, table: str, room_id: str | None = None) -> dict[str, Any]:
    """The turn template as a message's content, naming the `table` whose turn waits;
    its quick replies' payloads set (Play now's names the room, when it is known)."""
    play = PLAY if room_id is None else f"{PLAY}:{room_id}"
    buttons = [
        {
            "type": "button",
            "sub_type": "quick_reply",
            "index": str(index),
            "parameters": [{"type": "payload", "payload": payload}],
        }
        for index, payload in enumerate((play, STOP))
    ]
    return {
        "type": "template",
        "template": {
            "name": TURN,
            "language": {"code": META_LANGS.get(lang, "en")},
            "components": [
                {"type": "body", "parameters": [{"type": "text", "text": table}]},
                *buttons,
            ],
        },
    }


def played_room(payload: str) -> str | None:
    """The room a Play now's payload names (an older template's names none)."""
    found = _PLAY_ROOM.match(payload)
    return None if found is None else found[1]
