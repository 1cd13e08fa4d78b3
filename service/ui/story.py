"""The story: what happened at a table since its reader last looked, in their words.

Every platform's screens tell the room's log (service.table.log) through this module,
so the story is right once. A reader is the group's table (`reader` None: public lines
only) or one seat (its own lines too: the cards drawn for it, a card played or passed
for it, a card received). A screen starts after the last line its message began with
(`Cursor`, kept by the outbox beside the message): a new message starts where the last
one ended, an edited one where it began, unless its reader acted since (they read it).

Nothing falls off unannounced: older lines beyond what a screen keeps, and lines the log
no longer holds, are folded into one count ("… 9 earlier moves"). A seat's own lines,
tricks, players going out and results are never folded for that seat. Counts are the
engine's own (a run of draws is one line of its count). A folded story is read whole on
demand (`Teller.whole`: every line of the hand, split into `pages` a message holds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.i18n import Translator, _
from service.table.log import LogKind, LogLine, last_seq
from service.ui.intents import Command, Press
from service.ui.screens import Button
from service.ui.text_limits import cut_utf16, utf16_len

Public = Callable[[LogLine, int], str]  # a public line in words, with the draws before it
# Never folded for a seat: what it must know of the hand.
KEPT = (LogKind.TRICK, LogKind.OUT, LogKind.REMOVED, LogKind.LEFT)
OWN_MOVES = (LogKind.PLAY, LogKind.PASS, LogKind.DRAW)


@dataclass(frozen=True)
class Cursor:
    """Where a message's story began (`start`), the last line it showed (`end`), and
    when it was shown (`at`)."""

    start: int
    end: int
    at: float

    def encode(self) -> str:
        return f"{self.start}:{self.end}:{self.at}"

    @classmethod
    def parse(cls, raw: str | None) -> Cursor | None:
        try:
            start, end, at = (raw or "").split(":")
            return cls(int(start), int(end), float(at))
        except ValueError:
            return None


def begin(cursor: Cursor | None, anew: bool, acted: float | None, log: Sequence[LogLine]) -> int:
    """The line after which a screen's story begins: a new message after what the last
    one showed; the same message edited where it began, unless its reader acted since
    it was last shown (they had read it), or the log no longer holds where it began
    (an edit would fold what it showed into a count)."""
    if cursor is None:
        return 0
    if anew or (acted is not None and acted > cursor.at) or missed(log, cursor.start):
        return cursor.end
    return cursor.start


@dataclass(frozen=True)
class Told:
    """A line of the story as a reader is told it; `kept`: never folded."""

    text: str
    kept: bool


def unseen(log: Sequence[LogLine], after: int) -> list[LogLine]:
    """The lines after place `after`; a run of draws partly seen, its unseen part."""
    lines = []
    for line in log:
        if line.seq <= after:
            continue
        if line.first() <= after:  # a run of draws, seen up to `after`
            rest = line.seq - after
            line = line.model_copy(update={"count": rest, "cards": line.cards[-rest:]})
        lines.append(line)
    return lines


def missed(log: Sequence[LogLine], after: int) -> int:
    """How many places after `after` the log no longer holds (it let them go, unseen by
    this reader): told as a count."""
    held = sum(line.seq - max(line.first(), after + 1) + 1 for line in log if line.seq > after)
    return max(0, last_seq(log) - after - held)


class Teller:
    """Tells a room's log to one reader in one language (`public`: a game's words for
    a public line, given the draws told with it; `card`: a card's name)."""

    def __init__(
        self,
        tr: Translator,
        public: Public,
        card: Callable[[str], str],
        name: Callable[[int], str],
        hand_no: int,
    ) -> None:
        self.tr, self.public, self.card, self.name, self.hand_no = tr, public, card, name, hand_no
        self.folded = 0  # the moves the last story told folded into its count

    def story(self, log: Sequence[LogLine], after: int, reader: int | None, keep: int) -> list[str]:
        """The story since `after` for `reader`, folded to `keep` lines where it can be."""
        told = self.lines(unseen(log, after), reader)
        lines, self.folded = folding(told, missed(log, after), keep, self.tr)
        return lines

    def whole(self, log: Sequence[LogLine], reader: int | None) -> list[str]:
        """The hand's whole story for `reader`, nothing folded: every line since it was
        dealt (what the log no longer holds of it told as a count)."""
        after = hand_start(log, self.hand_no)
        return self.story(log, after, reader, keep=len(log) + 1)

    def lines(self, lines: list[LogLine], reader: int | None) -> list[Told]:
        """Each line in words, a seat's draws told with its next move (the reader's own
        told on their own, with the cards)."""
        told: list[Told] = []
        draws: dict[int, int] = {}
        for line in lines:
            old = line.hand_no < self.hand_no
            if line.seat == reader and reader is not None:
                text = self.own(line, old)
                if text:
                    told.append(Told(text, True))
                continue
            if line.kind == LogKind.DRAW:
                draws[line.seat] = draws.get(line.seat, 0) + line.count
                continue
            drawn = draws.pop(line.seat, 0) if line.seat >= 0 else 0
            told += self.other(line, drawn, old, reader)
        for seat, drawn in draws.items():
            told.append(Told(self.drew(seat, drawn), False))
        return told

    def other(self, line: LogLine, drawn: int, old: bool, reader: int | None) -> list[Told]:
        """Another's line: an earlier hand's cards are not named (they may be in hands
        again), its moves only counted."""
        kept = reader is not None and line.kind in KEPT
        if old and line.kind in (LogKind.PLAY, LogKind.PASS, LogKind.PICKUP, LogKind.TOPPLE):
            return [Told("", False)]  # folded: a move of an earlier hand
        if old and line.kind == LogKind.RECEIVED:
            return []
        text = self.public(line, drawn)
        if not text and drawn:
            text = self.drew(line.seat, drawn)
        return [Told(text, kept or line.kind not in FOLDABLE)] if text else []

    def drew(self, seat: int, n: int) -> str:
        return self.tr.ngettext(
            "{name} drew {n} card.", "{name} drew {n} cards.", n, name=self.name(seat)
        )

    def own(self, line: LogLine, old: bool) -> str:
        """The reader's own line: what was done for them, and the cards only they see."""
        ng, gt = self.tr.ngettext, self.tr.gettext
        cards = "" if old else " · ".join(self.card(c) for c in line.cards)
        if line.kind == LogKind.DRAW:
            if cards:
                return ng(
                    "🫳 You drew {n} card: {cards}",
                    "🫳 You drew {n} cards: {cards}",
                    line.count,
                    cards=cards,
                )
            return ng("🫳 You drew {n} card.", "🫳 You drew {n} cards.", line.count)
        if line.kind in OWN_MOVES and not line.forced:
            return ""  # their own move: they made it
        if line.kind == LogKind.PLAY:
            if old or not line.card:
                return gt(_("🤖 A card was played for you."))
            return gt(_("🤖 {card} was played for you."), card=self.card(line.card))
        if line.kind == LogKind.PASS:
            return gt(_("⏭ You had no card to play: you passed."))
        if line.kind == LogKind.OUT:
            return gt(_("✅ You are out of cards!"))
        if line.kind == LogKind.TRICK:
            return gt(_("You won the trick."))
        if line.kind == LogKind.RECEIVED:
            giver = self.name(line.order[0]) if line.order else ""
            if cards:
                return gt(_("🫴 {name} passed you {card}."), name=giver, card=cards)
            return gt(_("🫴 {name} passed you a card."), name=giver)
        if line.kind == LogKind.TIMEOUT and cards:
            return gt(_("⏰ You were away: {card} was passed on for you."), card=cards)
        if line.kind == LogKind.TIMEOUT:
            return gt(_("⏰ You were away: a bot played your turn."))
        return self.public(line, 0)


