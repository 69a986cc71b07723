"""The board's geometry: known points, every wire by the documented rule, and
the bed regions used for integration."""

from __future__ import annotations

import math

import pytest

from engine.beds import DB, MISS, SB, Bed
from engine.board_geometry import (
    SOFT,
    STEEL,
    BoardGeometry,
    bed_at,
    bed_centre,
    bed_regions,
    polar_point,
)

CLOCKWISE = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)


@pytest.mark.parametrize(
    ("x", "y", "bed"),
    [
        (0.0, 0.0, "DB"),
        (0.0, 10.0, "SB"),
        (0.0, 50.0, "S20"),
        (0.0, 103.0, "T20"),
        (0.0, 140.0, "S20"),
        (0.0, 166.0, "D20"),
        (0.0, 170.5, "M"),
        (0.0, -103.0, "T3"),
        (103.0, 0.0, "T6"),
        (-103.0, 0.0, "T11"),
        (-166.0, 0.0, "D11"),
        (30.0, -80.0, "S17"),
        (30.0, -100.0, "T17"),
        (300.0, 300.0, "M"),
    ],
)
def test_known_points(x: float, y: float, bed: str) -> None:
    assert bed_at(x, y) == Bed.parse(bed)


def test_numbers_run_clockwise_from_the_top() -> None:
    found = [bed_at(*polar_point(60.0, 18.0 * i)).number for i in range(20)]
    assert tuple(found) == CLOCKWISE == STEEL.numbers


RINGS = [  # (radius of the wire, bed just inside for the 20, bed just outside)
    (STEEL.inner_bull, DB, SB),
    (STEEL.outer_bull, SB, Bed(20, 1)),
    (STEEL.treble_inner, Bed(20, 1), Bed(20, 3)),
    (STEEL.treble_outer, Bed(20, 3), Bed(20, 1)),
    (STEEL.double_inner, Bed(20, 1), Bed(20, 2)),
    (STEEL.double_outer, Bed(20, 2), MISS),
]


@pytest.mark.parametrize(("radius", "inside", "outside"), RINGS)
def test_a_point_on_a_ring_wire_belongs_to_the_bed_inside(
    radius: float, inside: Bed, outside: Bed
) -> None:
    assert bed_at(0.0, radius) == inside
    assert bed_at(0.0, radius - 1e-6) == inside
    assert bed_at(0.0, radius + 1e-6) == outside


@pytest.mark.parametrize("index", range(20))
@pytest.mark.parametrize(("radius", "multiplier"), [(50.0, 1), (103.0, 3), (140.0, 1), (166.0, 2)])
def test_a_point_on_a_radial_wire_belongs_to_the_sector_clockwise_of_it(
    index: int, radius: float, multiplier: int
) -> None:
    wire = 18.0 * index + 9.0  # between CLOCKWISE[index] and the next one clockwise
    after = CLOCKWISE[(index + 1) % 20]
    assert bed_at(*polar_point(radius, wire)) == Bed(after, multiplier)
    assert bed_at(*polar_point(radius, wire + 1e-6)) == Bed(after, multiplier)
    assert bed_at(*polar_point(radius, wire - 1e-6)) == Bed(CLOCKWISE[index], multiplier)


def test_every_region_holds_its_bed_and_they_tile_the_board() -> None:
    regions = bed_regions(STEEL)
    assert len(regions) == 2 + 20 * 4
    area = 0.0
    for region in regions:
        r = (region.r_inner + region.r_outer) / 2
        angle = (region.start_deg + region.end_deg) / 2
        if region.end_deg - region.start_deg == 360.0:
            r = region.r_outer / 2 if region.bed == DB else r
        assert bed_at(*polar_point(r, angle)) == region.bed
        span = math.radians(region.end_deg - region.start_deg)
        area += span / 2 * (region.r_outer**2 - region.r_inner**2)
    assert area == pytest.approx(math.pi * STEEL.radius**2)
    beds = {region.bed for region in regions}
    assert len(beds) == 62


def test_each_bed_centre_is_in_its_bed() -> None:
    for geometry in (STEEL, SOFT):
        for number in range(1, 21):
            for multiplier in (1, 2, 3):
                bed = Bed(number, multiplier)
                assert bed_at(*bed_centre(bed, geometry), geometry) == bed
        assert bed_at(*bed_centre(SB, geometry), geometry) == SB
        assert bed_at(*bed_centre(DB, geometry), geometry) == DB
    with pytest.raises(ValueError, match="miss"):
        bed_centre(MISS)


def test_the_soft_board_is_bigger() -> None:
    assert SOFT.double_outer == 197.5
    assert bed_at(0.0, 171.0, STEEL) == MISS
    assert bed_at(0.0, 190.0, SOFT) == Bed(20, 2)
    assert bed_at(0.0, 171.0, SOFT) == Bed(20, 1)


def test_a_geometry_with_radii_out_of_order_is_refused() -> None:
    with pytest.raises(ValueError, match="radii must rise"):
        BoardGeometry("bad", 6.0, 15.0, 110.0, 107.0, 162.0, 170.0)
    with pytest.raises(ValueError, match="numbers"):
        BoardGeometry("bad", 6.0, 15.0, 99.0, 107.0, 162.0, 170.0, (*range(1, 20), 1))
