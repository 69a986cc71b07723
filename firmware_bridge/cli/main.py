"""The ``oche`` command line. ``replay`` and ``games`` live here; the other
commands each live in their own ``*_command`` module, which adds its parser.
``oche`` alone prints the command list; ``oche --version`` the version.

Bad input exits with status 2 and one line on stderr naming what was wrong;
nothing is printed on stdout then.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from drivers.errors import DriverError
from engine import EngineError, Game, game_class, game_ids
from engine.game_log import format_game_log, log_first_side, parse_log_header, replay_log
from engine.lineup import MAX_NAME_LENGTH
from engine.match import Match
from engine.options import resolve_options
from firmware_bridge.cli.command_support import (
    EXIT_BAD_INPUT,
    UsageError,
    key_values,
    missing_extra,
)
from firmware_bridge.cli.scoreboard_text import render_scoreboard
from firmware_bridge.daemon.log_setup import LogLevelParser, for_journal, setup_logging

__all__ = ["main"]

COMMAND_MODULES = (
    "play",
    "run",
    "display",
    "history",
    "journal",
    "books",
    "monitor",
    "calibrate",
    "firmware",
    "udev",
    "cribbage",
    "leaderboard",
    "players",
    "league",
    "bot",
    "skill",
    "operator",
    "cards",
    "tournament",
)
"""The commands with a module of their own (``firmware_bridge.cli.<name>_command``),
in the order ``oche --help`` lists them. Only the module of the command given
is imported, so ``oche run`` loads none of the others' dependencies."""


def _teams(pairs: Sequence[str]) -> dict[str, list[str]]:
    return {
        name: [member.strip() for member in members.split(",") if member.strip()]
        for name, members in key_values(pairs, "team").items()
    }


