"""English Cricket for a bot. Batting: a visit scores its points above 40, so
each dart goes for the most expected points (the best scoring aim among the
candidates). Bowling: SB takes a wicket and DB two (no more than the wickets
left), so each dart goes for the most expected wickets, around the bull.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.games.english_cricket import WICKETS
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing, thrower
from engine.throw_model import Aim, SpreadLike

__all__ = ["EnglishCricketStrategy"]


@dataclass(frozen=True, slots=True)
class EnglishCricketStrategy:
    """The English Cricket policy: points when batting, wickets when bowling."""

    geometry: BoardGeometry = STEEL
    game_id: str = "english-cricket"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        if thrower(state)["batting"]:
            values = bed_values(lambda bed: float(bed.points))
        else:
            left = WICKETS - int(state["wickets"])

            def wickets(bed: Bed) -> float:
                return float(min(bed.multiplier, left)) if bed.is_bull else 0.0

            values = bed_values(wickets)
        return aim_table(spread, self.geometry).best(values)
