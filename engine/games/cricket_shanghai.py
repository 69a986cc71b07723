"""Cricket-Shanghai (seed 001, NDL regulation): close 20-15 and the bull with
the chain S -> D -> T (bull: 25 -> 25 -> 50), judged at the end of each visit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from engine.beds import BULL, Bed
from engine.game import Reason
from engine.games.cricket import (
    CRICKET_PLAYER_SCHEMA,
    CRICKET_TARGETS,
    MARKS_KEYS,
    MARKS_SCHEMA,
    MARKS_TO_CLOSE,
    MarksGame,
    marks_json,
    marks_stats,
    target_index,
)
from engine.options import Option
from engine.registry import register
from engine.schema_parts import every_player

__all__ = ["BULL_CHAIN", "NUMBER_CHAIN", "CricketShanghai", "resolve_visit"]

NUMBER_CHAIN = (1, 2, 3)
"""Multipliers that close a number sector, in order: single, double, triple."""

BULL_CHAIN = (1, 1, 2)
"""Multipliers that close the bull, in order: 25, 25, 50."""


def resolve_visit(
    marks: Sequence[int], darts: Sequence[Bed], bull_order: str = "visit"
) -> list[int]:
    """The marks after a visit: per sector, the visit's hits extend the chain
    from where it stood, in any order; a hit that cannot join it is lost.

    With ``bull_order="strict"`` the bull's hits count only in the order thrown.
    """
    after = list(marks)
    # hits[target][multiplier]: how many of the visit's darts wait to join that chain
    hits: dict[int, list[int]] = {}
    for bed in darts:
        target = target_index(bed.number)
        if target < 0:
            continue
        if bed.number == BULL and bull_order == "strict":
            stage = after[target]
            if stage < MARKS_TO_CLOSE and BULL_CHAIN[stage] == bed.multiplier:
                after[target] = stage + 1
            continue
        hits.setdefault(target, [0, 0, 0, 0])[bed.multiplier] += 1
    for target, rings in hits.items():
        chain = BULL_CHAIN if CRICKET_TARGETS[target] == BULL else NUMBER_CHAIN
        stage = after[target]
        while stage < MARKS_TO_CLOSE and rings[chain[stage]] > 0:
            rings[chain[stage]] -= 1
            stage += 1
        after[target] = stage
    return after


CRICKET_SHANGHAI_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"description": "Elements closed, 0-21.", "maximum": 21},
        "marks_after_visit": {"$ref": "#/$defs/marks"},
    },
    "required": ["marks_after_visit"],
}


@register
class CricketShanghai(MarksGame):
    """No points: one dart is at most one element, and a sector needs S, D and
    T (bull 25, 25, 50). The first side to close all seven at the end of a
    visit wins."""

    id = "cricket-shanghai"
    name = "Cricket-Shanghai"
    summary = "NDL format: close 20-15 with S, D, T and the bull with 25, 25, 50; no points."
    state_schema: ClassVar[dict[str, Any]] = every_player(
        {"allOf": [{"$ref": "#/$defs/cricket_player"}, {"$ref": "#/$defs/cricket_shanghai_player"}]}
    )
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {
        "marks": MARKS_SCHEMA,
        "cricket_player": CRICKET_PLAYER_SCHEMA,
        "cricket_shanghai_player": CRICKET_SHANGHAI_PLAYER_SCHEMA,
    }
    marks_per_visit = True
    options_spec = (
        Option(
            "bull_order",
            "visit",
            "visit: bull hits of a visit count in any order; strict: only as thrown",
            ("visit", "strict"),
        ),
    )

    def _setup(self) -> None:
        self._marks = [[0] * len(CRICKET_TARGETS) for _ in self._sides]
        self._elements = [0] * len(self.lineup.players)
        self._bull_order = str(self.options["bull_order"])

    def _visit_figure(self) -> int:
        """The marks the visit adds when it resolves (it has not yet)."""
        before = self._marks[self._side]
        return sum(resolve_visit(before, self._visit, self._bull_order)) - sum(before)

    def _on_visit_end(self) -> None:
        side = self._side
        before = self._marks[side]
        after = resolve_visit(before, self._visit, self._bull_order)
        self._elements[self._player] += sum(after) - sum(before)
        self._marks[side] = after
        closed = tuple(
            key
            for key, was, now in zip(MARKS_KEYS, before, after, strict=True)
            if was < MARKS_TO_CLOSE <= now
        )
        self._mark(sum(after) - sum(before), closed)
        if sum(after) == MARKS_TO_CLOSE * len(CRICKET_TARGETS):
            self._finish(side, Reason.CLOSED_ALL)

    def _side_state(self, side: int) -> dict[str, Any]:
        marks = self._marks[side]
        pending = marks
        if side == self._side and self._visit and not self.is_finished:
            pending = resolve_visit(marks, self._visit, self._bull_order)
        return {
            "score": sum(marks),
            "marks": marks_json(marks),
            "marks_after_visit": marks_json(pending),
        }

    def _player_stats(self, player: int) -> dict[str, Any]:
        return marks_stats(self._elements[player], self._visits[player])
