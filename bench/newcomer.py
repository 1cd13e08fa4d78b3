"""A newcomer's first card (issue #37): how many of our messages a new person reads,
from their very first message to the moment they hold a card they can play.

    python -m bench.newcomer [--rounds 3] [--json out.json]

The whole product in this process (tests/service/inproc.py `running_service`: the webhook
app and a worker on threads, Redis, the emulator's local WhatsApp and Telegram), every
game dealt at random. Each person of the emulators' casts, never seen before, takes the
newcomer's way in, as a person would:

- on WhatsApp (Abuela, Avó, Vovó, Nenek, Grandma): a greeting in their language ("hola",
  "olá", "oi", "halo", "hi"), then the greeting's first choice, "Play now";
- on Telegram (Ana, Ben, Carla, Dan): /start in their private chat with the bot, then the
  greeting's "Play now".

Counted, per person: our messages they were shown up to and including the first that
offers a card of theirs to play (a reply button or list row on WhatsApp, a card button on
Telegram), the characters of those messages, their own steps (messages and taps), and
the moves of their seat made for them by then (forced plays and draws: done before they
held a card of their choosing), whether what they read told them exactly that (each card
played for them named, the number drawn), and whether that first card's message still
opens with the table's title (a WhatsApp body over 1024 characters loses its top lines).
Each round is every person of both casts in a product of its own.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.stack import TOKEN
from emulator.telegram.driver import ChatMessage
from emulator.whatsapp.driver import WaChatMessage
from engine.follow_suit.actions import decode
from engine.follow_suit.game import GameState
from service.i18n import Translator
from service.table import games as table_games
from service.ui.screens import card_name, spanish_suits
from tests.service.inproc import Hook, running_service
from tests.service.play import game_buttons
from tests.service.whatsapp.play import choices, outgoing
from tests.service.whatsapp.test_whatsapp_game import player_of

# The casts (emulator/whatsapp/config.py, emulator/config.py): a greeting, a language.
WHATSAPP = {
    "Abuela": ("hola", "es"),
    "Avó": ("olá", "pt_PT"),
    "Vovó": ("oi", "pt_BR"),
    "Nenek": ("halo", "id"),
    "Grandma": ("hi", "en"),
}
TELEGRAM = {"Ana": "es", "Ben": "pt_BR", "Carla": "en", "Dan": "id"}
BOT_ID = int(TOKEN.split(":")[0])
Reading = dict[str, Any]  # one person's count: messages, characters, steps

# What a reader is told of what was done for them (service/ui/story.py, ui/news.py).
PLAYED = (  # the longer first: see first_match
    "🤖 {card} was your only card to play: it was played for you.",
    "🤖 {card} was played for you.",
)
UNNAMED = "🤖 A card was played for you."  # an earlier hand's: its cards are not named
DREW = ("🫳 You drew {n} card: {cards}", "🫳 You drew {n} cards: {cards}")
DREW_UNNAMED = ("🫳 You drew {n} card.", "🫳 You drew {n} cards.")


def pattern(message: str) -> re.Pattern[str]:
    """A translated message, a whole line, with its placeholders as named groups."""
    parts = re.split(r"\{(\w+)\}", message)
    found = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(found)


def lines_saying(message: str, text: str) -> list[re.Match[str]]:
    """The lines of `text` that are the translated `message`, its fields filled."""
    found = pattern(message)
    return [m for line in text.splitlines() if (m := found.fullmatch(line)) is not None]


def first_match(patterns: list[re.Pattern[str]], line: str) -> re.Match[str] | None:
    """The line as the first of the patterns that is the whole of it reads it (a news
    line "🤖 X was your only card to play: it was played for you." before the story's
    "🤖 X was played for you.", which its end would match too in some languages)."""
    return next((m for p in patterns if (m := p.fullmatch(line)) is not None), None)


def forms(tr: Translator, plural: tuple[str, str], **values: str) -> set[str]:
    """Each form of a plural message in the reader's language, `{n}` left in it."""
    return {tr.ngettext(*plural, n, **values).replace(str(n), "{n}", 1) for n in (1, 7)}


