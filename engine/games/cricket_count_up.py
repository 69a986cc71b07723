"""Cricket Count-Up, the soft-tip machines' marks practice: eight rounds, each
dart on 15-20 or the bull scores its marks, the most marks win (the MPR bars
rank by)."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.beds import Bed
from engine.games.count_up import COUNT_UP_ROUNDS, decide_by_total
from engine.games.cricket import (
    MARKS_KEYS,
    MarksGame,
    mark_visit_band,
    marks_json,
    marks_stats,
    target_index,
)
from engine.options import Option
from engine.registry import register
from engine.schema_parts import NON_NEGATIVE_INT, NON_NEGATIVE_NUMBER, every_player

__all__ = ["TARGETS_SHOWN", "CricketCountUp", "count_up_marks"]

TARGETS_SHOWN = (*reversed(MARKS_KEYS[:-1]), MARKS_KEYS[-1])
"""The ``target_marks`` keys as a cricket board lists them: 20 down to 15, the bull."""

CRICKET_COUNT_UP_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"description": "The side's marks so far.", "minimum": 0},
        "target_marks": {
            "description": "The side's marks on each target (no limit: nothing closes).",
            "type": "object",
            "properties": {key: NON_NEGATIVE_INT for key in MARKS_KEYS},
            "required": [*MARKS_KEYS],
            "additionalProperties": False,
        },
        "round_marks": {
            "description": "The side's marks in each round played so far.",
            "type": "array",
            "items": NON_NEGATIVE_INT,
        },
        "stats": {
            "properties": {"marks": NON_NEGATIVE_INT, "mpr": NON_NEGATIVE_NUMBER},
            "required": ["marks", "mpr"],
        },
    },
    "required": ["target_marks", "round_marks"],
}


def count_up_marks(bed: Bed) -> int:
    """The marks one dart scores in Cricket Count-Up: on 15-20 a single 1, a
    double 2, a triple 3; the outer bull 1, the inner bull 2; else 0."""
    return bed.multiplier if target_index(bed.number) >= 0 else 0


@register
class CricketCountUp(MarksGame):
    """Every live dart on a cricket target adds its marks (nothing closes);
    after ``rounds`` rounds the most marks win (a tie is a draw)."""

    id = "cricket-count-up"
    name = "Cricket Count-Up"
    summary = "Eight rounds of marks on 15-20 and the bull; the most marks win."
    round_limit_option = "rounds"
    ranked_by_average = True
    state_schema: ClassVar[dict[str, Any]] = every_player(
        {"$ref": "#/$defs/cricket_count_up_player"}
    )
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {
        "cricket_count_up_player": CRICKET_COUNT_UP_PLAYER_SCHEMA
    }
    options_spec = (Option("rounds", COUNT_UP_ROUNDS, "rounds of three darts", minimum=1),)

    def _setup(self) -> None:
        sides = len(self._sides)
        self._target_marks = [[0] * len(MARKS_KEYS) for _ in range(sides)]
        self._round_marks: list[list[int]] = [[] for _ in range(sides)]
        self._score = [0] * sides
        self._marks_scored = [0] * len(self.lineup.players)
        self._visit_marks = 0
        self._mark_visits = [
            {"count_5_marks": 0, "count_7_marks": 0, "count_9_marks": 0}
            for _ in self.lineup.players
        ]

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        per_round = self._round_marks[side]
        while len(per_round) < self._side_visits[side] + 1:
            per_round.append(0)
        marks = count_up_marks(bed)
        if marks:
            self._target_marks[side][target_index(bed.number)] += marks
            per_round[-1] += marks
            self._score[side] += marks
            self._marks_scored[self._player] += marks
            self._visit_marks += marks
        self._mark(marks, ())

    def _visit_figure(self) -> int:
        """The visit's marks, for its 5- to 9-mark award."""
        return self._visit_marks

    def _on_visit_end(self) -> None:
        """The visit's marks for the 5-, 7- and 9-mark counts."""
        marks, self._visit_marks = self._visit_marks, 0
        band = mark_visit_band(marks)
        if band is not None:
            self._mark_visits[self._player][band] += 1

    def _match_counters(self, player: int) -> dict[str, Any]:
        return dict(self._mark_visits[player])

    def _on_round_limit(self) -> None:
        self._finish(*decide_by_total(self._score))

    def _side_state(self, side: int) -> dict[str, Any]:
        return {
            "score": self._score[side],
            "target_marks": marks_json(self._target_marks[side]),
            "round_marks": list(self._round_marks[side]),
        }

    def _player_stats(self, player: int) -> dict[str, Any]:
        return marks_stats(self._marks_scored[player], self._visits[player])
