"""Typed moves and commands, in every language, read against the current prompt only."""

from __future__ import annotations

import pytest

from service.platforms.whatsapp import words
from service.table import zones
from service.ui.intents import Command, Move, Press
from service.ui.screens import Button

SPANISH_PROMPT = (
    Button("7 de oros", Press("abcd1234", 3, Move("play:7D"))),
    Button("Sota de copas", Press("abcd1234", 3, Move("play:JH"))),
    Button("As de bastos", Press("abcd1234", 3, Move("play:AC"))),
    Button("🂠 Robar", Press("abcd1234", 3, Move("draw"))),
)
FRENCH_PROMPT = (
    Button("10♥", Press("abcd1234", 3, Move("play:10H"))),
    Button("7♣", Press("abcd1234", 3, Move("play:7C"))),
    Button("⏭ Pass", Press("abcd1234", 3, Move("pass"))),
)


def action(text: str, prompt: tuple[Button, ...], spanish: bool) -> str | None:
    press = words.typed_press(text, prompt, spanish)
    return press.what.action if press is not None and isinstance(press.what, Move) else None


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("7 oros", "play:7D"),
        ("7 de oros", "play:7D"),
        ("7o", "play:7D"),
        ("7 O", "play:7D"),
        ("7 ouros", "play:7D"),
        ("sota copas", "play:JH"),
        ("Sota de Copas", "play:JH"),
        ("jc", "play:JH"),  # Spanish initials: c is copas
        ("as de bastos", "play:AC"),
        ("1b", "play:AC"),
        ("7 koin", "play:7D"),  # Indonesian names the Spanish suits as its buttons do
        ("jack cawan", "play:JH"),
        ("as tongkat", "play:AC"),
        ("robar", "draw"),
        ("Comprar", "draw"),
        ("draw", "draw"),
        ("ambil", "draw"),
        ("🂠 Robar", "draw"),
        ("8 oros", None),  # not in the hand
        ("pasar", None),  # not a legal move now
        ("hola", None),
    ],
)
def test_spanish_suits(typed: str, expected: str | None) -> None:
    assert action(typed, SPANISH_PROMPT, spanish=True) == expected


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("10♥", "play:10H"),
        ("10h", "play:10H"),
        ("10 hearts", "play:10H"),
        ("10 copas", "play:10H"),
        ("10 hati", "play:10H"),
        ("7c", "play:7C"),  # French initials: c is clubs
        ("7 paus", "play:7C"),
        ("7 keriting", "play:7C"),
        ("7 tréboles", "play:7C"),
        ("pasar", "pass"),
        ("passar", "pass"),
        ("lewat", "pass"),
        ("PASS", "pass"),
        ("7h", None),
    ],
)
def test_french_suits(typed: str, expected: str | None) -> None:
    assert action(typed, FRENCH_PROMPT, spanish=False) == expected


def test_a_lobby_button_is_typed_by_its_label() -> None:
    start = Press("abcd1234", 1, Command("start"))
    lobby = (
        Button("▶️ Empezar", start),
        Button("🤖 Añadir bot", Press("abcd1234", 1, Command("add_bot"))),
    )
    assert words.typed_press("empezar", lobby, spanish=True) == start


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("ayuda", ("help", "")),
        ("Ajuda", ("help", "")),
        ("bantuan", ("help", "")),
        ("help", ("help", "")),
        ("reglas", ("rules", "")),
        ("regras", ("rules", "")),
        ("nueva cangkul", ("new", "cangkul")),
        ("hola", ("hello", "")),
        ("Olá!", ("hello", "")),
        ("oi", ("hello", "")),
        ("Halo", ("hello", "")),
        ("hi", ("hello", "")),
        ("buenas tardes", ("hello", "")),
        ("nueva partida", ("new", "")),
        ("novo jogo", ("new", "")),
        ("main lagi", ("new", "")),
        ("new game cangkul", ("new", "cangkul")),
        ("ajustes cuartetos", ("setup", "cuartetos")),
        ("familia", ("family", "")),
        ("jogar", ("new", "")),
        ("main", ("new", "")),
        ("idioma pt_BR", ("language", "pt_br")),
        ("parar", ("quiet", "")),
        ("recordar", ("loud", "")),
        ("estadísticas", ("stats", "")),
        ("join abcd1234", ("join", "abcd1234")),
        ("Privacidad", ("privacy", "")),
        ("privacidade", ("privacy", "")),
        ("privasi", ("privacy", "")),
        ("Olvídame", ("forget", "")),
        ("borrar mis datos", ("forget", "mis datos")),
        ("esqueça-me", ("forget", "me")),
        ("forget me", ("forget", "me")),
        ("hapus", ("forget", "")),
        ("Cancelar", ("cancel", "")),
        ("cancel the game", ("cancel", "the game")),
        ("batal", ("cancel", "")),
        ("7 oros", None),
    ],
)
def test_commands(typed: str, command: tuple[str, str] | None) -> None:
    assert words.command_of(typed) == command


PRIVATE = [w for w, c in words.COMMAND_WORDS.items() if c in ("privacy", "forget", "cancel")]


@pytest.mark.parametrize("word", PRIVATE)
def test_privacy_words_mean_nothing_else(word: str) -> None:
    """A word that asks what is kept, or to be forgotten, is no move, card or filler in
    any language (a forget is confirmed by its buttons all the same)."""
    assert word not in words.MOVE_WORDS and word not in words.FILLERS
    assert word not in words.SUIT_WORDS and word not in words.RANK_WORDS
    assert words.card_of(word, spanish=True) is None
    assert words.card_of(word, spanish=False) is None
    assert words.normal(word) == word  # as typed, once accents are gone


def test_privacy_and_forget_in_every_language() -> None:
    said = {c: {w for w, n in words.COMMAND_WORDS.items() if n == c} for c in ("privacy", "forget")}
    assert {"privacidad", "privacidade", "privacy", "privasi"} <= said["privacy"]
    assert {"olvidar", "esquecer", "forget", "lupakan"} <= said["forget"]
    assert "apagar" not in words.COMMAND_WORDS  # Spanish "turn off": too easily meant else


def test_a_zone_typed_keeps_its_sign() -> None:
    """WhatsApp words lose "+" and "-" when read (`normal`); the zone's words do not."""
    assert words.command_of("hora -03:00") == ("hour", "-03:00")
    assert words.command_of("Jam +7") == ("hour", "+7")
    assert zones.named("-03:00", 1_700_000_000) != zones.named("03:00", 1_700_000_000)
