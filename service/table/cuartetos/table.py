"""Cuartetos at the table (the passing game): how its calls, letters and absences are
told in the log, its lobby (a pace instead of a turn time), its bots' human-looking
pace, and its refusals. Everyone acts at once here: a phase (choosing for one pass, or
one call's response window) is what buttons and timers are drawn for."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.cuartetos import REAL_WORD, CuartetosRules, GameState, make_rules, player_view
from engine.cuartetos import events as ev
from engine.cuartetos.bots import LEVELS, make_bot
from engine.cuartetos.cards import is_four_of_a_kind
from engine.kernel.rng import keyed
from service.i18n import _
from service.settings import Settings
from service.table import targets
from service.table.cuartetos import lobby
from service.table.kernel import too_few
from service.table.log import LogKind, LogLine, append
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

# Human-looking delays, in seconds at the default bot delay of 1.5 s (the service's
# `bot_delay` scales them; 0 in tests). Choosing as in the arena; a call is answered at
# the bot level's own human speed (engine.cuartetos.bots.STYLES: 1 s to 3.6 s), so a
# quick person beats a slow bot (issue #37; bench/calls.py measures their chance).
CHOOSE = (0.6, 2.5)  # from when choosing opens, times the bot's pick_pace
SHOUT = (0.2, 0.6)  # a bot holding four of a kind calls at once
LIVE_LIMIT = 300.0  # seconds to choose: up to this, a live table; beyond, a slow one
# A person's first ¡Burro! without four of a kind, and their first fake call, are told
# what they do and risk instead of costing a letter (issue #37); the next one acts.
FALSE_BURRO = "cuartetos:false_burro"
FAKE_CALL = "cuartetos:fake_call"
FALSE_BURRO_TOLD = _(
    "¡Burro! is for four of a kind, and you have none yet: it would cost you a letter. "
    "Tap it again to call anyway."
)
FAKE_CALL_TOLD = _(
    "🎭 A fake call shouts {word}: whoever taps it takes a letter, but if nobody does, "
    "you take it. Once a hand. Tap it again to shout it."
)


class CuartetosTable:
    refusals: Mapping[str, str] = {
        "not_playing": _("You are not playing in this hand."),
        "already_chosen": _("You have chosen your card for this pass."),
        "call_open": _("Someone called: respond, or let it go."),
        "no_call": _("Nobody has called."),
        "own_call": _("That is your own call."),
        "already_responded": _("Your hand is already down."),
        "too_late": _("Too late: the time to respond is over."),
        "no_fake_left": _("You have no fake call left."),
        "wrong_word": _("That word is from another round."),
        "not_in_hand": _("You do not hold that card."),
        "game_over": _("This game is over."),
    }
    hands_show_table = True  # each hand shows who has chosen and who responded

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        return lobby.initial_options(settings, group)

    def rules(self, settings: RoomSettings) -> CuartetosRules:
        return make_rules(settings.preset, settings.options)

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        return lobby.cycle(settings, key)

    def unplayable(self, rules: CuartetosRules, seats: int) -> Outcome | None:
        return too_few(seats, lobby.MIN_PLAYERS)

    def chronicle(
        self, room: Room, state: GameState, events: list[Any], outcome: Outcome, actor: int
    ) -> None:
        started = [e.hand_no for e in events if isinstance(e, ev.HandStarted)]
        hand_no = started[0] - 1 if started else state.hand_no  # the hand these began in
        real: ev.CallResolved | None = None
        for event in events:
            if isinstance(event, ev.HandStarted):
                hand_no = event.hand_no
            if isinstance(event, ev.CallResolved) and event.word == REAL_WORD:
                real = event  # told with the hand's end, which shows the four of a kind
            line = log_line(room, state, event, real, outcome)
            if line is not None:
                append(room, line, hand_no)
        if any(isinstance(e, ev.FalseCall) and e.seat == actor for e in events):
            outcome.say(_("No four of a kind: ¡Burro! costs you a letter."), alert=True)
        elif actor >= 0 and any(isinstance(e, ev.Responded) and e.seat == actor for e in events):
            outcome.say(_("🫳 Hand down!"))

    def think_time(self, room: Room, state: GameState, seat: int) -> float:
        """A human-looking delay before a bot acts in this phase, fixed by the room's
        seed and the phase."""
        hand = state.hand
        rnd = random.Random(keyed(room.seed, state.hand_no, hand.rotation, hand.phase_at, seat))
        bot = make_bot(bot_level(room, seat), room.bot_seed(seat))
        if hand.call is not None:
            return rnd.uniform(*bot.react)
        view = player_view(state, seat)
        if "burro" in view.legal and is_four_of_a_kind(view.hand):
            return rnd.uniform(*SHOUT)
        return rnd.uniform(*CHOOSE) * bot.pick_pace

    def explains(self, room: Room, seat: int, action: str) -> tuple[str, Outcome] | None:
        """A press that would cost its player a letter for want of knowing the rules (a
        ¡Burro! without four of a kind, a fake call): the name it is told once per
        person under (service.infra.hints), and the answer that tells what it does and
        risks instead of doing it. None for any other press."""
        if room.status != "playing" or not isinstance(room.game, GameState):
            return None
        view = player_view(room.game, seat)
        kind = action.partition(":")[0]
        if kind == "burro" and "burro" in view.legal and not is_four_of_a_kind(view.hand):
            return FALSE_BURRO, Outcome().say(FALSE_BURRO_TOLD, alert=True)
        fake = next((a for a in view.legal if a.startswith("fake:")), None)
        if kind == "fake" and fake is not None:
            word = fake.partition(":")[2].upper()
            return FAKE_CALL, Outcome().say(FAKE_CALL_TOLD, alert=True, word=f"¡{word}!")
        return None

    def tells_forced(self, action: str) -> bool:
        return False  # nothing is ever forced: everyone chooses

    def may_wait(self, action: str) -> bool:
        # A shout's answer says whether it was right, a response's whether it was in time.
        return action.startswith("pass:")

    def rings(self, state: GameState) -> bool:
        """A call on a slow table comes as a new message: an edit would not notify."""
        return state.hand.call is not None and not is_live(state.rules)


def bot_level(room: Room, seat: int) -> str:
    """The level a bot seat plays at: its own, or `heuristic` for a human's seat a bot
    took over, or one this game has not (as `service.table.play.bot_action` plays it)."""
    level = room.seats[seat].bot or "heuristic"
    return level if level in LEVELS else "heuristic"


def is_live(rules: CuartetosRules) -> bool:
    """Live tables give seconds to choose (all watching); slow ones minutes or hours."""
    return rules.pass_window <= LIVE_LIMIT


def log_line(
    room: Room, state: GameState, event: ev.Event, real: ev.CallResolved | None, outcome: Outcome
) -> LogLine | None:
    """The log line of an event: public, but for the cards only its seat may see (the
    card chosen for a player whose time ran out, a card received); the first is also
    said in their own chat."""
    match event:
        case ev.CardChosen(seat=seat, card=card, auto=True):
            room.seats[seat].timeouts += 1
            user = room.seats[seat].user_id
            if user is not None and card is not None:
                outcome.sync.add(targets.said(user, "timeout", f"pass:{card}"))
            return LogLine(kind=LogKind.TIMEOUT, seat=seat, cards=[card] if card else [])
        case ev.CardReceived(seat=seat, card=card, giver=giver) if card is not None:
            if room.seats[seat].user_id is None or room.is_bot_seat(seat):
                return None  # told only to a human: a bot reads no story
            return LogLine(kind=LogKind.RECEIVED, seat=seat, cards=[card], order=[giver])
        case ev.FalseCall(seat=seat):
            return LogLine(kind=LogKind.FALSE_CALL, seat=seat)
        case ev.CallResolved(word=word) if word == REAL_WORD:
            return None
        case ev.CallResolved(seat=seat, word=word, responders=fooled, losers=losers):
            return LogLine(
                kind=LogKind.FAKE_CALL,
                seat=seat,
                word=word,
                order=list(fooled),
                losers=list(losers),
            )
        case ev.LetterGiven(seat=seat, reason="absent"):
            return LogLine(kind=LogKind.ABSENT, seat=seat)
        case ev.PlayerRemoved(seat=seat):
            return LogLine(kind=LogKind.LEFT, seat=seat)
        case ev.HandOver(reason="burro", shown=shown) if real is not None:
            return LogLine(
                kind=LogKind.REAL_CALL,
                seat=real.seat,
                word=real.word,
                card=shown[0] if shown else None,
                order=list(real.responders),
                losers=list(real.losers),
                count=len(real.missing),
            )
        case ev.HandOver(reason="cap", losers=losers):
            return LogLine(kind=LogKind.CAP, losers=list(losers), count=state.rules.max_rotations)
    return None


TABLE = CuartetosTable()
