"""Translations: the catalogs parse, follow the code, are complete, keep every
placeholder, and the service picks the right language and plural form.

When the template test fails, someone added or changed a message in the code: run
`python -m tools.i18n update`, translate what `python -m tools.i18n check` lists, commit.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from service import i18n
from service.i18n import LANGUAGES, Translator, language_for
from tools import i18n as tool

TRANSLATED = [lang for lang in LANGUAGES if lang != i18n.DEFAULT]
HOW_TO_FIX = (
    "run `python -m tools.i18n update`, translate what `python -m tools.i18n "
    "check` lists, and commit service/locale"
)


@pytest.fixture(scope="module")
def fresh_template(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The template extracted from the code now, written out and read back."""
    path: Path = tmp_path_factory.mktemp("i18n") / "messages.pot"
    with path.open("wb") as handle:
        write_po(handle, tool.extract_template(), include_lineno=False)
    with path.open("rb") as handle:
        return read_po(handle)


def catalog(lang: str) -> Catalog:
    return tool.read_catalog(tool.catalog_path(lang), lang)


def ids(cat: Catalog) -> set[str | tuple[str, ...]]:
    return {tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id for m in cat if m.id}


def messages(cat: Catalog) -> list[tuple[str, str, str]]:
    """(msgid, the English it stands for, translation) for every string and plural form:
    form 0 stands for the English singular and the others for the plural, except in a
    language with one form, where it stands for the plural."""
    out = []
    for m in cat:
        if not m.id:
            continue
        if isinstance(m.id, (list, tuple)):
            for index, text in enumerate(m.string or ()):
                english = m.id[1] if index or cat.num_plurals == 1 else m.id[0]
                out.append((str(m.id[0]), str(english), str(text)))
        else:
            out.append((str(m.id), str(m.id), str(m.string or "")))
    return out


def untranslated(cat: Catalog) -> list[str]:
    out = []
    for m in cat:
        if isinstance(m.id, (list, tuple)):
            forms = [str(f) for f in m.string or ()]
            if len(forms) != cat.num_plurals or not all(forms):
                out.append(str(m.id[0]))
        elif m.id and not m.string:
            out.append(str(m.id))
    return out


# ----- the files ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_parses_with_the_right_header(lang: str) -> None:
    cat = catalog(lang)  # abort_invalid: a broken entry fails here
    assert str(cat.locale_identifier) == lang
    assert cat.plural_forms == tool.PLURAL_FORMS[lang]
    assert len(ids(cat)) > 100


