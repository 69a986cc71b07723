"""``oche bot``: the computer opponent's model from the command line.

- ``oche bot levels [--geometry steel|soft] [--json]``: levels 1-10 with the
  501 leg average and visits they play, their Cricket MPR, sigma and the
  model's T20 average (docs/bots.md says how each is defined and calibrated);
- ``oche bot aim --sigma MM [--geometry steel|soft] [--json]``: the aim with
  the most expected points per dart for that sigma;
- ``oche bot heatmap --sigma MM --out FILE.png``: the expected score of every
  aim point over the board, the wires drawn on top;
- ``oche bot simulate GAME --level N [--against M] [--games K] [--seed S]``:
  bots play whole games through the engine (``engine.bot_match``) and the
  command prints their averages or MPR and the first bot's win rate.

The PNG is written by a small numpy + zlib encoder here rather than pygame, so
the heat map needs no display extra and works on a headless Pi. Bad input
exits 2 with one line naming it.
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

from firmware_bridge.cli.command_support import Commands, UsageError, key_values

__all__ = [
    "add_parser",
    "aim_json",
    "levels_json",
    "parse_sigma",
    "png_bytes",
    "simulate_json",
]

GEOMETRY_NAMES = ("steel", "soft")

_RAMP = (
    (0.0, (20, 24, 82)),
    (0.3, (84, 30, 140)),
    (0.55, (190, 55, 90)),
    (0.8, (245, 150, 40)),
    (1.0, (252, 240, 120)),
)
"""Dark blue (low) through purple and red to pale yellow (high)."""

WIRE_COLOUR = (235, 235, 235)


def parse_sigma(text: str) -> float:
    """``--sigma``: a number of mm within the model's range; else a UsageError."""
    from engine.throw_model import MAX_SIGMA_MM, MIN_SIGMA_MM

    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--sigma {text!r} is not a number of mm") from None
    if not (math.isfinite(value) and MIN_SIGMA_MM <= value <= MAX_SIGMA_MM):
        raise UsageError(f"--sigma {text!r} must be from {MIN_SIGMA_MM:g} to {MAX_SIGMA_MM:g} mm")
    return value


def _geometry(name: str) -> Any:
    from engine.board_geometry import GEOMETRIES

    return GEOMETRIES[name]


def levels_json(geometry_name: str = "steel") -> list[dict[str, Any]]:
    """Levels 1-10 as ``oche bot levels --json`` prints them."""
    from engine.bot_levels import bot_levels

    return [level.as_json() for level in bot_levels(_geometry(geometry_name))]


def aim_json(sigma: float, geometry_name: str = "steel") -> dict[str, Any]:
    """The best scoring aim for ``sigma`` as ``oche bot aim --json`` prints it."""
    from engine.throw_model import best_scoring_aim

    return best_scoring_aim(sigma, _geometry(geometry_name)).as_json()


