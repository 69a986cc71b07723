"""X01 (301, 501, ...): each player's remaining score, big, the 3-dart
average and darts, the last visit's total; for the player to throw, the
checkout route once the score is 170 or less (the state's ``checkout``
hint, else ``engine.checkout``), or the ring that opens the score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import checkout
from engine.game import DARTS_PER_VISIT
from leaderboard.web.board_views.base import GameView, game_option
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import Phase, StateView

__all__ = ["MAX_CHECKOUT", "X01View", "checkout_route"]

MAX_CHECKOUT = 170
"""The highest score finished in three darts: routes are shown at or below it."""


def checkout_route(state: StateView) -> list[str] | None:
    """The route the player to throw could finish with, or ``None``."""
    index = state.current_player
    player = state.player(index)
    if player is None or state.finished or state.visit_over is not None:
        return None
    if state.phase is Phase.TAKEOUT or not player.opened:
        return None
    remaining = player.score
    if remaining is None or not 0 < remaining <= MAX_CHECKOUT:
        return None
    if player.has_checkout:
        hint = player.checkout
        return list(hint) if hint and len(hint) <= DARTS_PER_VISIT else None
    darts = DARTS_PER_VISIT - len(state.visit)
    if darts < 1:
        return None
    try:
        route = checkout(remaining, darts, str(game_option(state, "out")))
    except ValueError:
        return None
    return [dart.notation for dart in route] if route else None


@register_view("x01")
class X01View(GameView):
    template = "board_views/x01.html"

    def subtitle(self, state: StateView) -> str:
        start, ring_in, out = state.option("start"), state.option("in"), state.option("out")
        parts = ["" if start is None else str(start)]
        if ring_in not in (None, "straight"):
            parts.append(f"{ring_in} in")
        parts.append(f"{'double' if out is None else out} out")
        rounds = state.option("rounds")
        if isinstance(rounds, int) and rounds > 0:
            parts.append(f"{rounds} rounds")
        return " · ".join(part for part in parts if part)

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "route": checkout_route(state),
            "open_rule": state.option("in") or "double",
        }
