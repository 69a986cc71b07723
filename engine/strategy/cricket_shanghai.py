"""Cricket-Shanghai for a bot: no points, so no blocking; the race is to close
all 21 elements (S, D, T of 20-15; 25, 25, 50 on the bull) first. Each dart
goes where the expected value of one dart is highest, a bed's value being:

- the elements it adds to the visit, by the engine's own ``resolve_visit``
  (hits of a visit join their chain in any order, so a dart can also let an
  earlier, waiting hit of the visit join);
- STORED for a hit that cannot join yet but could later in this visit (say a
  treble before the double, with darts enough left to fill the gap);
- WIN if the visit would close everything.

Blocking and scoring do not exist in this game: the opponent's marks change
nothing, except that a win ends it, which WIN already prefers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import BULL, Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.game import DARTS_PER_VISIT
from engine.games.cricket import CRICKET_TARGETS, MARKS_KEYS, MARKS_TO_CLOSE, target_index
from engine.games.cricket_shanghai import BULL_CHAIN, NUMBER_CHAIN, resolve_visit
from engine.strategy.aims import FloatArray, aim_table, bed_values
from engine.strategy.reading import check_playing, thrower, visit_darts
from engine.throw_model import Aim, SpreadLike

__all__ = ["STORED", "WIN", "CricketShanghaiStrategy", "cricket_shanghai_values"]

STORED = 0.3
"""Worth of a hit that waits in the visit for the element before it."""
WIN = 100.0
"""Worth of the dart that closes the last element."""


def cricket_shanghai_values(state: Mapping[str, Any]) -> FloatArray:
    """The value of each bed (chance-row order) for the thrower."""
    order = str(state["options"]["bull_order"])
    marks = [int(thrower(state)["marks"][key]) for key in MARKS_KEYS]
    visit = visit_darts(state)
    before = sum(resolve_visit(marks, visit, order))
    left_after = DARTS_PER_VISIT - len(visit) - 1
    every = MARKS_TO_CLOSE * len(CRICKET_TARGETS)

    def value(bed: Bed) -> float:
        target = target_index(bed.number)
        if target < 0 or bed.is_miss:
            return 0.0
        after = resolve_visit(marks, [*visit, bed], order)
        total = float(sum(after) - before)
        if sum(after) == every:
            return total + WIN
        stage = after[target]
        if total == 0 and stage < MARKS_TO_CLOSE and left_after > 0:
            bull = CRICKET_TARGETS[target] == BULL
            if not (bull and order == "strict"):
                chain = BULL_CHAIN if bull else NUMBER_CHAIN
                later = [k for k in range(stage + 1, MARKS_TO_CLOSE) if chain[k] == bed.multiplier]
                if later and later[0] - stage <= left_after:
                    total += STORED
        return total

    return bed_values(value)


@dataclass(frozen=True, slots=True)
class CricketShanghaiStrategy:
    """The Cricket-Shanghai policy (module docstring)."""

    geometry: BoardGeometry = STEEL
    game_id: str = "cricket-shanghai"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        return aim_table(spread, self.geometry).best(cricket_shanghai_values(state))
