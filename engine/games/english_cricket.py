"""English Cricket (seed 000, "Cricket inglés"): one side bats and scores the
runs of each visit above 40, the other bowls and takes wickets with bulls;
after ten wickets the roles swap, and the most runs win."""

from __future__ import annotations

from typing import Any

from engine.beds import Bed
from engine.game import Game, Reason, VisitOver
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["INNINGS_OVER", "RUNS_FREE", "WICKETS", "EnglishCricket"]

RUNS_FREE = 40
"""A batting visit scores its total minus this; 40 or less scores nothing."""

WICKETS = 10
"""Wickets that end an innings."""

INNINGS_OVER = VisitOver.INNINGS_OVER
"""``visit_over`` once the tenth wicket of the first innings has fallen."""


@register
class EnglishCricket(Game):
    """Two sides. In the first innings the first side (side 0 unless the game
    says ``first_side``) bats and the other bowls, visits
    alternating batter, bowler; a batting visit scores its total above 40 as
    runs, a bowling visit takes a wicket with SB and two with DB. At ten
    wickets the roles swap; after the second innings the most runs win."""

    id = "english-cricket"
    highlight = Highlight("most runs", Measure.STAT, "runs")
    name = "English Cricket"
    summary = "Bat (runs above 40 a visit) and bowl (bulls take wickets); most runs win."
    options_spec = ()
    sides_range = (2, 2)

    def _setup(self) -> None:
        sides = len(self._sides)
        self._runs = [0] * sides
        self._innings = 1
        self._batting = self._first_side
        self._wickets = 0
        self._visit_points = 0
        self._player_runs = [0] * len(self.lineup.players)
        self._player_wickets = [0] * len(self.lineup.players)

    def _on_dart(self, bed: Bed) -> None:
        if self._side == self._batting:
            self._visit_points += bed.points
            return
        if not bed.is_bull:
            return
        taken = min(bed.multiplier, WICKETS - self._wickets)
        self._wickets += taken
        self._player_wickets[self._player] += taken
        if self._wickets < WICKETS:
            return
        if self._innings == 2:
            self._finish_on_runs()
        else:
            self._end_visit_early(INNINGS_OVER)

    def _on_visit_end(self) -> None:
        if self._side == self._batting:
            runs = max(0, self._visit_points - RUNS_FREE)
            self._runs[self._side] += runs
            self._player_runs[self._player] += runs
            self._visit_points = 0
        elif self._wickets >= WICKETS:
            self._start_second_innings()

    def _start_second_innings(self) -> None:
        """Swap the roles for the second innings."""
        self._innings = 2
        self._batting = 1 - self._first_side
        self._wickets = 0

    def _next_side(self, current: int) -> int:
        """Batter and bowler alternate; when the first innings has just ended
        (in the second side's bowling visit) that side throws again, now batting, and the
        round moves on with the innings."""
        if self._innings == 2 and self._batting == current and self._visit_over == INNINGS_OVER:
            return current
        return 1 - current

    def _finish_on_runs(self) -> None:
        first, second = self._runs
        if first == second:
            self._finish(None, Reason.RUNS)
        else:
            self._finish(0 if first > second else 1, Reason.RUNS)

    def state(self) -> dict[str, Any]:
        return {**super().state(), "innings": self._innings, "wickets": self._wickets}

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._runs[side], "batting": side == self._batting}

    def _player_stats(self, player: int) -> dict[str, Any]:
        return {"runs": self._player_runs[player], "wickets_taken": self._player_wickets[player]}
