"""Baseball: the line score, a row per side (a team, or a player on their
own), a column per inning with the runs scored in it (extra innings on the
bull as ``X1``, ``X2``, ...), the inning being played marked, the runs in
total at the end, and what scores in the inning."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.web.board_views.base import GameView, is_winner, player_label
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["BaseballView", "Side", "inning_columns", "sides"]

MAX_INNING_COLUMNS = 12
"""The most innings the line score shows (around the inning being played)."""


@dataclass(frozen=True)
class Side:
    """A row of the line score: its name, members, runs by inning, total."""

    name: str
    members: list[int]
    runs: list[int]
    total: int
    up: bool
    won: bool


def _innings(state: StateView) -> int:
    value = state.option("innings")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 9


def inning_columns(state: StateView) -> list[int]:
    """The innings (from 1) that get a column."""
    played = max([state.round or 1] + [len(p.innings_runs) for p in state.players])
    total = max(_innings(state), played)
    if total <= MAX_INNING_COLUMNS:
        return list(range(1, total + 1))
    last = max(MAX_INNING_COLUMNS, min(total, (state.round or 1) + 1))
    return list(range(last - MAX_INNING_COLUMNS + 1, last + 1))


def sides(state: StateView) -> list[Side]:
    """Every side: each team, or each player on their own."""
    groups: list[tuple[str, list[int]]]
    if state.teams:
        groups = [(team.name, list(team.players)) for team in state.teams]
    else:
        groups = [(player_label(state, i), [i]) for i in range(len(state.players))]
    found = []
    for name, members in groups:
        first = state.player(members[0]) if members else None
        runs = list(first.innings_runs) if first is not None else []
        total = first.score or 0 if first is not None else 0
        up = state.current_player in members and not state.finished
        won = state.finished and any(is_winner(state, m) for m in members)
        found.append(Side(name, members, runs, total, up, won))
    return found


@register_view("baseball")
class BaseballView(GameView):
    template = "board_views/baseball.html"

    def subtitle(self, state: StateView) -> str:
        return f"{_innings(state)} innings"

    def round_label(self, state: StateView) -> str:
        return "" if state.round is None else f"Inning {state.round}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        innings = _innings(state)
        inning = state.round or 1
        labels = [(n, str(n) if n <= innings else f"X{n - innings}") for n in inning_columns(state)]
        rule = (
            ""
            if state.finished
            else (
                f"Inning {inning}: {inning}s score"
                if inning <= innings
                else "Extra inning: bulls score"
            )
        )
        return {"sides": sides(state), "innings": labels, "inning": inning, "rule": rule}
