"""Legs ("Piernas", seed 000): every visit must score more than the one
before it, or the thrower loses a life (a leg)."""

from __future__ import annotations

from typing import Any

from engine.beds import Bed
from engine.game import Game
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["Legs"]


@register
class Legs(Game):
    """The first visit sets the target; each later visit must beat the total
    of the visit just before it. Scoring the same or less costs a life; a side
    with no lives is out and the last side left wins."""

    id = "legs"
    highlight = Highlight("highest visit", Measure.BEST_VISIT_TOTAL)
    name = "Legs"
    summary = "Beat the previous visit's total or lose a leg; the last side standing wins."
    options_spec = (Option("lives", 3, "lives (legs) each side starts with", minimum=1),)

    def _setup(self) -> None:
        self._lives = [int(self.options["lives"])] * len(self._sides)
        self._to_beat: int | None = None
        self._visit_total = 0
        self._legs_lost = [0] * len(self.lineup.players)

    def _on_dart(self, bed: Bed) -> None:
        self._visit_total += bed.points

    def _on_visit_end(self) -> None:
        total = self._visit_total
        beaten = self._to_beat is None or total > self._to_beat
        self._to_beat = total
        self._visit_total = 0
        if beaten:
            return
        side = self._side
        self._lives[side] -= 1
        self._legs_lost[self._player] += 1
        if self._lives[side] == 0:
            self._eliminate(side)

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._lives[side], "lives": self._lives[side], "to_beat": self._to_beat}

    def _player_stats(self, player: int) -> dict[str, Any]:
        return {"legs_lost": self._legs_lost[player]}
