"""X01 (301, 501, ...): each player's remaining score, big, the 3-dart
average and darts, the last visit's total; for the player to throw, the
checkout route once the score is 170 or less (the state's ``checkout``
hint, else ``engine.checkout``: :func:`mqtt_contract.scoreboard.route_to_show`,
as the display's), or the ring that opens the score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.web.board_views.base import GameView
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView
from mqtt_contract.scoreboard import route_to_show, x01_option_parts

__all__ = ["X01View"]


@register_view("x01")
class X01View(GameView):
    template = "board_views/x01.html"

    def subtitle(self, state: StateView) -> str:
        return " · ".join(x01_option_parts(state))

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "route": route_to_show(state),
            "open_rule": state.option("in") or "double",
        }
