"""Button tokens for the passing game's actions, and what its refusals say.

Tokens fit the `<room>.<phase version>.<token>` button data (the Telegram adapter's
`callbacks`): a button names the phase it was drawn for, so a stale "respond" can
never answer a newer call, while the presses of several players in one phase are all accepted.
"""

from __future__ import annotations

from service.ui.i18n import _

# engine action -> token; `fake` alone means this rotation's word (the engine's rule).
_FIXED = {"burro": "b", "respond": "r", "fake": "f"}
_BACK = {token: action for action, token in _FIXED.items()}


def token(action: str) -> str:
    """`pass:7S` -> `c7S`, `burro` -> `b`, `fake:Barro` -> `f`, `respond` -> `r`."""
    if action.startswith("pass:"):
        return "c" + action.removeprefix("pass:")
    return _FIXED[action.partition(":")[0]]


def action(data: str) -> str | None:
    """The engine action a token names, or None when it is not a passing action."""
    if data in _BACK:
        return _BACK[data]
    if data.startswith("c") and 3 <= len(data) <= 4:
        return "pass:" + data[1:]
    return None


REFUSALS = {
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
