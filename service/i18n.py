"""Translations: gettext catalogs (`service/locale/<lang>/LC_MESSAGES/messages.po`, kept
with Babel), chosen from the user's Telegram language.

Code holds English message ids only, marked with `_()` so extraction finds them;
`Translator(lang).gettext(...)` / `.ngettext(...)` look them up at display time. Catalogs
are read from the .po files the first time a language is used (no compiled .mo files to
keep in sync). `python -m tools.i18n update` re-extracts the template and merges it into
every catalog; `python -m tools.i18n check` lists what is left to translate.

Which plural form a count takes comes from each catalog's `Plural-Forms` header
(es, pt_PT: `n != 1`; pt_BR: `n > 1`, so 0 and 1 take the singular; id: one form).
A message that is missing, fuzzy or only partly translated shows in English.
"""

from __future__ import annotations

import gettext as _gettext
import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TypeVar

from babel.messages.pofile import read_po

log = logging.getLogger("burro.i18n")
K = TypeVar("K", bound=Hashable)

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
    """Our language for a Telegram `language_code` (an IETF tag such as `es`, `es-MX`,
    `pt-br`, `pt`, `id`, `en-US`), case and `-`/`_` ignored:

    - `pt-br` → `pt_BR`; any other Portuguese (`pt`, `pt-PT`, `pt-AO` …) → `pt_PT`
      (Telegram sends `pt-br` for its Brazilian interface, so a bare `pt` is not it);
    - otherwise the base language if we have it (`es-MX` → `es`, `en-US` → `en`,
      `in` (the old code for Indonesian) → `id`);
    - anything else, or no code → English.
    """
    if not code:
        return DEFAULT
    code = code.strip().replace("-", "_").lower()
    base = code.split("_")[0]
    if base == "pt":
        return "pt_BR" if code == "pt_br" else "pt_PT"
    if base == "in":
        return "id"
    return base if base in LANGUAGES else DEFAULT


def _english_plural(n: int) -> int:
    return 0 if n == 1 else 1


@dataclass(frozen=True)
class _Catalog:
    """One language's translations: msgid → text, or msgid (singular) → plural forms."""

    table: dict[str, str | tuple[str, ...]] = field(default_factory=dict)
    plural: Callable[[int], int] = _english_plural
    nplurals: int = 2
    made: dict[tuple[object, Hashable], str] = field(default_factory=dict)  # Translator.once


@cache
def _catalog(lang: str) -> _Catalog:
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return _Catalog()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    try:
        plural = _gettext.c2py(catalog.plural_expr)
    except (ValueError, SyntaxError):
        log.error("%s: bad Plural-Forms %r; using English plurals", path, catalog.plural_expr)
        plural = _english_plural
    table: dict[str, str | tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or message.fuzzy or message.context:
            continue
        if isinstance(message.id, (list, tuple)):
            forms = tuple(message.string or ())
            # All forms or none: a half-translated plural would pick the wrong one.
            if len(forms) == catalog.num_plurals and all(forms):
                table[message.id[0]] = forms
        elif isinstance(message.string, str) and message.string:
            table[message.id] = message.string
    return _Catalog(table, plural, catalog.num_plurals)


def _format(text: str, fallback: str, values: dict[str, object]) -> str:
    """`text` with its fields filled; a translation whose fields do not fit falls back to
    the English `fallback` rather than failing the whole screen."""
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError, AttributeError) as error:
        if text is fallback:
            raise
        log.error("bad translation %r: %r", text, error)
        return fallback.format(**values)


class Translator:
    """Looks messages up in one language, falling back to English."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT
        self._catalog = _catalog(self.lang)
        self._table = self._catalog.table

    def gettext(self, message: str, **values: object) -> str:
        found = self._table.get(message)
        text = found if isinstance(found, str) else message
        return _format(text, message, values) if values else text

    def ngettext(self, singular: str, plural: str, n: int, **values: object) -> str:
        english = singular if n == 1 else plural
        found = self._table.get(singular)
        text = english
        if isinstance(found, tuple):
            index = int(self._catalog.plural(n))
            if 0 <= index < len(found):
                text = found[index]
        return _format(text, english, {"n": n, **values})

    def once(self, make: Callable[[K, Translator], str], key: K) -> str:
        """`make(key, self)`, made once for this language: a text that depends on nothing
        but the language and `key` (a card's name), asked for many times a screen."""
        made = self._catalog.made
        found = made.get((make, key))
        if found is None:
            found = made[(make, key)] = make(key, self)
        return found
