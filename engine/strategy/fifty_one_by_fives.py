"""Fifty-one by Fives for a bot: a visit of three scoring darts whose total
divides by 5 scores total / 5, passing the target busts, reaching it wins.
Each dart maximises, over the darts left (``aims.visit_aim``), the visit's
expected value: total / 5 if it scores, the fives left + FINISH if it
reaches the target exactly, nothing for a bust, a miss or a total off the
fives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.board_geometry import STEEL, BoardGeometry
from engine.game import DARTS_PER_VISIT
from engine.games.fifty_one_by_fives import FIVE
from engine.strategy.aims import FloatArray, aim_table, bed_values, visit_aim
from engine.strategy.reading import check_playing, thrower, visit_darts
from engine.throw_model import Aim, SpreadLike

__all__ = ["FINISH", "FiftyOneByFivesStrategy"]

FINISH = 25.0
"""Worth of reaching the target, beside the fives it adds."""


@dataclass(frozen=True, slots=True)
class FiftyOneByFivesStrategy:
    """The Fifty-one by Fives policy (module docstring)."""

    geometry: BoardGeometry = STEEL
    game_id: str = "fifty-one-by-fives"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        me = thrower(state)
        left = int(me["target"]) - int(me["score"])
        visit = visit_darts(state)
        table = aim_table(spread, self.geometry)
        if any(bed.is_miss for bed in visit):  # the visit cannot score: any aim will do
            return table.best(bed_values(lambda bed: float(bed.points)))

        def final(totals: npt.NDArray[np.int64]) -> FloatArray:
            fives = totals // FIVE
            scores = (totals % FIVE == 0) & (fives <= left)
            values = np.where(scores, fives, 0).astype(np.float64)
            return np.asarray(
                np.where(scores & (fives == left), values + FINISH, values), dtype=np.float64
            )

        total = sum(bed.points for bed in visit)
        return visit_aim(table, DARTS_PER_VISIT - len(visit), total, final, miss_value=0.0)
