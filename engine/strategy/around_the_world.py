"""Around the World for a bot: the aim with the most expected progress this
dart. A dart in the side's target number advances it by one (with ``multi``,
by the ring, past 20 no further than the bull); a bull hit when the bull is
the target wins (worth WIN).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import BULL, Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.games.around_the_world import LAST_NUMBER
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing, thrower
from engine.throw_model import Aim, SpreadLike

__all__ = ["WIN", "AroundTheWorldStrategy"]

WIN = 100.0
"""Worth of the winning bull hit, in numbers advanced."""


@dataclass(frozen=True, slots=True)
class AroundTheWorldStrategy:
    """The Around the World policy: most expected numbers advanced."""

    geometry: BoardGeometry = STEEL
    game_id: str = "around-the-world"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        target = int(thrower(state)["target"])
        multi = bool(state["options"]["multi"])

        def value(bed: Bed) -> float:
            if bed.is_miss or bed.number != target:
                return 0.0
            if target == BULL:
                return WIN
            step = bed.multiplier if multi else 1
            return float(min(step, LAST_NUMBER + 1 - target))

        return aim_table(spread, self.geometry).best(bed_values(value))
