"""The story's share of what players read (issue #37): characters of story lines over
all characters of the screens sent to players, over whole games of each preset.

    python -m bench.story [--games 5] [--json out.json]

Whole games are played through the table core (service.table: two humans who press a
random legal move when it is theirs, two bots; jobs run on a fake clock, as the story
test plays them), and each human's screen is drawn as the outbox draws it whenever a
change is synced to it, its story starting where its reader last looked
(service.ui.story.begin: each screen after the last one's lines). Two ways of drawing
it: a private hand beside a group's table (Telegram's: what was done for the player,
then the others' moves at their turn) and the hand with the table above it (WhatsApp's
prompt, every change a new message). A screen's story characters are those its text
loses when drawn with no story (the story's lines and the blank line after them).
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from service.table import lobby, play
from service.table.games import game_of
from service.table.lobby import Actor
from service.table.log import last_seq
from service.table.outcome import Job, JobKind, Outcome
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.screens import TablePainter
from service.ui.story import Cursor, begin

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
START = 1_800_000_000.0
PRESETS = ("spanish", "spanish48", "brazilian", "portuguese", "burro_em_pe", "cangkul", "cuartetos")
MAX_STEPS = 20_000


@dataclass
class Share:
    """Characters of screens sent to players, and of their stories."""

    screens: int = 0
    total: int = 0
    story: int = 0

    def add(self, total: int, story: int) -> None:
        self.screens, self.total, self.story = (
            self.screens + 1,
            self.total + total,
            self.story + story,
        )

    def ratio(self) -> float:
        return self.story / self.total if self.total else 0.0


def new_room(preset: str, seed: int) -> Room:
    settings = RoomSettings(preset=preset, turn_timeout=60)
    room = lobby.create_room(-100, None, ANA, START, settings=settings)
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    room.seed = (1 << 127) | zlib.crc32(f"bench-story{preset}{seed}".encode())
    return room


def drawn(room: Room, seat: int, after: int, with_table: bool, story: bool) -> str:
    """A seat's screen as the outbox draws it (`story` False: with no story)."""
    painter = games.painter(room, "en")
    assert isinstance(painter, TablePainter)
    painter.after = after
    if not story:
        painter.story = lambda *args, **kwargs: []  # type: ignore[attr-defined]
    return painter.hand(seat, with_table=with_table).text


def measure(
    room: Room,
    outcome: Outcome,
    cursors: dict[int, Cursor | None],
    shares: dict[str, Share],
    now: float,
) -> None:
    """Each human's screen that the change synced, in both chats."""
    for target in sorted(outcome.sync):
        kind, _sep, rest = target.partition(":")
        if kind != "hand":
            continue
        user = int(rest.split(":")[0])
        seat = room.seat_of(user)
        if seat is None:
            continue
        start = begin(cursors.get(user), True, None, room.log)
        for chat, with_table in (("edits", False), ("new messages", True)):
            whole = drawn(room, seat, start, with_table, story=True)
            bare = drawn(room, seat, start, with_table, story=False)
            shares[chat].add(len(whole), len(whole) - len(bare))
        cursors[user] = Cursor(start, last_seq(room.log), now)


def run_job(room: Room, job: Job, now: float) -> Outcome | None:
    """What the job's worker does with the room (None: nothing, it is moot)."""
    phase, _sep, seat = job.arg.partition(":")
    if job.kind is JobKind.SYNC or str(room.phase_version) != phase:
        return None
    if job.kind is JobKind.BOT_TURN and int(seat) in room.bots_waiting():
        return play.bot_turn(room, int(seat), play.bot_action(room, int(seat)), now, 1.5)
    if job.kind is JobKind.DEADLINE:
        return play.expire(room, now, 1.5)
    if job.kind is JobKind.TURN_TIMEOUT and play.waiting_humans(room):
        out = play.waiting_humans(room)[0]
        action = play.bot_action(room, out, "heuristic")
        return None if action is None else play.time_out(room, out, action, now, 1.5)
    return None


def changes(room: Room, rnd: random.Random) -> Iterator[tuple[Outcome, float]]:
    """The room's changes, one by one, to its game's end: a waiting human presses a
    random legal move (now and then they let a job come first), else the next job."""
    clock, step = START, 0
    pending: list[tuple[float, int, Job]] = []
    outcome = lobby.start(room, ANA, START, 1.5)
    while room.status == "playing" and step < MAX_STEPS:
        yield outcome, clock
        step += 1
        for n, job in enumerate(outcome.jobs):
            heapq.heappush(pending, (job.at, step * 1000 + n, job))
        humans = play.waiting_humans(room)
        if humans and rnd.random() < 0.9:
            seat = rnd.choice(humans)
            user = room.seats[seat].user_id
            assert user is not None and room.game is not None
            action = rnd.choice(game_of(room.settings.preset).legal_actions(room.game, seat))
            clock += 1.0
            change = play.press(room, room.phase_version, user, action, clock, 1.5)
            outcome = change if isinstance(change, Outcome) else change(room)
            continue
        outcome = Outcome()
        while pending:
            at, _n, job = heapq.heappop(pending)
            clock = max(clock, at)
            done = run_job(room, job, clock)
            if done is not None:
                outcome = done
                break
    yield outcome, clock


def share_of(preset: str, games_: int) -> dict[str, Share]:
    shares = {"edits": Share(), "new messages": Share()}
    for seed in range(games_):
        room = new_room(preset, seed)
        cursors: dict[int, Cursor | None] = {}
        for outcome, now in changes(room, random.Random(f"{preset}{seed}")):
            measure(room, outcome, cursors, shares, now)
    return shares


def run(games_: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for preset in PRESETS:
        shares = share_of(preset, games_)
        out[preset] = {
            chat: {
                "screens": s.screens,
                "chars": s.total,
                "story": s.story,
                "share": round(s.ratio(), 3),
            }
            for chat, s in shares.items()
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games per preset")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    figures = run(args.games)
    print(f"{'preset':<12} {'chat':<13} {'screens':>7} {'chars':>9} {'story':>8} {'share':>6}")
    for preset, chats in figures.items():
        for chat, f in chats.items():
            counts = f"{f['screens']:>7} {f['chars']:>9} {f['story']:>8}"
            print(f"{preset:<12} {chat:<13} {counts} {f['share']:>6.1%}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
