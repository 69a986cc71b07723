"""``oche cribbage``: domino cribbage scoring from the command line, for
settling a count at the table or checking the rules engine.

- ``oche cribbage count 1-6 2-6 3-6 4-5 --starter 0-0 [--crib]`` prints the
  hand's count with its breakdown (fifteens, pairs, runs) as JSON;
- ``oche cribbage peg 2-3 4-6 ...`` lays the tiles in order from a zero count,
  the two players alternating, and prints what each play scores.

Tiles are ``a-b`` in either order; a bad or repeated tile exits 2 naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.cribbage_scoring import THIRTY_ONE, count_hand, peg_score
from engine.errors import MoveError
from engine.tiles import parse_tiles
from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = ["add_parser", "count_json", "peg_json"]

HAND_TILES = 4


def count_json(hand: list[str], starter: str, crib: bool = False) -> dict[str, Any]:
    """The count of four tiles with the starter, as ``oche cribbage count`` prints it."""
    *tiles, turned = parse_tiles([*hand, starter])
    return {
        "tiles": [tile.notation for tile in tiles],
        "starter": turned.notation,
        "crib": crib,
        **count_hand(tiles, turned).as_json(),
    }


def peg_json(tiles: list[str]) -> dict[str, Any]:
    """Each tile laid in turn from a zero count: the count and what it scored."""
    plays: list[dict[str, Any]] = []
    values: list[int] = []
    for number, tile in enumerate(parse_tiles(tiles), start=1):
        count = sum(values) + tile.value
        if count > THIRTY_ONE:
            raise MoveError(
                f"play {number}, {tile}: would take the count past {THIRTY_ONE} "
                f"(count {sum(values)})"
            )
        values.append(tile.value)
        score = peg_score(values)
        plays.append(
            {
                "player": (number - 1) % 2,
                "tile": tile.notation,
                "count": count,
                "points": score.points,
                "scoring": [{"reason": reason, "points": points} for reason, points in score.lines],
            }
        )
    return {"plays": plays}


def _count(args: argparse.Namespace) -> int:
    if len(args.tiles) != HAND_TILES:
        given = " ".join(args.tiles)
        raise UsageError(
            f"a hand is {HAND_TILES} tiles (the starter goes in --starter); "
            f"{len(args.tiles)} given: {given}"
        )
    _print(count_json(args.tiles, args.starter, args.crib))
    return 0


def _peg(args: argparse.Namespace) -> int:
    _print(peg_json(args.tiles))
    return 0


def _print(document: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(document, indent=2) + "\n")


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "cribbage",
        help="domino cribbage: count a hand or score a play",
        description="Score domino cribbage (docs/games/domino-cribbage.md). Tiles are "
        "written a-b (0-6 each end, either order).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    count = actions.add_parser(
        "count",
        help="count a hand of four tiles with the starter",
        description="Print the count of four tiles with the starter: every 15 scores 2, "
        "every pair 2, every run 1 a tile. A crib counts the same as a hand.",
    )
    count.add_argument("tiles", nargs="+", metavar="TILE", help="the four tiles, a-b")
    count.add_argument("--starter", required=True, metavar="TILE", help="the starter tile")
    count.add_argument("--crib", action="store_true", help="the tiles are the crib")
    count.set_defaults(run=_count)
    peg = actions.add_parser(
        "peg",
        help="score tiles laid in order from a zero count",
        description="Lay the tiles in order from a zero count, players alternating, and "
        "print the count and the points of each play (15, 31, pairs, runs).",
    )
    peg.add_argument("tiles", nargs="+", metavar="TILE", help="tiles in the order laid")
    peg.set_defaults(run=_peg)
