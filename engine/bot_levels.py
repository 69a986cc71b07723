"""Computer opponent levels 1-10, each a throw spread sigma calibrated so the
bot plays a target whole-leg 501 average (checkout included), read from the
table ``benchmarks/calibrate_bots.py`` wrote (``engine/bot_calibration.py``):
nothing is solved at start-up.

- ``leg_average``: 3 x points per dart over whole legs of 501 double out, as
  ``oche bot simulate x01`` and the game's statistics count it (busts score
  nothing; their unthrown darts do not count);
- ``mpr``: Cricket marks per round playing alone (``oche bot simulate cricket``),
  ``match_mpr`` against a bot of the same level;
- ``t20_average``: a model figure only, 3 x the expected points of one dart
  aimed at the centre of T20 (what the levels were built for before issue #26).

An average between the levels (``{"cpu": {"average": A}}``) interpolates log
sigma in the table's sigma grid (:func:`sigma_for_average`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from engine.beds import Bed
from engine.board_geometry import GEOMETRIES, STEEL, BoardGeometry, bed_centre
from engine.bot_calibration import LEVEL_TABLE, SIGMA_GRID
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.throw_model import expected_points

__all__ = [
    "LEVELS",
    "TARGET_AVERAGES",
    "BotLevel",
    "average_for_sigma",
    "bot_levels",
    "interpolate_sigma",
    "level",
    "level_for_sigma",
    "sigma_for_average",
    "sigma_for_mpr",
    "t20_average_for_sigma",
]


T20 = Bed(20, 3)


@dataclass(frozen=True, slots=True)
class BotLevel:
    """One level: its sigma (mm) and what it plays: the 501 leg average and
    visits per leg, Cricket MPR alone and against itself, and the model's
    average at T20."""

    level: int
    sigma_mm: float
    leg_average: float
    visits_per_leg: float
    mpr: float
    match_mpr: float
    t20_average: float

    def as_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "sigma_mm": round(self.sigma_mm, 2),
            "leg_average": round(self.leg_average, 2),
            "visits_per_leg": round(self.visits_per_leg, 1),
            "mpr": round(self.mpr, 2),
            "match_mpr": round(self.match_mpr, 2),
            "t20_average": round(self.t20_average, 2),
        }


def _board_name(geometry: BoardGeometry) -> str:
    """The calibration table's key for ``geometry``; a board without one is a ValueError."""
    for name, known in GEOMETRIES.items():
        if known == geometry and name in LEVEL_TABLE:
            return name
    raise ValueError(
        f"no bot calibration for this board (have: {', '.join(sorted(LEVEL_TABLE))}); "
        "run python -m benchmarks.calibrate_bots"
    )


def t20_average_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> float:
    """The model figure: 3 x the expected points of a dart aimed at the centre of T20."""
    return 3 * expected_points(bed_centre(T20, geometry), sigma_mm, geometry)


def interpolate_sigma(
    grid: Sequence[tuple[float, float, float]], average: float, figure: str = "average"
) -> float:
    """The sigma of ``grid`` (rows of sigma, leg average, ... rising in sigma,
    the average falling) that plays ``average``: log sigma linear in log
    average between the two rows around it. Out of the grid's span is a
    ValueError naming the span (and the ``figure``: an average, an MPR)."""
    if isinstance(average, bool) or not isinstance(average, int | float):
        raise ValueError(f"an {figure} must be a number, not {average!r}")
    best, worst = grid[0][1], grid[-1][1]
    if not (math.isfinite(average) and worst <= average <= best):
        raise ValueError(
            f"an {figure} of {average} is out of reach: the calibrated levels span "
            f"{worst:.2f} to {best:.2f}"
        )
    for (s0, a0, _), (s1, a1, _) in pairwise(grid):
        if a1 <= average <= a0:
            share = (math.log(a0) - math.log(average)) / (math.log(a0) - math.log(a1))
            return math.exp(math.log(s0) + share * (math.log(s1) - math.log(s0)))
    raise ValueError(f"the calibration grid does not fall in average at {average}")


def sigma_for_average(average: float, geometry: BoardGeometry = STEEL) -> float:
    """The sigma that plays a whole-leg 501 average of ``average`` on ``geometry``."""
    return interpolate_sigma(SIGMA_GRID[_board_name(geometry)], average)


def sigma_for_mpr(mpr: float, geometry: BoardGeometry = STEEL) -> float:
    """The sigma that plays a Cricket MPR (alone) of ``mpr`` on ``geometry``:
    interpolated between the levels' calibrated MPRs, as an average is."""
    rows = LEVEL_TABLE[_board_name(geometry)]
    grid = tuple((sigma, level_mpr, 0.0) for _, sigma, _, _, level_mpr, _ in reversed(rows))
    return interpolate_sigma(grid, mpr, "MPR")


def average_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> float:
    """The whole-leg 501 average ``sigma_mm`` plays (interpolated in the grid;
    clamped to its ends outside it)."""
    grid = SIGMA_GRID[_board_name(geometry)]
    if sigma_mm <= grid[0][0]:
        return grid[0][1]
    for (s0, a0, _), (s1, a1, _) in pairwise(grid):
        if s0 <= sigma_mm <= s1:
            share = (math.log(sigma_mm) - math.log(s0)) / (math.log(s1) - math.log(s0))
            return math.exp(math.log(a0) + share * (math.log(a1) - math.log(a0)))
    return grid[-1][1]


@lru_cache(maxsize=4)
def bot_levels(geometry: BoardGeometry = STEEL) -> tuple[BotLevel, ...]:
    """Levels 1-10 on ``geometry``, from the calibration table."""
    return tuple(
        BotLevel(
            number,
            sigma,
            average,
            visits,
            mpr,
            match_mpr,
            t20_average_for_sigma(sigma, geometry),
        )
        for number, sigma, average, visits, mpr, match_mpr in LEVEL_TABLE[_board_name(geometry)]
    )


def level(number: int, geometry: BoardGeometry = STEEL) -> BotLevel:
    """Level ``number`` (1-10); another number is a ValueError naming it."""
    if isinstance(number, bool) or number not in LEVELS:
        raise ValueError(f"a bot level is 1 to {LEVELS[-1]}, not {number!r}")
    return bot_levels(geometry)[number - 1]


def level_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> int:
    """The level whose leg average is nearest to what ``sigma_mm`` plays."""
    average = average_for_sigma(sigma_mm, geometry)
    return min(bot_levels(geometry), key=lambda b: abs(b.leg_average - average)).level
