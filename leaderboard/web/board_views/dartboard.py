"""The drawn soft-tip dartboard of the board page: every bed a focusable SVG
path named by the engine's notation (``data-bed="T19"``), its aim point baked
in (``data-x``/``data-y``, where the page's script puts a dart's marker), the
numbers around, and an empty ``<g class="markers">`` the script fills.

Drawn from :mod:`engine.board_geometry` (the soft board's radii and number
order): SVG units are millimetres, the bull's centre at the origin, y down."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup

from engine.beds import DB, SB, Bed
from engine.board_geometry import SECTOR_DEGREES, SOFT, BedRegion, bed_regions
from engine.board_geometry import bed_centre as aim_centre
from leaderboard.web.board_views.templating import ENVIRONMENT

__all__ = [
    "BOARD_GEOMETRY",
    "NUMBER_RADIUS",
    "DrawnBed",
    "bed_centre",
    "bed_label",
    "dartboard_svg",
    "drawn_beds",
]

BOARD_GEOMETRY = SOFT
"""The board drawn: a soft-tip board."""
NUMBER_RADIUS = BOARD_GEOMETRY.double_outer + 20.0
"""Where the numbers sit, in mm from the centre."""
VIEW_RADIUS = NUMBER_RADIUS + 16.0
"""Half the drawing's width."""

_RING_NAMES = {1: "Single", 2: "Double", 3: "Treble"}


def _point(r_mm: float, clockwise_deg: float) -> tuple[float, float]:
    """The SVG point at radius ``r_mm``, ``clockwise_deg`` clockwise from the top."""
    angle = math.radians(clockwise_deg)
    return (round(r_mm * math.sin(angle), 2), round(-r_mm * math.cos(angle), 2))


def bed_centre(notation: str) -> tuple[float, float]:
    """Where the drawing puts a dart in bed ``notation`` (``T19``): the
    engine's aim point of the bed, in the SVG's coordinates (y down)."""
    x, y = aim_centre(Bed.parse(notation), BOARD_GEOMETRY)
    return (round(x, 2), round(-y, 2))


def bed_label(bed: Bed) -> str:
    """A bed's accessible name: ``Treble 19``, ``Outer bull``, ``Bullseye``."""
    if bed == DB:
        return "Bullseye"
    if bed == SB:
        return "Outer bull"
    return f"{_RING_NAMES[bed.multiplier]} {bed.number}"


def _circle(r: float, sweep: int) -> str:
    """A whole circle of radius ``r`` as two arcs (``sweep`` 0 winds it the
    other way, so an inner circle cuts a hole)."""
    arc = f"A{r:.2f},{r:.2f} 0 1 {sweep}"
    return f"M0,{-r:.2f} {arc} 0,{r:.2f} {arc} 0,{-r:.2f} Z"


def _sector_path(region: BedRegion) -> str:
    """An annulus sector (or a whole ring for the bulls) as SVG path data."""
    r0, r1 = region.r_inner, region.r_outer
    if region.end_deg - region.start_deg >= 360.0:
        outer = _circle(r1, 1)
        return outer if r0 <= 0 else f"{outer} {_circle(r0, 0)}"
    (ax, ay), (bx, by) = _point(r1, region.start_deg), _point(r1, region.end_deg)
    (cx, cy), (dx, dy) = _point(r0, region.end_deg), _point(r0, region.start_deg)
    return (
        f"M{ax},{ay} A{r1:.2f},{r1:.2f} 0 0 1 {bx},{by} "
        f"L{cx},{cy} A{r0:.2f},{r0:.2f} 0 0 0 {dx},{dy} Z"
    )


@dataclass(frozen=True)
class DrawnBed:
    """One piece of a bed as drawn: its path, notation, name, aim point and colour class."""

    path: str
    notation: str
    label: str
    x: float
    y: float
    kind: str
    """The CSS classes of its colour: ``single dark``, ``ring red``, ``bull inner``, ..."""


def drawn_beds() -> list[DrawnBed]:
    """Every piece of every bed, the bulls first (82: two per single)."""
    numbers = BOARD_GEOMETRY.numbers
    found = []
    for region in bed_regions(BOARD_GEOMETRY):
        bed = region.bed
        if bed.is_bull:
            kind = "bull inner" if bed == DB else "bull outer"
        else:
            dark = numbers.index(bed.number) % 2 == 0
            if bed.multiplier == 1:
                kind = "single " + ("dark" if dark else "light")
            else:
                kind = "ring " + ("red" if dark else "green")
        x, y = bed_centre(bed.notation)
        found.append(DrawnBed(_sector_path(region), bed.notation, bed_label(bed), x, y, kind))
    return found


def _numbers() -> list[tuple[int, float, float]]:
    """The numbers around the board and where each is drawn."""
    return [
        (number, *_point(NUMBER_RADIUS, index * SECTOR_DEGREES))
        for index, number in enumerate(BOARD_GEOMETRY.numbers)
    ]


@cache
def dartboard_svg() -> Markup:
    """The drawn dartboard (the same every time, so rendered once)."""
    template = ENVIRONMENT.get_template("board_views/dartboard.html")
    return Markup(
        template.render(
            beds=drawn_beds(),
            numbers=_numbers(),
            radius=VIEW_RADIUS,
            board_radius=BOARD_GEOMETRY.double_outer + 8.0,
        )
    )
