"""``oche tournament``: a bar tournament the leaderboard service runs
(docs/matches.md, "Tournaments"). ``create`` draws one and queues its first
matches (a running ``oche leaderboard serve`` calls them to the boards),
``show`` prints its matches and standings, ``list`` the tournaments, and
``walkover`` decides a match without play (a no-show). The database and
the config are ``oche leaderboard``'s (``--db``, ``--config``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from firmware_bridge.cli.command_support import Commands, UsageError, key_values
from firmware_bridge.cli.leaderboard_command import cli_config, db_url, open_database, venue_map

if TYPE_CHECKING:
    from leaderboard.tournaments import TournamentView

__all__ = ["add_parser", "board_topic", "show_text"]

FORMATS = ("round-robin", "single-elimination", "double-elimination")


def board_topic(board: str, base: str) -> str:
    """A ``--board`` as the service names boards: ``base/board`` (a bare board
    id gets the config's ``mqtt.base``; one with a ``/`` is taken as it is)."""
    cleaned = board.strip()
    if not cleaned:
        raise UsageError("--board: a board id is empty")
    return cleaned if "/" in cleaned else f"{base}/{cleaned}"


def _tournament_id(text: str) -> int:
    stripped = text.strip()
    if not stripped.isdigit() or int(stripped) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a tournament id (a number from 1)")
    return int(stripped)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count of 1 or more")
    return value


def _create(args: argparse.Namespace) -> int:
    from leaderboard.tournaments import NewTournament, TournamentError, create

    config = cli_config(args)
    base = args.base or config.mqtt.base
    spec = NewTournament(
        format=args.format,
        game=args.game,
        players=list(args.player),
        boards=[board_topic(board, base) for board in args.board],
        legs=args.legs,
        sets=args.sets,
        options=dict(key_values(args.option, "option")),
        title=args.title,
    )
    with open_database(db_url(args, config), create=True) as database:
        try:
            with database.write_session() as session:
                made = create(session, spec, venue_map(config))
        except TournamentError as error:
            raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(json.dumps({"id": made}) + "\n")
    else:
        sys.stdout.write(f"tournament {made} created: `oche tournament show {made}`\n")
    return 0


def show_text(view: TournamentView) -> str:
    """``show``'s text: the tournament, its matches, then its standings."""
    lines = [f"{view.title} (#{view.id}): {view.format}, {view.game}, {view.status}"]
    if view.champion:
        lines.append(f"champion: {view.champion}")
    lines.append("")
    for match in view.matches:
        players = " v ".join(name or "?" for name in match.players)
        legs = "-".join(map(str, match.legs)) if match.legs else ""
        winner = f" won by {match.winner}" if match.winner else ""
        board = f" on {match.board}" if match.board else ""
        line = f"{match.id:6} {match.label:22} {players}: {match.status}{board}{winner} {legs}"
        lines.append(line.rstrip())
    for bye in view.byes:
        lines.append(f"{bye.id or '':6} {bye.label:22} {bye.player}: bye")
    lines.append("")
    header = ["#", "PLAYER", "PLAYED", "WON", "LEGS+", "LEGS-", "POINTS"]
    body = [
        [str(row.place), row.player]
        + [str(n) for n in (row.played, row.won, row.legs_won, row.legs_lost, row.points)]
        for row in view.standings
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    for cells in [header, *body]:
        lines.append(
            "  ".join(
                cell.ljust(width) if column == 1 else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )
    return "\n".join(lines) + "\n"


def _show(args: argparse.Namespace) -> int:
    from leaderboard.tournaments import TournamentNotFoundError, show

    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        try:
            view = show(session, args.id)
        except TournamentNotFoundError as error:
            raise UsageError(str(error)) from None
    if args.json:
        text = json.dumps(view.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
        sys.stdout.write(text)
    else:
        sys.stdout.write(show_text(view))
    return 0


def _list(args: argparse.Namespace) -> int:
    from leaderboard.tournaments import listing

    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        found = listing(session, running_only=args.running)
    if args.json:
        rows: list[dict[str, Any]] = [summary.model_dump(mode="json") for summary in found]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not found:
        sys.stdout.write("no tournaments yet (oche tournament create ...)\n")
    for summary in found:
        champion = f", won by {summary.champion}" if summary.champion else ""
        sys.stdout.write(
            f"{summary.id}: {summary.title} ({summary.format}, {summary.game}, "
            f"{summary.players} players): {summary.status}{champion}\n"
        )
    return 0


def _walkover(args: argparse.Namespace) -> int:
    from leaderboard.tournaments import TournamentError, TournamentNotFoundError, walkover

    config = cli_config(args)
    with open_database(db_url(args, config)) as database:
        try:
            with database.write_session() as session:
                walkover(session, args.id, args.match, args.winner)
        except (TournamentError, TournamentNotFoundError) as error:
            raise UsageError(str(error)) from None
    sys.stdout.write(
        f"match {args.match.strip().upper()} of tournament {args.id}: "
        f"{args.winner.strip()} goes through on a walkover\n"
    )
    return 0


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="the leaderboard database: sqlite:///PATH or postgresql+psycopg://USER@HOST/DB "
        "(default: [leaderboard] db of the config, else $XDG_STATE_HOME/oche/leaderboard.sqlite3)",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the config whose [leaderboard] and [mqtt] to read"
    )


def add_parser(commands: Commands) -> None:
    """Add ``oche tournament`` and its sub-commands."""
    tournament = commands.add_parser(
        "tournament",
        help="bar tournaments the leaderboard service runs: create, show, list, walkover",
        description="A round robin, single or double elimination of any game and match "
        "format: the running service calls each match to a free board of the tournament's "
        "as soon as its players are known, and each result advances the bracket. "
        "See docs/matches.md.",
    )
    actions = tournament.add_subparsers(dest="tournament_command", required=True, metavar="ACTION")

    creating = actions.add_parser(
        "create",
        help="draw a tournament and queue its first matches",
        description="Draw a tournament of the players (seeded by their rating in the game; "
        "a name not on the venue's roster plays as a guest) and queue its first matches.",
    )
    creating.add_argument(
        "--format", required=True, choices=FORMATS, help="the bracket (docs/matches.md)"
    )
    creating.add_argument("--game", required=True, help="the game id (oche games)")
    creating.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    creating.add_argument(
        "--legs", type=_count, required=True, help="legs a player needs to win a match (or a set)"
    )
    creating.add_argument("--sets", type=_count, help="sets a player needs to win a match")
    creating.add_argument(
        "--board",
        action="append",
        required=True,
        metavar="BOARD",
        help="a board the matches are called to (repeat; a board id, or base/board)",
    )
    creating.add_argument(
        "-p", "--player", action="append", required=True, help="a player (repeat; 2 or more)"
    )
    creating.add_argument("--title", help="its name (default: the game and format)")
    creating.add_argument("--base", help="the boards' topic base (default: mqtt.base)")
    creating.add_argument("--json", action="store_true", help='print {"id": ID}')
    _common(creating)
    creating.set_defaults(run=_create)

    showing = actions.add_parser(
        "show",
        help="a tournament's matches and standings",
        description="The matches (players, board, status, winner, legs), the byes and the "
        "standings (played, won, legs won and lost, points) of tournament ID.",
    )
    showing.add_argument("id", type=_tournament_id, metavar="ID")
    showing.add_argument("--json", action="store_true", help="print JSON")
    _common(showing)
    showing.set_defaults(run=_show)

    listing = actions.add_parser(
        "list", help="the tournaments, newest first", description="The tournaments, newest first."
    )
    listing.add_argument("--running", action="store_true", help="only those still running")
    listing.add_argument("--json", action="store_true", help="print JSON")
    _common(listing)
    listing.set_defaults(run=_list)

    walking = actions.add_parser(
        "walkover",
        help="decide a match without play (a no-show)",
        description="PLAYER goes through MATCH (its id in `show`: R1-2, W2-1, GF, ...) "
        "without play; its call is taken back from the board, and what follows is queued.",
    )
    walking.add_argument("id", type=_tournament_id, metavar="ID")
    walking.add_argument("match", metavar="MATCH")
    walking.add_argument(
        "--winner", required=True, metavar="PLAYER", help="who goes through (a name, any case)"
    )
    _common(walking)
    walking.set_defaults(run=_walkover)
