"""The computer opponent's model: how long the X01 plan takes to solve (cold and
cached), how long one aim's bed distribution takes, whether each level
throws its table average over simulated visits at T20, and how often level 9
beats level 2 at X01 (``oche bot simulate x01 --level 9 --against 2``).

Run from the checkout: ``make bench`` or
``python -m benchmarks.bots [--visits N] [--aims N] [--games N]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from engine.beds import MISS, Bed
from engine.board_geometry import STEEL, bed_centre
from engine.bot_levels import bot_levels, level
from engine.bot_match import simulate
from engine.strategy.x01 import clear_plans, x01_plan
from engine.throw_model import BOARD_BEDS, bed_indices, bed_probabilities, clear_caches

__all__ = ["calibration", "distribution_seconds", "main", "match", "plan_seconds"]

SEED = 2026
CALIBRATION_TOLERANCE = 2.0
"""A level's simulated average may differ from its table by this much (issue #13)."""
MATCH_WIN_RATE = 0.95
"""Level 9 must win at least this share of X01 games against level 2 (issue #13)."""


def plan_seconds(sigma: float, repeats: int = 20) -> tuple[float, float]:
    """Seconds to solve the 501 double-out plan from nothing (the board raster
    and every cache cleared), and the median seconds of a cached call."""
    clear_plans()
    clear_caches()
    start = time.perf_counter()
    x01_plan(sigma)
    cold = time.perf_counter() - start
    cached = []
    for _ in range(repeats):
        start = time.perf_counter()
        x01_plan(sigma)
        cached.append(time.perf_counter() - start)
    return cold, statistics.median(cached)


def distribution_seconds(sigma: float, aims: int) -> float:
    """Median seconds of one aim's bed distribution with the raster warm, over
    ``aims`` random aims on the board."""
    rng = np.random.default_rng(SEED)
    radius = rng.uniform(0, STEEL.radius, aims)
    angle = rng.uniform(0, 2 * np.pi, aims)
    points = list(zip(radius * np.sin(angle), radius * np.cos(angle), strict=True))
    bed_probabilities(points[0], sigma)  # warm the raster for this sigma
    times = []
    for x, y in points:
        start = time.perf_counter()
        bed_probabilities((float(x), float(y)), sigma)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def calibration(visits: int) -> list[tuple[int, float, float]]:
    """(level, table average, simulated average) over ``visits`` visits of
    three darts aimed at the centre of T20, fixed seed."""
    rng = np.random.default_rng(SEED)
    points = np.array([bed.points for bed in (*BOARD_BEDS, MISS)])
    x, y = bed_centre(Bed(20, 3))
    rows = []
    for entry in bot_levels():
        errors = rng.standard_normal((2, visits * 3)) * entry.sigma_mm
        scored = points[bed_indices(x + errors[0], y + errors[1])]
        rows.append((entry.level, entry.three_dart_average, float(scored.sum() / visits)))
    return rows


def match(
    games: int, game_id: str = "x01", levels: tuple[int, int] = (9, 2)
) -> tuple[float, float, float, float]:
    """(first bot's win rate, both bots' figure, seconds) of ``games`` games
    between the two levels, seed 0 (the command's default): the figure is
    the three-dart average (X01) or MPR (cricket family) of each bot."""
    start = time.perf_counter()
    result = simulate(game_id, list(levels), games, seed=0)
    seconds = time.perf_counter() - start
    first, second = result.bots
    if game_id == "x01":
        return first.win_rate, first.three_dart_average, second.three_dart_average, seconds
    return first.win_rate, first.mpr, second.mpr, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=10_000)
    parser.add_argument("--aims", type=int, default=2_000)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    sigma = level(6).sigma_mm
    print(f"python {platform.python_version()} on {platform.machine()}")
    cold, cached = plan_seconds(sigma)
    print(
        f"X01 501 double-out plan, sigma {sigma:.2f} mm: "
        f"cold {cold:.2f} s, cached {cached * 1e3:.3f} ms"
    )
    for each in (level(10).sigma_mm, sigma, level(2).sigma_mm):
        seconds = distribution_seconds(each, args.aims)
        print(f"one aim's bed distribution, sigma {each:.2f} mm: {seconds * 1e3:.3f} ms (median)")
    print(f"{'level':>5}{'table':>9}{'simulated':>11}  ({args.visits} visits at T20)")
    for number, table, simulated in calibration(args.visits):
        mark = "ok" if abs(simulated - table) <= CALIBRATION_TOLERANCE else "OFF"
        print(f"{number:>5}{table:>9.2f}{simulated:>11.2f}  {mark}")

    for game_id, levels, figure in (("x01", (9, 2), "average"), ("cricket", (9, 3), "MPR")):
        rate, mine, theirs, seconds = match(args.games, game_id, levels)
        mark = "" if game_id != "x01" else ("  ok" if rate >= MATCH_WIN_RATE else "  OFF")
        print(
            f"simulate {game_id} level {levels[0]} vs {levels[1]}, {args.games} games: "
            f"level {levels[0]} wins {rate:.1%}{mark}; {figure} {mine:.2f} vs {theirs:.2f}; "
            f"{seconds:.2f} s"
        )


if __name__ == "__main__":
    main()
