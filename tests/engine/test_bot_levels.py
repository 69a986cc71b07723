"""Bot levels: each level plays its advertised whole-leg 501 average and Cricket
MPR. The stored calibration is checked against the model exactly (the X01
plan's own policy evaluated, no sampling) and against seeded simulated legs,
with a tolerance from those legs' own standard error."""

from __future__ import annotations

import math
import statistics
from itertools import pairwise

import pytest

from engine.board_geometry import GEOMETRIES, SOFT, STEEL, BoardGeometry
from engine.bot_calibration import SIGMA_GRID
from engine.bot_levels import (
    TARGET_AVERAGES,
    average_for_sigma,
    bot_levels,
    interpolate_sigma,
    level,
    level_for_sigma,
    sigma_for_average,
    sigma_for_mpr,
    t20_average_for_sigma,
)
from engine.bot_match import simulate
from engine.bot_targets import MPR_SPAN
from engine.strategy.x01 import expected_leg, x01_plan

STANDARD_ERRORS = 4.0
"""How many of a seeded sample's standard errors its mean may be off the table."""


@pytest.mark.parametrize("geometry", [STEEL, SOFT])
def test_ten_levels_from_a_beginner_to_a_top_professional(geometry: BoardGeometry) -> None:
    levels = bot_levels(geometry)
    assert [entry.level for entry in levels] == list(range(1, 11))
    for entry, target in zip(levels, TARGET_AVERAGES, strict=True):
        assert entry.leg_average == pytest.approx(target, abs=0.5)
    assert levels[0].visits_per_leg < 40  # a beginner finishes well under 60 visits
    assert levels[-1].leg_average >= 95
    for lower, higher in pairwise(levels):
        assert higher.sigma_mm < lower.sigma_mm
        assert higher.mpr > lower.mpr and higher.match_mpr > lower.match_mpr
        assert higher.t20_average > lower.t20_average  # the model figure


@pytest.mark.parametrize(("geometry", "number"), [(STEEL, 1), (STEEL, 10), (SOFT, 6)])
def test_the_stored_leg_average_is_what_the_model_plays(
    geometry: BoardGeometry, number: int
) -> None:
    """The table against the throw model and the X01 plan now: a change to
    either without re-running benchmarks/calibrate_bots.py fails here."""
    entry = level(number, geometry)
    leg = expected_leg(x01_plan(entry.sigma_mm, geometry))
    assert leg.three_dart_average == pytest.approx(entry.leg_average, abs=1e-4)
    assert leg.visits == pytest.approx(entry.visits_per_leg, abs=1e-4)


BATCHES = 10
"""Independent seeded batches a simulated figure's standard error is measured from."""


def _batch_error(totals: list[tuple[int, int]]) -> tuple[float, float]:
    """The ratio sum(a) / sum(b) of the batches' (a, b) and its standard error,
    from the spread of the batches (the ratio's linearised residuals)."""
    ratio = sum(a for a, _ in totals) / sum(b for _, b in totals)
    residuals = [a - ratio * b for a, b in totals]
    mean_b = statistics.fmean(b for _, b in totals)
    return ratio, statistics.stdev(residuals) / math.sqrt(len(totals)) / mean_b


