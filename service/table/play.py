"""The one play path of every game: a press is checked (who, and is it stale?), the
game applies the action with the time, the table's log takes the public events, forced
moves follow, and `follow_up` says what else must happen: the chats to bring up to date
and the jobs of the phase begun (its deadline or turn time, its bots, a reminder).
The caller commits the room with that `Outcome` in one transaction (Store.update).

Buttons and timers name the phase they were made for (`room.phase_version`, the room
version the phase began at): in a turn-based game every move begins a phase; where
everyone acts at once, the presses of several players in one phase all count. Nothing
here asks which game it holds: the game is `games.game_of(preset)`, its own table ways
`games.table_of(preset)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.kernel.errors import IllegalAction, RulesError
from engine.kernel.protocol import SYSTEM, Game
from service.i18n import _
from service.table import log, targets
from service.table.games import game_of, rules_of, table_of
from service.table.kernel import DEFAULT_DELAY
from service.table.log import LogKind, LogLine
from service.table.outcome import Job, JobKind, Outcome, QueuedPress
from service.table.room import Room

MAX_FORCED = 200  # a safety bound on forced moves applied in one go
AWAY = 0.0  # "last acted" of a player whose turn timed out: never in live play
STALE = _("This button is out of date: use the newest message.")

Change = Callable[[Room], Outcome]
Step = Callable[[Game, Any], tuple[Any, list[Any]]]  # a game's state -> (state, events)
Hands = list[tuple[str, ...]]  # every seat's cards, by seat


def game(room: Room) -> Game:
    return game_of(room.settings.preset)


# ----- a player's press ----------------------------------------------------------------


def press(
    room: Room, phase: int, user_id: int, action: str, now: float, bot_delay: float
) -> Change | Outcome:
    """The change a player's press of `action` (drawn for `phase`) asks for, received at
    `now`; or an Outcome refusing it at once."""
    seat = room.seat_of(user_id)
    if seat is None:
        return Outcome().say(_("You are not playing in this game."))
    if room.status != "playing":
        return Outcome().say(_("This game is over."))
    if phase != room.phase_version:
        return Outcome().say(STALE)

    def change(fresh: Room) -> Outcome:
        if fresh.phase_version != phase or fresh.status != "playing":
            return Outcome().say(STALE)
        try:
            return act(fresh, seat, action, now, bot_delay)
        except IllegalAction as exc:
            refusals = table_of(fresh.settings.preset).refusals
            return Outcome().say(refusals.get(exc.code, _("That move is not allowed now.")))

    return change


def waiting_moves(room: Room) -> dict[int, list[str]]:
    """Each human yet to act in this phase (by user id), with the moves of theirs that
    may wait for a worker (`TableGame.may_wait`): a press of one of these is answered at
    once and queued (Store.aclaim), the others are applied before the answer."""
    if room.game is None or room.status != "playing":
        return {}
    g, table = game(room), table_of(room.settings.preset)
    moves: dict[int, list[str]] = {}
    for seat in waiting_humans(room):
        user = room.seats[seat].user_id
        actions = [a for a in g.legal_actions(room.game, seat) if table.may_wait(a)]
        if user is not None and actions:
            moves[user] = actions
    return moves


def queued(room: Room, pressed: QueuedPress, bot_delay: float) -> Outcome:
    """A press `serve` answered and queued, applied now if its phase is still on; else
    nothing (the room ended or was cancelled meanwhile: every change applies the queued
    presses first, so no timer or bot comes before it). Either way it is settled."""
    made = press(room, pressed.phase, pressed.user, pressed.action, pressed.at, bot_delay)
    outcome = made(room) if callable(made) else Outcome()
    outcome.presses.append(pressed.member)
    return outcome


# ----- changing the room ---------------------------------------------------------------


def start(room: Room, now: float, bot_delay: float) -> Outcome:
    """Deal the first hand at `now` (the lobby has checked who may start)."""
    table = table_of(room.settings.preset)
    try:
        rules = rules_of(room.settings)
        refused = table.unplayable(rules, len(room.seats))
        if refused is not None:
            return refused
        dealer = len(room.seats) - 1
        room.game = game(room).new_game(rules, len(room.seats), room.seed, now, dealer)
    except RulesError as exc:
        return Outcome().say(
            _("These settings cannot be played: {problem}"), alert=True, problem=str(exc)
        )
    room.status = "playing"
    outcome = Outcome(changed=True)
    touched = set(range(len(room.seats)))
    play_forced(room, outcome, touched, SYSTEM, now)
    follow_up(room, now, outcome, touched, bot_delay, new_phase=True)
    if game(room).to_act(room.game):
        outcome.say(_("The game begins!"))
    return outcome


def act(
    room: Room, seat: int, action: str, now: float, bot_delay: float, timed_out: bool = False
) -> Outcome:
    """Apply `seat`'s action received at `now` (raises IllegalAction), then any forced
    moves. With `timed_out` the action was chosen for the player: they are told."""
    outcome = Outcome(changed=True)
    user = room.seats[seat].user_id
    if user is not None and timed_out:
        outcome.sync.add(targets.said(user, "timeout", action))
        outcome.acted[user] = AWAY  # they were away: their next turn rings, however soon
    elif user is not None and not room.is_bot_seat(seat):
        outcome.acted[user] = now
    if user is not None:
        saw(room, seat)
    return move(room, outcome, {seat}, _applying(seat, action, now), seat, now, bot_delay)


def expire(room: Room, now: float, bot_delay: float) -> Outcome:
    """The game's own deadline has come: what the game does then (raises IllegalAction
    if it is not due after all)."""
    return move(room, Outcome(changed=True), set(), _expiring(now), SYSTEM, now, bot_delay)


def time_out(room: Room, seat: int, action: str, now: float, bot_delay: float) -> Outcome:
    """A human's turn ran out: `action` (a bot's choice) is played for them; with the
    `remove` setting, after `max_timeouts` the seat goes to a bot for good."""
    player = room.seats[seat]
    player.timeouts += 1
    limit = room.settings.max_timeouts
    gone = room.settings.timeout_action == "remove" and player.timeouts >= limit
    player.removed = player.removed or gone
    hand_no = game(room).finished_hands(room.game) + 1
    kind = LogKind.REMOVED if gone else LogKind.TIMEOUT
    log.append(room, LogLine(kind=kind, seat=seat), hand_no)  # a place in the story
    return act(room, seat, action, now, bot_delay, timed_out=True)


def bot_turn(room: Room, seat: int, action: str | None, now: float, bot_delay: float) -> Outcome:
    """A bot's `action` in this phase (`bot_action`, chosen from its own view); if it lets
    the phase go by (or its action came too late), it is not asked again in this phase."""
    try:
        if action is not None:
            return act(room, seat, action, now, bot_delay)
    except IllegalAction:
        pass
    room.passed = [*room.passed, seat]
    return Outcome(changed=True)


def bot_action(room: Room, seat: int, level: str | None = None) -> str | None:
    """What the seat's bot (or a bot of `level`) plays: it sees only that seat's view."""
    g = game(room)
    chosen = bot_level(room, seat, level)
    return g.bot(chosen, room.bot_seed(seat)).choose(g.player_view(room.game, seat))


def bot_level(room: Room, seat: int, level: str | None = None) -> str:
    """The level the seat's bot (or a bot of `level`) plays at in this room's game."""
    levels = game(room).bot_levels
    level = level or room.seats[seat].bot or "heuristic"  # a removed human's plays heuristic
    if level not in levels:  # a level this game has not: its middle one
        level = levels[len(levels) // 2]
    return level


def remind(room: Room) -> Outcome:
    """Nudge the humans yet to act: their hand posted again (a fresh message notifies, an
    edit does not) and, once per phase, a gentle mention in the group; those who play
    from the group (`room.blocked`: no private chat takes their hand) are told by the
    mention alone, which shows them the way to their cards (workers.outbox)."""
    waiting = waiting_humans(room)
    if room.reminded or not waiting:
        return Outcome()
    room.reminded = True
    then = [deadline_job(room)] if room.deadline is not None else []  # the phase's next timer
    if room.private:
        return Outcome(changed=True, sync={targets.TABLE_NEW}, jobs=then)
    users = [room.seats[s].user_id for s in waiting]
    reachable = [user for user in users if user is not None and user not in room.blocked]
    hands = {targets.hand(user, new=True) for user in reachable}
    return Outcome(changed=True, sync={*hands, targets.NUDGE}, jobs=then)


# ----- the steps -----------------------------------------------------------------------


def move(
    room: Room,
    outcome: Outcome,
    touched: set[int],
    step: Step,
    actor: int,
    now: float,
    bot_delay: float,
) -> Outcome:
    """One move of the game (`step`), the forced moves after it, then `follow_up`."""
    before = game(room).phase(room.game)
    hands = change(room, outcome, touched, step, actor)
    play_forced(room, outcome, touched, actor, now, hands)
    follow_up(room, now, outcome, touched, bot_delay, game(room).phase(room.game) != before)
    return outcome


def change(
    room: Room,
    outcome: Outcome,
    touched: set[int],
    step: Step,
    actor: int,
    hands: Hands | None = None,
) -> Hands:
    """Make one change to the game and tell it: the log, a hand's or the game's end; the
    seats whose cards changed are `touched`. `hands`: every seat's cards before it, if
    known (the last change's); every seat's cards after it are returned."""
    g, state = game(room), room.game
    before = g.finished_hands(state)
    room.game, events = step(g, state)
    seats = range(len(room.seats))
    old = hands if hands is not None else [g.hand(state, s) for s in seats]
    new = [g.hand(room.game, s) for s in seats]
    touched.update(s for s in seats if old[s] != new[s])
    table_of(room.settings.preset).chronicle(room, room.game, events, outcome, actor)
    ended = g.result(room.game) is not None
    if ended:
        outcome.finished = True
    if ended or g.finished_hands(room.game) > before:
        outcome.sync.update(news_targets(room))
    return new


def play_forced(
    room: Room,
    outcome: Outcome,
    touched: set[int],
    actor: int,
    now: float,
    hands: Hands | None = None,
) -> None:
    """Apply single-choice moves at once (bots' and humans' alike: nothing to decide).
    A move so played for another human than the one who just moved may be told in
    their chat (the game's table says which). `hands`: every seat's cards now, if known
    (`change` compares each forced move's with them)."""
    if not room.settings.auto_forced:
        return
    g, table = game(room), table_of(room.settings.preset)
    for _step in range(MAX_FORCED):
        forced = g.forced(room.game)
        if forced is None:
            return
        seat, action = forced
        if waits_for_a_look(room, seat):
            return
        step = _applying(seat, action, now)
        hands = change(room, outcome, touched, step, SYSTEM, hands)  # nobody chose it
        touched.add(seat)
        user = room.seats[seat].user_id
        if seat != actor and user is not None and table.tells_forced(action):
            outcome.sync.add(targets.said(user, "only", action))


def waits_for_a_look(room: Room, seat: int) -> bool:
    """Whether a human's forced move waits for them: the first of a hand does, so that
    nobody has cards drawn or played for them before they have seen the hand they were
    dealt (their turn shows the one move; a timeout plays it as any other)."""
    player = room.seats[seat]
    if player.user_id is None or room.is_bot_seat(seat):
        return False
    return not (room.seen_hand == game(room).finished_hands(room.game) and seat in room.seen)


def saw(room: Room, seat: int) -> None:
    """`seat` has had its turn in this hand: its forced moves play at once from now."""
    hand = game(room).finished_hands(room.game)
    if room.seen_hand != hand:
        room.seen, room.seen_hand = [], hand
    if seat not in room.seen:
        room.seen = [*room.seen, seat]


def follow_up(
    room: Room,
    now: float,
    outcome: Outcome,
    touched: set[int],
    bot_delay: float,
    new_phase: bool,
) -> None:
    """What follows a change: a new version, the chats to bring up to date, and, when a
    new phase began, its jobs."""
    g = game(room)
    room.version += 1
    room.updated = now
    outcome.changed = True
    outcome.sync.add(targets.TABLE)
    to_act = g.to_act(room.game)
    over = g.result(room.game) is not None
    if over:
        room.status = "over"
        room.deadline = None
    elif new_phase:
        begin_phase(room, now, outcome, bot_delay)
    sync_hands(room, outcome, touched | set(to_act), over, new_phase)


def begin_phase(room: Room, now: float, outcome: Outcome, bot_delay: float) -> None:
    """A phase begins: buttons and timers drawn from now name it; its deadline (the
    game's own clock, else the table's turn time for the humans to act), its bots and
    a reminder are scheduled."""
    g = game(room)
    room.phase_version = room.version
    room.passed = []
    room.turn_started = now
    room.reminded = False
    phase = str(room.phase_version)
    humans = waiting_humans(room)
    due = g.deadline(room.game)
    if due is not None:
        room.deadline = due
    elif humans:
        room.deadline = now + room.settings.turn_timeout
    else:
        room.deadline = None
    if room.deadline is not None:
        outcome.jobs.append(deadline_job(room))
    outcome.jobs += bot_jobs(room, now, bot_delay)
    reminder = room.reminder_at()
    if humans and room.deadline is not None and reminder < room.deadline:
        outcome.jobs.append(Job(JobKind.REMIND, room.id, phase, reminder))


def bot_jobs(room: Room, began: float, bot_delay: float) -> list[Job]:
    """The turns of the bots to act in the phase that began at `began`, each when its
    bot seems done thinking (the same however often it is asked while the game is as
    the phase began: a worker finds again the turns of a phase a queued press began)."""
    phase, scale = str(room.phase_version), bot_delay / DEFAULT_DELAY
    table = table_of(room.settings.preset)
    jobs = []
    for seat in room.bots_waiting():
        at = began + table.think_time(room, room.game, seat) * scale
        jobs.append(Job(JobKind.BOT_TURN, room.id, f"{phase}:{seat}", at))
    return jobs


def deadline_job(room: Room) -> Job:
    """The timer of the phase's deadline: the game's own clock, else the turn's end."""
    assert room.game is not None and room.deadline is not None
    own_clock = game(room).deadline(room.game) is not None
    kind = JobKind.DEADLINE if own_clock else JobKind.TURN_TIMEOUT
    return Job(kind, room.id, str(room.phase_version), room.deadline)


def due_timer(room: Room, now: float) -> JobKind | None:
    """The phase's timer due by `now`, if any: its deadline, else its reminder."""
    if room.status != "playing" or room.game is None or room.deadline is None:
        return None
    if now >= room.deadline:
        return deadline_job(room).kind
    if not room.reminded and waiting_humans(room) and now >= room.reminder_at():
        return JobKind.REMIND
    return None


def next_timer(room: Room, now: float) -> float | None:
    """When the phase's next timer after `now` is due (None: it has none left)."""
    if room.status != "playing" or room.deadline is None or room.deadline <= now:
        return None
    reminder = room.reminder_at()
    if not room.reminded and waiting_humans(room) and now < reminder < room.deadline:
        return reminder
    return room.deadline


def sync_hands(
    room: Room, outcome: Outcome, touched: set[int], over: bool, new_phase: bool
) -> None:
    """Each player's own message, in a group (a private game has only its table): those
    whose hand or turn changed, every one at the end (or, where hands show the table,
    after every change). Players whose private chat refused us get nothing there until
    they open it again; they play from the group meanwhile. A hand shown in the group
    to its player alone shows the table too: it follows every change."""
    if room.private:
        return
    outcome.sync.update(targets.mine(user) for user in room.mine)
    table = table_of(room.settings.preset)
    if over or table.hands_show_table:
        touched = set(range(len(room.seats)))
    ringing = new_phase and not over and table.rings(room.game)
    waiting = set(waiting_humans(room))
    for seat in sorted(touched):
        user = room.seats[seat].user_id
        if user is None or user in room.blocked:
            continue
        fresh = ringing and seat in waiting
        outcome.sync.add(targets.hand(user, new=True) if fresh else targets.hand(user))


def _expiring(now: float) -> Step:
    return lambda g, state: g.expire(state, now)


def _applying(seat: int, action: str, now: float) -> Step:
    return lambda g, state: g.apply(state, seat, action, now)


# ----- who is waited for ---------------------------------------------------------------


def waiting_humans(room: Room) -> list[int]:
    """The human seats yet to act in this phase."""
    if room.game is None or room.status != "playing":
        return []
    return [s for s in game(room).to_act(room.game) if not room.is_bot_seat(s)]


def from_group(room: Room) -> list[int]:
    """The players whose turn it is at a group's table who play from the group (their
    private chat refused us, or they never opened it)."""
    if room.private or room.status != "playing" or targets.in_own_chat(room):
        return []
    waiting = (room.seats[s].user_id for s in waiting_humans(room))
    return [u for u in waiting if u is not None and u in room.blocked]


def news_targets(room: Room) -> set[str]:
    """Where a hand's or the game's end is told: the room's chat, and in a group each
    player's private chat too (those it refused excepted)."""
    if room.private:
        return {targets.NEWS}
    users = [u for u in room.humans() if u not in room.blocked]
    return {targets.NEWS, *(targets.news(u) for u in users)}


def missing_job(room: Room, now: float) -> Job | None:
    """For the sweeper: the job a playing room needs now, judged from the room alone
    (jobs are idempotent, so scheduling one that is merely late does no harm)."""
    if room.status != "playing" or room.game is None or game(room).result(room.game):
        return None
    phase = str(room.phase_version)
    bots = room.bots_waiting()
    if bots:
        return Job(JobKind.BOT_TURN, room.id, f"{phase}:{bots[0]}", 0.0)
    if room.deadline is not None and now >= room.deadline:
        return Job(deadline_job(room).kind, room.id, phase, 0.0)
    return Job(JobKind.REMIND, room.id, phase, 0.0)
