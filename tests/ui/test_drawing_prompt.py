"""What a hand says while its player draws: "keep drawing" only when no card may be
played yet; where the rules let a drawn card be played or drawing go on (Burro em Pé),
the hand says both, as its buttons offer both."""

from __future__ import annotations

from engine.follow_suit.game import GameState
from engine.follow_suit.views import player_view
from service.ui.follow_suit import FollowSuitPainter
from tests.ui.test_picture import new_room, played

BOTH = "Play a card of the led suit now, or keep drawing."
ONLY_DRAW = "Keep drawing until a card of the led suit turns up."


def prompts_while_drawing(preset: str, seed: int) -> set[tuple[bool, str]]:
    """(whether a card may be played, the prompt) at every turn of a drawing player."""
    seen = set()
    for room in played(new_room(preset, private=True), seed):
        game = room.game
        if not isinstance(game, GameState) or room.status != "playing":
            continue
        seat = player_view(game, 0).to_move
        if seat is None or room.is_bot_seat(seat):
            continue
        view = player_view(game, seat)
        if view.drawing and any(a.startswith("draw") for a in view.legal):
            may_play = any(a.startswith("play:") for a in view.legal)
            seen.add((may_play, FollowSuitPainter(room, "en").prompt(view)))
    return seen


def test_a_drawing_player_is_told_what_their_buttons_offer() -> None:
    seen = set().union(*(prompts_while_drawing("burro_em_pe", seed) for seed in range(12)))
    assert (True, BOTH) in seen and (False, ONLY_DRAW) in seen
    assert seen <= {(True, BOTH), (False, ONLY_DRAW)}