def _levels(args: argparse.Namespace) -> int:
    levels = levels_json(args.geometry)
    if args.json:
        sys.stdout.write(json.dumps(levels) + "\n")
        return 0
    lines = [
        f"{'level':>5}  {'leg avg':>7}  {'visits':>6}  {'MPR':>4}  {'match MPR':>9}  "
        f"{'sigma mm':>8}  {'T20 avg':>7}"
    ]
    lines += [
        f"{row['level']:>5}  {row['leg_average']:>7.2f}  {row['visits_per_leg']:>6.1f}  "
        f"{row['mpr']:>4.2f}  {row['match_mpr']:>9.2f}  {row['sigma_mm']:>8.2f}  "
        f"{row['t20_average']:>7.2f}"
        for row in levels
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _aim(args: argparse.Namespace) -> int:
    aim = aim_json(parse_sigma(args.sigma), args.geometry)
    if args.json:
        sys.stdout.write(json.dumps(aim) + "\n")
    else:
        sys.stdout.write(
            f"aim at {aim['bed']} ({aim['x_mm']}, {aim['y_mm']}) mm: "
            f"{aim['expected']} points a dart\n"
        )
    return 0


def _heatmap(args: argparse.Namespace) -> int:
    sigma = parse_sigma(args.sigma)
    if not 64 <= args.size <= 4096:
        raise UsageError(f"--size {args.size} must be from 64 to 4096 pixels")
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out {args.out!r} must name a .png file")
    data = heatmap_png(sigma, args.geometry, args.size)
    try:
        out.write_bytes(data)
    except OSError as error:
        raise UsageError(f"cannot write {args.out!r}: {error.strerror}") from None
    aim = aim_json(sigma, args.geometry)
    sys.stdout.write(
        f"wrote {args.out}: best aim {aim['bed']} ({aim['x_mm']}, {aim['y_mm']}) mm, "
        f"{aim['expected']} points a dart\n"
    )
    return 0


def simulate_json(
    game: str,
    levels: list[int],
    games: int,
    seed: int,
    options: dict[str, object] | None = None,
    geometry_name: str = "steel",
) -> dict[str, Any]:
    """The figures ``oche bot simulate --json`` prints; bad input is a UsageError."""
    from engine.bot_match import SimulationError, simulate

    try:
        result = simulate(game, levels, games, seed, options, _geometry(geometry_name))
    except SimulationError as error:
        raise UsageError(str(error)) from None
    return result.as_json()


def _simulate(args: argparse.Namespace) -> int:
    levels = [_whole("level", args.level, 1, 10)]
    if args.against is not None:
        levels.append(_whole("against", args.against, 1, 10))
    games = _whole("games", args.games, 1, 100_000)
    seed = _whole("seed", args.seed, 0, 2**63 - 1)
    options: dict[str, object] = dict(key_values(args.option, "option"))
    result = simulate_json(args.game, levels, games, seed, options, args.geometry)
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    lines = [f"{result['game']}: {result['games']} games, seed {result['seed']}"]
    rows = [result] + ([result["opponent"]] if "opponent" in result else [])
    for row in rows:
        figures = [f"level {row['level']}"]
        if "three_dart_average" in row:
            figures.append(f"average {row['three_dart_average']}")
        if "mpr" in row:
            figures.append(f"MPR {row['mpr']}")
        figures.append(f"won {row['win_rate']:.1%}")
        figures.append(f"{row['darts_per_game']} darts a game")
        lines.append("  " + ", ".join(figures))
    lines.append(f"  draws {result['draws']}, unfinished {result['unfinished']}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _whole(name: str, text: str, low: int, high: int) -> int:
    """``--name``'s whole number from ``low`` to ``high``, else a UsageError."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"--{name} {text!r} is not a whole number") from None
    if not low <= value <= high:
        raise UsageError(f"--{name} {text!r} must be from {low} to {high}")
    return value


def heatmap_png(sigma: float, geometry_name: str, size: int) -> bytes:
    """The heat map as PNG bytes: expected points per dart at every aim point
    (bilinear between the model's grid), wires drawn on top."""
    import numpy as np

    from engine.throw_model import bed_indices, expected_score_map

    geometry = _geometry(geometry_name)
    grid = expected_score_map(sigma, geometry)
    half = geometry.radius * 1.08
    centres = (np.arange(size) + 0.5) / size * 2 * half - half
    xs, ys = np.meshgrid(centres, centres[::-1])  # image rows go down, y goes up
    values = _bilinear(grid.xs, grid.values, xs, ys)
    top = float(values.max()) or 1.0
    image = _colour(values / top)
    beds = bed_indices(xs, ys, geometry)
    wire = np.zeros(beds.shape, dtype=bool)
    wire[:, 1:] |= beds[:, 1:] != beds[:, :-1]
    wire[1:, :] |= beds[1:, :] != beds[:-1, :]
    image[wire] = WIRE_COLOUR
    return png_bytes(image)


def _bilinear(axis: Any, values: Any, xs: Any, ys: Any) -> Any:
    import numpy as np

    step = float(axis[1] - axis[0])
    fx = np.clip((xs - axis[0]) / step, 0, len(axis) - 1.000001)
    fy = np.clip((ys - axis[0]) / step, 0, len(axis) - 1.000001)
    ix, iy = fx.astype(int), fy.astype(int)
    tx, ty = fx - ix, fy - iy
    return (
        values[iy, ix] * (1 - tx) * (1 - ty)
        + values[iy, ix + 1] * tx * (1 - ty)
        + values[iy + 1, ix] * (1 - tx) * ty
        + values[iy + 1, ix + 1] * tx * ty
    )


def _colour(share: Any) -> Any:
    import numpy as np

    stops = np.array([stop for stop, _ in _RAMP])
    colours = np.array([colour for _, colour in _RAMP], dtype=np.float64)
    channels = [np.interp(share, stops, colours[:, c]) for c in range(3)]
    return np.stack(channels, axis=-1).round().astype(np.uint8)


def png_bytes(rgb: Any) -> bytes:
    """An 8-bit RGB PNG of the ``(height, width, 3)`` uint8 array ``rgb``."""
    import numpy as np

    height, width, _ = rgb.shape
    rows = np.concatenate([np.zeros((height, 1), dtype=np.uint8), rgb.reshape(height, -1)], 1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
        + chunk(b"IEND", b"")
    )


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "bot",
        help="the computer opponent: levels, best aim, heat map, simulated games",
        description="The computer opponent's throw model (docs/bots.md): a dart lands at "
        "the aim plus a normal error of sigma mm.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def geometry_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--geometry",
            choices=GEOMETRY_NAMES,
            default="steel",
            help="board: WDF steel-tip or 15.5-inch soft-tip (default steel)",
        )

    levels = actions.add_parser(
        "levels",
        help="levels 1-10: 501 leg average, Cricket MPR, sigma",
        description="Print levels 1-10: the whole-leg 501 double-out average each plays "
        "(checkout included) and its visits per leg, its Cricket MPR alone and against "
        "its own level, its throw spread sigma (mm) and, as a model figure, 3 x the "
        "expected points of a dart aimed at T20's centre.",
    )
    geometry_option(levels)
    levels.add_argument("--json", action="store_true", help="print a JSON list")
    levels.set_defaults(run=_levels)

    aim = actions.add_parser(
        "aim",
        help="the aim with the most expected points per dart for a sigma",
        description="Print the aim point with the highest expected points per dart.",
    )
    aim.add_argument("--sigma", required=True, metavar="MM", help="throw spread sigma in mm")
    geometry_option(aim)
    aim.add_argument(
        "--json", action="store_true", help='print {"x_mm", "y_mm", "bed", "expected"}'
    )
    aim.set_defaults(run=_aim)

    heatmap = actions.add_parser(
        "heatmap",
        help="draw the expected score over the board as a PNG",
        description="Write a PNG of the expected points per dart at every aim point.",
    )
    heatmap.add_argument("--sigma", required=True, metavar="MM", help="throw spread sigma in mm")
    heatmap.add_argument("--out", required=True, metavar="FILE.png", help="the PNG to write")
    heatmap.add_argument("--size", type=int, default=600, metavar="PX", help="width (default 600)")
    geometry_option(heatmap)
    heatmap.set_defaults(run=_heatmap)

    simulate = actions.add_parser(
        "simulate",
        help="bots play whole games: averages, MPR and win rate",
        description="Play games of GAME through the engine between a bot of --level and one "
        "of --against (alone without it), darts sampled from the throw model with a seeded "
        "generator; the second bot throws first in every other game.",
    )
    simulate.add_argument("game", metavar="GAME", help="a game id (oche games lists them)")
    simulate.add_argument("--level", required=True, metavar="N", help="the bot's level, 1-10")
    simulate.add_argument("--against", metavar="M", help="the opponent's level (none: solo)")
    simulate.add_argument("--games", default="100", metavar="K", help="games to play (100)")
    simulate.add_argument("--seed", default="0", metavar="S", help="the generator's seed (0)")
    simulate.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option"
    )
    geometry_option(simulate)
    simulate.add_argument("--json", action="store_true", help="print the figures as JSON")
    simulate.set_defaults(run=_simulate)
