"""What a WhatsApp person may type instead of tapping, in every language we speak.

A typed move is matched against the person's current prompt only: the buttons it
shows are the legal moves, so a word can never do what no button offers. A move that
is no button is still read (`move_of`), for the desk to say why it cannot be played
(a card not held, a suit to follow). A card is
typed as its label (`7 de oros`, `10♥`), its code (`7d`, `10h`), its rank and suit
initial (`7o`: oros; in French suits `7c` is clubs), or its rank and suit word in any
of our languages (`sota copas`, `7 hearts`, `7 hati`, `kuda cawan`: each
language's names for the Spanish suits too, as its buttons show them). Other moves and commands are
words (`robar`, `draw`, `comprar`, `ambil`; `ayuda`, `help`, `ajuda`, `bantuan` …;
`privacidad`, `olvidar`, `esquecer`, `lupakan` for what is kept and forgetting it;
`table`, `mesa`, `meja` for a link to the table's picture).
Case, accents and emoji are ignored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

from service.ui.intents import Command, Move, Press
from service.ui.screens import Button

# Suit letters of our card codes, by the words and initials people type.
SUIT_WORDS: dict[str, str] = {
    **dict.fromkeys(["oros", "oro", "ouros", "ouro", "diamonds", "diamond", "diamantes"], "D"),
    **dict.fromkeys(["wajik", "diamante", "koin", "♦", "♦️"], "D"),
    **dict.fromkeys(["copas", "copa", "hearts", "heart", "corazones", "coracoes", "hati"], "H"),
    **dict.fromkeys(["cawan", "♥", "♥️"], "H"),
    **dict.fromkeys(["espadas", "espada", "spades", "spade", "picas", "sekop", "pedang"], "S"),
    **dict.fromkeys(["♠", "♠️"], "S"),
    **dict.fromkeys(["bastos", "basto", "clubs", "club", "paus", "treboles", "keriting"], "C"),
    **dict.fromkeys(["tongkat", "♣", "♣️"], "C"),
}
SPANISH_INITIALS = {"o": "D", "c": "H", "e": "S", "b": "C"}
FRENCH_INITIALS = {"d": "D", "h": "H", "s": "S", "c": "C"}
RANK_WORDS: dict[str, str] = {
    **dict.fromkeys(["as", "a", "ace", "ás", "1"], "A"),
    **dict.fromkeys(["sota", "jack", "j", "valete", "jota", "jacks"], "J"),
    **dict.fromkeys(["caballo", "cavalo", "queen", "q", "dama", "reina", "rainha", "ratu"], "Q"),
    **dict.fromkeys(["kuda"], "Q"),  # the Caballo, as Indonesian's Spanish suits name it
    **dict.fromkeys(["rey", "rei", "king", "k", "raja"], "K"),
}
MOVE_WORDS: dict[str, str] = {
    **dict.fromkeys(["robar", "roba", "draw", "comprar", "compra", "pescar", "ambil"], "draw"),
    **dict.fromkeys(["tarik", "cavar", "pedir"], "draw"),
    **dict.fromkeys(["pasar", "paso", "pass", "passar", "passo", "lewat", "lanjut"], "pass"),
    **dict.fromkeys(["izquierda", "left", "esquerda", "kiri"], "draw:left"),
    **dict.fromkeys(["derecha", "right", "direita", "kanan"], "draw:right"),
    **dict.fromkeys(["burro"], "burro"),
}
CommandWord = Literal[
    "help",
    "hello",
    "rules",
    "new",
    "setup",
    "family",
    "stats",
    "language",
    "quiet",
    "loud",
    "join",
    "privacy",
    "forget",
    "cancel",
    "hour",
    "story",
    "tip",
]
# A greeting starts a game against bots at once (or shows the one going on); "new game"
# in any of our languages too; "help" explains what we understand.
COMMAND_WORDS: dict[str, CommandWord] = {
    **dict.fromkeys(["ayuda", "help", "ajuda", "bantuan", "menu", "inicio"], "help"),
    **dict.fromkeys(["hola", "ola", "oi", "hello", "hi", "hey", "halo", "hai", "start"], "hello"),
    **dict.fromkeys(["buenas", "buenos", "bom", "boa", "selamat"], "hello"),
    **dict.fromkeys(["reglas", "rules", "regras", "aturan"], "rules"),
    **dict.fromkeys(["jugar", "nueva", "play", "new", "jogar", "nova", "novo", "main"], "new"),
    **dict.fromkeys(["baru", "partida", "game", "juego", "jogo", "otra", "outra"], "new"),
    **dict.fromkeys(["ajustes", "settings", "configurar", "definicoes", "pengaturan"], "setup"),
    **dict.fromkeys(["stats", "estadisticas", "estatisticas", "statistik"], "stats"),
    **dict.fromkeys(["idioma", "language", "lingua", "bahasa", "lang"], "language"),
    **dict.fromkeys(["silencio", "quiet", "silencio", "diam", "callar", "parar"], "quiet"),
    **dict.fromkeys(["recordar", "remind", "lembrar", "ingatkan", "avisar"], "loud"),
    **dict.fromkeys(["unirme", "join", "entrar", "gabung", "mesa"], "join"),
    **dict.fromkeys(["familia", "family", "keluarga", "amigos", "friends", "teman"], "family"),
    **dict.fromkeys(["privacidad", "privacidade", "privacy", "privasi"], "privacy"),
    # Asking to be forgotten (always confirmed by two buttons). Not "apagar": in Spanish
    # it is "turn off", said of reminders as much as of data.
    **dict.fromkeys(["olvidar", "olvidame", "borrar", "borrame", "forget", "delete"], "forget"),
    **dict.fromkeys(["esquecer", "esqueca", "esquece", "lupakan", "hapus"], "forget"),
    # Ending the table in the person's own chat (confirmed by two buttons, as /cancel).
    **dict.fromkeys(["cancelar", "cancel", "batal", "batalkan", "terminar"], "cancel"),
    # The person's time zone, told or set by the words after ("hora Lisboa", "jam 18:30").
    **dict.fromkeys(["hora", "hour", "horario", "jam", "zona", "timezone"], "hour"),
    # The hand's whole story, where a screen folded it ("… 9 earlier moves").
    **dict.fromkeys(["historia", "story", "cerita", "history", "riwayat"], "story"),
    # The person's tip for their move now (service.desk.tipping).
    **dict.fromkeys(["tip", "tips", "hint", "pista", "consejo", "dica", "saran"], "tip"),
}
# Words around a game's name that name no game ("nueva partida", "main lagi", "buenas
# tardes"): a command that opens a table reads past them.
GAME_COMMANDS = ("hello", "new", "setup", "family")
FILLERS = {
    *("partida", "game", "juego", "jogo", "lagi", "baru", "otra", "outra", "again", "de"),
    *("nueva", "nuevo", "nova", "novo", "new", "a", "uma", "una", "un", "um", "dong"),
    *("dias", "tardes", "noches", "dia", "tarde", "noite", "pagi", "siang", "sore", "malam"),
    *("morning", "there", "jugar", "jogar", "play", "main", "mesa", "table"),
}
# Asking for the table's view (service.platforms.whatsapp.view_link), the whole message:
# a bare "mesa" asks for it, "mesa <code>" still joins the table the code names.
VIEW_PHRASES = {
    *("table", "the table", "view", "view table", "open table", "open the table"),
    *("see the table", "mesa", "la mesa", "ver mesa", "ver la mesa", "abrir la mesa"),
    *("a mesa", "ver a mesa", "abrir a mesa", "tablero", "meja", "lihat meja", "buka meja"),
}
_EMOJI = re.compile(r"[^\w\s♠♥♦♣:]", re.UNICODE)
_CARD = re.compile(r"^(10|[2-9]|[a-z]+|1)\s*(?:de |of |dari )?\s*([a-z♠♥♦♣]+)$")


def normal(text: str) -> str:
    """Lower case without accents, emoji or punctuation, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = plain.replace("️", "")
    return " ".join(_EMOJI.sub(" ", plain).split())


