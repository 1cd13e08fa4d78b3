"""A player's tip in the follow-suit games: the move the `heuristic` bot would make (the
seed texts' tips as rules, `bots.tips`), and the tip that made it, from the player's
own view alone.

It follows `bots.heuristic.decide` step by step (a test holds them together) and, where
the bot only weighs, says which weight won:

- a lead: a suit someone is seen to lack (they must dig), the stock nearly gone (hold
  fewer suits), a singleton kept while the stock is big, a top card nobody can beat,
  the longest suit, else counting what is left out there;
- following: the highest card to win the trick and lead, the cheapest winner when last,
  else the lowest;
- void: the joker if it may be played, else draw (the taller tent half) or pass.
"""

from __future__ import annotations

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.heuristic import draw_choice, lead_context
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.views import PlayerView
from engine.kernel.cards import JOKER, JOKER_CODE, SUIT_MASKS, SUITS
from engine.kernel.tip import Tip

# The reasons a tip gives (service.ui.follow_suit words each).
LEAD_JOKER = "lead_joker"  # the joker wins the trick; the last card leads next
LEAD_AFTER_JOKER = "lead_after_joker"  # the joker wins anyway: set a suit, low
LEAD_VOID = "lead_void"  # someone is seen to lack the suit: they must dig in the stock
LEAD_VOID_EMPTY = "lead_void_empty"  # …and cannot follow, the stock gone
LEAD_LATE_SINGLETON = "lead_late_singleton"  # the stock nearly gone: hold fewer suits
LEAD_KEEP_SUITS = "lead_keep_suits"  # a singleton kept while the stock is big
LEAD_BOSS = "lead_boss"  # nobody can beat it: win the trick and lead again
LEAD_LONG = "lead_long"  # the longest suit: the others may have to dig
LEAD_COUNT = "lead_count"  # counting the cards played: few of the suit left out there
FOLLOW_ONLY = "follow_only"  # the only card that may be played
FOLLOW_HIGH = "follow_high"  # the highest: high cards win tricks, winning means leading
FOLLOW_CHEAP = "follow_cheap"  # last to play: the cheapest card that wins
FOLLOW_LOW = "follow_low"  # the trick cannot be won: shed the lowest
FOLLOW_UNDER_JOKER = "follow_under_joker"  # the joker wins this trick: shed the lowest
VOID_JOKER = "void_joker"  # void: the joker wins the trick and spares a dig
DRAW = "draw"  # void: dig in the stock until the suit turns up
DRAW_TALLER = "draw_taller"  # void, in the tent: the taller half
PASS = "pass"  # void and the stock gone
REASONS = (
    *(LEAD_JOKER, LEAD_AFTER_JOKER, LEAD_VOID, LEAD_VOID_EMPTY, LEAD_LATE_SINGLETON),
    *(LEAD_KEEP_SUITS, LEAD_BOSS, LEAD_LONG, LEAD_COUNT, FOLLOW_ONLY, FOLLOW_HIGH),
    *(FOLLOW_CHEAP, FOLLOW_LOW, FOLLOW_UNDER_JOKER, VOID_JOKER, DRAW, DRAW_TALLER, PASS),
)

NO_SINGLETON_COST = tips.Weights(singleton_early=0.0)


def tip(view: PlayerView) -> Tip | None:
    """The tip for the view's seat now; None when it has nothing to do."""
    if not view.legal:
        return None
    know = Knowledge(view)
    plays = sorted(know.codec.index_of[a[5:]] for a in view.legal if a.startswith("play:"))
    if len(view.legal) == 1:
        return only(know, view.legal[0])
    if not view.trick or know.led < 0:  # a lead, or the card after a joker lead
        return lead(know, after_joker=bool(view.trick))
    follow = [c for c in plays if c != JOKER]
    if follow:
        return follow_tip(know, follow)
    if JOKER in plays:
        return Tip("play:" + JOKER_CODE, VOID_JOKER, JOKER_CODE, view.led or "")
    return void_tip(view)


def only(know: Knowledge, action: str) -> Tip:
    """A move with no choice: said as what it is."""
    if action.startswith("play:"):
        return Tip(action, FOLLOW_ONLY, action[5:], know.view.led or "")
    return void_tip(know.view)


def void_tip(view: PlayerView) -> Tip:
    """No card to play: draw (from the taller tent half), or pass."""
    action = draw_choice(view)
    suit = view.led or ""
    if action == "pass":
        return Tip(action, PASS, suit=suit)
    if action.startswith("draw:") and len([a for a in view.legal if a.startswith("draw")]) > 1:
        return Tip(action, DRAW_TALLER, suit=suit)
    return Tip(action, DRAW, suit=suit)


def lead(know: Knowledge, after_joker: bool) -> Tip:
    ctx = lead_context(know)
    card = tips.lead(ctx, tips.DEFAULT_WEIGHTS, low=after_joker)
    code = know.codec.code_of[card]
    action = "play:" + code
    if card == JOKER:
        return Tip(action, LEAD_JOKER, code)
    suit = card // 13
    return Tip(action, lead_reason(know, ctx, card, after_joker), code, SUITS[suit])


def lead_reason(know: Knowledge, ctx: tips.LeadContext, card: int, after_joker: bool) -> str:
    """Which of the tips chose the suit led (and its card), the most telling first."""
    if after_joker:
        return LEAD_AFTER_JOKER
    suit = card // 13
    bit, mask = 1 << suit, SUIT_MASKS[suit]
    if any(know.surely_void(s, suit) for s in know.active_opponents()):
        return LEAD_VOID if ctx.stock else LEAD_VOID_EMPTY
    held = [(ctx.hand & m).bit_count() for m in SUIT_MASKS]
    several = ctx.hand.bit_count() > 1
    late = ctx.stock <= len(ctx.opponents) + 1
    if held[suit] == 1 and several and late:
        return LEAD_LATE_SINGLETON
    if not late and several and kept_singleton(ctx, suit):
        return LEAD_KEEP_SUITS
    top = (ctx.hand & mask).bit_length() - 1
    if card == top and held[suit] > 1 and tips.is_boss(card, ctx.outside):
        return LEAD_BOSS
    if held[suit] == max(held):
        return LEAD_LONG
    if any(voids & bit or not holds & bit for _h, voids, holds in ctx.opponents):
        return LEAD_COUNT
    return LEAD_BOSS if tips.is_boss(top, ctx.outside) else LEAD_LONG


def kept_singleton(ctx: tips.LeadContext, suit: int) -> bool:
    """Whether, but for keeping a card in every suit, a singleton would be led instead."""
    scores = tips.suit_scores(ctx, NO_SINGLETON_COST)
    best = max(range(4), key=lambda s: -1e9 if scores[s] is None else scores[s] or 0.0)
    return best != suit and (ctx.hand & SUIT_MASKS[best]).bit_count() == 1


def follow_tip(know: Knowledge, cards: list[int]) -> Tip:
    """Following the suit led: win high (cheaply when last), else shed the lowest."""
    view = know.view
    best = max(c for _, c in know.trick)
    last = len(view.to_play) == 1
    card = tips.follow(cards, best, last)
    code = know.codec.code_of[card]
    suit = view.led or ""
    if best == JOKER:
        reason = FOLLOW_UNDER_JOKER
    elif cards[-1] < best:
        reason = FOLLOW_LOW
    else:
        reason = FOLLOW_CHEAP if last else FOLLOW_HIGH
    return Tip("play:" + code, reason, code, suit)
