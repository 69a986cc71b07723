"""The computer opponent's model: how long the X01 plan takes to solve (cold and
cached), how long one aim's bed distribution takes, whether every level plays
its table's 501 leg average (within 3) and Cricket MPR (within 0.15) over
500 simulated games each (``oche bot simulate x01 --level L --games 500``),
and how often level 9 beats level 2 at X01.

Run from the checkout: ``make bench`` or
``python -m benchmarks.bots [--legs N] [--aims N] [--games N]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from dataclasses import dataclass

import numpy as np

from engine.board_geometry import GEOMETRIES, STEEL, BoardGeometry
from engine.bot_levels import LEVELS, level
from engine.bot_match import simulate
from engine.strategy.x01 import clear_plans, x01_plan
from engine.throw_model import bed_probabilities, clear_caches

__all__ = ["distribution_seconds", "level_check", "main", "match", "plan_seconds"]

SEED = 2026
AVERAGE_TOLERANCE = 3.0
"""A level's simulated 501 leg average may differ from its table by this much (issue #26)."""
MPR_TOLERANCE = 0.15
"""A level's simulated Cricket MPR may differ from its table by this much (issue #26)."""
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


@dataclass(frozen=True, slots=True)
class LevelCheck:
    """One level's table figures against what ``games`` seeded games of each
    played (seed 0, as ``oche bot simulate`` plays by default), and the time."""

    level: int
    leg_average: float
    simulated_average: float
    visits_per_leg: float
    mpr: float
    simulated_mpr: float
    seconds: float

    @property
    def ok(self) -> bool:
        return (
            abs(self.simulated_average - self.leg_average) <= AVERAGE_TOLERANCE
            and abs(self.simulated_mpr - self.mpr) <= MPR_TOLERANCE
        )


def level_check(
    games: int, geometry: BoardGeometry = STEEL, numbers: tuple[int, ...] = LEVELS
) -> list[LevelCheck]:
    """Each level of ``numbers`` (every one by default): ``games`` legs of 501
    and ``games`` games of Cricket alone."""
    rows = []
    for entry in (level(number, geometry) for number in numbers):
        start = time.perf_counter()
        x01 = simulate("x01", [entry.level], games, seed=0, geometry=geometry).bots[0]
        cricket = simulate("cricket", [entry.level], games, seed=0, geometry=geometry).bots[0]
        rows.append(
            LevelCheck(
                entry.level,
                entry.leg_average,
                x01.three_dart_average,
                x01.visits / games,
                entry.mpr,
                cricket.mpr,
                time.perf_counter() - start,
            )
        )
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
    parser.add_argument("--legs", type=int, default=500)
    parser.add_argument("--geometry", choices=sorted(GEOMETRIES), default="steel")
    parser.add_argument(
        "--levels", default=",".join(map(str, LEVELS)), help="levels to check (all: 1,2,...,10)"
    )
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
    print(f"{args.legs} legs of 501 and games of Cricket a level, seed 0, {args.geometry}:")
    print(f"{'level':>5}{'leg avg':>9}{'played':>8}{'visits':>8}{'MPR':>6}{'played':>8}{'s':>6}")
    numbers = tuple(int(number) for number in args.levels.split(","))
    for row in level_check(args.legs, GEOMETRIES[args.geometry], numbers):
        print(
            f"{row.level:>5}{row.leg_average:>9.2f}{row.simulated_average:>8.2f}"
            f"{row.visits_per_leg:>8.1f}{row.mpr:>6.2f}{row.simulated_mpr:>8.2f}"
            f"{row.seconds:>6.1f}  {'ok' if row.ok else 'OFF'}"
        )

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
