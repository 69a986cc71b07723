"""Calibrate the computer levels: the throw spread sigma that plays each level's
whole-leg 501 average, and what each level then plays in Cricket. Writes
``engine/bot_calibration.py`` (the table the levels and ``{"cpu": {"average":
A}}`` read; nothing is solved at start-up).

For each board, a grid of sigma values: the X01 plan for 501 double out is
solved at each and its own policy evaluated exactly (``expected_leg``: darts
thrown and visits, so the leg average 3 x 501 / darts, no sampling). A
level's sigma is the grid's interpolation at its target average, evaluated
exactly again; its Cricket MPR comes from seeded simulated games (alone, as
``oche bot simulate cricket --level L`` plays, and against its own level).

Run from the checkout (a few minutes): ``python -m benchmarks.calibrate_bots``
(``--check`` prints the table and writes nothing).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

from engine.board_geometry import GEOMETRIES, BoardGeometry
from engine.bot_calibration import LEVEL_TABLE, SIGMA_GRID
from engine.bot_levels import interpolate_sigma
from engine.bot_match import simulate
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.strategy.x01 import clear_plans, expected_leg, x01_plan

__all__ = ["GRID_SIGMAS", "MPR_GAMES", "MPR_SEED", "calibrate", "main", "module_text"]

GRID_SIGMAS = tuple(round(4.0 * 1.1**k, 4) for k in range(30))
"""The sigma grid on the steel board (4 to about 63 mm, 10 % steps); a board
of another size scales it by its double ring's radius."""
MPR_GAMES = 1000
"""Cricket games per level for its MPR (alone) and its match MPR (against itself)."""
MPR_SEED = 2026

OUTPUT = Path(__file__).resolve().parent.parent / "engine" / "bot_calibration.py"

GridRow = tuple[float, float, float]
LevelRow = tuple[int, float, float, float, float, float]


def grid(geometry: BoardGeometry) -> list[GridRow]:
    """(sigma, leg average, visits per leg) at every grid sigma, exactly."""
    scale = geometry.double_outer / GEOMETRIES["steel"].double_outer
    rows = []
    for sigma in GRID_SIGMAS:
        leg = expected_leg(x01_plan(sigma * scale, geometry))
        rows.append((round(sigma * scale, 4), leg.three_dart_average, leg.visits))
        clear_plans()
    return rows


def level_rows(geometry: BoardGeometry, rows: list[GridRow]) -> list[LevelRow]:
    """Each level: its sigma, exact leg average and visits, solo and match MPR."""
    out = []
    for number, target in zip(LEVELS, TARGET_AVERAGES, strict=True):
        sigma = round(interpolate_sigma(rows, target), 4)
        leg = expected_leg(x01_plan(sigma, geometry))
        clear_plans()
        out.append((number, sigma, leg.three_dart_average, leg.visits, 0.0, 0.0))
    return out


def cricket_mprs(geometry: BoardGeometry, levels: list[LevelRow]) -> list[LevelRow]:
    """The level rows with their Cricket MPR filled in from seeded games."""
    out = []
    for row in levels:
        number, sigma = row[0], row[1]
        solo = simulate("cricket", [number], MPR_GAMES, MPR_SEED, geometry=geometry, sigmas=[sigma])
        match = simulate(
            "cricket", [number, number], MPR_GAMES, MPR_SEED, geometry=geometry, sigmas=[sigma] * 2
        )
        paired = (match.bots[0].marks + match.bots[1].marks) / (
            match.bots[0].visits + match.bots[1].visits
        )
        out.append((*row[:4], solo.bots[0].mpr, paired))
    return out


def calibrate(names: list[str]) -> dict[str, tuple[list[GridRow], list[LevelRow]]]:
    """The grid and the level rows of every board named."""
    tables: dict[str, tuple[list[GridRow], list[LevelRow]]] = {}
    for name in sorted(names, key=list(GEOMETRIES).index):
        geometry = GEOMETRIES[name]
        start = time.perf_counter()
        rows = grid(geometry)
        levels = level_rows(geometry, rows)
        levels = cricket_mprs(geometry, levels)
        tables[name] = (rows, levels)
        print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
        for level in levels:
            number, sigma, average, visits, mpr, paired = level
            print(
                f"  level {number}: sigma {sigma:.2f}, leg {average:.2f}, visits {visits:.1f}, "
                f"MPR {mpr:.2f} (match {paired:.2f})"
            )
    return tables


def module_text(tables: dict[str, tuple[list[GridRow], list[LevelRow]]]) -> str:
    """``engine/bot_calibration.py``'s source for these tables."""
    lines = [
        '"""The computer levels\' calibration, written by ``python -m',
        "benchmarks.calibrate_bots`` (do not edit by hand; docs/bots.md says how).",
        "",
        "``SIGMA_GRID[board]``: (sigma mm, whole-leg 501 average, visits per leg)",
        "rising in sigma, from the X01 plan's own policy evaluated exactly.",
        "``LEVEL_TABLE[board]``: (level, sigma mm, leg average, visits per leg,",
        "Cricket MPR alone, Cricket MPR against the same level).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        '__all__ = ["LEVEL_TABLE", "SIGMA_GRID"]',
        "",
        "SIGMA_GRID: dict[str, tuple[tuple[float, float, float], ...]] = {",
    ]
    for name, (rows, _) in tables.items():
        lines.append(f'    "{name}": (')
        lines += [f"        ({s!r}, {round(a, 6)!r}, {round(v, 6)!r})," for s, a, v in rows]
        lines.append("    ),")
    lines += [
        "}",
        "",
        "LEVEL_TABLE: dict[str, tuple[tuple[int, float, float, float, float, float], ...]] = {",
    ]
    for name, (_, levels) in tables.items():
        lines.append(f'    "{name}": (')
        for number, sigma, average, visits, mpr, paired in levels:
            figures = ", ".join(repr(round(x, 6)) for x in (sigma, average, visits, mpr, paired))
            lines.append(f"        ({number}, {figures}),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 for the run: the plan's matrices are small, and BLAS threads on a
busy machine made each solve ten times slower."""


def main() -> None:
    if any(name not in os.environ for name in THREAD_VARIABLES):
        env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, "1")}
        os.execve(
            sys.executable, [sys.executable, "-m", "benchmarks.calibrate_bots", *sys.argv[1:]], env
        )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--geometry", choices=sorted(GEOMETRIES), action="append")
    parser.add_argument("--check", action="store_true", help="print only, write nothing")
    parser.add_argument("--out", type=Path, default=OUTPUT, help="the module to write")
    args = parser.parse_args()
    tables = calibrate(args.geometry or ["steel", "soft"])
    kept = {
        name: (list(SIGMA_GRID[name]), list(LEVEL_TABLE[name]))
        for name in sorted(LEVEL_TABLE)
        if name not in tables
    }
    tables = {**kept, **tables}  # a board not calibrated this time keeps its table
    if not args.check:
        args.out.write_text(module_text(tables))
        print(f"wrote {args.out} (run ruff format on it)")
    assert all(math.isfinite(row[2]) for _, levels in tables.values() for row in levels)


if __name__ == "__main__":
    main()