def test_template_is_up_to_date_with_the_code(fresh_template: Catalog) -> None:
    stored = tool.read_catalog(tool.TEMPLATE)
    new = sorted(map(str, ids(fresh_template) - ids(stored)))
    gone = sorted(map(str, ids(stored) - ids(fresh_template)))
    assert not new and not gone, (
        f"service/locale/messages.pot is behind the code: new messages {new}, "
        f"messages gone {gone}: {HOW_TO_FIX}"
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_has_exactly_the_template_messages(lang: str, fresh_template: Catalog) -> None:
    cat = catalog(lang)
    missing = sorted(map(str, ids(fresh_template) - ids(cat)))
    extra = sorted(map(str, ids(cat) - ids(fresh_template)))
    obsolete = list(cat.obsolete)
    assert not missing and not extra and not obsolete, (
        f"{lang} catalog out of step with the code: not in it {missing}, not in the code "
        f"{extra}, obsolete {obsolete}: {HOW_TO_FIX}"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_message_is_missing_or_fuzzy(lang: str) -> None:
    cat = catalog(lang)
    fuzzy = [m.id for m in cat if m.id and m.fuzzy]
    empty = untranslated(cat)
    assert not fuzzy and not empty, f"{lang}: fuzzy {fuzzy}, untranslated {empty}: {HOW_TO_FIX}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_exactly_the_placeholders(lang: str) -> None:
    wrong = []
    for msgid, english, text in messages(catalog(lang)):
        if text and tool.placeholders(text) != tool.placeholders(english):
            wrong.append((msgid, text))
    assert not wrong, f"{lang}: placeholders differ from the English: {wrong}"


def test_english_names_the_spanish_cards() -> None:
    en = Translator("en")
    names = {
        "oros": "coins",
        "copas": "cups",
        "espadas": "swords",
        "bastos": "clubs",
        "Sota": "Jack",
        "Caballo": "Knight",
        "Rey": "King",
    }
    assert {word: en.gettext(word) for word in names} == names
    assert Translator("es").gettext("bastos") == "bastos"
    assert Translator("pt_BR").gettext("bastos") == "paus"
    assert Translator("pt_PT").gettext("Sota") == "Valete"


def test_the_tool_finds_nothing_to_fix() -> None:
    problems = [f"{where}: {p}" for where, found in tool.check() for p in found]
    assert not problems, "\n".join(problems[:20])


# ----- extraction -----------------------------------------------------------------------


def test_extraction_finds_every_keyword_at_any_depth() -> None:
    source = b"""
x = _("Language: {v}", v=names.get(code, _("automatic")))
y = self.tr.ngettext("{n} card", "{n} cards", n)
z = ng("{n} hour", "{n} hours", h, name=who)
# TRANSLATORS: the goal, in the settings
w = tr.gettext(_("Goal: {v}"), v=goal)
q = tr.gettext(popup.message)
"""
    found = list(tool.extract(io.BytesIO(source), tool.KEYWORDS, tool.COMMENT_TAGS, {}))
    texts = [(name, message) for _line, name, message, _comments in found]
    assert ("_", "automatic") in texts
    assert ("_", "Language: {v}") in texts
    assert ("ngettext", ("{n} card", "{n} cards", None)) in texts
    assert ("ng", ("{n} hour", "{n} hours", None)) in texts
    assert ("gettext", None) in texts  # not a literal: Babel skips it
    goal = next(f for f in found if f[2] == "Goal: {v}")
    assert goal[3] == ["TRANSLATORS: the goal, in the settings"]


def test_placeholders() -> None:
    assert tool.placeholders("{name} drew {n} cards and played {card}.") == {
        "{name}",
        "{n}",
        "{card}",
    }
    assert tool.placeholders("no fields, {{literal}}") == set()
    assert tool.placeholders("{x!r:>3}") == {"{x!r:>3}"}


# ----- choosing the language and the plural form -----------------------------------------


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        ("es", "es"),
        ("es-MX", "es"),
        ("es-419", "es"),
        ("ES", "es"),
        ("pt-br", "pt_BR"),
        ("pt-BR", "pt_BR"),
        ("pt_BR", "pt_BR"),
        ("pt", "pt_PT"),
        ("pt-PT", "pt_PT"),
        ("pt-pt", "pt_PT"),
        ("id", "id"),
        ("in", "id"),
        ("en", "en"),
        ("en-US", "en"),
        ("fr", "en"),
        ("de-DE", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_language_for_telegram_codes(code: str | None, lang: str) -> None:
    assert language_for(code) == lang


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        ("en", {0: "0 cards", 1: "1 card", 2: "2 cards", 5: "5 cards"}),
        ("es", {0: "0 cartas", 1: "1 carta", 2: "2 cartas", 1000000: "1000000 cartas"}),
        ("pt_BR", {0: "0 carta", 1: "1 carta", 2: "2 cartas"}),  # Plural-Forms n > 1
        ("pt_PT", {0: "0 cartas", 1: "1 carta", 2: "2 cartas"}),
        ("id", {0: "0 kartu", 1: "1 kartu", 2: "2 kartu"}),
    ],
)
def test_plural_forms(lang: str, counts: dict[int, str]) -> None:
    tr = Translator(lang)
    assert {n: tr.ngettext("{n} card", "{n} cards", n) for n in counts} == counts


def test_plural_with_more_values() -> None:
    tr = Translator("es")
    assert (
        tr.ngettext("{name} drew {n} card.", "{name} drew {n} cards.", 3, name="Ana")
        == "Ana ha robado 3 cartas."
    )
    assert (
        Translator("id").ngettext("{name} drew {n} card.", "{name} drew {n} cards.", 1, name="Budi")
        == "Budi mengambil 1 kartu."
    )


def test_gettext_translates_and_falls_back_to_english() -> None:
    assert Translator("es").gettext("Your turn!") == "¡Te toca!"
    assert Translator("pt_PT").gettext("Waiting for {name}.", name="Rui") == "À espera de Rui."
    assert Translator("pt_BR").gettext("Waiting for {name}.", name="Rui") == "Esperando Rui."
    assert Translator("es").gettext("Not a message {x}", x=1) == "Not a message 1"
    assert Translator("fr").lang == "en"
    assert Translator("fr").gettext("Your turn!") == "Your turn!"
    assert Translator("es").ngettext("no {n} such", "no {n} suches", 2) == "no 2 suches"


def test_a_text_is_made_once_a_language_and_anew_for_a_new_catalog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[str, str]] = []

    def name(code: str, tr: Translator) -> str:
        made.append((code, tr.lang))
        return tr.gettext("Your turn!") + code

    assert Translator("es").once(name, "1O") == Translator("es").once(name, "1O") == "¡Te toca!1O"
    assert Translator("en").once(name, "1O") == "Your turn!1O"
    assert Translator("es").once(name, "2O") == "¡Te toca!2O"
    assert made == [("1O", "es"), ("1O", "en"), ("2O", "es")]
    table: dict[str, str | tuple[str, ...]] = {"Your turn!": "¡A jugar!"}
    monkeypatch.setattr(i18n, "_catalog", lambda lang: i18n._Catalog(table))
    assert Translator("es").once(name, "1O") == "¡A jugar!1O"  # another catalog: made again


