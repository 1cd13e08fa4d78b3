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
held a card of their choosing), and whether that first card's message still opens with
the table's title (a WhatsApp body over 1024 characters loses its top lines). Each
round is every person of both casts in a product of its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.stack import TOKEN
from emulator.telegram.driver import ChatMessage
from emulator.whatsapp.driver import WaChatMessage
from engine.follow_suit.actions import decode
from engine.follow_suit.game import GameState
from tests.service.inproc import Hook, running_service
from tests.service.play import game_buttons
from tests.service.whatsapp.play import choices, outgoing
from tests.service.whatsapp.test_whatsapp_game import player_of

WHATSAPP = {"Abuela": "hola", "Avó": "olá", "Vovó": "oi", "Nenek": "halo", "Grandma": "hi"}
TELEGRAM = ("Ana", "Ben", "Carla", "Dan")
BOT_ID = int(TOKEN.split(":")[0])
Reading = dict[str, Any]  # one person's count: messages, characters, steps


def plays_a_card(message: WaChatMessage) -> bool:
    """Whether a WhatsApp message offers a card of the reader's to play."""
    ids = [ident for ident, _title in choices(message)]
    return any((".p" in i or ".c" in i) and not i.startswith("pick") for i in ids)


def offers_a_card(message: ChatMessage) -> bool:
    """Whether a Telegram message has a button that plays a card (`<room>.<v>.p<card>`)."""
    return any(str(b.value).rsplit(".", 1)[-1].startswith("p") for b in game_buttons(message))


def done_for(hook: Hook, player: int) -> dict[str, int]:
    """The cards played and drawn for the player so far in their game (they have made
    no move yet: each was a forced one)."""
    room = hook.store().room_in_chat(player, None)
    assert room is not None and isinstance(room.game, GameState)
    seat, codec = room.seat_of(player), room.game.table.codec
    moves = [decode(a, codec) for who, a in room.game.hand.actions if who == seat]
    played = sum(1 for move in moves if move.startswith("play:"))
    drawn = sum(1 for move in moves if move.startswith("draw"))
    return {"played_for_them": played, "drawn_for_them": drawn}


def read(messages: list[str], steps: int, done: dict[str, int]) -> Reading:
    return done | {
        "messages": len(messages),
        "chars": sum(map(len, messages)),
        "steps": steps,
        "first_lines": [m.split("\n", 1)[0] for m in messages],
        # the first card's message opens with the table's title ("🫏 Spanish Burro ·
        # hand 1"), or its top was cut away to fit (WhatsApp: 1024 characters)
        "titled": messages[-1].startswith("🫏"),
    }


def whatsapp_newcomer(hook: Hook, user: str, word: str) -> Reading:
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
    return read(shown, steps=2, done=done_for(hook, player_of(hook, user)))


def telegram_newcomer(hook: Hook, user: str) -> Reading:
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
    return read(shown, steps=2, done=done_for(hook, card.chat_id))


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
    }


def one_round() -> tuple[list[Reading], list[Reading]]:
    """Every person of both casts, new, in a product of their own (new deals)."""
    with (
        tempfile.TemporaryDirectory() as folder,
        running_service(Path(folder), whatsapp_pair_rate=0.0) as hook,
    ):
        whatsapp = [whatsapp_newcomer(hook, u, w) | {"who": u} for u, w in WHATSAPP.items()]
        telegram = [telegram_newcomer(hook, u) | {"who": u} for u in TELEGRAM]
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
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
