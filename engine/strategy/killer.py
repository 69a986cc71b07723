"""Killer for a bot, by the game's three phases; each dart goes for the most
expected value of one dart:

- no number yet: any free number 1-20 picks it (worth 1), so the aim is where
  free numbers are most likely;
- not a killer yet: our own double (any ring with ``any_ring_kills``) makes us
  one (worth 1);
- a killer: an opponent's double takes a life, worth 1 + 1 / their lives (the
  side closest to going out first); our own double costs a life (worth -1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import NUMBERS, Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.strategy.aims import FloatArray, aim_table, bed_values
from engine.strategy.reading import check_playing, opponents, thrower
from engine.throw_model import Aim, SpreadLike

__all__ = ["KillerStrategy", "killer_values"]


def killer_values(state: Mapping[str, Any]) -> FloatArray:
    """The value of each bed (chance-row order) for the thrower in a Killer state."""
    me = thrower(state)
    any_ring = bool(state["options"]["any_ring_kills"])
    others = opponents(state)
    taken = {int(p["number"]) for p in state["players"] if p.get("number") is not None}
    own = me.get("number")

    def counts(bed: Bed) -> bool:
        return not bed.is_miss and bed.number in NUMBERS and (any_ring or bed.multiplier == 2)

    if own is None:
        return bed_values(lambda bed: float(bed.number in NUMBERS and bed.number not in taken))
    if not me["killer"]:
        return bed_values(lambda bed: float(counts(bed) and bed.number == own))
    lives = {int(o["number"]): int(o["lives"]) for o in others if o.get("number") is not None}

    def value(bed: Bed) -> float:
        if not counts(bed):
            return 0.0
        if bed.number == own:
            return -1.0
        if bed.number in lives:
            return 1.0 + 1.0 / lives[bed.number]
        return 0.0

    return bed_values(value)


@dataclass(frozen=True, slots=True)
class KillerStrategy:
    """The Killer policy (module docstring)."""

    geometry: BoardGeometry = STEEL
    game_id: str = "killer"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        return aim_table(spread, self.geometry).best(killer_values(state))
