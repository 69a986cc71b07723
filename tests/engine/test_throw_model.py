"""The throw model: bed probabilities against many simulated darts, the heat
map against the per-aim sums, the best aim moving as sigma grows, bad input."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import numpy as np
import pytest

from engine.beds import DB, MISS, Bed
from engine.board_geometry import SOFT, STEEL, bed_at, bed_centre
from engine.throw_model import (
    BOARD_BEDS,
    Spread,
    bed_distribution,
    bed_indices,
    bed_probabilities,
    best_scoring_aim,
    expected_points,
    expected_score_map,
    sample_beds,
    sample_throw,
)
from tests.paths import REPO

T20 = Bed(20, 3)
DARTS = 400_000


def test_bed_indices_follow_bed_at_on_random_points_and_on_wires() -> None:
    rng = np.random.default_rng(5)
    xs, ys = rng.uniform(-200, 200, 5000), rng.uniform(-200, 200, 5000)
    on_wires = [
        (0.0, 99.0),
        (0.0, 170.0),
        (0.0, 6.35),
        (103 * math.sin(math.radians(9)), 103 * math.cos(math.radians(9))),
    ]
    xs = np.concatenate([xs, [x for x, _ in on_wires]])
    ys = np.concatenate([ys, [y for _, y in on_wires]])
    beds = (*BOARD_BEDS, MISS)
    for geometry in (STEEL, SOFT):
        found = [beds[i] for i in bed_indices(xs, ys, geometry)]
        assert found == [bed_at(float(x), float(y), geometry) for x, y in zip(xs, ys, strict=True)]


@pytest.mark.parametrize(
    ("aim", "sigma"),
    [
        (bed_centre(T20), 5.0),
        (bed_centre(T20), 16.0),
        (bed_centre(DB), 25.0),
        (bed_centre(Bed(16, 2)), 40.0),
        ((30.0, -70.0), 100.0),
    ],
)
def test_bed_chances_match_simulated_darts(aim: tuple[float, float], sigma: float) -> None:
    chances = bed_probabilities(aim, sigma)
    assert chances.sum() == pytest.approx(1.0)
    assert (chances >= 0).all()
    hits = (
        np.bincount(
            [_index(bed) for bed in sample_beds(aim, sigma, DARTS, np.random.default_rng(11))],
            minlength=63,
        )
        / DARTS
    )
    error = np.sqrt(chances * (1 - chances) / DARTS)
    assert np.all(np.abs(hits - chances) <= 5 * error + 2e-4), (hits - chances, error)
    points = np.array([bed.points for bed in (*BOARD_BEDS, MISS)])
    assert expected_points(aim, sigma) == pytest.approx(float(chances @ points))


INDEX = {bed: i for i, bed in enumerate((*BOARD_BEDS, MISS))}


def _index(bed: Bed) -> int:
    return INDEX[bed]


def test_a_full_covariance_matches_simulated_darts() -> None:
    spread = Spread(xx=30.0**2, yy=8.0**2, xy=100.0)  # wide sideways, a little tilted
    aim = bed_centre(T20)
    chances = bed_distribution(aim, spread)
    hits = sample_beds(aim, spread, DARTS, np.random.default_rng(3))
    for bed in (T20, Bed(20, 1), Bed(1, 3), Bed(5, 3), Bed(18, 1), Bed(12, 1)):
        share = hits.count(bed) / DARTS
        assert share == pytest.approx(chances[bed], abs=5 * math.sqrt(chances[bed] / DARTS) + 2e-4)
    # wide sideways spreads into the neighbours far more than up and down
    assert chances[Bed(1, 3)] + chances[Bed(5, 3)] > 0.15
    assert chances[T20] > bed_distribution(aim, 30.0)[T20]


def test_a_tight_throw_at_a_bed_hits_it() -> None:
    assert bed_distribution(bed_centre(T20), 1.0)[T20] > 0.999
    assert bed_distribution(bed_centre(DB), 1.0)[DB] > 0.99


def test_a_throw_far_off_the_board_misses() -> None:
    assert bed_distribution((600.0, 0.0), 10.0)[MISS] == pytest.approx(1.0)


def test_the_heat_map_is_the_same_sum_as_each_aim() -> None:
    for sigma in (6.0, 20.0, 50.0):
        grid = expected_score_map(sigma)
        rng = np.random.default_rng(int(sigma))
        for _ in range(10):
            row, col = rng.integers(0, len(grid.ys), 2)
            aim = (float(grid.xs[col]), float(grid.ys[row]))
            assert grid.values[row, col] == pytest.approx(expected_points(aim, sigma), abs=1e-6)


def test_the_best_aim_moves_from_t20_to_t19_and_then_toward_the_centre() -> None:
    """As in Tibshirani, Price & Taylor (2011), figure 2."""
    assert best_scoring_aim(5.0).bed == T20
    wide = best_scoring_aim(30.0)
    assert wide.bed.number in (19, 7, 16, 3) and wide.y_mm < 0 and wide.x_mm < 0
    distances = [math.hypot(a.x_mm, a.y_mm) for a in map(best_scoring_aim, (40.0, 64.0, 100.0))]
    assert distances[0] > distances[1] > distances[2] and distances[2] < 30
    for sigma in (5.0, 30.0, 100.0):
        best = best_scoring_aim(sigma)
        assert best.expected == pytest.approx(expected_points((best.x_mm, best.y_mm), sigma))
        assert best.expected >= expected_points(bed_centre(T20), sigma) - 1e-9
        assert best.expected >= expected_score_map(sigma).values.max() - 1e-9


def test_sampling_is_reproducible_with_a_seed() -> None:
    first = [sample_throw(bed_centre(T20), 15.0, random.Random(4)) for _ in range(3)]
    again = [sample_throw(bed_centre(T20), 15.0, random.Random(4)) for _ in range(3)]
    assert first == again
    throw = sample_throw((0.0, 0.0), 40.0, np.random.default_rng(9))
    assert throw.bed == bed_at(throw.x_mm, throw.y_mm)


@pytest.mark.parametrize("sigma", [0.0, -3.0, math.nan, math.inf, 0.5, 5000.0, "7"])
def test_a_bad_sigma_is_refused_naming_it(sigma: object) -> None:
    with pytest.raises(ValueError, match="sigma"):
        bed_distribution((0.0, 0.0), sigma)  # type: ignore[arg-type]


def test_a_bad_spread_or_aim_is_refused() -> None:
    with pytest.raises(ValueError, match="positive-definite"):
        Spread(xx=100.0, yy=100.0, xy=200.0)
    with pytest.raises(ValueError, match="aim"):
        bed_distribution((math.nan, 0.0), 10.0)
    with pytest.raises(ValueError, match="aim"):
        bed_distribution((1.0,), 10.0)  # type: ignore[arg-type]


def test_importing_the_engine_does_not_load_numpy() -> None:
    code = "import sys, engine, engine.board_geometry; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)
