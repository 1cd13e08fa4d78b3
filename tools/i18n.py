"""Keep the chat service's translations in step with the code.

    python -m tools.i18n update [--keep-obsolete]
        Re-extract every `_()` / `gettext` / `ngettext` / `ng` message of `service/` and
        `workers/` (see babel.cfg) into service/locale/messages.pot, and merge it into each
        language's catalog, keeping the translations. New messages come in empty; a
        message whose English changed a little keeps its old translation marked fuzzy
        (review it, then delete the `#, fuzzy` line). Messages gone from the code are
        dropped (git has them) unless --keep-obsolete.

    python -m tools.i18n check
        List, per language, the messages that are missing, fuzzy or obsolete and the
        translations whose `{placeholders}` differ from the English; also a template or
        catalog that is behind the code. Exits 1 if there is anything to fix.

    python -m tools.i18n init LANG
        Start a catalog for a new language (also add it to service.i18n.LANGUAGES).

English is the source language. Its catalog (`en`) only translates the few message ids
that are not English (the Spanish card names): an empty `en` entry is not missing.
"""

from __future__ import annotations

import argparse
import ast
import io
import string
import sys
import tokenize
from collections.abc import Collection, Iterator, Mapping
from datetime import datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from service.i18n import DEFAULT, LANGUAGES, LOCALE_DIR

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / "babel.cfg"
TEMPLATE = LOCALE_DIR / "messages.pot"
SOURCE_DIRS = ("service", "workers")
# The names messages are marked or looked up with; `ng` is a local alias of ngettext.
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "ng": (1, 2),
}
COMMENT_TAGS = ["TRANSLATORS:"]
PROJECT, VERSION = "Burro", "0.1"
# GNU gettext's usual rules. Babel's CLDR-based defaults would give es and pt three
# forms (a "many" form for millions) that we do not use.
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
    "pt_PT": "nplurals=2; plural=(n != 1);",
    "id": "nplurals=1; plural=0;",
}
LANGUAGE_TEAMS = {
    "en": "English",
    "es": "Spanish (Spain)",
    "pt_BR": "Portuguese (Brazil)",
    "pt_PT": "Portuguese (Portugal)",
    "id": "Indonesian",
}
# Header lines that change on every run without anything else changing.
_DATE_HEADERS = ('"POT-Creation-Date:', '"PO-Revision-Date:')


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"


# ----- extraction ----------------------------------------------------------------------

Extracted = tuple[int, str, "str | tuple[str | None, ...] | None", list[str]]


def extract(
    fileobj: io.BufferedIOBase | io.BytesIO,
    keywords: Mapping[str, object],
    comment_tags: Collection[str],
    options: Mapping[str, object],
) -> Iterator[Extracted]:
    """A Babel extraction method (`tools.i18n.extract` in babel.cfg) for Python source.

    Babel's own `python` method reads tokens and loses a marked string nested in an
    unmarked call inside a marked one, as in `_("Language: {v}", v=names.get(k, _("auto")))`.
    This one walks the syntax tree, so it finds every call of a keyword (`_(...)`,
    `tr.ngettext(...)`, `self._(...)`) at any depth. It yields what Babel's methods
    yield: line, keyword, the positional arguments (None where one is not a string
    literal) and the translator comments (`# TRANSLATORS: ...`) on the lines just
    above the call or on its line.
    """
    source = fileobj.read()
    # A file that does not parse stops the extraction (Babel's reader fails on it too).
    tree = ast.parse(source, filename=str(getattr(fileobj, "name", "<source>")))
    comments = _comments(source)
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id
            if isinstance(func, ast.Name)
            else (func.attr if isinstance(func, ast.Attribute) else None)
        )
        if name is None or name not in keywords:
            continue
        args: list[str | None] = [
            arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            for arg in node.args
        ]
        calls.append((node.lineno, node.col_offset, name, args))
    for lineno, _col, name, args in sorted(calls, key=lambda call: (call[0], call[1])):
        messages: str | tuple[str | None, ...] | None = args[0] if len(args) == 1 else tuple(args)
        yield lineno, name, messages, _comments_for(comments, lineno, comment_tags)


def _comments(source: bytes) -> dict[int, str]:
    """Line number → the text of the comment on it."""
    found = {}
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string.lstrip("#").strip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _comments_for(comments: dict[int, str], lineno: int, tags: Collection[str]) -> list[str]:
    """The tagged comment block ending on `lineno` or just above it."""
    if lineno in comments and comments[lineno].startswith(tuple(tags)):
        return [comments[lineno]]
    block: list[str] = []
    line = lineno - 1
    while line in comments:
        block.insert(0, comments[line])
        if comments[line].startswith(tuple(tags)):
            return block
        line -= 1
    return []


