"""Shanghai (seed 000): round n scores only on its target number; a single,
double and triple of the target in one visit wins at once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from engine.awards import Award
from engine.beds import NUMBERS, Bed
from engine.game import Game, Reason
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["SHANGHAI_RINGS", "Shanghai"]

SHANGHAI_RINGS = frozenset({1, 2, 3})
"""The rings of the target a visit needs for a Shanghai: single, double, triple."""


@register
class Shanghai(Game):
    """Round n targets number ``start + n - 1`` (after 20 it goes on at 1),
    scored at face value times the ring. A Shanghai (S, D and T of the target
    in one visit) wins at once; otherwise the highest total after the last
    round wins, a tie is a draw."""

    id = "shanghai"
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {
        "points_per_visit": ("points", "visits", 1)
    }
    highlight = Highlight("most points", Measure.STAT, "points")
    name = "Shanghai"
    summary = "Round n scores on one number only; single, double and triple in a visit wins."
    options_spec = (
        Option("rounds", 7, "rounds to play, one target number each", (7, 9, 20)),
        Option(
            "start",
            1,
            "target number of the first round (after 20 the targets go on at 1)",
            minimum=1,
            maximum=20,
        ),
    )

    def _setup(self) -> None:
        start = int(self.options["start"])
        self._start = start
        self._score = [0] * len(self._sides)
        self._points = [0] * len(self.lineup.players)
        self._rings: set[int] = set()

    @property
    def target(self) -> int:
        """The number the current round scores on."""
        return (self._start + self._round - 2) % NUMBERS[-1] + 1

    def _on_dart(self, bed: Bed) -> None:
        if bed.number != self.target:
            return
        points = bed.points
        self._score[self._side] += points
        self._points[self._player] += points
        self._rings.add(bed.multiplier)
        if self._rings >= SHANGHAI_RINGS:
            self._finish(self._side, Reason.SHANGHAI)

    def _own_awards(self) -> Iterable[Award]:
        """A Shanghai: the visit's single, double and treble of the target won."""
        outcome = self._outcome
        return (Award.SHANGHAI,) if outcome and outcome.reason == Reason.SHANGHAI else ()

    def _on_visit_end(self) -> None:
        self._rings = set()

    def _on_round_limit(self) -> None:
        best = max(self._score)
        leaders = [s for s, score in enumerate(self._score) if score == best]
        self._finish(leaders[0] if len(leaders) == 1 else None, Reason.ROUND_LIMIT)

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._score[side], "target": self.target}

    def _player_stats(self, player: int) -> dict[str, Any]:
        visits = self._visits[player]
        points = self._points[player]
        return {"points": points, "points_per_visit": round(points / visits, 2) if visits else 0.0}
