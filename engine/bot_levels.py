"""Computer opponent levels 1-10, each a throw spread sigma that follows from a
target three-dart average on the chosen board: nothing else about a bot is
fixed by its level.

- ``three_dart_average``: 3 x the expected points of one dart aimed at the
  centre of T20 with that sigma (the relation :func:`sigma_for_average` inverts);
- ``mpr``: cricket marks per round, 3 x the expected marks of one dart aimed at
  the centre of T20, a mark being S20 = 1, D20 = 2, T20 = 3 (what a player
  opening or scoring on the 20s gets; other numbers count nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry, bed_centre
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.throw_model import MAX_SIGMA_MM, MIN_SIGMA_MM, bed_distribution, expected_points

__all__ = [
    "LEVELS",
    "TARGET_AVERAGES",
    "BotLevel",
    "average_for_sigma",
    "bot_levels",
    "level",
    "level_for_sigma",
    "mpr_for_sigma",
    "sigma_for_average",
]


T20 = Bed(20, 3)


@dataclass(frozen=True, slots=True)
class BotLevel:
    """One level: its sigma (mm) and what that sigma throws at T20."""

    level: int
    sigma_mm: float
    three_dart_average: float
    mpr: float

    def as_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "sigma_mm": round(self.sigma_mm, 2),
            "three_dart_average": round(self.three_dart_average, 2),
            "mpr": round(self.mpr, 2),
        }


def average_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> float:
    """3 x the expected points of a dart aimed at the centre of T20."""
    return 3 * expected_points(bed_centre(T20, geometry), sigma_mm, geometry)


def mpr_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> float:
    """3 x the expected cricket marks on the 20s of a dart aimed at the centre of T20."""
    chances = bed_distribution(bed_centre(T20, geometry), sigma_mm, geometry)
    return 3 * sum(chances[Bed(20, m)] * m for m in (1, 2, 3))


def sigma_for_average(average: float, geometry: BoardGeometry = STEEL) -> float:
    """The sigma whose T20 average (:func:`average_for_sigma`) is ``average``, by
    bisection on log sigma (the average falls as sigma grows)."""
    if not isinstance(average, int | float) or not math.isfinite(average):
        raise ValueError(f"an average must be a number, not {average!r}")
    low, high = MIN_SIGMA_MM, MAX_SIGMA_MM
    best, worst = average_for_sigma(low, geometry), average_for_sigma(high, geometry)
    if not worst <= average <= best:
        raise ValueError(
            f"an average of {average} is out of reach: this board's model spans "
            f"{worst:.1f} to {best:.1f}"
        )
    for _ in range(60):
        middle = math.sqrt(low * high)
        if average_for_sigma(middle, geometry) > average:
            low = middle
        else:
            high = middle
        if high / low < 1 + 1e-9:
            break
    return math.sqrt(low * high)


@lru_cache(maxsize=4)
def bot_levels(geometry: BoardGeometry = STEEL) -> tuple[BotLevel, ...]:
    """Levels 1-10 on ``geometry``: sigma solved from each target average."""
    levels = []
    for number, target in zip(LEVELS, TARGET_AVERAGES, strict=True):
        sigma = sigma_for_average(target, geometry)
        levels.append(
            BotLevel(
                number,
                sigma,
                average_for_sigma(sigma, geometry),
                mpr_for_sigma(sigma, geometry),
            )
        )
    return tuple(levels)


def level(number: int, geometry: BoardGeometry = STEEL) -> BotLevel:
    """Level ``number`` (1-10); another number is a ValueError naming it."""
    if isinstance(number, bool) or number not in LEVELS:
        raise ValueError(f"a bot level is 1 to {LEVELS[-1]}, not {number!r}")
    return bot_levels(geometry)[number - 1]


def level_for_sigma(sigma_mm: float, geometry: BoardGeometry = STEEL) -> int:
    """The level whose average is nearest to what ``sigma_mm`` throws at T20."""
    average = average_for_sigma(sigma_mm, geometry)
    return min(bot_levels(geometry), key=lambda b: abs(b.three_dart_average - average)).level
