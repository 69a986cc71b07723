"""English Cricket: the two sides, each with its runs and a BATTING or
BOWLING plate (they swap at the second innings); the innings; ten wicket
boxes that fill as wickets fall; and what the visit on the board makes: a
batting visit's runs (its total above 40), a bowling visit's wickets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.games.english_cricket import RUNS_FREE, WICKETS
from leaderboard.web.board_views.base import GameView, bed_of, player_label, points_of
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["EnglishCricketView", "visit_words"]


def visit_words(state: StateView) -> str:
    """What the visit in progress makes, in words."""
    player = state.player(state.current_player)
    if player is None or not state.visit or state.finished:
        return ""
    name = player_label(state, state.current_player)
    if player.batting:
        total = points_of(state.visit)
        runs = max(0, total - RUNS_FREE)
        if runs:
            return f"{name} bats: {total} = {runs} run{'' if runs == 1 else 's'}"
        return f"{name} bats: {total}, no runs (runs from {RUNS_FREE + 1})"
    took = sum(
        bed.multiplier for bed in map(bed_of, state.visit) if bed is not None and bed.is_bull
    )
    return f"{name} bowls: {took} wicket{'' if took == 1 else 's'}"


@register_view("english-cricket")
class EnglishCricketView(GameView):
    template = "board_views/english_cricket.html"

    def subtitle(self, state: StateView) -> str:
        return f"runs above {RUNS_FREE} · bulls take wickets"

    def round_label(self, state: StateView) -> str:
        return f"Innings {1 if state.innings is None else state.innings}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        down = max(0, min(WICKETS, state.wickets or 0))
        return {
            "wickets": [index < down for index in range(WICKETS)],
            "wickets_down": down,
            "visit_words": visit_words(state),
        }
