"""Around the World (seed 000, "La vuelta al mundo"): hit the numbers in order
from the start to 20, then the bull."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.beds import BULL, Bed
from engine.game import Game, Reason
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["LAST_NUMBER", "STARTS", "AroundTheWorld"]

STARTS = (1, 5, 10, 15)
"""The numbers the course may start at (the ``start`` option)."""

LAST_NUMBER = 20
"""The last numbered target; the bull follows it."""


@register
class AroundTheWorld(Game):
    """Each side's target starts at ``start``. A dart in the target's number
    (any ring) advances it by one (with ``multi``, by the ring: two for a
    double, three for a triple), past 20 to the bull; a bull hit wins."""

    id = "around-the-world"
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {"hit_rate": ("hits", "darts", 1)}
    highlight = Highlight(
        "fewest darts round the board", Measure.DARTS_TO_WIN, higher_is_better=False
    )
    name = "Around the World"
    summary = "Hit the numbers in order from the start to 20, then the bull to win."
    options_spec = (
        Option("multi", False, "a double advances two numbers, a triple three"),
        Option("start", 1, "the first target", STARTS),
    )

    def _setup(self) -> None:
        self._multi = bool(self.options["multi"])
        start = int(self.options["start"])
        sides = len(self._sides)
        self._target = [start] * sides
        self._score = [0] * sides
        self._hits = [0] * len(self.lineup.players)

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        target = self._target[side]
        if bed.number != target:
            return
        self._hits[self._player] += 1
        if target == BULL:
            self._score[side] += 1
            self._finish(side, Reason.BULL)
            return
        step = bed.multiplier if self._multi else 1
        reached = target + step
        if reached > LAST_NUMBER:
            self._score[side] += LAST_NUMBER + 1 - target
            self._target[side] = BULL
        else:
            self._score[side] += step
            self._target[side] = reached

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._score[side], "target": self._target[side]}

    def _player_stats(self, player: int) -> dict[str, Any]:
        darts = self._darts[player]
        hits = self._hits[player]
        return {"hits": hits, "hit_rate": round(hits / darts, 2) if darts else 0.0}