def hand_start(log: Sequence[LogLine], hand_no: int) -> int:
    """The place after which hand `hand_no` begins: after the last line of an earlier
    hand the log holds, else before its first line held (the first hand: the start)."""
    earlier = [line.seq for line in log if line.hand_no < hand_no]
    if earlier or hand_no <= 1:
        return max(earlier, default=0)
    return min((line.first() - 1 for line in log), default=0)


def pages(lines: Sequence[str], limit: int) -> list[str]:
    """Lines joined into as few texts as hold them within `limit` UTF-16 units each (as
    Telegram and WhatsApp count), a line never split across two (one longer than a
    whole text is cut)."""
    out: list[str] = []
    page = ""
    for raw in lines:
        line = cut_utf16(raw, limit)
        joined = f"{page}\n{line}" if page else line
        if page and utf16_len(joined) > limit:
            out.append(page)
            joined = line
        page = joined
    return [*out, page] if page else out


# The lines that fold into a count when a story is long: moves, nothing that decides.
FOLDABLE = (
    LogKind.PLAY,
    LogKind.DRAW,
    LogKind.PASS,
    LogKind.PICKUP,
    LogKind.TOPPLE,
    LogKind.TRICK,
    LogKind.TIMEOUT,
    LogKind.OUT,
)


def fold(told: list[Told], missed: int, keep: int, tr: Translator) -> list[str]:
    """The story's lines, its oldest foldable ones (and `missed` places) told as a count
    so that at most `keep` foldable lines show."""
    return folding(told, missed, keep, tr)[0]


def folding(told: list[Told], missed: int, keep: int, tr: Translator) -> tuple[list[str], int]:
    """`fold`'s lines, and how many moves their count folded."""
    foldable = sum(1 for t in told if not t.kept)
    drop = max(0, foldable - keep)
    if drop == 1 and not missed:
        drop = 0  # "… 1 earlier move" is a line too: the move itself says more
    folded, out = missed, []
    for item in told:
        if not item.kept and drop > 0:
            drop -= 1
            folded += 1
        elif item.text:
            out.append(item.text)
        else:
            folded += 1  # a move told only as a count
    if folded:
        more = tr.ngettext("… {n} earlier move", "… {n} earlier moves", folded)
        out.insert(0, more)
    return out, folded


def story_row(room: str, tr: Translator) -> tuple[Button, ...]:
    """The button that asks for the hand's whole story (service.desk.reading), under a
    screen that folded it; a platform that reads a word for it instead may leave it out.
    Reading changes nothing: the press names no version (0), so that the button alone
    never makes a screen differ from the one showing."""
    return (Button(tr.gettext(_("📜 Story")), Press(room, 0, Command("story"))),)
