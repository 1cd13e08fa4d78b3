"""Records of the passing game: `burro-record/1` with `rules.preset` "cuartetos".

A record covers one hand, as in the follow-suit game (docs/interfaces.md section 3), with
what Family B needs on top:

    {"format": "burro-record/1",
     "rules": {"preset": "cuartetos", "options": {...}},
     "seats": 5, "dealer": 0, "seed": 8142..., "deck": ["AS", "7C", ...],
     "dealt_at": "2025-05-01T18:00:00.000000Z",
     "game": {"hand_no": 1, "letters": [0, 0, 0, 0, 0], "fakes_used": [...],
              "idle": [...], "absences": [...], "removed": [], "fooled": [...]},
     "actions": [{"seat": 2, "action": "pass:7S", "at": "2025-05-01T18:00:03.120000Z"},
                 {"seat": -1, "action": "close", "at": "..."}]}

- `seed` (required here) is the hand's own: it draws each rotation's fake word and the
  cards `close` passes for players who did not choose.
- `dealt_at` is when choosing began; deadlines count from it.
- `game` is the game as the hand was dealt (omitted: a first hand). The hand number
  sets the direction; letters and fake calls so far decide when the game ends and what
  is allowed; removed seats are not dealt in (`deck` is then the smaller pack).
- Every action has `at`, the server's receive time, ISO 8601 with its time zone; seat
  -1 is the server (`close`). Times are kept to the microsecond, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from engine.cuartetos.rules import CuartetosRules, make_rules
from engine.cuartetos.sim import deal_hand, pack_for
from engine.cuartetos.state import GameState, HandState, Standing
from engine.kernel.errors import RecordError
from engine.kernel.records import FORMAT, RulesPart, deck_problem, parse_document, record_rules

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


def iso(micros: int) -> str:
    """An instant in µs as ISO 8601 UTC with microseconds, e.g. 2025-05-01T18:00:03.120000Z."""
    text = (EPOCH + timedelta(microseconds=micros)).isoformat(timespec="microseconds")
    return text.replace("+00:00", "Z")


def micros_of(text: str) -> int:
    """The instant of an ISO 8601 time with a time zone, in µs; ValueError otherwise."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return (moment - EPOCH) // MICROSECOND


class _ActionPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: StrictInt
    action: StrictStr
    at: StrictStr


class _GamePart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hand_no: StrictInt = 1
    letters: list[StrictInt] | None = None
    fakes_used: list[StrictInt] | None = None
    idle: list[StrictInt] | None = None
    absences: list[StrictInt] | None = None
    removed: list[StrictInt] = []
    fooled: list[StrictInt] | None = None


class _RecordDoc(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: Literal["burro-record/1"]
    rules: RulesPart
    seats: StrictInt
    dealer: StrictInt
    seed: StrictInt
    deck: list[StrictStr]
    dealt_at: StrictStr
    game: _GamePart = _GamePart()
    actions: list[_ActionPart]


@dataclass(frozen=True)
class CuartetosRecord:
    """A checked record of one hand of the passing game."""

    rules: CuartetosRules
    seats: int
    dealer: int
    seed: int
    standing: Standing
    dealt_at: int  # µs
    deck: tuple[str, ...]
    actions: tuple[tuple[int, str, int], ...]  # (seat, action, receive time µs)

    def start(self) -> GameState:
        """The game with this hand as dealt, ready for the first action."""
        hand = deal_hand(
            self.rules,
            self.seats,
            self.standing,
            self.dealer,
            list(self.deck),
            self.seed,
            self.dealt_at,
        )
        return GameState(self.rules, self.seats, self.seed, self.standing, hand, ())


def read_record(text: str) -> CuartetosRecord:
    """Parse and check a passing-game record's JSON text; RecordError names the problem."""
    return _check(parse_document(text, _RecordDoc))


def _check(doc: _RecordDoc) -> CuartetosRecord:
    rules = record_rules(make_rules, doc.rules, doc.seats)
    seats = doc.seats
    standing = _standing(doc.game, seats, rules)
    players = [s for s in range(seats) if s not in standing.removed]
    if doc.dealer not in players:
        raise RecordError(f"dealer {doc.dealer} is not a seat still playing (0 to {seats - 1})")
    pack = pack_for(rules, len(players))
    if sorted(doc.deck) != sorted(pack):
        raise RecordError(deck_problem(doc.deck, pack, f"{len(players)}-player pack"))
    actions = []
    for k, part in enumerate(doc.actions):
        actions.append((part.seat, part.action, _time(part.at, f"actions.{k}.at")))
    return CuartetosRecord(
        rules=rules,
        seats=seats,
        dealer=doc.dealer,
        seed=doc.seed,
        standing=standing,
        dealt_at=_time(doc.dealt_at, "dealt_at"),
        deck=tuple(doc.deck),
        actions=tuple(actions),
    )


def _time(text: str, where: str) -> int:
    try:
        return micros_of(text)
    except ValueError:
        raise RecordError(f"{where}: {text!r} is not an ISO 8601 time with a time zone") from None


def _standing(part: _GamePart, seats: int, rules: CuartetosRules) -> Standing:
    def per_seat(name: str, values: list[int] | None) -> tuple[int, ...]:
        if values is None:
            return (0,) * seats
        if len(values) != seats or min(values, default=0) < 0:
            raise RecordError(f"game.{name}: one count of 0 or more per seat ({seats})")
        return tuple(values)

    if part.hand_no < 1:
        raise RecordError("game.hand_no: hands are numbered from 1")
    removed = tuple(part.removed)
    if len(set(removed)) != len(removed) or any(not 0 <= s < seats for s in removed):
        raise RecordError("game.removed: seats of the table, each once")
    if seats - len(removed) < rules.min_players:
        raise RecordError(f"game.removed: fewer than {rules.min_players} players left")
    letters = per_seat("letters", part.letters)
    if any(letters[s] >= rules.target for s in range(seats) if s not in removed):
        raise RecordError("game.letters: someone has lost already; the game is over")
    return Standing(
        hand_no=part.hand_no,
        letters=letters,
        fakes_used=per_seat("fakes_used", part.fakes_used),
        idle=per_seat("idle", part.idle),
        absences=per_seat("absences", part.absences),
        removed=removed,
        fooled=per_seat("fooled", part.fooled),
    )


def hand_record(game: GameState, index: int | None = None) -> dict[str, Any]:
    """The record of hand `index` (0-based, of the finished ones), or of the hand in play."""
    hand = game.hand if index is None else game.past[index]
    return record_of(game.rules, game.seats, hand)


def record_of(rules: CuartetosRules, seats: int, hand: HandState) -> dict[str, Any]:
    st = hand.standing
    return {
        "format": FORMAT,
        "rules": {"preset": rules.preset, "options": rules.options()},
        "seats": seats,
        "dealer": hand.dealer,
        "seed": hand.seed,
        "deck": list(hand.deck),
        "dealt_at": iso(hand.dealt_at),
        "game": {
            "hand_no": st.hand_no,
            "letters": list(st.letters),
            "fakes_used": list(st.fakes_used),
            "idle": list(st.idle),
            "absences": list(st.absences),
            "removed": list(st.removed),
            "fooled": list(st.fooled),
        },
        "actions": [{"seat": s, "action": a, "at": iso(t)} for s, a, t in hand.actions],
    }
