"""Fifty-one by Fives (seed 000, "Cincuenta y uno por Fives"): score only in
fives, judged per visit, and reach the target exactly."""

from __future__ import annotations

from typing import Any

from engine.beds import Bed
from engine.game import DARTS_PER_VISIT, Game, Reason
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["FIVE", "FiftyOneByFives"]

FIVE = 5
"""A visit scores only when its total is a multiple of this, and scores total / 5."""


@register
class FiftyOneByFives(Game):
    """At the end of each visit: three scoring darts whose total divides by 5
    add total / 5 to the side's score. Passing the target busts (adds nothing);
    reaching it exactly wins."""

    id = "fifty-one-by-fives"
    highlight = Highlight("most fives in a visit", Measure.BEST_VISIT_POINTS)
    name = "Fifty-one by Fives"
    summary = (
        "Visits of three scoring darts totalling a multiple of 5 score total/5; reach 51 exactly."
    )
    options_spec = (Option("target", 51, "score to reach exactly", minimum=FIVE),)

    def _setup(self) -> None:
        self._target = int(self.options["target"])
        self._score = [0] * len(self._sides)
        self._visit_total = 0
        self._visit_scoring = 0
        players = len(self.lineup.players)
        self._fives = [0] * players
        self._scoring_visits = [0] * players
        self._busts = [0] * players

    def _on_dart(self, bed: Bed) -> None:
        if not bed.is_miss:
            self._visit_total += bed.points
            self._visit_scoring += 1

    def _on_visit_end(self) -> None:
        total, scoring = self._visit_total, self._visit_scoring
        self._visit_total = 0
        self._visit_scoring = 0
        if scoring < DARTS_PER_VISIT or total % FIVE:
            return
        side, player = self._side, self._player
        fives = total // FIVE
        score = self._score[side] + fives
        if score > self._target:
            self._busts[player] += 1
            return
        self._score[side] = score
        self._fives[player] += fives
        self._scoring_visits[player] += 1
        if score == self._target:
            self._finish(side, Reason.TARGET)

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._score[side], "target": self._target}

    def _player_stats(self, player: int) -> dict[str, Any]:
        return {
            "fives": self._fives[player],
            "scoring_visits": self._scoring_visits[player],
            "busts": self._busts[player],
        }
