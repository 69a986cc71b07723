"""Baseball for a bot: inning n scores only on number n (1, 2 or 3 runs a
dart), an extra inning only on the bull. Runs add up dart by dart, so the aim
with the most expected runs for this inning (the engine's ``runs_for``) is
the policy: a tight thrower goes for the treble, a wide one for the big single.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.board_geometry import STEEL, BoardGeometry
from engine.games.baseball import runs_for
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import check_playing
from engine.throw_model import Aim, SpreadLike

__all__ = ["BaseballStrategy"]


@dataclass(frozen=True, slots=True)
class BaseballStrategy:
    """The Baseball policy: most expected runs in the current inning."""

    geometry: BoardGeometry = STEEL
    game_id: str = "baseball"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        inning, innings = int(state["round"]), int(state["options"]["innings"])
        values = bed_values(lambda bed: float(runs_for(bed, inning, innings)))
        return aim_table(spread, self.geometry).best(values)