def _in_sources(dirpath: str) -> bool:
    relative = Path(dirpath).resolve().relative_to(ROOT).parts
    if relative and relative[-1].startswith((".", "_")):
        return False  # like Babel's own filter: .git, __pycache__ …
    return not relative or relative[0] in SOURCE_DIRS


def extract_template() -> Catalog:
    """The template as the code is now."""
    with MAPPING.open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(  # type: ignore[no-untyped-call]
            handle, filename=str(MAPPING)
        )
    template = Catalog(
        project=PROJECT,
        version=VERSION,
        copyright_holder="the Burro authors",
        msgid_bugs_address="",
        charset="utf-8",
        fuzzy=False,
    )
    template.header_comment = (
        "# Burro: the user-facing messages of the chat service (template).\n"
        "# Made by `python -m tools.i18n update` from the code; do not edit by hand."
    )
    found = extract_from_dir(
        str(ROOT),
        method_map,
        options_map,
        keywords=KEYWORDS,
        comment_tags=COMMENT_TAGS,
        strip_comment_tags=True,
        directory_filter=_in_sources,
    )
    for filename, lineno, message, comments, context in found:
        template.add(
            message,
            None,
            [(Path(filename).as_posix(), lineno)],
            auto_comments=comments,
            context=context,
        )
    if not len(template):
        # A mapping that matches no file, or a method Babel cannot load, extracts nothing
        # without a word; merging that would throw every translation away.
        raise RuntimeError(f"no messages extracted with {MAPPING.name}: check its sections")
    return template


def read_catalog(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=lang, abort_invalid=True)


def render(catalog: Catalog, keep_obsolete: bool = True) -> str:
    buffer = io.BytesIO()
    write_po(
        buffer,
        catalog,
        width=100,
        include_lineno=False,  # file names only: line numbers would churn every diff
        ignore_obsolete=not keep_obsolete,
        include_previous=True,
    )
    return buffer.getvalue().decode("utf-8")


def _without_dates(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(_DATE_HEADERS)]


def _save(path: Path, text: str) -> bool:
    """Write `text` unless the file already says the same (dates aside); True if written."""
    if path.exists() and _without_dates(path.read_text(encoding="utf-8")) == _without_dates(text):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def _set_headers(catalog: Catalog, lang: str) -> None:
    forms = PLURAL_FORMS.get(lang, "nplurals=2; plural=(n != 1);")
    catalog.mime_headers = [("Plural-Forms", forms)]
    catalog.language_team = LANGUAGE_TEAMS.get(lang, lang)
    catalog.project, catalog.version = PROJECT, VERSION
    catalog.msgid_bugs_address = ""
    catalog.fuzzy = False


def new_catalog(lang: str) -> Catalog:
    catalog = Catalog(
        locale=lang, charset="utf-8", fuzzy=False, last_translator="the Burro authors"
    )
    name = LANGUAGE_TEAMS.get(lang, lang)
    catalog.header_comment = (
        f"# Burro: {name} translations of the chat service's messages.\n"
        "# `python -m tools.i18n update` merges new messages in; translate the empty\n"
        "# and fuzzy ones, then `python -m tools.i18n check`."
    )
    _set_headers(catalog, lang)
    return catalog


def update(keep_obsolete: bool = False) -> list[str]:
    """Re-extract the template and merge it into every catalog; the files written."""
    template = extract_template()
    written = []
    if _save(TEMPLATE, render(template)):
        written.append(str(TEMPLATE.relative_to(ROOT)))
    for lang in LANGUAGES:
        path = catalog_path(lang)
        catalog = read_catalog(path, lang) if path.exists() else new_catalog(lang)
        before = render(catalog, keep_obsolete=keep_obsolete)
        _set_headers(catalog, lang)
        catalog.update(template, update_creation_date=False)
        text = render(catalog, keep_obsolete=keep_obsolete)
        if _without_dates(text) != _without_dates(before):
            catalog.creation_date = template.creation_date
            catalog.revision_date = datetime.now().astimezone()
            text = render(catalog, keep_obsolete=keep_obsolete)
        if _save(path, text):
            written.append(str(path.relative_to(ROOT)))
    return written


# ----- checks --------------------------------------------------------------------------


def placeholders(text: str) -> set[str]:
    """The `str.format` fields of `text`, as written (`{n}`, `{v!r}`, `{x:>3}`)."""
    fields = set()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        conversion = f"!{conversion}" if conversion else ""
        spec = f":{spec}" if spec else ""
        fields.add("{" + name + conversion + spec + "}")
    return fields


def _ids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {_key(m) for m in catalog if m.id}


def _key(message: Message) -> str | tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, (list, tuple)) else message.id


def _short(message: Message) -> str:
    return _text(_key(message))


def _text(key: str | tuple[str, ...]) -> str:
    text = key[0] if isinstance(key, tuple) else key
    text = text.replace("\n", "⏎")
    return '"' + (text if len(text) <= 70 else text[:67] + "...") + '"'


