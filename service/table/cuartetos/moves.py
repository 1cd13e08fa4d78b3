"""Passing games in a room: the start, each action with its receive time, the server's
close of a window, bots' turns, reminders, and the jobs every phase needs.

Everyone acts at once here, so a room's phase matters more than its version: a
phase (choosing for one pass, or one call's response window) begins at some room
version, kept as `room.phase_version`; the buttons drawn for the phase carry it, and
every job of the phase is named after it (`passing_close-<room>-<phase version>` ...).
A job re-reads the room and does nothing once the phase has moved on.

Jobs (functions of the same name in `workers.jobs`):
- `passing_close`: at the phase's deadline, the engine's `close`: the slow ones' cards
  go (chosen by the engine, counted toward absence), or the call is settled;
- `passing_bot` (arg `<phase version>:<seat>`): a bot's choice or response, after a
  human-looking delay;
- `passing_remind` (slow tables): the players yet to choose get their hand again.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.cuartetos import (
    REAL_WORD,
    GameState,
    PassingRules,
    apply,
    close_window,
    deadline,
    make_rules,
    new_game,
    player_view,
    to_move,
)
from engine.cuartetos import events as ev
from engine.cuartetos.bots import PassingBot, make_bot
from engine.cuartetos.cards import is_four_of_a_kind
from engine.cuartetos.state import to_seconds
from engine.kernel import errors
from engine.kernel.rng import keyed
from service.table.cuartetos.actions import REFUSALS
from service.table.moves import news_targets, said
from service.table.outcome import Job, Outcome
from service.table.room import LogLine, Room
from service.ui.i18n import _

# Human-looking delays, in seconds at the default bot delay of 1.5 s (the service's
# `bot_delay` scales them; 0 in tests). The same ranges as the arena's.
DEFAULT_DELAY = 1.5
CHOOSE = (0.6, 2.5)  # from when choosing opens, times the bot's pick_pace
SHOUT = (0.2, 0.6)  # a bot holding four of a kind calls at once
REACT = (0.35, 1.6)  # from the call
LIVE_LIMIT = 300.0  # seconds to choose: up to this, a live table; beyond, a slow one


def is_live(rules: PassingRules) -> bool:
    """Live tables give seconds to choose (all watching); slow ones minutes or hours."""
    return rules.pass_window <= LIVE_LIMIT


def game_of(room: Room) -> GameState:
    assert isinstance(room.game, GameState), "not a passing game"
    return room.game


def phase_key(game: GameState) -> tuple[int, int, int, bool, bool]:
    """What names a phase: a new pass, a call opening or settled, the game's end."""
    hand = game.hand
    return game.hand_no, hand.rotation, hand.phase_at, hand.call is not None, game.over


# ----- a player's press ----------------------------------------------------------------


def press_change(
    room: Room, phase: int, user_id: int, action: str, now: float, bot_delay: float
) -> Callable[[Room], Outcome] | Outcome:
    """The change a player's button (drawn for `phase`) asks for, received at `now`; or
    an Outcome refusing it at once. Presses of several players in one phase all count:
    only a button of an earlier phase is out of date."""
    seat = room.seat_of(user_id)
    if seat is None:
        return Outcome().say(_("You are not playing in this game."))
    if room.status != "playing":
        return Outcome().say(_("This game is over."))
    if phase != room.phase_version:
        return Outcome().say(_("This button is out of date: use the newest message."))

    def change(fresh: Room) -> Outcome:
        if fresh.phase_version != phase or fresh.status != "playing":
            return Outcome().say(_("This button is out of date: use the newest message."))
        try:
            return act(fresh, seat, action, now, bot_delay)
        except errors.IllegalAction as exc:
            return Outcome().say(REFUSALS.get(exc.code, _("That move is not allowed now.")))

    return change


# ----- changing the room ---------------------------------------------------------------


def start(room: Room, now: float, bot_delay: float) -> Outcome:
    """Deal the first hand at `now` (RulesError if the table cannot play these rules)."""
    rules = make_rules(room.settings.preset, room.settings.options)
    dealer = len(room.seats) - 1
    room.game = new_game(rules, len(room.seats), room.seed, dealer=dealer, at=now)
    room.status = "playing"
    outcome = Outcome(changed=True)
    settle(room, now, outcome, bot_delay, new_phase=True)
    return outcome


