"""Cricket Count-Up for a bot: every dart on 15-20 or the bull scores its
marks and nothing closes, so the aim with the most expected marks (the
engine's ``count_up_marks``) is the policy: a tight thrower goes for the
trebles, a wide one for the bull or between the cricket numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.board_geometry import STEEL, BoardGeometry
from engine.games.cricket_count_up import count_up_marks
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing
from engine.throw_model import Aim, SpreadLike

__all__ = ["CricketCountUpStrategy"]


@dataclass(frozen=True, slots=True)
class CricketCountUpStrategy:
    """The Cricket Count-Up policy: the most expected marks a dart."""

    geometry: BoardGeometry = STEEL
    game_id: str = "cricket-count-up"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        values = bed_values(lambda bed: float(count_up_marks(bed)))
        return aim_table(spread, self.geometry).best(values)
