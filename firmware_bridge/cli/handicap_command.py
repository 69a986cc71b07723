"""``oche leaderboard handicap``: fair handicaps for a game from the players'
figures in the leaderboard (``leaderboard.handicaps`` has the formula), with
the ``new_game`` players that play them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import UnknownGameError, game_class
from engine.handicap import takes_handicaps
from engine.traits import Family
from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = ["add_handicap_parser", "handicap_report"]

_FIGURE = {Family.COUNTDOWN: "three_dart_average", Family.MARKS: "mpr"}
"""The figure a family's handicap is made from."""


def handicap_report(
    game: str, rows: list[dict[str, Any]], players: list[str], start: int
) -> dict[str, Any]:
    """The suggestion for ``players`` from the game's table ``rows`` (``show
    --json``'s): each player's figure, rating and handicap, and the
    ``new_game`` command that plays them. A player without games is a UsageError."""
    from leaderboard.handicaps import PlayerForm, suggest_handicaps

    family = game_class(game).family
    figure = _FIGURE[family]
    by_name = {str(row["player"]).casefold(): row for row in rows}
    forms = []
    for name in players:
        row = by_name.get(name.strip().casefold())
        if row is None or not row.get(figure):
            raise UsageError(f"{name!r} has no {game} games with a {figure} to go by")
        forms.append(PlayerForm(str(row["player"]), float(row[figure]), row.get("rating")))
    suggestions = suggest_handicaps(forms, family is Family.COUNTDOWN, start)
    lines = [suggestion.player_json() for suggestion in suggestions]
    return {
        "game": game,
        "figure": figure,
        "players": [
            {**line, figure: s.form.figure, "rating": s.form.rating}
            for line, s in zip(lines, suggestions, strict=True)
        ],
        "new_game": {"command": "new_game", "game": game, "players": lines},
    }


def _handicap(args: argparse.Namespace) -> int:
    from firmware_bridge.cli.leaderboard_command import cli_config, db_url, open_database
    from leaderboard.queries import leaderboard

    try:
        game = game_class(args.game)
    except UnknownGameError as error:
        raise UsageError(f"--game: {error}") from None
    if not takes_handicaps(game) or game.family not in _FIGURE:
        raise UsageError(f"--game {args.game}: handicaps are for x01 (a start) and cricket (marks)")
    if len(args.players) < 2:
        raise UsageError("name two players or more: a handicap evens a game out")
    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        rows = [row.model_dump(mode="json") for row in leaderboard(session, args.game, "all")]
    report = handicap_report(args.game, rows, args.players, args.start)
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