@pytest.mark.parametrize(("number", "legs"), [(2, 100), (9, 400)])
def test_seeded_legs_average_what_the_table_says(number: int, legs: int) -> None:
    """Seeded 501 legs through the engine (not the calibration's seeds): their
    average is within four of its own standard errors of the table, which
    ties the exact evaluation to what the game's statistics count."""
    entry = level(number)
    batches = [
        simulate("x01", [number], legs // BATCHES, seed=1000 + batch).bots[0]
        for batch in range(BATCHES)
    ]
    per_dart, error = _batch_error([(bot.points, bot.darts) for bot in batches])
    tolerance = STANDARD_ERRORS * 3 * error
    assert tolerance < 6.0  # enough to tell today's table from the old one (5-15 off)
    assert 3 * per_dart == pytest.approx(entry.leg_average, abs=tolerance)


@pytest.mark.parametrize(("number", "games"), [(3, 60), (8, 100)])
def test_seeded_cricket_games_play_the_tables_mpr(number: int, games: int) -> None:
    entry = level(number)
    batches = [
        simulate("cricket", [number], games // BATCHES, seed=500 + batch).bots[0]
        for batch in range(BATCHES)
    ]
    mpr, error = _batch_error([(bot.marks, bot.visits) for bot in batches])
    tolerance = STANDARD_ERRORS * error
    assert tolerance < 0.3
    assert mpr == pytest.approx(entry.mpr, abs=tolerance)


def test_the_soft_board_needs_a_wider_sigma_for_the_same_average() -> None:
    for steel, soft in zip(bot_levels(STEEL), bot_levels(SOFT), strict=True):
        assert soft.sigma_mm > steel.sigma_mm
        assert soft.leg_average == pytest.approx(steel.leg_average, abs=0.5)


def test_an_average_between_levels_interpolates_the_grid() -> None:
    for average in (25.0, 55.0, 87.5):
        sigma = sigma_for_average(average)
        assert average_for_sigma(sigma) == pytest.approx(average, abs=1e-6)
        assert level(9).sigma_mm < sigma_for_average(average) < level(1).sigma_mm
    assert sigma_for_average(level(4).leg_average) == pytest.approx(level(4).sigma_mm, rel=0.01)


def test_an_interpolated_average_is_played() -> None:
    """Half-way between two grid points (the worst place), the model plays
    the average asked for within a tenth of a point."""
    grid = SIGMA_GRID["steel"]
    row = next(i for i, (_, average, _) in enumerate(grid) if average < 60)
    wanted = math.sqrt(grid[row - 1][1] * grid[row][1])
    leg = expected_leg(x01_plan(interpolate_sigma(grid, wanted)))
    assert leg.three_dart_average == pytest.approx(wanted, abs=0.1)


@pytest.mark.parametrize("average", [0.5, 200.0, float("nan"), "55"])
def test_an_average_out_of_reach_is_refused(average: float) -> None:
    with pytest.raises(ValueError, match="average"):
        sigma_for_average(average)


@pytest.mark.parametrize("board", ["steel", "soft"])
def test_a_cricket_mpr_asked_for_is_played_by_the_level_that_plays_it(board: str) -> None:
    """``{"cpu": {"mpr": m}}``: a level's own MPR gives that level's spread,
    one between two levels a spread between theirs, the span's ends reach."""
    geometry = GEOMETRIES[board]
    five, six = level(5, geometry), level(6, geometry)
    assert sigma_for_mpr(five.mpr, geometry) == pytest.approx(five.sigma_mm, rel=1e-6)
    between = sigma_for_mpr((five.mpr + six.mpr) / 2, geometry)
    assert six.sigma_mm < between < five.sigma_mm
    low, high = MPR_SPAN
    assert sigma_for_mpr(high, geometry) < sigma_for_mpr(low, geometry)


@pytest.mark.parametrize("mpr", [0.2, 5.0, float("nan"), "2"])
def test_an_mpr_out_of_reach_is_refused(mpr: float) -> None:
    with pytest.raises(ValueError, match="MPR"):
        sigma_for_mpr(mpr)


def test_a_level_outside_one_to_ten_is_refused() -> None:
    with pytest.raises(ValueError, match="level is 1 to 10"):
        level(11)
    assert level(6).level == 6


def test_the_level_of_each_levels_sigma_is_that_level() -> None:
    for entry in bot_levels():
        assert level_for_sigma(entry.sigma_mm) == entry.level
    assert level_for_sigma(400.0) == 1 and level_for_sigma(1.0) == 10


def test_the_t20_average_is_the_models_figure() -> None:
    entry = level(5)
    assert entry.t20_average == pytest.approx(t20_average_for_sigma(entry.sigma_mm))
    assert entry.t20_average > entry.leg_average  # the checkout costs darts
