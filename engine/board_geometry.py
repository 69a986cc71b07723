"""A dartboard's geometry as data: ring radii in mm and the number order, with
``bed_at`` telling which bed a point is in. The throw model and the bots use it.

Coordinates: origin at the centre of the bull, x to the right, y up, in mm.
Angles (``BedRegion``) are degrees clockwise from straight up, so the 20 is
centred on 0 degrees.

Wire rule (a point exactly on a wire): a point on a ring wire (a circle)
belongs to the bed inside it, and a point on a radial wire belongs to the
sector clockwise of it (the sector whose clockwise span starts at the wire).
Points within 1e-9 mm of a circle or 1e-9 degree of a radial wire count as on
it, so a point computed on a wire with floating point lands by this rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from engine.beds import DB, MISS, SB, Bed

__all__ = [
    "GEOMETRIES",
    "SECTOR_DEGREES",
    "SOFT",
    "STEEL",
    "BedRegion",
    "BoardGeometry",
    "bed_at",
    "bed_centre",
    "bed_regions",
    "fat_bull",
    "inner_single_centre",
    "polar_point",
]

SECTOR_DEGREES = 18.0
"""Each of the twenty numbered sectors spans 18 degrees."""

STEEL_ORDER = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """The radii (mm, to the outer edge of each ring's wire line) of a board's
    rings and its numbers clockwise from the top."""

    name: str
    inner_bull: float
    outer_bull: float
    treble_inner: float
    treble_outer: float
    double_inner: float
    double_outer: float
    numbers: tuple[int, ...] = STEEL_ORDER

    def __post_init__(self) -> None:
        radii = (
            self.inner_bull,
            self.outer_bull,
            self.treble_inner,
            self.treble_outer,
            self.double_inner,
            self.double_outer,
        )
        if not all(0 <= a < b for a, b in zip((0.0, *radii), radii, strict=False)):
            raise ValueError(f"geometry {self.name!r}: radii must rise from the centre: {radii}")
        if sorted(self.numbers) != list(range(1, 21)):
            raise ValueError(f"geometry {self.name!r}: numbers must be 1-20 once each")

    @property
    def radius(self) -> float:
        """The scoring area's radius: the outside of the double ring."""
        return self.double_outer


STEEL = BoardGeometry("steel", 6.35, 15.9, 99.0, 107.0, 162.0, 170.0)
"""The WDF steel-tip board (WDF playing rules: the double ring's outside at 170 mm)."""

_SOFT_SCALE = 197.5 / 170.0
SOFT = BoardGeometry(
    "soft",
    round(6.35 * _SOFT_SCALE, 2),
    round(15.9 * _SOFT_SCALE, 2),
    round(99.0 * _SOFT_SCALE, 2),
    round(107.0 * _SOFT_SCALE, 2),
    round(162.0 * _SOFT_SCALE, 2),
    197.5,
)
"""The common 15.5-inch soft-tip board: 39.5 cm across the outside of the
double ring (see docs/bots.md for the source); the inner radii keep the steel
board's proportions (no published figure found; see docs/bots.md)."""

GEOMETRIES = {"steel": STEEL, "soft": SOFT}

FAT_BULL_SHARE = 0.999
"""How much of the bull's radius :func:`fat_bull` gives the inner bull (a
geometry's rings must rise: the outer bull keeps a hairline)."""


def fat_bull(geometry: BoardGeometry) -> BoardGeometry:
    """``geometry`` as the fat bull scores it: the inner bull as wide as the
    whole bull (every bull dart 50 and the double bull), for the plans of a
    game played with ``bull=fat``."""
    return replace(
        geometry, name=f"{geometry.name}-fat-bull", inner_bull=geometry.outer_bull * FAT_BULL_SHARE
    )


"""The geometries by the name ``--geometry`` takes."""


@dataclass(frozen=True, slots=True)
class BedRegion:
    """One piece of a bed as an annulus sector: radii ``r_inner`` < r <=
    ``r_outer`` and clockwise angles ``start_deg`` <= angle < ``end_deg``
    (0-360 for the bulls). Singles have two pieces, inside and outside the treble."""

    bed: Bed
    r_inner: float
    r_outer: float
    start_deg: float
    end_deg: float


def _sector_index(x_mm: float, y_mm: float) -> int:
    clockwise = math.degrees(math.atan2(x_mm, y_mm))
    shifted = round((clockwise + SECTOR_DEGREES / 2) % 360.0, 9) % 360.0
    return int(shifted // SECTOR_DEGREES) % 20


def bed_at(x_mm: float, y_mm: float, geometry: BoardGeometry = STEEL) -> Bed:
    """The bed a dart at ``(x_mm, y_mm)`` scores, by the wire rule of the module
    docstring; MISS outside the double ring."""
    r = round(math.hypot(x_mm, y_mm), 9)
    if r <= geometry.inner_bull:
        return DB
    if r <= geometry.outer_bull:
        return SB
    if r > geometry.double_outer:
        return MISS
    number = geometry.numbers[_sector_index(x_mm, y_mm)]
    if geometry.treble_inner < r <= geometry.treble_outer:
        return Bed(number, 3)
    if r > geometry.double_inner:
        return Bed(number, 2)
    return Bed(number, 1)


def bed_regions(geometry: BoardGeometry = STEEL) -> tuple[BedRegion, ...]:
    """Every bed's area as annulus sectors, for integrating over the board."""
    g = geometry
    regions = [BedRegion(DB, 0.0, g.inner_bull, 0.0, 360.0)]
    regions.append(BedRegion(SB, g.inner_bull, g.outer_bull, 0.0, 360.0))
    for index, number in enumerate(g.numbers):
        start = (index * SECTOR_DEGREES - SECTOR_DEGREES / 2) % 360.0
        end = start + SECTOR_DEGREES
        for multiplier, r_in, r_out in (
            (1, g.outer_bull, g.treble_inner),
            (3, g.treble_inner, g.treble_outer),
            (1, g.treble_outer, g.double_inner),
            (2, g.double_inner, g.double_outer),
        ):
            regions.append(BedRegion(Bed(number, multiplier), r_in, r_out, start, end))
    return tuple(regions)


def bed_centre(bed: Bed, geometry: BoardGeometry = STEEL) -> tuple[float, float]:
    """Where a player aiming at ``bed`` aims: the middle of its area (for a
    single, the larger outer piece; for the outer bull, its ring above the
    centre; the inner bull is the centre). A miss has no centre."""
    g = geometry
    if bed == DB:
        return (0.0, 0.0)
    if bed == SB:
        return (0.0, (g.inner_bull + g.outer_bull) / 2)
    if bed.is_miss:
        raise ValueError("a miss (M) has no centre to aim at")
    rings = {
        1: (g.treble_outer, g.double_inner),
        2: (g.double_inner, g.double_outer),
        3: (g.treble_inner, g.treble_outer),
    }
    r_in, r_out = rings[bed.multiplier]
    return polar_point((r_in + r_out) / 2, g.numbers.index(bed.number) * SECTOR_DEGREES)


def polar_point(r_mm: float, clockwise_deg: float) -> tuple[float, float]:
    """The point at radius ``r_mm`` and ``clockwise_deg`` degrees clockwise from up."""
    angle = math.radians(clockwise_deg)
    return (r_mm * math.sin(angle), r_mm * math.cos(angle))


def inner_single_centre(number: int, geometry: BoardGeometry = STEEL) -> tuple[float, float]:
    """The middle of a number's inner single (between the bull and the treble)."""
    g = geometry
    return polar_point(
        (g.outer_bull + g.treble_inner) / 2, g.numbers.index(number) * SECTOR_DEGREES
    )
