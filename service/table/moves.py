"""Moves in a running room: a player's action, forced moves, bots' and timers' turns.

Each function changes the room it is given (a fresh copy loaded for this update) and
says in an `Outcome` what else must happen: chats to sync, jobs to schedule.
"""

from __future__ import annotations

from engine.follow_suit import events as ev
from engine.follow_suit.game import GameState, apply, legal_actions, to_move
from engine.follow_suit.views import player_view
from service.table.outcome import BOT_MOVE, REMIND, TURN_TIMEOUT, Job, Outcome
from service.table.room import LogLine, Room

MAX_FORCED = 200  # a safety bound on forced moves applied in one go


def play(
    room: Room,
    seat: int,
    action: str,
    now: float,
    bot_delay: float = 0.0,
    timed_out: bool = False,
) -> Outcome:
    """Apply `seat`'s action (raises engine.IllegalAction), then any forced moves. With
    `timed_out` the action was chosen for the player, whose time ran out: they are told."""
    assert isinstance(room.game, GameState)
    outcome = Outcome(changed=True)
    touched = {seat}
    user = room.seats[seat].user_id
    if user is not None and timed_out:
        outcome.sync.add(said(user, "timeout", action))
    elif user is not None and not room.is_bot_seat(seat):
        outcome.acted[user] = now
    room.game, events = apply(room.game, seat, action)
    record(room, events, outcome, touched)
    play_forced(room, outcome, touched, seat)
    settle(room, now, outcome, touched, bot_delay)
    return outcome


def said(user: int, why: str, action: str) -> str:
    """The outbox's target that tells a player a move was played for them (`why`:
    timeout, or only when it was their only legal card)."""
    return f"said:{user}:{why}:{action}"


def play_forced(room: Room, outcome: Outcome, touched: set[int], actor: int = -1) -> None:
    """Apply single-choice moves at once: the drawn card that must be played, a void
    player's pass on an empty stock. Bots' and humans' alike (nothing to decide). A card
    played so for another human than the one who just moved is told in their chat."""
    if not room.settings.auto_forced:
        return
    for _ in range(MAX_FORCED):
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        if seat is None:
            return
        legal = legal_actions(room.game, seat)
        if len(legal) != 1:
            return
        room.game, events = apply(room.game, seat, legal[0])
        touched.add(seat)
        record(room, events, outcome, touched)
        user = room.seats[seat].user_id
        if seat != actor and user is not None and legal[0].startswith("play:"):
            outcome.sync.add(said(user, "only", legal[0]))


def record(room: Room, events: list[ev.Event], outcome: Outcome, touched: set[int]) -> None:
    """Keep the public events in the room's log; note the seats whose hand changed."""
    assert isinstance(room.game, GameState)
    started = any(isinstance(e, ev.HandStarted) for e in events)
    hand_no = room.game.hand_no - (1 if started else 0)  # the hand these events began in
    for event in events:
        if isinstance(event, ev.HandStarted):
            hand_no = event.hand_no
        line = log_line(event, hand_no)
        if line is not None:
            room.add_log(line)
        if isinstance(event, ev.CardsPickedUp | ev.TentToppled):
            touched.add(event.seat)
        if isinstance(event, ev.HandStarted):
            touched.update(range(len(room.seats)))
        if isinstance(event, ev.HandOver):
            outcome.sync.update(news_targets(room))
        if isinstance(event, ev.GameEnded):
            outcome.finished = True


def news_targets(room: Room) -> set[str]:
    """Where a hand's or the game's end is told: the room's chat, and in a group each
    player's private chat too (those it refused excepted)."""
    if room.private:
        return {"news"}
    users = [u for u in room.humans() if u not in room.blocked]
    return {"news", *(f"news:{u}" for u in users)}


def log_line(event: ev.Event, hand_no: int) -> LogLine | None:
    """The public log line of an event (never a hidden card)."""
    line = _log_line(event, hand_no)
    return line.model_copy(update={"hand_no": hand_no}) if line else None


def _log_line(event: ev.Event, hand_no: int) -> LogLine | None:
    match event:
        case ev.CardPlayed(seat=seat, card=card):
            return LogLine(kind="play", seat=seat, card=card)
        case ev.CardDrawn(seat=seat):
            return LogLine(kind="draw", seat=seat, count=1)
        case ev.Passed(seat=seat):
            return LogLine(kind="pass", seat=seat)
        case ev.CardsPickedUp(seat=seat, cards=cards):
            return LogLine(kind="pickup", seat=seat, count=len(cards))
        case ev.TentToppled(seat=seat, count=count):
            return LogLine(kind="topple", seat=seat, count=count)
        case ev.TrickWon(seat=seat):
            return LogLine(kind="trick", seat=seat)
        case ev.PlayerOut(seat=seat):
            return LogLine(kind="out", seat=seat)
        case ev.HandOver(seat=burro, winner=winner, reason=reason, out=out):
            if burro >= 0:
                return LogLine(kind="burro", seat=burro, order=list(out))
            if winner >= 0:
                return LogLine(kind="winner", seat=winner)
            return LogLine(kind=reason, order=list(out))
    return None


def settle(room: Room, now: float, outcome: Outcome, touched: set[int], bot_delay: float) -> None:
    """After a change: bump the version, pick who syncs, schedule the next turn's jobs."""
    assert isinstance(room.game, GameState)
    room.version += 1
    room.updated = now
    outcome.changed = True
    outcome.sync.add("table")
    mover = to_move(room.game)
    if mover is not None:
        touched.add(mover)
    if room.game.over:  # everyone's hand says so, those who went out early too
        touched.update(range(len(room.seats)))
    if not room.private:
        for seat in touched:
            user = room.seats[seat].user_id
            if user is not None:
                outcome.sync.add(f"hand:{user}")
    if room.game.over:
        room.status = "over"
        room.deadline = None
        return
    assert mover is not None
    schedule_turn(room, mover, now, outcome, bot_delay)


def schedule_turn(room: Room, mover: int, now: float, outcome: Outcome, bot_delay: float) -> None:
    version = str(room.version)
    if room.is_bot_seat(mover):
        room.deadline = None
        outcome.jobs.append(Job(BOT_MOVE, room.id, version, now + bot_delay))
        return
    room.turn_started = now
    room.reminded = False
    room.deadline = now + room.settings.turn_timeout
    outcome.jobs.append(Job(TURN_TIMEOUT, room.id, version, room.deadline))
    if room.settings.reminder_after < room.settings.turn_timeout:
        outcome.jobs.append(Job(REMIND, room.id, version, now + room.settings.reminder_after))


def bot_action(room: Room, seat: int, level: str) -> str:
    """What the bot of `level` plays for `seat`: it sees only that seat's view."""
    from engine.follow_suit.bots.registry import make_bot

    assert isinstance(room.game, GameState)
    view = player_view(room.game, seat)
    return make_bot(level, seed=room.bot_seed(seat)).choose(view)
