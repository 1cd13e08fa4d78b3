"""A message from a WhatsApp person, as the webhook read it from Meta's notification."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "reply", "quick", "other"]


@dataclass(frozen=True)
class Inbound:
    """One message from a person."""

    wamid: str
    bsuid: str  # their BSUID, or their phone number where Meta gives no BSUID
    name: str
    at: float  # Meta's timestamp: when the person sent it
    kind: Kind
    text: str = ""  # what they typed, or the tapped button's title
    data: str = ""  # the tapped button's id, or the quick reply's payload
    phone: str | None = None
    context: str | None = None  # the wamid of the message they tapped