def _read_log(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {path!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path!r} is not UTF-8 text") from None


def _print_state(state: dict[str, Any], pretty: bool) -> None:
    if pretty:
        sys.stdout.write(render_scoreboard(state))
    else:
        sys.stdout.write(json.dumps(state, ensure_ascii=False) + "\n")


def _positionals(args: argparse.Namespace) -> tuple[str | None, str]:
    """The game id and the log file from ``oche replay [GAME] [FILE]``: a lone
    argument that is no game id is the file (an exported log names its game)."""
    game: str | None = args.game
    if args.file is not None or game is None or game in game_ids():
        return game, args.file or "-"
    if game != "-" and not os.path.exists(game):
        raise UsageError(f"{game!r} is neither a game id ({', '.join(game_ids())}) nor a file")
    return None, game


def _agreed(field: str, header: object, given: object) -> None:
    """A command-line value that contradicts the log's header is an error naming
    it (compared as JSON, so the teams' order counts: it is the throwing order)."""
    said, asked = json.dumps(header, ensure_ascii=False), json.dumps(given, ensure_ascii=False)
    if said != asked:
        raise UsageError(f"{field}: the log's header says {said}, the command line says {asked}")


def _replay(args: argparse.Namespace) -> int:
    # Imported here: no other command loads it (test_a_command_loads_only_its_own_module).
    from firmware_bridge.cli.match_log import format_match_log, match_header, replay_match_log

    game_id, path = _positionals(args)
    text = _read_log(path)
    where = "stdin" if path == "-" else repr(path)
    empty = UsageError(f"the log on {where} is empty: nothing to replay")
    teams = _teams(args.team)
    options: dict[str, object] = dict(key_values(args.option, "option"))
    header = parse_log_header(text)
    if header is not None:
        if game_id is not None:
            _agreed("game", header.game, game_id)
        if args.player:
            _agreed("players", header.players, args.player)
        if teams:
            _agreed("teams", header.teams, teams)
        spec = game_class(header.game).options_spec
        ours = resolve_options(spec, header.options, header.game)
        theirs = resolve_options(spec, options, header.game)
        for name in {key.strip().lower() for key in options}:
            _agreed(f"option {name}", ours[name], theirs[name])
        game_id, players, options = header.game, header.players, dict(header.options)
        teams = header.teams or {}
    elif game_id is None:
        if not text.strip():
            raise empty
        raise UsageError("which game? give its id (oche replay GAME ...), or replay an oche export")
    else:
        players = args.player or [m for members in teams.values() for m in members]
    match_format = None if header is None else match_header(text)
    if match_format is not None:  # an exported match: every leg, as it was played
        match = Match(game_id, players, options, teams or None, match_format)
        replayed = replay_match_log(match, text)
        if args.awards:
            sys.stdout.write(format_match_log(replayed, awards=True))
        else:
            _print_state(replayed.state(), args.pretty)
        return 0
    first = log_first_side(text) or 0  # a match's leg: the side that threw first
    game = game_class(game_id)(
        players or ["Player 1", "Player 2"], options, teams or None, first_side=first
    )
    if not text.strip():  # the command before a pipe failed: say so, print no state
        raise empty
    replay_log(game, text)
    if args.awards:
        sys.stdout.write(format_game_log(game, awards=True))
    else:
        _print_state(game.state(), args.pretty)
    return 0


def _describe(cls: type[Game]) -> dict[str, Any]:
    return {
        "id": cls.id,
        "name": cls.name,
        "summary": cls.summary,
        "options": [
            {
                "name": o.name,
                "type": o.kind,
                "default": o.default,
                "choices": list(o.choices) or None,
                "minimum": o.minimum,
                "maximum": o.maximum,
                "help": o.help,
            }
            for o in cls.options_spec
        ],
    }


def _games(args: argparse.Namespace) -> int:
    described = [_describe(game_class(game_id)) for game_id in game_ids()]
    if args.json:
        sys.stdout.write(json.dumps(described, indent=2) + "\n")
        return 0
    for game in described:
        sys.stdout.write(f"{game['id']}: {game['name']}. {game['summary']}\n")
        for option in game["options"]:
            allowed = "|".join(str(c) for c in option["choices"] or []) or option["type"]
            sys.stdout.write(
                f"    -o {option['name']}={option['default']}  ({allowed}) {option['help']}\n"
            )
    return 0


def _version() -> str:
    from importlib import metadata  # only for --version: it is slow to import

    try:
        return metadata.version("oche")
    except metadata.PackageNotFoundError:  # a checkout that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: prints ``oche VERSION`` and exits; the version is looked up
    only then, so a command's start-up does not pay for it."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings,
            dest,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show program's version number and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        sys.stdout.write(f"oche {_version()}\n")
        parser.exit()


def _command_name(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (skipping the top-level options and the
    value of ``--log-level``), or ``None`` when there is none or the top-level
    help, which lists every command, comes first."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            return None
        if word == "--log-level":
            next(words, None)
        elif word == "--" or not word.startswith("-"):
            return None if word == "--" else word
    return None


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``oche`` parser with every command, or, when ``command`` names one
    with a module of its own, with only that one (its module alone is imported)."""
    parser = LogLevelParser(
        prog="oche",
        top=True,
        description="Oche: the open controller for soft-tip dartboards. "
        "'oche COMMAND --help' says more about each command.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = commands.add_parser(
        "replay",
        help="re-score a game log and print the final state",
        description="Replay a game log (one visit per line, darts separated by spaces, "
        "'#' comments, UNDO takes back a dart, BOUNCE makes the last dart a bounce-out, "
        "CORRECT2=T19 makes dart 2 of the last visit a T19) "
        "and print the final state JSON (a match's leg, from its '# first: N' line, "
        "started by that side). A log "
        "written by 'oche export' names its game, players, teams and options (and a "
        "match's format: then every leg is replayed), so "
        "'oche export N | oche replay -' re-scores it exactly; a flag that contradicts "
        "it is an error. Empty input is an error.",
    )
    replay.add_argument(
        "game",
        nargs="?",
        metavar="GAME",
        help=f"game id: {', '.join(game_ids())} (default: the one an exported log names)",
    )
    replay.add_argument(
        "-p",
        "--player",
        action="append",
        default=[],
        help=f"player name, in throwing order (1 to {MAX_NAME_LENGTH} characters)",
    )
    replay.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    replay.add_argument(
        "-t",
        "--team",
        action="append",
        default=[],
        metavar="NAME=P1,P2",
        help="a team and its players; teams alternate",
    )
    replay.add_argument("--pretty", action="store_true", help="print a scoreboard, not JSON")
    replay.add_argument(
        "--awards",
        action="store_true",
        help="print the log back, each visit with the awards it earned "
        "('T20 T20 T20  # award: ton-80'), not the state",
    )
    replay.add_argument("file", nargs="?", metavar="FILE", help="the log file (default '-': stdin)")
    replay.set_defaults(run=_replay)

    games = commands.add_parser(
        "games",
        help="list the games and their options",
        description="List every game Oche plays: its id (for 'oche replay GAME' and the "
        "daemon's new_game command), its name, a line of rules, and each option with its "
        "default and allowed values (give them as -o NAME=VALUE).",
    )
    games.add_argument("--json", action="store_true", help="print JSON")
    games.set_defaults(run=_games)

    for name in (command,) if command in COMMAND_MODULES else COMMAND_MODULES:
        module = importlib.import_module(f"firmware_bridge.cli.{name}_command")
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``oche`` command; returns the exit status."""
    parser = _parser(_command_name(sys.argv[1:] if argv is None else argv))
    # Python 3.11's argparse cannot place an optional positional (replay's FILE)
    # after options (gh-59317), so a single leftover argument is taken as FILE.
    args, extra = parser.parse_known_args(argv)
    lone = extra[0] if len(extra) == 1 else None
    if args.command == "replay" and args.file is None and lone and (lone == "-" or lone[0] != "-"):
        args.file = extra.pop()
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    setup_logging(args.log_level)
    if args.command is None:  # plain `oche`: the command list
        parser.print_help()
        return 0
    try:
        status: int = args.run(args)
    except (EngineError, DriverError, UsageError) as error:
        sys.stderr.write(for_journal(logging.ERROR, f"oche {args.command}: {error}\n"))
        return EXIT_BAD_INPUT
    except ModuleNotFoundError as error:  # an optional extra is not installed
        line = missing_extra(error)
        if line is None:
            raise
        sys.stderr.write(f"oche {args.command}: {line}\n")
        return EXIT_BAD_INPUT
    return status


if __name__ == "__main__":
    sys.exit(main())
