"""Count-Up, the soft-tip practice game bars rank by: eight rounds, every dart
scores its points (the fat bull 50 by default), the highest total wins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.beds import Bed
from engine.game import Game, Reason
from engine.options import Option
from engine.registry import register
from engine.schema_parts import NON_NEGATIVE_INT, NON_NEGATIVE_NUMBER, every_player
from engine.traits import THREE_DART_AVERAGE, AwardFigure, Family, Highlight, Measure
from engine.x01_rules import BULL_RULES, as_scored

__all__ = ["COUNT_UP_ROUNDS", "CountUp", "count_up_points", "decide_by_total"]

COUNT_UP_ROUNDS = 8
"""Rounds of a Count-Up game on the soft-tip machines (and of Cricket Count-Up)."""

COUNT_UP_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"description": "The side's total points so far.", "minimum": 0},
        "round_scores": {
            "description": "The side's points in each round played so far.",
            "type": "array",
            "items": NON_NEGATIVE_INT,
        },
        "stats": {
            "properties": {
                "points": NON_NEGATIVE_INT,
                "points_per_dart": NON_NEGATIVE_NUMBER,
                "average": NON_NEGATIVE_NUMBER,
            },
            "required": ["points", "points_per_dart", "average"],
        },
    },
    "required": ["round_scores"],
}


def count_up_points(bed: Bed, bull: str) -> int:
    """What one dart scores in Count-Up under the ``bull`` rule: its face
    value times its ring, either bull 50 with the fat bull (SB 25 with split)."""
    return as_scored(bed, bull).points


def decide_by_total(totals: list[int]) -> tuple[int | None, Reason]:
    """How a round-limited practice game ends on its ``totals`` (one a side):
    the winning side (None: nobody) and why. The highest total wins, a shared
    highest is a draw, and a lone side's game is a practice with no winner
    (``practice-complete``)."""
    if len(totals) == 1:
        return None, Reason.PRACTICE_COMPLETE
    best = max(totals)
    leaders = [side for side, total in enumerate(totals) if total == best]
    return (leaders[0] if len(leaders) == 1 else None), Reason.ROUND_LIMIT


@register
class CountUp(Game):
    """Every live dart adds its points to its side's total; after ``rounds``
    rounds the highest total wins (a tie is a draw)."""

    id = "count-up"
    name = "Count-Up"
    summary = "Eight rounds, every dart scores its points (bull 50); the highest total wins."
    highlight = Highlight("highest score", Measure.STAT, "points")
    average = THREE_DART_AVERAGE
    family = Family.POINTS
    round_limit_option = "rounds"
    ranked_by_average = True
    calls_visit_points = True
    award_figure = AwardFigure.POINTS
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {
        "points_per_dart": ("points", "darts", 1),
        "average": ("points", "darts", 3),
    }
    state_schema: ClassVar[dict[str, Any]] = every_player({"$ref": "#/$defs/count_up_player"})
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {"count_up_player": COUNT_UP_PLAYER_SCHEMA}
    options_spec = (
        Option("rounds", COUNT_UP_ROUNDS, "rounds of three darts", minimum=1),
        Option("bull", "fat", "fat: either bull 50; split: outer bull 25, inner 50", BULL_RULES),
    )

    def _setup(self) -> None:
        sides = len(self._sides)
        self._bull = str(self.options["bull"])
        self._score = [0] * sides
        self._round_scores: list[list[int]] = [[] for _ in range(sides)]
        self._points = [0] * len(self.lineup.players)

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        per_round = self._round_scores[side]
        while len(per_round) < self._side_visits[side] + 1:
            per_round.append(0)
        points = count_up_points(bed, self._bull)
        per_round[-1] += points
        self._score[side] += points
        self._points[self._player] += points

    def _visit_figure(self) -> int:
        """The visit's points, for its ton awards (a round is one visit a side)."""
        per_round = self._round_scores[self._side]
        return per_round[-1] if per_round else 0

    def _on_round_limit(self) -> None:
        self._finish(*decide_by_total(self._score))

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._score[side], "round_scores": list(self._round_scores[side])}

    def _player_stats(self, player: int) -> dict[str, Any]:
        darts, points = self._darts[player], self._points[player]
        return {
            "points": points,
            "points_per_dart": round(points / darts, 2) if darts else 0.0,
            "average": round(3 * points / darts, 2) if darts else 0.0,
        }
