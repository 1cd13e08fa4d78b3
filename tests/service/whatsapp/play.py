"""Playing through the local WhatsApp as a person would: read the last prompt, tap or
choose one of its moves (a card first), wait for what comes next."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.platforms.whatsapp import render

if TYPE_CHECKING:
    from tests.service.inproc import InprocWorker

REMATCH_WORDS = ("🔁",)


def outgoing(wa: WhatsAppDriver, user: str) -> list[WaChatMessage]:
    return [m for m in wa.messages(user) if m.direction == "out"]


def last_out(wa: WhatsAppDriver, user: str) -> WaChatMessage | None:
    found = outgoing(wa, user)
    return found[-1] if found else None


def choices(message: WaChatMessage) -> list[tuple[str, str]]:
    """(id, title) of what a message offers: its reply buttons, else its list's rows."""
    if message.buttons:
        return [(b.id, b.title) for b in message.buttons]
    return [(r.id, r.title) for r in message.rows]


def moves(message: WaChatMessage) -> list[tuple[str, str]]:
    """What a message offers that plays at once: its choices but the rows that open a
    folded suit (a hand with more playable cards than a list holds; the deal decides)."""
    return [c for c in choices(message) if render.pick_of(c[0]) is None]


def pick(message: WaChatMessage) -> str:
    """The answer to another's ¡Burro! if the prompt asks for it, as a person quick
    enough gives it (else the call's window runs out on the real clock); else a card
    (or a suit to open), else its first choice."""
    offered = choices(message)
    shouts = [c for c in offered if c[0].rsplit(".", 1)[-1] == "r"]
    cards = [c for c in offered if ".p" in c[0] or ".c" in c[0] or c[0].startswith("pick:")]
    return (shouts or cards or offered)[0][0]


def act(wa: WhatsAppDriver, user: str, message: WaChatMessage, choice: str) -> None:
    if message.buttons:
        wa.tap(user, message, choice)
    else:
        wa.choose(user, message, choice)


def is_prompt(message: WaChatMessage | None) -> bool:
    return message is not None and bool(choices(message))


def is_final(message: WaChatMessage | None) -> bool:
    return message is not None and any(
        any(word in title for word in REMATCH_WORDS) for _id, title in choices(message)
    )


def newest_prompt(
    wa: WhatsAppDriver, user: str, after: int, since: int = 0
) -> WaChatMessage | None:
    """The newest message from us that asks something, if it came after `after`;
    `since`: a revision of the chat before it (only what changed since is read: a long
    game's whole chat read every few milliseconds is most of what a test costs)."""
    changed = [m for m in wa.messages(user, since=since) if m.direction == "out"]
    prompts = [m for m in changed if is_prompt(m) and m.seq > after]
    return max(prompts, key=lambda m: m.seq) if prompts else None


def next_prompt(
    wa: WhatsAppDriver, user: str, after: int, since: int, worker: InprocWorker | None
) -> WaChatMessage | None:
    """The newest prompt after `after`, or None (the clock moved on to the next timer if
    nothing else is left to happen)."""
    found = newest_prompt(wa, user, after, since)
    if found is None and worker is not None:
        worker.skip_ahead()
    return found


@dataclass
class Played:
    """What playing a game took the person."""

    moves: int = 0  # their taps and choices that played
    opened: int = 0  # folded suits they opened (a second message for one move)
    final: WaChatMessage | None = None  # the game's last message (its "play again")


def play_game(
    wa: WhatsAppDriver,
    user: str,
    after: int,
    max_moves: int = 600,
    worker: InprocWorker | None = None,
) -> Played:
    """Play `user`'s game to its end from the first prompt after message `after`. With
    the in-process `worker`, a wait on a timer (a call's window) moves the service's
    clock on instead of waiting for it."""
    played, seen, rev = Played(), after, 0
    while played.moves < max_moves:
        prompt = wa.wait_for(
            partial(next_prompt, wa, user, seen, rev, worker),
            timeout=20,
            what=f"{user}'s next prompt",
        )
        if is_final(prompt):
            played.final = prompt
            return played
        seen, rev = prompt.seq, prompt.rev
        choice = pick(prompt)
        act(wa, user, prompt, choice)
        if render.pick_of(choice) is None:
            played.moves += 1
        else:
            played.opened += 1
    raise AssertionError(f"{user}'s game did not end in {max_moves} moves")


def play_to_the_end(
    wa: WhatsAppDriver,
    user: str,
    after: int,
    max_moves: int = 600,
    worker: InprocWorker | None = None,
) -> int:
    """Play `user`'s game to its end (`play_game`); the number of moves it took."""
    return play_game(wa, user, after, max_moves, worker).moves