def test_a_broken_or_partial_translation_shows_english(monkeypatch: pytest.MonkeyPatch) -> None:
    table: dict[str, str | tuple[str, ...]] = {
        "Hello {name}": "Hola {nombre}",
        "{n} card": ("{n} carta", "{n} cartas"),
    }
    broken = i18n._Catalog(table, lambda n: 5, 2)  # a plural rule out of range
    monkeypatch.setattr(i18n, "_catalog", lambda lang: broken)
    tr = Translator("es")
    assert tr.gettext("Hello {name}", name="Ana") == "Hello Ana"
    assert tr.ngettext("{n} card", "{n} cards", 2) == "2 cards"


def test_partly_translated_plurals_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    po = tmp_path / "es" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: es\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "{n} card"\nmsgid_plural "{n} cards"\nmsgstr[0] "{n} carta"\nmsgstr[1] ""\n\n'
        '#, fuzzy\nmsgid "Your turn!"\nmsgstr "¡Te toca!"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n._catalog.cache_clear()
    try:
        tr = Translator("es")
        assert tr.ngettext("{n} card", "{n} cards", 1) == "1 card"
        assert tr.gettext("Your turn!") == "Your turn!"
    finally:
        monkeypatch.undo()
        i18n._catalog.cache_clear()


# ----- the update and check commands, on a small tree of their own ------------------------


def test_update_and_check_on_a_scratch_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "service").mkdir()
    (tmp_path / "babel.cfg").write_text("[tools.i18n.extract: service/**.py]\n")
    code = tmp_path / "service" / "game.py"
    code.write_text(
        'A = _("Your turn!")\nB = _("Gone soon")\nC = tr.ngettext("{n} card", "{n} cards", n)\n'
    )
    locale = tmp_path / "service" / "locale"
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "MAPPING", tmp_path / "babel.cfg")
    monkeypatch.setattr(tool, "LOCALE_DIR", locale)
    monkeypatch.setattr(tool, "TEMPLATE", locale / "messages.pot")
    monkeypatch.setattr(tool, "LANGUAGES", ("en", "es"))

    assert tool.main(["update"]) == 0
    es_path = tool.catalog_path("es")
    assert tool.read_catalog(es_path, "es").num_plurals == 2
    assert tool.main(["check"]) == 1
    assert 'es: missing: "Your turn!"' in capsys.readouterr().out

    es = tool.read_catalog(es_path, "es")
    es["Your turn!"].string = "¡Te toca!"
    es["Gone soon"].string = "Se va pronto"
    es[("{n} card", "{n} cards")].string = ("{n} carta", "{count} cartas")
    with es_path.open("wb") as handle:
        write_po(handle, es)
    assert tool.main(["check"]) == 1
    assert "placeholders {count}, want {n}" in capsys.readouterr().out

    es[("{n} card", "{n} cards")].string = ("{n} carta", "{n} cartas")
    with es_path.open("wb") as handle:
        write_po(handle, es)
    assert tool.main(["check"]) == 0
    assert tool.main(["update"]) == 0
    assert "already up to date" in capsys.readouterr().out

    # The code changes: a new message, one reworded, one gone.
    code.write_text(
        'A = _("Your turn now!")\nC = tr.ngettext("{n} card", "{n} cards", n)\nD = _("Brand new")\n'
    )
    assert tool.main(["check"]) == 1
    out = capsys.readouterr().out
    assert 'new in the code: "Brand new"' in out
    assert tool.main(["update"]) == 0
    es = tool.read_catalog(es_path, "es")
    assert es["Your turn now!"].fuzzy and es["Your turn now!"].string == "¡Te toca!"
    assert not es["Brand new"].string
    assert es[("{n} card", "{n} cards")].string == ("{n} carta", "{n} cartas")
    assert "Gone soon" not in es and not es.obsolete
    assert tool.main(["check"]) == 1
    out = capsys.readouterr().out
    assert 'es: fuzzy: "Your turn now!"' in out and 'es: missing: "Brand new"' in out
    assert "en: missing" not in out  # English needs no translation


def test_update_refuses_an_empty_extraction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "babel.cfg").write_text("[python: nowhere/**.py]\n")
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "MAPPING", tmp_path / "babel.cfg")
    with pytest.raises(RuntimeError, match="no messages extracted"):
        tool.extract_template()
