"""``oche league``: a league's teams, fixtures and standings in the
leaderboard database (docs/matches.md, "Leagues"). ``create`` makes a league
with its teams and team-match format, ``fixture`` adds a night of home v
away (each singles game queued as a match the service calls to one of the
boards), ``result`` enters a game's result by hand (for a game not played on
Oche), ``show`` prints a league's standings and fixtures (no ID: every league).
The database and config are ``oche leaderboard``'s (``--db``, ``--config``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.leaderboard_command import cli_config, db_url, open_database

if TYPE_CHECKING:
    from leaderboard.leagues import LeagueSummary, LeagueView

__all__ = ["add_parser", "league_text"]


def _run(args: argparse.Namespace) -> int:
    """Every league sub-command: the database opened, a league's error a UsageError."""
    from leaderboard.league_rules import LeagueRuleError
    from leaderboard.leagues import LeagueError

    config = cli_config(args)
    with open_database(db_url(args, config), create=args.league_command == "create") as database:
        try:
            with database.write_session() as session:
                text = _action(args, session)
        except (LeagueError, LeagueRuleError) as error:
            raise UsageError(str(error)) from None
    sys.stdout.write(text)
    return 0


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def _action(args: argparse.Namespace, session: Any) -> str:
    """Do the sub-command in ``session``; what it prints."""
    from leaderboard import leagues

    command = args.league_command
    if command == "create":
        return _create(args, session)
    if command == "fixture":
        return _fixture(args, session)
    if command == "result":
        game = leagues.enter_result(
            session, args.fixture, args.game, winner=args.winner, legs=args.legs, now=time.time()
        )
        if args.json:
            return _dumps({"fixture": args.fixture, "game": game.number, "status": game.status})
        return f"fixture {args.fixture} game {game.number}: {args.winner} won {args.legs}\n"
    if args.league is None:
        found = leagues.league_list(session)
        if args.json:
            return _dumps([summary.model_dump() for summary in found])
        return _list_text(found)
    view = leagues.league_view(session, args.league)
    return _dumps(view.model_dump()) if args.json else league_text(view)


def _create(args: argparse.Namespace, session: Any) -> str:
    from leaderboard import leagues
    from leaderboard.league_rules import PointsRules, TeamMatchFormat, parse_team

    teams = [parse_team(spec) for spec in args.team]
    rules = PointsRules(args.win, args.draw, args.loss, args.per_game)
    league = leagues.create_league(
        session,
        name=args.name,
        season=args.season,
        teams=teams,
        team_format=TeamMatchFormat.parse(args.format),
        rules=rules,
        now=time.time(),
    )
    if args.json:
        return _dumps({"id": league.id})
    return f"created league {league.name!r} (id {league.id}) with {len(teams)} teams\n"


def _fixture(args: argparse.Namespace, session: Any) -> str:
    from leaderboard import leagues
    from leaderboard.league_rules import parse_lineup

    lineup: dict[int, tuple[Sequence[str], Sequence[str]]] = {}
    for spec in args.lineup:
        number, home, away = parse_lineup(spec)
        if number in lineup:
            raise UsageError(f"--lineup: game {number} is given twice")
        lineup[number] = (home, away)
    fixture = leagues.add_fixture(
        session,
        args.league,
        home=args.home,
        away=args.away,
        boards=args.board,
        date=args.date,
        lineup=lineup,
        away_board=args.remote,
        now=time.time(),
    )
    if args.json:
        return _dumps({"id": fixture.id})
    return f"fixture {fixture.id}: {args.home} v {args.away}, its games queued to call\n"


def _table(header: list[str], body: list[list[str]], text_columns: set[int]) -> str:
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    return "".join(
        "  ".join(
            cell.ljust(width) if column in text_columns else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        + "\n"
        for row in [header, *body]
    )


def _list_text(found: list[LeagueSummary]) -> str:
    if not found:
        return "no leagues yet (oche league create)\n"
    body = [[str(s.id), s.name, s.season, str(s.teams), str(s.fixtures)] for s in found]
    return _table(["ID", "NAME", "SEASON", "TEAMS", "FIXTURES"], body, {1, 2})


def _legs(home: int | None, away: int | None) -> str:
    return "-" if home is None or away is None else f"{home}-{away}"


def league_text(view: LeagueView) -> str:
    """``show``'s text: the standings, then each fixture with its games."""
    season = f" ({view.season})" if view.season else ""
    lines = [f"{view.name}{season}: league {view.id}\n"]
    header = ["#", "TEAM", "P", "W", "D", "L", "GF", "GA", "LF", "LA", "PTS"]
    body = [
        [
            str(row.rank),
            row.team,
            *(
                str(value)
                for value in (
                    row.played,
                    row.won,
                    row.drawn,
                    row.lost,
                    row.games_for,
                    row.games_against,
                    row.legs_for,
                    row.legs_against,
                    row.points,
                )
            ),
        ]
        for row in view.standings
    ]
    lines.append(_table(header, body, {1}))
    for fixture in view.fixtures:
        when = f" on {fixture.date}" if fixture.date else ""
        when += f", remote (away at {fixture.away_board})" if fixture.away_board else ""
        lines.append(
            f"\nfixture {fixture.id}: {fixture.home} v {fixture.away}{when}, {fixture.status}, "
            f"games {fixture.home_games}-{fixture.away_games}, "
            f"legs {fixture.home_legs}-{fixture.away_legs}\n"
        )
        for game in fixture.games:
            winner = f", {game.winner} won" if game.winner else ""
            board = f" on {game.board}" if game.board else ""
            lines.append(
                f"  {game.number}. {game.kind} {game.game}: {' & '.join(game.home)} v "
                f"{' & '.join(game.away)}: {game.status}{board}, legs "
                f"{_legs(game.home_legs, game.away_legs)}{winner}\n"
            )
    return "".join(lines)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="the leaderboard database: sqlite:///PATH or postgresql+psycopg://USER@HOST/DB "
        "(default: [leaderboard] db of the config, else $XDG_STATE_HOME/oche/leaderboard.sqlite3)",
    )
    parser.add_argument("--config", metavar="FILE", help="the config whose [leaderboard] to read")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=_run)