def placeholder_problems(message: Message) -> list[str]:
    """Why a translation's fields differ from the English, if they do."""
    if isinstance(message.id, (list, tuple)):
        english = [str(message.id[0]), str(message.id[-1])]
        strings = [str(text) for text in message.string or ()]
    else:
        english = [str(message.id)]
        strings = [str(message.string)] if message.string else []
    try:
        allowed = [placeholders(text) for text in english]
    except ValueError as error:
        return [f"the English is not a valid format string ({error})"]
    problems = []
    for index, text in enumerate(strings):
        if not text:
            continue
        form = f"form {index}: " if isinstance(message.id, (list, tuple)) else ""
        try:
            found = placeholders(text)
        except ValueError as error:
            problems.append(f"{form}not a valid format string ({error}): {text!r}")
            continue
        if found not in allowed:
            want = " or ".join(" ".join(sorted(a)) or "none" for a in allowed)
            problems.append(
                f"{form}placeholders {' '.join(sorted(found)) or 'none'}, want {want}: {text!r}"
            )
    return problems


def catalog_problems(lang: str, catalog: Catalog, template: Catalog | None = None) -> list[str]:
    """What is left to fix in one language's catalog, one line each."""
    problems = []
    if catalog.plural_forms != PLURAL_FORMS.get(lang, catalog.plural_forms):
        problems.append(f"Plural-Forms is {catalog.plural_forms!r}, want {PLURAL_FORMS[lang]!r}")
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, (list, tuple)):
            forms = list(message.string or ())
            translated = len(forms) >= catalog.num_plurals and all(forms[: catalog.num_plurals])
            partly = any(forms)
        else:
            translated = partly = bool(message.string)
        if message.fuzzy:
            problems.append(f"fuzzy: {_short(message)}")
        elif not translated and (lang != DEFAULT or partly):
            problems.append(f"missing: {_short(message)}")
        problems += [f"{_short(message)}: {p}" for p in placeholder_problems(message)]
    for message in catalog.obsolete.values():
        problems.append(f"obsolete (gone from the code): {_short(message)}")
    if template is not None:
        ours, wanted = _ids(catalog), _ids(template)
        for key in sorted(wanted - ours, key=str):
            problems.append(f"not in the catalog (run update): {_text(key)}")
        for key in sorted(ours - wanted, key=str):
            problems.append(f"not in the template (run update): {_text(key)}")
    return problems


def template_problems(template: Catalog | None = None) -> list[str]:
    """How the stored template differs from the code (by message id)."""
    fresh = template or extract_template()
    if not TEMPLATE.exists():
        return [f"{TEMPLATE.relative_to(ROOT)} is missing"]
    stored = read_catalog(TEMPLATE)
    problems = []
    for key in sorted(_ids(fresh) - _ids(stored), key=str):
        problems.append(f"new in the code: {_text(key)}")
    for key in sorted(_ids(stored) - _ids(fresh), key=str):
        problems.append(f"gone from the code: {_text(key)}")
    return problems


def check() -> Iterator[tuple[str, list[str]]]:
    """(where, problems) for the template and every language."""
    template = extract_template()
    yield str(TEMPLATE.relative_to(ROOT)), template_problems(template)
    for lang in LANGUAGES:
        path = catalog_path(lang)
        if not path.exists():
            yield lang, [f"{path.relative_to(ROOT)} is missing (run update)"]
            continue
        yield lang, catalog_problems(lang, read_catalog(path, lang), template)


# ----- command line --------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.i18n",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("update", help="re-extract the template and merge it everywhere")
    up.add_argument(
        "--keep-obsolete",
        action="store_true",
        help="keep translations of messages gone from the code (as #~ lines)",
    )
    commands.add_parser("check", help="list what is left to translate; exit 1 if anything")
    init = commands.add_parser("init", help="start a catalog for a new language")
    init.add_argument("lang")
    args = parser.parse_args(argv)

    if args.command == "update":
        written = update(keep_obsolete=args.keep_obsolete)
        for name in written:
            print(f"updated {name}")
        if not written:
            print("catalogs already up to date with the code")
        print("now translate what `python -m tools.i18n check` lists")
        return 0
    if args.command == "init":
        path = catalog_path(args.lang)
        if path.exists():
            print(f"{path.relative_to(ROOT)} exists already", file=sys.stderr)
            return 1
        catalog = new_catalog(args.lang)
        catalog.update(extract_template())
        _save(path, render(catalog))
        print(f"created {path.relative_to(ROOT)}; add {args.lang!r} to service.i18n.LANGUAGES")
        return 0
    total = 0
    for where, problems in check():
        for problem in problems:
            print(f"{where}: {problem}")
        total += len(problems)
    if total:
        print(
            f"{total} problem(s): run `python -m tools.i18n update`, translate, and check again",
            file=sys.stderr,
        )
        return 1
    print("all catalogs complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
