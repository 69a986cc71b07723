"""Legs: the score to beat (the previous visit's total) and the running
total of the visit in progress against it, above a card per player with its
lives (legs) as hearts; a side that is out is greyed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.web.board_views.base import GameView, Seat, points_of
from leaderboard.web.board_views.killer import hearts
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["LegsView", "to_beat"]


def to_beat(state: StateView) -> int | None:
    """The total the visit in progress must beat (``None`` before the first visit)."""
    return next((p.to_beat for p in state.players if p.to_beat is not None), None)


def _most(state: StateView) -> int:
    start = state.option("lives")
    start = start if isinstance(start, int) and not isinstance(start, bool) else 0
    return max([start, *(max(0, p.lives or 0) for p in state.players)])


@register_view("legs")
class LegsView(GameView):
    template = "board_views/legs.html"

    def subtitle(self, state: StateView) -> str:
        return f"{_most(state)} legs each"

    def card_score(self, state: StateView, seat: Seat) -> str:
        return hearts(seat.player.lives or 0, _most(state))

    def context(self, state: StateView) -> Mapping[str, Any]:
        target, total = to_beat(state), points_of(state.visit)
        if state.finished or target is None or not state.visit:
            verdict = ""
        elif total > target:
            verdict = "beaten"
        else:
            verdict = f"{target - total + 1} more to beat it"
        return {
            "to_beat": target,
            "visit_points": total,
            "verdict": verdict,
            "hearts": [hearts(p.lives or 0, _most(state)) for p in state.players],
        }
