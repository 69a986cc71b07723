"""``oche skill estimate --aim BED FILE|-``: a player's throw spread sigma from the
beds they hit while aiming at one bed (docs/bots.md).

The file (or stdin for ``-``) holds bed notations separated by spaces or new
lines (``T20 S5 S20 D20 M``); ``#`` starts a comment. It prints
``{"sigma_mm", "darts", "interval": [low, high], "level"}``. A bad token, an
empty file or a bad aim exits 2 with one line naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import Bed, NotationError
from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = ["add_parser", "estimate_json", "read_hits"]


def read_hits(text: str) -> list[Bed]:
    """The beds in ``text``; a token that is no bed is a UsageError naming its line."""
    hits: list[Bed] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for token in line.partition("#")[0].split():
            try:
                hits.append(Bed.parse(token))
            except NotationError:
                raise UsageError(
                    f"line {number}: {token!r} is not a bed (S1-S20, D1-D20, T1-T20, SB, DB or M)"
                ) from None
    return hits


def estimate_json(aim: str, text: str, geometry_name: str = "steel") -> dict[str, Any]:
    """The estimate for the darts in ``text`` thrown at ``aim``."""
    from engine.board_geometry import GEOMETRIES
    from engine.skill_estimate import SkillEstimateError, estimate_sigma

    try:
        aim_bed = Bed.parse(aim)
    except NotationError:
        raise UsageError(f"--aim {aim!r} is not a bed (S1-S20, D1-D20, T1-T20, SB or DB)") from None
    hits = read_hits(text)
    try:
        return estimate_sigma(aim_bed, hits, GEOMETRIES[geometry_name]).as_json()
    except SkillEstimateError as error:
        raise UsageError(str(error)) from None


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {path!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path!r} is not UTF-8 text") from None


def _estimate(args: argparse.Namespace) -> int:
    result = estimate_json(args.aim, _read(args.file), args.geometry)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "skill",
        help="a player's own accuracy from the beds they hit",
        description="Estimate a player's throw spread from what they hit (docs/bots.md).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    estimate = actions.add_parser(
        "estimate",
        help="sigma by maximum likelihood from darts aimed at one bed",
        description="Read the beds hit while aiming at --aim (spaces or new lines between, "
        "# starts a comment) and print sigma, the darts, a 95% interval and the bot level.",
    )
    estimate.add_argument("--aim", required=True, metavar="BED", help="the bed aimed at, e.g. T20")
    estimate.add_argument(
        "--geometry", choices=("steel", "soft"), default="steel", help="board (default steel)"
    )
    estimate.add_argument("file", metavar="FILE", help="the beds hit, or - for stdin")
    estimate.set_defaults(run=_estimate)
