"""Fifty-one by Fives: a card per player with the side's score out of the
target and a bar filling towards it; under the cards, the visit in progress
as the rules will judge it when it ends: its running total, whether every
dart scored and the total divides by 5, what it adds, a bust warning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.web.board_views.base import GameView, Seat, bed_of, points_of
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["FIVE", "FiftyOneByFivesView", "judgement", "target_of"]

FIVE = 5
"""A visit scores its total divided by five, when it divides."""


def target_of(state: StateView) -> int:
    """The score to reach exactly."""
    first = state.players[0].target_number if state.players else None
    option = state.game_option("target")
    return first or (option if isinstance(option, int) and not isinstance(option, bool) else 51)


def judgement(state: StateView) -> str:
    """The visit in progress, judged in words (empty when there is none)."""
    player = state.player(state.current_player)
    if player is None or not state.visit or state.finished:
        return ""
    beds = [bed_of(dart) for dart in state.visit]
    total = points_of(state.visit)
    if any(bed is None or bed.is_miss for bed in beds):
        return f"{total} so far: a dart missed, the visit adds nothing"
    if (player.score or 0) + total // FIVE > target_of(state):
        return f"{total} so far: bust, past {target_of(state)}"
    if total % FIVE:
        return f"{total} so far: does not divide by 5"
    return f"{total} so far: adds {total // FIVE}"


@register_view("fifty-one-by-fives")
class FiftyOneByFivesView(GameView):
    template = "board_views/fifty_one_by_fives.html"

    def subtitle(self, state: StateView) -> str:
        return f"to {target_of(state)} exactly · totals that divide by 5"

    def card_score(self, state: StateView, seat: Seat) -> str:
        return f"{seat.player.score or 0}/{target_of(state)}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        target = target_of(state)
        return {
            "target": target,
            "shares": [
                min(100, round(100 * (p.score or 0) / max(1, target))) for p in state.players
            ],
            "judgement": judgement(state),
        }