@dataclass
class Told:
    """What messages told a reader was done for them."""

    played: list[str]  # the cards named as played for them
    drawn: list[str]  # the cards named as drawn for them
    drawn_count: int  # how many cards they were told they drew, named or not
    unnamed: int = 0  # cards of an earlier hand told as played for them, not named


def told_for(text: str, tr: Translator) -> Told:
    unnamed = tr.gettext(UNNAMED)
    played = [pattern(tr.gettext(message)) for message in PLAYED]
    said = [first_match(played, line) for line in text.splitlines() if line != unnamed]
    told = Told([line["card"] for line in said if line is not None], [], 0)
    told.unnamed = sum(1 for line in text.splitlines() if line == unnamed)
    for form in forms(tr, DREW, cards="{cards}"):
        for line in lines_saying(form, text):
            told.drawn += line["cards"].split(" · ")
            told.drawn_count += int(line["n"])
    for form in forms(tr, DREW_UNNAMED):
        told.drawn_count += sum(int(line["n"]) for line in lines_saying(form, text))
    return told


# The tokens of a move that is no card: a draw (from either pile) or a pass.
OTHER_MOVES = ("d", "dl", "dr", "x")


def is_move(token: str) -> bool:
    """Whether a button's token is a move of the reader's: a card, a draw or a pass (a
    first forced step is offered as the one move it is, for the player to see first)."""
    return token.startswith(("p", "c")) or token in OTHER_MOVES


def plays_a_card(message: WaChatMessage) -> bool:
    """Whether a WhatsApp message offers the reader a move of theirs."""
    ids = [ident for ident, _title in choices(message) if not ident.startswith("pick")]
    return any(i.count(".") >= 2 and is_move(i.rsplit(".", 1)[-1]) for i in ids)


def offers_a_card(message: ChatMessage) -> bool:
    """Whether a Telegram message has a move's button (`<room>.<v>.p<card>`, `….d`)."""
    return any(is_move(str(b.value).rsplit(".", 1)[-1]) for b in game_buttons(message))


def done_for(hook: Hook, player: int, shown: list[str], tr: Translator) -> Reading:
    """The cards played and drawn for the player so far in their game (they have made
    no move yet: each was a forced one), and whether the messages `shown` told them
    exactly that: every card played for them in this hand named (an earlier hand's
    counted), and how many they drew."""
    room = hook.store().room_in_chat(player, None)
    assert room is not None and isinstance(room.game, GameState)
    game, seat = room.game, room.seat_of(player)
    rules = table_games.rules_of(room.settings)
    spanish = spanish_suits(rules.deck, rules.suit_style)
    earlier = [decode(a, game.table.codec) for h in game.past for w, a in h.actions if w == seat]
    moves = [decode(a, game.table.codec) for w, a in game.hand.actions if w == seat]
    played = [card_name(m.removeprefix("play:"), spanish, tr) for m in moves if "play:" in m]
    played_before = sum(1 for move in earlier if move.startswith("play:"))
    drawn = sum(1 for move in earlier + moves if move.startswith("draw"))
    told = told_for("\n".join(shown), tr)
    exactly = (set(told.played), told.unnamed) == (set(played), played_before)
    return {
        "played_for_them": len(played) + played_before,
        "drawn_for_them": drawn,
        "told_exactly": exactly and told.drawn_count == drawn,
    }


def read(messages: list[str], steps: int, done: Reading) -> Reading:
    return done | {
        "messages": len(messages),
        "chars": sum(map(len, messages)),
        "steps": steps,
        "first_lines": [m.split("\n", 1)[0] for m in messages],
        # the first card's message opens with the table's title ("🫏 Spanish Burro ·
        # hand 1"), or its top was cut away to fit (WhatsApp: 1024 characters)
        "titled": messages[-1].startswith("🫏"),
    }