def act(room: Room, seat: int, action: str, now: float, bot_delay: float) -> Outcome:
    """Apply `seat`'s action received at `now` (raises engine.IllegalAction)."""
    before = game_of(room)
    room.game, events = apply(before, seat, action, now)
    outcome = Outcome(changed=True)
    user = room.seats[seat].user_id
    if user is not None and not room.is_bot_seat(seat):
        outcome.acted[user] = now
    record(room, events, outcome)
    settle(room, now, outcome, bot_delay, phase_key(before) != phase_key(room.game))
    if any(isinstance(e, ev.FalseCall) and e.seat == seat for e in events):
        outcome.say(_("No four of a kind: ¡Burro! costs you a letter."), alert=True)
    elif action == "respond":
        outcome.say(_("🫳 Hand down!"))
    return outcome


def close(room: Room, now: float, bot_delay: float) -> Outcome:
    """The server's `close` at `now`, at or after the deadline (engine.TooEarly before)."""
    room.game, events = close_window(game_of(room), now)
    outcome = Outcome(changed=True)
    record(room, events, outcome)
    settle(room, now, outcome, bot_delay, new_phase=True)
    return outcome


def bot_turn(room: Room, seat: int, now: float, bot_delay: float) -> Outcome:
    """A bot's action in this phase, from its own view; nothing if it lets a call go."""
    action = bot_of(room, seat).act(player_view(game_of(room), seat))
    if action is None:
        return Outcome()
    try:
        return act(room, seat, action, now, bot_delay)
    except errors.IllegalAction:  # e.g. its response came after the window
        return Outcome()


def remind(room: Room) -> Outcome:
    """Slow tables: the players yet to choose get their hand posted again (a fresh
    message notifies, an edit does not), and the group a mention."""
    game = game_of(room)
    waiting = [s for s in to_move(game) if not room.is_bot_seat(s)]
    if room.reminded or game.hand.call is not None or not waiting:
        return Outcome()
    room.reminded = True
    if room.private:
        return Outcome(changed=True, sync={"table:new"})
    targets = {f"hand:{room.seats[s].user_id}:new" for s in waiting}
    return Outcome(changed=True, sync={*targets, "nudge"})


def settle(room: Room, now: float, outcome: Outcome, bot_delay: float, new_phase: bool) -> None:
    """After a change: a new version, every chat brought up to date (the outbox sends
    nothing where the picture did not change), and a new phase's jobs."""
    game = game_of(room)
    room.version += 1
    room.updated = now
    outcome.changed = True
    outcome.sync.add("table")
    # Players whose private chat refused us get nothing until they open it again
    # (commands.show_hand); they play through the inline query meanwhile.
    humans = [
        (s, info.user_id)
        for s, info in enumerate(room.seats)
        if info.user_id is not None and info.user_id not in room.blocked
    ]
    if game.over:
        room.status = "over"
        room.deadline = None
    else:
        room.deadline = deadline(game)
    if new_phase and not game.over:
        room.phase_version = room.version
        room.turn_started = to_seconds(game.hand.phase_at)
        room.reminded = False
        schedule_phase(room, game, outcome, bot_delay)
    if room.private:
        return
    call = game.hand.call
    slow = not is_live(game.rules)
    for seat, user in humans:
        # A call on a slow table comes as a new message: an edit would not notify.
        fresh = new_phase and slow and call is not None and seat in to_move(game)
        outcome.sync.add(f"hand:{user}:new" if fresh else f"hand:{user}")


