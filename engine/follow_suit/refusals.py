"""Why an action is illegal: the most helpful typed refusal for a refused action."""

from __future__ import annotations

from engine.follow_suit.hand import DRAW, DRAW_LEFT, DRAW_RIGHT, DRAWS, PASS, HandSim
from engine.kernel import errors
from engine.kernel.cards import JOKER, SUIT_MASKS, SUITS, suit_of


def refusal(sim: HandSim, action: int) -> errors.IllegalAction:
    """The refusal for `action` by the seat to act, known not to be legal."""
    hand = sim.hands[sim.order[sim.turn]]
    leading = sim.turn == 0 or sim.led < 0
    if action in DRAWS or action == PASS:
        return _refuse_draw_or_pass(sim, action, leading)
    if not hand >> action & 1:
        return errors.NotInHand()
    if sim.found >= 0:
        return errors.MustPlayDrawnCard()
    if sim.drawn and sim.t.strict and sim.stock_size():
        return errors.MustKeepDrawing()
    follow = hand & SUIT_MASKS[sim.led]
    if action == JOKER:
        return errors.JokerNotAllowed()
    if hand >> JOKER & 1 and not follow and sim.t.rules.joker_play == "must_when_void":
        return errors.MustPlayJoker()
    if suit_of(action) != sim.led:
        return errors.MustFollowSuit(suit=SUITS[sim.led])
    return errors.IllegalAction()


def _refuse_draw_or_pass(sim: HandSim, action: int, leading: bool) -> errors.IllegalAction:
    if leading:
        return errors.LeaderCannotDraw()
    if sim.found >= 0:
        return errors.MustPlayDrawnCard()
    if action == PASS:
        return errors.CannotPass()
    if sim.t.tent != (action in (DRAW_LEFT, DRAW_RIGHT)):
        return (
            errors.WrongPile() if sim.t.tent else errors.UnknownAction("there is one stock: draw")
        )
    pile = sim.piles[1] if action == DRAW_RIGHT else sim.piles[0]
    if not pile:
        return errors.StockEmpty()
    hand = sim.hands[sim.order[sim.turn]]
    if hand & SUIT_MASKS[sim.led]:
        return errors.MustFollowSuit(suit=SUITS[sim.led])
    if hand >> JOKER & 1:
        return errors.MustPlayJoker()
    return errors.CannotDraw() if action != DRAW else errors.IllegalAction()
