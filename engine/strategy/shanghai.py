"""Shanghai for a bot: round n scores only on its target number (face value
times the ring), and a single, double and treble of it in one visit win at
once. A bed is worth its points on the target, plus WIN when it completes the
Shanghai with the visit's earlier live darts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.games.shanghai import SHANGHAI_RINGS
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing, thrower, visit_darts
from engine.throw_model import Aim, SpreadLike

__all__ = ["WIN", "ShanghaiStrategy"]

WIN = 1000.0
"""Worth of the dart that makes a Shanghai (in points)."""


@dataclass(frozen=True, slots=True)
class ShanghaiStrategy:
    """The Shanghai policy: expected points on the target, and the Shanghai."""

    geometry: BoardGeometry = STEEL
    game_id: str = "shanghai"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        target = int(thrower(state)["target"])
        rings = {bed.multiplier for bed in visit_darts(state) if bed.number == target}

        def value(bed: Bed) -> float:
            if bed.is_miss or bed.number != target:
                return 0.0
            won = rings | {bed.multiplier} >= SHANGHAI_RINGS
            return float(bed.points) + (WIN if won else 0.0)

        return aim_table(spread, self.geometry).best(bed_values(value))
