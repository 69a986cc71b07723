"""Baseball (seed 000, "Béisbol"): nine innings, inning n scores only on
number n; a tie goes to extra innings on the bull."""

from __future__ import annotations

from typing import Any

from engine.beds import Bed
from engine.game import Game, Reason
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["Baseball", "runs_for"]


def runs_for(bed: Bed, inning: int, innings: int) -> int:
    """Runs one dart scores in ``inning`` of a game of ``innings`` innings.

    In a regular inning only its own number scores: single 1, double 2,
    triple 3 runs. In an extra inning only the bull scores: SB 1, DB 2.
    """
    if inning <= innings:
        return bed.multiplier if bed.number == inning else 0
    return bed.multiplier if bed.is_bull else 0


@register
class Baseball(Game):
    """Inning n scores on number n only (1, 2 or 3 runs a dart). Most runs
    after the last inning wins; a tie plays extra innings on the bull until an
    inning ends with one leader."""

    id = "baseball"
    highlight = Highlight("most runs in an inning", Measure.BEST_VISIT_POINTS)
    name = "Baseball"
    summary = (
        "Inning n scores on number n only; most runs after 9 innings, extra innings on the bull."
    )
    options_spec = (
        Option("innings", 9, "regular innings (inning n scores on number n)", minimum=1),
    )

    def _setup(self) -> None:
        sides = len(self._sides)
        self._innings = int(self.options["innings"])
        self._score = [0] * sides
        self._innings_runs: list[list[int]] = [[] for _ in range(sides)]
        self._runs = [0] * len(self.lineup.players)

    def _round_limit(self) -> int:
        # The game ends in _on_visit_end: a tie has no fixed limit.
        return 0

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        per_inning = self._innings_runs[side]
        while len(per_inning) < self._round:
            per_inning.append(0)
        runs = runs_for(bed, self._round, self._innings)
        if runs:
            per_inning[self._round - 1] += runs
            self._score[side] += runs
            self._runs[self._player] += runs

    def _on_visit_end(self) -> None:
        # Nobody is eliminated, so the last side's visit ends the inning.
        last = self._round_position(self._side) == len(self._sides) - 1
        if not last or self._round < self._innings:
            return
        best = max(self._score)
        leaders = [s for s, score in enumerate(self._score) if score == best]
        if len(leaders) == 1:
            reason = Reason.ROUND_LIMIT if self._round == self._innings else Reason.EXTRA_INNINGS
            self._finish(leaders[0], reason)

    def _side_state(self, side: int) -> dict[str, Any]:
        return {
            "score": self._score[side],
            "inning": self._round,
            "innings_runs": list(self._innings_runs[side]),
        }

    def _player_stats(self, player: int) -> dict[str, Any]:
        visits = self._visits[player]
        runs = self._runs[player]
        return {"runs": runs, "runs_per_inning": round(runs / visits, 2) if visits else 0.0}
