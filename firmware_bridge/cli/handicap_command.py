"""``oche leaderboard handicap``: fair handicaps for a game from the players'
figures in the leaderboard (``leaderboard.handicaps`` has the formula and the
report), with the ``new_game`` players that play them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import UnknownGameError, game_class
from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = ["add_handicap_parser"]


def _handicap(args: argparse.Namespace) -> int:
    from firmware_bridge.cli.leaderboard_command import cli_config, db_url, open_database
    from leaderboard.handicaps import NoFiguresError, handicap_report
    from leaderboard.queries import leaderboard

    try:
        game_class(args.game)
    except UnknownGameError as error:
        raise UsageError(f"--game: {error}") from None
    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        rows = [row.model_dump(mode="json") for row in leaderboard(session, args.game, "all")]
    try:
        report = handicap_report(args.game, rows, args.players, args.start)
    except NoFiguresError as error:
        raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return 0
    figure = report["figure"]
    for line in report["players"]:
        handicap = (
            f"from {line['start']}"
            if "start" in line
            else "spot "
            + (" ".join(f"{k}:{v}" for k, v in line.get("marks", {}).items()) or "none")
        )
        sys.stdout.write(f"{line['name']:<24} {figure} {line[figure]:>6.2f}  {handicap}\n")
    sys.stdout.write(json.dumps(report["new_game"], ensure_ascii=False) + "\n")
    return 0


def add_handicap_parser(actions: Commands, common: Any) -> None:
    """Add ``handicap`` to ``oche leaderboard``'s actions (``common``: its --db/--config)."""
    handicap = actions.add_parser(
        "handicap",
        help="suggest fair handicaps from the players' figures",
        description="Suggest handicaps that even out a game between PLAYERs from their "
        "all-time figures: x01 starts (the weaker player's expected darts to finish match "
        "the strongest's: start x average / best average) or cricket spot marks "
        "(21 x (1 - MPR / best MPR) marks, the bull first, then 15 upward). Prints the "
        "new_game command that plays them (docs/leaderboard.md, Handicaps).",
    )
    handicap.add_argument("--game", required=True, help="x01 or cricket")
    handicap.add_argument("players", nargs="+", metavar="PLAYER", help="the players' names")
    handicap.add_argument(
        "--start", type=int, default=501, help="x01: the stronger player's start (default 501)"
    )
    handicap.add_argument("--json", action="store_true", help="print the suggestion as JSON")
    common(handicap)
    handicap.set_defaults(run=_handicap)
