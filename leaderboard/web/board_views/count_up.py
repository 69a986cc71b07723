"""Count-Up and Cricket Count-Up: a grid of rounds, a row per side (a team,
or a player on their own), a column per round with the points (or marks)
scored in it, the round being played marked, the total and the side's
figure (points per dart, marks per round) at the end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.games.count_up import COUNT_UP_ROUNDS
from engine.games.cricket_count_up import TARGETS_SHOWN
from leaderboard.web.board_views.base import GameView, is_winner, player_label
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import PlayerView, StateView

__all__ = ["CountUpView", "CricketCountUpView", "RoundsSide", "round_sides"]


@dataclass(frozen=True)
class RoundsSide:
    """A row of the grid: its name, members, score by round, total and figure."""

    name: str
    members: list[int]
    rounds: list[int]
    total: int
    figure: str
    up: bool
    won: bool


def _rounds(state: StateView) -> int:
    value = state.option("rounds")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return COUNT_UP_ROUNDS


def _ppd(players: Sequence[PlayerView]) -> str:
    darts = sum(p.stats.darts for p in players)
    points = sum(p.stats.points or 0 for p in players)
    return f"{points / darts:.2f}" if darts else "-"


def _mpr(players: Sequence[PlayerView]) -> str:
    visits = sum(p.stats.visits for p in players)
    marks = sum(p.stats.marks or 0 for p in players)
    return f"{marks / visits:.2f}" if visits else "-"


def round_sides(state: StateView, marks: bool) -> list[RoundsSide]:
    """Every side: each team, or each player on their own; its figure the PPD
    (``marks`` False) or the MPR."""
    groups: list[tuple[str, list[int]]]
    if state.teams:
        groups = [(team.name, list(team.players)) for team in state.teams]
    else:
        groups = [(player_label(state, i), [i]) for i in range(len(state.players))]
    found = []
    for name, members in groups:
        players = [p for p in (state.player(m) for m in members) if p is not None]
        first = players[0] if players else None
        figure = (_mpr if marks else _ppd)(players)
        found.append(
            RoundsSide(
                name,
                members,
                list(first.round_scores) if first is not None else [],
                (first.score or 0) if first is not None else 0,
                figure,
                state.current_player in members and not state.finished,
                state.finished and any(is_winner(state, m) for m in members),
            )
        )
    return found


class _RoundsView(GameView):
    template = "board_views/count_up.html"
    marks: bool = False

    def round_label(self, state: StateView) -> str:
        return "" if state.round is None else f"Round {state.round} of {_rounds(state)}"

    def rule(self, state: StateView) -> str:
        """What scores, under the grid."""
        return ""

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "sides": round_sides(state, self.marks),
            "rounds": list(range(1, _rounds(state) + 1)),
            "current": state.round or 1,
            "unit": "Marks" if self.marks else "Points",
            "figure": "MPR" if self.marks else "PPD",
            "rule": "" if state.finished else self.rule(state),
        }


@register_view("count-up")
class CountUpView(_RoundsView):
    def subtitle(self, state: StateView) -> str:
        bull = "split bull" if state.option("bull") == "split" else "fat bull"
        return f"{_rounds(state)} rounds · {bull}"

    def rule(self, state: StateView) -> str:
        bulls = "SB 25, DB 50" if state.option("bull") == "split" else "SB and DB 50"
        return f"Every dart scores its points · {bulls}"


@register_view("cricket-count-up")
class CricketCountUpView(_RoundsView):
    marks = True

    def subtitle(self, state: StateView) -> str:
        return f"{_rounds(state)} rounds · marks on 15-20 and the bull"

    def rule(self, state: StateView) -> str:
        current = state.player(state.current_player) if state.current_player is not None else None
        marks = dict(current.target_marks) if current is not None else {}
        shown = " ".join(
            f"{'Bull' if key == 'bull' else key}:{marks.get(key, 0)}" for key in TARGETS_SHOWN
        )
        return f"T 3 marks, D 2, S 1, SB 1, DB 2 · {shown}"
