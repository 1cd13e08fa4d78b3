"""The jobs: module-level functions with primitive arguments, each idempotent.

Every job re-reads the room and does nothing when the room's version moved on (a move
came first) or its deadline is not reached yet (a scheduled job may fire early).
"""

from __future__ import annotations

import logging

from engine.follow_suit.game import GameState, to_move
from engine.kernel.errors import IllegalAction
from service.infra import metrics
from service.table import moves
from service.table.cuartetos import moves as passing
from service.table.outcome import Outcome
from service.table.quiet import quiet_until
from service.table.room import LogLine, Room
from workers import expiry, notices, outbox, sweeper
from workers.runtime import runtime

log = logging.getLogger("burro.worker")


@metrics.job("sync")
def sync(room_id: str, target: str) -> None:
    """Bring one chat's message for a room up to the room's current state."""
    outbox.sync(runtime(), room_id, target)


@metrics.job("notice", about_game=False)
def notice(notice_id: str, _arg: str) -> None:
    """Send a message kept for the flood budget (see service.table.notices)."""
    notices.send(runtime(), notice_id)


@metrics.job("bot_move")
def bot_move(room_id: str, version: str) -> None:
    """A bot's turn: choose from the bot's own view, then commit if nothing moved on."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    seat = current_seat(room, version)
    if room is None or seat is None or not room.is_bot_seat(seat):
        return
    level = room.seats[seat].bot or "heuristic"  # a removed human's seat plays heuristic
    action = moves.bot_action(room, seat, level)  # outside the transaction: search is slow
    delay, now = rt.svc.settings.bot_delay, rt.svc.now()

    def change(fresh: Room) -> Outcome:
        if fresh.version != int(version):
            return Outcome()
        return moves.play(fresh, seat, action, now, delay)

    rt.svc.store.update(room_id, change)


@metrics.job("turn_timeout")
def turn_timeout(room_id: str, version: str) -> None:
    """A human's turn ran out: a bot plays it for them; with the `remove` setting, after
    `max_timeouts` the seat goes to a bot for good. Announced in the group's log."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    seat = current_seat(room, version)
    if room is None or seat is None or room.is_bot_seat(seat):
        return
    now = rt.svc.now()
    if room.deadline is None or now < room.deadline:
        outbox.later(rt, "turn_timeout", room_id, version, room.deadline)
        return
    action = moves.bot_action(room, seat, "heuristic")
    delay = rt.svc.settings.bot_delay

    def change(fresh: Room) -> Outcome:
        if fresh.version != int(version):
            return Outcome()
        player = fresh.seats[seat]
        player.timeouts += 1
        limit = fresh.settings.max_timeouts
        gone = fresh.settings.timeout_action == "remove" and player.timeouts >= limit
        player.removed = player.removed or gone
        assert isinstance(fresh.game, GameState)
        kind = "removed" if gone else "timeout"
        fresh.add_log(LogLine(kind=kind, seat=seat, hand_no=fresh.game.hand_no))
        return moves.play(fresh, seat, action, now, delay, timed_out=True)

    rt.svc.store.update(room_id, change)


@metrics.job("remind")
def remind(room_id: str, version: str) -> None:
    """Nudge the player to move: their hand again in private, and (once per turn) a
    gentle mention in the group."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    seat = current_seat(room, version)
    if room is None or seat is None or room.is_bot_seat(seat) or room.reminded:
        return
    until = quiet_until(room.settings, rt.svc.now())
    if until is not None:  # the group's night: nudge in the morning (moves never wait)
        outbox.later(rt, "remind", room_id, version, until)
        return

    def change(fresh: Room) -> Outcome:
        if fresh.version != int(version) or fresh.reminded:
            return Outcome()
        fresh.reminded = True
        user = fresh.seats[seat].user_id
        targets = {"table:new"} if fresh.private else {f"hand:{user}:new", "nudge"}
        return Outcome(changed=True, sync=targets)

    rt.svc.store.update(room_id, change)


def current_seat(room: Room | None, version: str) -> int | None:
    """The seat to move if the room is still at `version` and playing, else None."""
    if room is None or room.status != "playing" or not isinstance(room.game, GameState):
        return None
    if str(room.version) != version:
        return None
    return to_move(room.game)


# ----- the passing game: jobs named after its phases (see service.table.cuartetos.moves) -------


def passing_phase(room: Room | None, version: str) -> bool:
    """Whether the room is a passing game still in the phase that began at `version`."""
    return (
        room is not None
        and room.status == "playing"
        and room.settings.passing
        and str(room.phase_version) == version
    )


@metrics.job("passing_close")
def passing_close(room_id: str, version: str) -> None:
    """A phase's time is up: the engine's `close` at the server's time (a card passes
    for each player who did not choose; an open call is settled)."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    if room is None or not passing_phase(room, version):
        return
    due, now = room.deadline, rt.svc.now()
    if due is None or now < due:  # a scheduled job may fire early
        outbox.later(rt, "passing_close", room_id, version, due)
        return
    delay = rt.svc.settings.bot_delay

    def change(fresh: Room) -> Outcome:
        if not passing_phase(fresh, version):
            return Outcome()
        try:
            return passing.close(fresh, now, delay)
        except IllegalAction:  # not due after all (the phase's clock is the engine's)
            return Outcome()

    rt.svc.store.update(room_id, change)


@metrics.job("passing_bot")
def passing_bot(room_id: str, arg: str) -> None:
    """A bot's choice, call or response in a phase (`<phase version>:<seat>`)."""
    rt = runtime()
    version, _, seat_text = arg.partition(":")
    room = rt.svc.store.load(room_id)
    if room is None or not passing_phase(room, version) or not seat_text.isdigit():
        return
    seat = int(seat_text)
    if not room.is_bot_seat(seat):
        return
    now, delay = rt.svc.now(), rt.svc.settings.bot_delay

    def change(fresh: Room) -> Outcome:
        if not passing_phase(fresh, version):
            return Outcome()
        return passing.bot_turn(fresh, seat, now, delay)

    rt.svc.store.update(room_id, change)


@metrics.job("passing_remind")
def passing_remind(room_id: str, version: str) -> None:
    """Slow tables: nudge the players yet to choose (quiet hours hold it)."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    if room is None or not passing_phase(room, version) or room.reminded:
        return
    until = quiet_until(room.settings, rt.svc.now())
    if until is not None:
        outbox.later(rt, "passing_remind", room_id, version, until)
        return

    def change(fresh: Room) -> Outcome:
        if not passing_phase(fresh, version):
            return Outcome()
        return passing.remind(fresh)

    rt.svc.store.update(room_id, change)


@metrics.job("sweep", about_game=False)
def sweep(slot: str) -> None:
    """The periodic sweep (see workers.sweeper) and the end of idle rooms (workers.expiry),
    then the next sweep in the chain."""
    rt = runtime()
    settings = rt.svc.settings
    found = sweeper.sweep_once(rt.svc.store, rt.svc.now(), settings.sweep_grace)
    if found:
        log.info("sweep %s: scheduled %d missing jobs", slot, found)
    expiry.expire_idle(rt.svc, rt.svc.now())
    sweeper.ensure_chain(rt.redis, settings.sweep_every)