def card_of(text: str, spanish: bool) -> str | None:
    """The card code a typed card means (`7 de oros` -> `7D`), or None."""
    words = normal(text)
    compact = words.replace(" ", "")
    found = re.match(r"^(10|[2-9]|[ajqk1])([a-z♠♥♦♣])$", compact)
    if found:
        initials = SPANISH_INITIALS if spanish else FRENCH_INITIALS
        rank = RANK_WORDS.get(found[1], found[1].upper())
        suit = initials.get(found[2]) or SUIT_WORDS.get(found[2])
        return f"{rank}{suit}" if suit else None
    found = _CARD.match(words)
    if found is None:
        return None
    rank = RANK_WORDS.get(found[1]) or (found[1] if found[1].isdigit() else None)
    suit = SUIT_WORDS.get(found[2])
    return f"{rank}{suit}" if rank and suit else None


def typed_press(text: str, buttons: Iterable[Button], spanish: bool) -> Press | None:
    """The press a typed text means among a prompt's buttons, or None."""
    pressable = [b for b in buttons if isinstance(b.intent, Press)]
    said = normal(text)
    for button in pressable:  # a button's own label, typed
        if said and normal(button.label) == said:
            return button.intent if isinstance(button.intent, Press) else None
    wanted = move_of(text, spanish)
    for button in pressable:
        press = button.intent
        assert isinstance(press, Press)
        if isinstance(press.what, Move) and wanted is not None and matches(press, wanted):
            return press
    return None


def move_of(text: str, spanish: bool) -> str | None:
    """The move a text names, legal or not: a word (`draw`), or a card (`card:7D`, for
    any card move)."""
    said = normal(text)
    if said in MOVE_WORDS:
        return MOVE_WORDS[said]
    card = card_of(text, spanish)
    return f"card:{card}" if card else None


def matches(press: Press, wanted: str) -> bool:
    assert isinstance(press.what, Move)
    action = press.what.action
    if wanted.startswith("card:"):
        return action.partition(":")[2] == wanted[5:] and action.partition(":")[0] in (
            "play",
            "pass",
        )
    return action == wanted or action.partition(":")[0] == wanted


def view_asked(text: str) -> bool:
    """Whether the text asks for the table's view (`table`, `mesa`, `lihat meja` …)."""
    return normal(text) in VIEW_PHRASES


def command_of(text: str) -> tuple[CommandWord, str] | None:
    """A command and the rest of its words (`nueva partida cangkul` -> ("new",
    "cangkul"): a command that opens a table reads past words that name no game)."""
    words = normal(text).split()
    if not words or words[0] not in COMMAND_WORDS:
        return None
    command = COMMAND_WORDS[words[0]]
    if command == "hour":  # a zone's words as typed: "hora -03:00" keeps its sign
        return command, " ".join(text.split()[1:])
    rest = words[1:]
    if command in GAME_COMMANDS:
        rest = [w for w in rest if w not in FILLERS]
    return command, " ".join(rest)


def is_command(press: Press, name: str) -> bool:
    return isinstance(press.what, Command) and press.what.name == name
