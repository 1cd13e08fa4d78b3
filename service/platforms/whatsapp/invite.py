"""Bringing a WhatsApp person to a table: a wa.me link that opens a chat with the business
with the table's join words typed in (`wa.me/<number>?text=…`, WhatsApp's click-to-chat:
faq.whatsapp.com/5913398998672934). Their first message opens their 24-hour window and is
their opt-in; its words ("join <code>", in their language) seat them (`inbound`)."""

from __future__ import annotations

from urllib.parse import quote

from service.i18n import Translator, _
from service.services import Services

JOIN_WORD = {"en": "join", "es": "unirme", "pt_BR": "entrar", "pt_PT": "entrar", "id": "gabung"}


def link(number: str, code: str, lang: str) -> str:
    digits = "".join(c for c in number if c.isdigit())
    words = f"{JOIN_WORD.get(lang, 'join')} {code}"
    return f"https://wa.me/{digits}?text={quote(words)}"


def line(number: str, code: str, lang: str) -> str:
    """The lobby's line for family on WhatsApp."""
    words = _("📱 Family on WhatsApp? They join here: {link}")
    return Translator(lang).gettext(words, link=link(number, code, lang))


def join_link(svc: Services, code: str, lang: str) -> str | None:
    """The table's wa.me link (service.platforms.registry), where the number is known."""
    number = svc.settings.whatsapp_number
    return link(number, code, lang) if number else None


def line_for(svc: Services, code: str, lang: str) -> str | None:
    """The lobby's line, where WhatsApp is on (service.platforms.registry)."""
    number = svc.settings.whatsapp_number
    return line(number, code, lang) if svc.settings.whatsapp and number else None
