"""Around the World: a row per side with its course, 1 to 20 then the bull,
as a track of cells: the numbers done filled, the next target lit, the rest
to come outlined, the numbers below the ``start`` option greyed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.beds import BULL, NUMBERS
from leaderboard.web.board_views.base import GameView, is_winner, player_label
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView
from mqtt_contract.scoreboard import around_the_world_options, cell_kind

__all__ = ["AroundTheWorldView", "cell_kind", "course"]


def course(state: StateView, index: int) -> list[tuple[str, str]]:
    """Player ``index``'s track: ``(label, kind)`` per number, the bull last."""
    player = state.players[index]
    _, start = around_the_world_options(state)
    target = (
        player.target_number
        if player.target_number is not None
        else (
            BULL
            if player.target is not None and player.target.upper() in ("BULL", "SB", "DB", "25")
            else None
        )
    )
    done = state.finished and is_winner(state, index)
    return [
        ("Bull" if number == BULL else str(number), cell_kind(number, target, start, done))
        for number in (*NUMBERS, BULL)
    ]


@register_view("around-the-world")
class AroundTheWorldView(GameView):
    template = "board_views/around_the_world.html"

    def subtitle(self, state: StateView) -> str:
        multi = bool(state.game_option("multi"))
        start = state.game_option("start") or 1
        return f"from {start}" + (" · doubles and trebles skip ahead" if multi else "")

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "tracks": [course(state, i) for i in range(len(state.players))],
            "names": [player_label(state, i) for i in range(len(state.players))],
        }
