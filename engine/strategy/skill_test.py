"""Skill Test for a bot: every dart at the centre of the target bed, where the
test assumes the thrower aims (its estimate is of the spread around that
point), so a bot's test measures its own sigma."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.board_geometry import STEEL, BoardGeometry, bed_at, bed_centre
from engine.games.skill_test import target_bed
from engine.strategy.reading import check_playing
from engine.throw_model import Aim, SpreadLike, bed_distribution

__all__ = ["SkillTestStrategy"]


@dataclass(frozen=True, slots=True)
class SkillTestStrategy:
    """The Skill Test policy: the target's centre; ``expected`` is the chance
    of hitting the target bed."""

    geometry: BoardGeometry = STEEL
    game_id: str = "skill-test"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        target = target_bed(str(state["options"]["target"]))
        x, y = bed_centre(target, self.geometry)
        chance = bed_distribution((x, y), spread, self.geometry)[target]
        return Aim(x, y, bed_at(x, y, self.geometry), chance)