def schedule_phase(room: Room, game: GameState, outcome: Outcome, bot_delay: float) -> None:
    """The jobs of a phase just begun: its close, its bots, a reminder on slow tables."""
    version = str(room.phase_version)
    opened = to_seconds(game.hand.phase_at)
    due = deadline(game)
    assert due is not None
    outcome.jobs.append(Job("passing_close", room.id, version, due))
    scale = bot_delay / DEFAULT_DELAY
    for seat in to_move(game):
        if room.is_bot_seat(seat):
            delay = bot_delay_for(room, game, seat) * scale
            outcome.jobs.append(Job("passing_bot", room.id, f"{version}:{seat}", opened + delay))
    reminder = opened + room.settings.reminder_after
    if game.hand.call is None and reminder < due:
        outcome.jobs.append(Job("passing_remind", room.id, version, reminder))


def bot_delay_for(room: Room, game: GameState, seat: int) -> float:
    """A human-looking delay (at the default bot delay) before a bot acts in this phase,
    fixed by the room's seed and the phase."""
    hand = game.hand
    rnd = random.Random(keyed(room.seed, game.hand_no, hand.rotation, hand.phase_at, seat))
    if hand.call is not None:
        return rnd.uniform(*REACT)
    view = player_view(game, seat)
    if "burro" in view.legal and is_four_of_a_kind(view.hand):
        return rnd.uniform(*SHOUT)
    return rnd.uniform(*CHOOSE) * bot_of(room, seat).pick_pace


def bot_of(room: Room, seat: int) -> PassingBot:
    """The seat's bot (a human's seat, should it ever need one, plays heuristic)."""
    return make_bot(room.seats[seat].bot or "heuristic", room.bot_seed(seat))


def missing_job(room: Room, now: float) -> Job | None:
    """For the sweeper: the job a playing room needs now, judged from the room alone."""
    game = game_of(room)
    if game.over:
        return None
    version = str(room.phase_version)
    waiting = room.passing_bots_waiting()
    if waiting:
        return Job("passing_bot", room.id, f"{version}:{waiting[0]}", 0.0)
    due = deadline(game)
    if due is not None and now >= due:
        return Job("passing_close", room.id, version, 0.0)
    return Job("passing_remind", room.id, version, 0.0)


# ----- the table's log -----------------------------------------------------------------


def record(room: Room, events: list[ev.Event], outcome: Outcome) -> None:
    """Keep the public events in the room's log (never a card still in a hand)."""
    game = game_of(room)
    started = [e.hand_no for e in events if isinstance(e, ev.HandStarted)]
    hand_no = started[0] - 1 if started else game.hand_no  # the hand these events began in
    real: ev.CallResolved | None = None
    for event in events:
        line: LogLine | None = None
        match event:
            case ev.HandStarted(hand_no=number):
                hand_no = number
            case ev.CardChosen(seat=seat, card=card, auto=True):
                room.seats[seat].timeouts += 1
                line = LogLine(kind="timeout", seat=seat)
                user = room.seats[seat].user_id
                if user is not None and card is not None:  # told in their chat
                    outcome.sync.add(said(user, "timeout", f"pass:{card}"))
            case ev.FalseCall(seat=seat):
                line = LogLine(kind="false_call", seat=seat)
            case ev.CallResolved(word=word) if word == REAL_WORD:
                real = event  # told with the hand's end, which shows the four of a kind
            case ev.CallResolved(seat=seat, word=word, responders=fooled, losers=losers):
                line = LogLine(
                    kind="fake_call", seat=seat, word=word, order=list(fooled), losers=list(losers)
                )
            case ev.LetterGiven(seat=seat, reason="absent"):
                line = LogLine(kind="absent", seat=seat)
            case ev.PlayerRemoved(seat=seat):
                line = LogLine(kind="left", seat=seat)
            case ev.HandOver(reason="burro", shown=shown) if real is not None:
                line = LogLine(
                    kind="real_call",
                    seat=real.seat,
                    word=real.word,
                    card=shown[0] if shown else None,
                    order=list(real.responders),
                    losers=list(real.losers),
                    count=len(real.missing),
                )
            case ev.HandOver(reason="cap", losers=losers):
                line = LogLine(kind="cap", losers=list(losers), count=game.rules.max_rotations)
            case ev.GameEnded():
                outcome.finished = True
        if isinstance(event, ev.HandOver | ev.GameEnded):
            outcome.sync.update(news_targets(room))
        if line is not None:
            room.add_log(line.model_copy(update={"hand_no": hand_no}))
