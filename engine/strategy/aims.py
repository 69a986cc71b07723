"""The aim points every policy chooses from and their bed chances for one
spread, computed once and cached: a policy scores each bed for the state and
throws at the aim whose expected score (chances @ values) is highest.

The candidates are the centre of every bed (both single pieces), a point a
quarter of the way into each double and the best scoring aim for the spread;
the X01 plan uses the same set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from engine.beds import DB, MISS, SB, Bed
from engine.board_geometry import (
    SECTOR_DEGREES,
    STEEL,
    BoardGeometry,
    bed_at,
    bed_centre,
    inner_single_centre,
    polar_point,
)
from engine.throw_model import (
    BOARD_BEDS,
    Aim,
    Spread,
    SpreadLike,
    as_spread,
    bed_probabilities,
    best_scoring_aim,
)

__all__ = [
    "BEDS",
    "AimTable",
    "FloatArray",
    "aim_table",
    "bed_values",
    "candidate_aims",
    "clear_tables",
    "visit_aim",
]

FloatArray = npt.NDArray[np.float64]

BEDS: tuple[Bed, ...] = (*BOARD_BEDS, MISS)
"""Every bed in the order of a chance row: the 62 board beds, then the miss."""


def candidate_aims(spread: Spread, geometry: BoardGeometry) -> tuple[tuple[float, float], ...]:
    """The aim points a policy chooses from (see the module docstring)."""
    g = geometry
    aims: list[tuple[float, float]] = [bed_centre(DB, g), bed_centre(SB, g)]
    for number in g.numbers:
        for multiplier in (3, 2, 1):
            aims.append(bed_centre(Bed(number, multiplier), g))
        aims.append(inner_single_centre(number, g))
        inside = g.double_inner + (g.double_outer - g.double_inner) / 4
        aims.append(polar_point(inside, g.numbers.index(number) * SECTOR_DEGREES))
    best = best_scoring_aim(spread, g)
    aims.append((best.x_mm, best.y_mm))
    return tuple(aims)


def bed_values(value: Callable[[Bed], float]) -> FloatArray:
    """``value`` of every bed, in chance-row order (the miss last)."""
    return np.array([value(bed) for bed in BEDS], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class AimTable:
    """The candidate aims and ``chances[k]``: the 63 bed chances of aim ``k``."""

    aims: tuple[tuple[float, float], ...]
    chances: FloatArray
    geometry: BoardGeometry

    def expected(self, values: FloatArray) -> FloatArray:
        """The expected value of each aim for bed values ``values`` (63 numbers)."""
        return np.asarray(self.chances @ values, dtype=np.float64)

    def aim_at(self, index: int, expected: float) -> Aim:
        """Candidate ``index`` as an :class:`Aim` carrying ``expected``."""
        x, y = self.aims[index]
        return Aim(x, y, bed_at(x, y, self.geometry), expected)

    def best(self, values: FloatArray) -> Aim:
        """The aim with the highest expected value; ties go to the earlier
        candidate (the bull first, then by board number)."""
        expected = self.expected(values)
        index = int(np.argmax(expected))
        return self.aim_at(index, float(expected[index]))


def aim_table(spread: SpreadLike, geometry: BoardGeometry = STEEL) -> AimTable:
    """The (cached) candidate aims and their chances for this spread and board."""
    return _table(as_spread(spread), geometry)


@lru_cache(maxsize=32)
def _table(spread: Spread, geometry: BoardGeometry) -> AimTable:
    aims = candidate_aims(spread, geometry)
    chances = np.array([bed_probabilities(aim, spread, geometry) for aim in aims])
    return AimTable(aims, chances, geometry)


_POINTS = np.array([bed.points for bed in BEDS], dtype=np.int64)
_MISS = len(BEDS) - 1


def visit_aim(
    table: AimTable,
    darts_left: int,
    total: int,
    final: Callable[[npt.NDArray[np.int64]], FloatArray],
    miss_value: float | None = None,
) -> Aim:
    """The best aim for a game judged on a visit's total: ``final(totals)``
    values the visit's possible end totals; each dart maximises the expected
    value over the darts left (dynamic programming, no sampling). With
    ``miss_value`` a miss ends the visit's hopes at that value (Fifty-one by
    Fives: a visit needs three scoring darts)."""
    if not 1 <= darts_left <= 3:
        raise ValueError(f"darts left in a visit is 1 to 3, not {darts_left}")
    totals = total + np.arange(0, 60 * darts_left + 1)
    later = final(totals)
    transposed = table.chances.T
    for d in range(1, darts_left + 1):
        count = 60 * (darts_left - d) + 1
        index = np.arange(count)[:, None] + _POINTS[None, :]
        outcome = later[index]
        if miss_value is not None:
            outcome[:, _MISS] = miss_value
        expected = outcome @ transposed  # (count, K)
        later = expected.max(axis=1)
    best = int(np.argmax(expected[0]))
    return table.aim_at(best, float(expected[0, best]))


def clear_tables() -> None:
    """Forget every cached aim table (to measure a cold start)."""
    _table.cache_clear()
