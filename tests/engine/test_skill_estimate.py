"""The skill estimate: sigma back from darts simulated at a known sigma, its interval,
its level, and the darts it cannot use."""

from __future__ import annotations

import numpy as np
import pytest

from engine.beds import DB, MISS, Bed
from engine.board_geometry import SOFT, STEEL, BoardGeometry, bed_centre
from engine.bot_levels import level
from engine.skill_estimate import SkillEstimateError, estimate_sigma
from engine.throw_model import sample_beds

T20 = Bed(20, 3)


@pytest.mark.parametrize(
    ("aim", "sigma", "geometry"),
    [
        (T20, 8.0, STEEL),
        (T20, 15.0, STEEL),
        (DB, 25.0, STEEL),
        (Bed(16, 2), 40.0, STEEL),
        (T20, 20.0, SOFT),
    ],
)
def test_four_hundred_darts_give_sigma_within_ten_percent(
    aim: Bed, sigma: float, geometry: BoardGeometry
) -> None:
    hits = sample_beds(bed_centre(aim, geometry), sigma, 400, np.random.default_rng(400), geometry)
    estimate = estimate_sigma(aim, hits, geometry)
    assert estimate.sigma_mm == pytest.approx(sigma, rel=0.10)
    low, high = estimate.interval
    assert low < estimate.sigma_mm < high
    assert low <= sigma <= high
    assert estimate.darts == 400


def test_fewer_darts_give_a_wider_interval() -> None:
    rng = np.random.default_rng(1)
    hits = sample_beds(bed_centre(T20), 15.0, 400, rng)
    few, many = estimate_sigma(T20, hits[:40]), estimate_sigma(T20, hits)
    assert few.interval[1] - few.interval[0] > many.interval[1] - many.interval[0]


def test_the_level_is_the_bot_that_throws_alike() -> None:
    sigma = level(7).sigma_mm
    hits = sample_beds(bed_centre(T20), sigma, 400, np.random.default_rng(7))
    assert estimate_sigma(T20, hits).level in (6, 7, 8)
    assert estimate_sigma(T20, hits).as_json().keys() == {"sigma_mm", "darts", "interval", "level"}


def test_a_wild_thrower_is_a_beginner() -> None:
    assert estimate_sigma(T20, [MISS] * 20 + [Bed(3, 1)] * 5).level == 1


def test_no_darts_or_a_miss_as_aim_is_refused() -> None:
    with pytest.raises(SkillEstimateError, match="no darts"):
        estimate_sigma(T20, [])
    with pytest.raises(SkillEstimateError, match="not a miss"):
        estimate_sigma(MISS, [T20])
