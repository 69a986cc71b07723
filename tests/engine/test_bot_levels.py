"""Bot levels: sigma falls and the average rises level by level, the table
follows from sigma alone, and simulated visits throw what the table says."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from engine.beds import Bed
from engine.board_geometry import SOFT, STEEL, bed_centre
from engine.bot_levels import (
    average_for_sigma,
    bot_levels,
    level,
    level_for_sigma,
    mpr_for_sigma,
    sigma_for_average,
)
from engine.throw_model import bed_indices


def test_ten_levels_from_beginner_to_strong_league_player() -> None:
    levels = bot_levels()
    assert [entry.level for entry in levels] == list(range(1, 11))
    assert levels[0].three_dart_average == pytest.approx(20, abs=1)
    assert levels[-1].three_dart_average >= 100
    for lower, higher in pairwise(levels):
        assert higher.sigma_mm < lower.sigma_mm
        assert higher.three_dart_average > lower.three_dart_average
        assert higher.mpr > lower.mpr


@pytest.mark.parametrize("geometry", [STEEL, SOFT])
def test_the_table_follows_from_sigma(geometry: object) -> None:
    for entry in bot_levels(geometry):  # type: ignore[arg-type]
        assert entry.three_dart_average == pytest.approx(
            average_for_sigma(entry.sigma_mm, geometry)
        )  # type: ignore[arg-type]
        assert entry.mpr == pytest.approx(mpr_for_sigma(entry.sigma_mm, geometry))  # type: ignore[arg-type]


def test_the_soft_board_needs_a_wider_sigma_for_the_same_average() -> None:
    for steel, soft in zip(bot_levels(STEEL), bot_levels(SOFT), strict=True):
        assert soft.sigma_mm > steel.sigma_mm


def test_sigma_for_an_average_round_trips() -> None:
    for average in (25.0, 55.0, 87.5):
        assert average_for_sigma(sigma_for_average(average)) == pytest.approx(average, abs=0.01)


@pytest.mark.parametrize("average", [0.5, 200.0, float("nan")])
def test_an_average_out_of_reach_is_refused(average: float) -> None:
    with pytest.raises(ValueError, match="average"):
        sigma_for_average(average)


def test_a_level_outside_one_to_ten_is_refused() -> None:
    with pytest.raises(ValueError, match="level is 1 to 10"):
        level(11)
    assert level(6).level == 6


def test_the_level_of_each_levels_sigma_is_that_level() -> None:
    for entry in bot_levels():
        assert level_for_sigma(entry.sigma_mm) == entry.level


def test_simulated_visits_at_t20_average_what_the_table_says() -> None:
    entry = level(5)
    rng = np.random.default_rng(2026)
    visits = 10_000
    x, y = bed_centre(Bed(20, 3))
    errors = rng.standard_normal((2, visits * 3)) * entry.sigma_mm
    index = bed_indices(x + errors[0], y + errors[1])
    points = np.array([b.points for b in _beds()])[index]
    average = points.reshape(visits, 3).sum(axis=1).mean()
    assert average == pytest.approx(entry.three_dart_average, abs=2)


def _beds() -> tuple[Bed, ...]:
    from engine.throw_model import BOARD_BEDS

    return (*BOARD_BEDS, Bed(0, 0))
