"""Count-Up for a bot: every dart scores its points, so the aim with the most
expected points under the game's bull rule (the engine's ``count_up_points``)
is the policy: T20 for a tight thrower, the fat bull or the big 19s for a wide one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.board_geometry import STEEL, BoardGeometry
from engine.games.count_up import count_up_points
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing
from engine.throw_model import Aim, SpreadLike

__all__ = ["CountUpStrategy"]


@dataclass(frozen=True, slots=True)
class CountUpStrategy:
    """The Count-Up policy: the most expected points a dart."""

    geometry: BoardGeometry = STEEL
    game_id: str = "count-up"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        bull = str(state["options"]["bull"])
        values = bed_values(lambda bed: float(count_up_points(bed, bull)))
        return aim_table(spread, self.geometry).best(values)