def _positive(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, not {text!r}")
    return int(text)


def _points(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, not {text!r}")
    return int(text)


def add_parser(commands: Commands) -> None:
    """Add ``oche league`` and its sub-commands."""
    league = commands.add_parser(
        "league",
        help="a league's teams, fixtures and standings: create, fixture, result, show",
        description="Teams with their players, fixtures of a team-match format whose games "
        "the service calls to the boards, and the standings. See docs/matches.md.",
    )
    actions = league.add_subparsers(dest="league_command", required=True, metavar="ACTION")

    create = actions.add_parser(
        "create",
        help="make a league with its teams and team-match format",
        description="A league: its teams (--team NAME=PLAYER,...; each player's roster name) "
        "and the games of each fixture in order (--format [N*]KIND:GAME[:KEY=VALUE]...: KIND "
        "singles or pairs; legs, sets, starts and decider are the match format, any other "
        "KEY a game option). Prints the league's id.",
    )
    create.add_argument("--name", required=True, help="the league's name (unique)")
    create.add_argument("--season", default="", help="the season, e.g. 2026/27")
    create.add_argument(
        "--team",
        action="append",
        required=True,
        metavar="NAME=P1,P2,...",
        help="a team and its players in order (give it once per team)",
    )
    create.add_argument(
        "--format",
        action="append",
        required=True,
        metavar="[N*]KIND:GAME[:KEY=VALUE]...",
        help="a game of each fixture, e.g. singles:x01:start=501:legs=2 or "
        "2*pairs:cricket:legs=3 (in order; give it once per game or use N*)",
    )
    for name, default, what in (
        ("--win", 2, "a fixture won"),
        ("--draw", 1, "a fixture drawn"),
        ("--loss", 0, "a fixture lost"),
        ("--per-game", 0, "each game a team wins in a fixture"),
    ):
        create.add_argument(
            name, type=_points, default=default, help=f"points for {what} (default {default})"
        )
    _common(create)

    fixture = actions.add_parser(
        "fixture",
        help="add a fixture: home v away; its games are called to the boards",
        description="A night of HOME v AWAY with every game of the league's format. Each "
        "game is queued as a match the service calls to a free board of --board (a pairs "
        "game as a team game); with --remote, as a remote match hosted there, the away team "
        "throwing at the away board. Who plays each game: --lineup, else the teams' players "
        "in order. Prints the fixture's id.",
    )
    fixture.add_argument("league", metavar="LEAGUE", help="the league's id or name")
    fixture.add_argument("--home", required=True, help="the home team")
    fixture.add_argument("--away", required=True, help="the away team")
    fixture.add_argument(
        "--board",
        action="extend",
        nargs="+",
        required=True,
        metavar="BOARD",
        help="the home venue's boards the games are called to (BOARD or BASE/BOARD)",
    )
    fixture.add_argument(
        "--remote",
        metavar="AWAY_BOARD",
        help="a remote fixture: the away team plays at this board of its own venue (BOARD or "
        "BASE/BOARD), each game a remote match hosted by a home board; the service calls a "
        "game only when both boards are free (docs/matches.md)",
    )
    fixture.add_argument("--date", help="the night, e.g. 2026-12-10")
    fixture.add_argument(
        "--lineup",
        action="append",
        default=[],
        metavar="GAME=HOME:AWAY",
        help="who plays game GAME (from 1): e.g. 1=Ann:Dan, or 4=Ann,Bob:Dan,Eve for pairs",
    )
    _common(fixture)

    result = actions.add_parser(
        "result",
        help="enter a game's result by hand (a game not played on Oche)",
        description="Game GAME of fixture FIXTURE was won by PLAYER (one of its players; in "
        "pairs, either) with --legs WON-LOST. Its called match, if not started, is cancelled.",
    )
    result.add_argument("fixture", metavar="FIXTURE", type=_positive, help="the fixture's id")
    result.add_argument("game", metavar="GAME", type=_positive, help="the game's number, from 1")
    result.add_argument("--winner", required=True, metavar="PLAYER", help="who won it")
    result.add_argument(
        "--legs", required=True, metavar="W-L", help="the legs, the winner's first: e.g. 2-1"
    )
    _common(result)

    show = actions.add_parser(
        "show",
        help="a league's standings and fixtures (no ID: every league)",
        description="The standings (played, won, drawn, lost, games and legs for and "
        "against, points), then each fixture with its games.",
    )
    show.add_argument("league", metavar="ID", nargs="?", help="the league's id or name")
    _common(show)
