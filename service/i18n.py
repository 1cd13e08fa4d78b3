"""Translations: gettext catalogs (`service/locale/<lang>/LC_MESSAGES/messages.po`, kept
with Babel), chosen from the user's Telegram language.

Code holds English message ids only, marked with `_()` so `pybabel extract` finds them;
`Translator(lang).gettext(...)` looks them up. Catalogs are read from the .po files the
first time a language is used (no compiled .mo files to keep in sync).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "es", "pt_BR", "pt_PT", "id")
LANGUAGE_NAMES = {
    "en": "English",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "pt_PT": "Português (Portugal)",
    "id": "Bahasa Indonesia",
}
DEFAULT = "en"


def _(message: str) -> str:
    """Mark a message for extraction; it is translated where it is shown."""
    return message


def language_for(code: str | None) -> str:
    """Our language for a Telegram `language_code` (`es`, `pt-br`, `pt`, `id`, `en-US` …)."""
    if not code:
        return DEFAULT
    code = code.replace("-", "_").lower()
    if code in ("pt_br",):
        return "pt_BR"
    if code.startswith("pt"):
        return "pt_PT"
    base = code.split("_")[0]
    return base if base in LANGUAGES else DEFAULT


@lru_cache(maxsize=None)
def _catalog(lang: str) -> dict[str, str | tuple[str, ...]]:
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    table: dict[str, str | tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        table[key] = message.string
    return table


class Translator:
    """Looks messages up in one language, falling back to English."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT
        self._table = _catalog(self.lang)

    def gettext(self, message: str, **values: object) -> str:
        found = self._table.get(message)
        text = found if isinstance(found, str) and found else message
        return text.format(**values) if values else text

    def ngettext(self, singular: str, plural: str, n: int, **values: object) -> str:
        found = self._table.get(singular)
        if isinstance(found, tuple):
            forms = [f for f in found if f]
            index = 0 if n == 1 else min(1, len(forms) - 1)
            text = forms[index] if forms else (singular if n == 1 else plural)
        else:
            text = singular if n == 1 else plural
        return text.format(n=n, **values)