def whatsapp_newcomer(hook: Hook, user: str, word: str, lang: str) -> Reading:
    """A new person's greeting, our greeting, "Play now": what they read till a card."""
    wa = hook.emu.whatsapp
    asked = wa.send(user, word).seq

    def greeting() -> WaChatMessage | None:
        return next((m for m in outgoing(wa, user) if m.seq > asked and choices(m)), None)

    found = wa.wait_for(greeting, what=f"{user}'s greeting")
    tapped = wa.tap(user, found, choices(found)[0][0]).seq

    def first_card() -> WaChatMessage | None:
        shown = (m for m in outgoing(wa, user) if m.seq > tapped and m.visible)
        return next((m for m in shown if plays_a_card(m)), None)

    card = wa.wait_for(first_card, what=f"{user}'s first card")
    shown = [m.text for m in outgoing(wa, user) if m.visible and m.seq <= card.seq]
    done = done_for(hook, player_of(hook, user), shown, Translator(lang))
    return read(shown, steps=2, done=done)


def telegram_newcomer(hook: Hook, user: str, lang: str) -> Reading:
    """A new person's /start, our greeting, "Play now": what they read till a card."""
    emu = hook.emu
    emu.start(user)

    def ours() -> list[ChatMessage]:
        return [m for m in emu.messages_in(user) if m.sender_id == BOT_ID]

    greeting = emu.wait_for(lambda: next(iter(ours()), None), what=f"{user}'s greeting")
    emu.tap(user, greeting, "cmd:play")

    def first_card() -> ChatMessage | None:
        return next((m for m in ours() if offers_a_card(m)), None)

    card = emu.wait_for(first_card, what=f"{user}'s first card")
    shown = [m.text for m in ours() if m.message_id <= card.message_id]
    return read(shown, steps=2, done=done_for(hook, card.chat_id, shown, Translator(lang)))


def spread(values: list[int]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summary(readings: list[Reading]) -> dict[str, Any]:
    return {
        "people": readings,
        "messages": spread([r["messages"] for r in readings]),
        "played_for_them": spread([r["played_for_them"] for r in readings]),
        "drawn_for_them": spread([r["drawn_for_them"] for r in readings]),
        "chars": spread([r["chars"] for r in readings]),
        "untitled": sum(1 for r in readings if not r["titled"]),
        "told_exactly": sum(1 for r in readings if r["told_exactly"]),
    }


def one_round() -> tuple[list[Reading], list[Reading]]:
    """Every person of both casts, new, in a product of their own (new deals)."""
    with (
        tempfile.TemporaryDirectory() as folder,
        running_service(Path(folder), whatsapp_pair_rate=0.0) as hook,
    ):
        whatsapp = [
            whatsapp_newcomer(hook, user, word, lang) | {"who": user}
            for user, (word, lang) in WHATSAPP.items()
        ]
        telegram = [
            telegram_newcomer(hook, user, lang) | {"who": user} for user, lang in TELEGRAM.items()
        ]
        assert hook.worker is not None
        hook.worker.check()
    return whatsapp, telegram


def measure(rounds: int) -> dict[str, Any]:
    whatsapp: list[Reading] = []
    telegram: list[Reading] = []
    for _ in range(rounds):
        found = one_round()
        whatsapp += found[0]
        telegram += found[1]
    return {"whatsapp": summary(whatsapp), "telegram": summary(telegram)}


def main(argv: list[str] | None = None, run: Callable[[int], dict[str, Any]] = measure) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="each cast anew, new deals")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    found = run(args.rounds)
    for platform, figures in found.items():
        print(f"{platform} ({len(figures['people'])} newcomers, 2 steps each):")
        for what in ("messages", "chars", "played_for_them", "drawn_for_them"):
            low, mid, high = (figures[what][k] for k in ("min", "median", "max"))
            print(f"  {what}: median {mid} (min {low}, max {high})")
        print(f"  first card's message without the table's title: {figures['untitled']}")
        print(f"  told exactly what was done for them: {figures['told_exactly']}")
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
