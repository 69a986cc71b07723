"""Legs for a bot: a visit must score more than the visit before it. Each dart
maximises the chance that the visit beats ``to_beat``, over the darts left
(``aims.visit_aim``), with a small RAISE per point as the tie-break: a visit
that has beaten the bar goes on raising it for the next thrower. The first
visit of the game, with no bar, goes for points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.board_geometry import STEEL, BoardGeometry
from engine.game import DARTS_PER_VISIT
from engine.strategy.aims import FloatArray, aim_table, visit_aim
from engine.strategy.reading import check_playing, thrower, visit_darts
from engine.throw_model import Aim, SpreadLike

__all__ = ["RAISE", "LegsStrategy"]

RAISE = 1e-4
"""Worth of each point of the visit beside beating the bar (1 = beating it)."""


@dataclass(frozen=True, slots=True)
class LegsStrategy:
    """The Legs policy: most likely to beat the last visit."""

    geometry: BoardGeometry = STEEL
    game_id: str = "legs"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        bar = thrower(state)["to_beat"]
        visit = visit_darts(state)

        def final(totals: npt.NDArray[np.int64]) -> FloatArray:
            points = totals.astype(np.float64)
            if bar is None:
                return points
            return (totals > int(bar)).astype(np.float64) + RAISE * points

        table = aim_table(spread, self.geometry)
        total = sum(bed.points for bed in visit)
        return visit_aim(table, DARTS_PER_VISIT - len(visit), total, final)
