"""The ``oche`` command line. ``replay``, ``games`` and ``demo`` live here; the
board commands (``monitor``, ``calibrate``, ``firmware``, ``udev``) each live in
their own ``*_command`` module, which adds its parser.

Bad input exits with status 2 and one line on stderr naming what was wrong;
nothing is printed on stdout then.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

from drivers.errors import DriverError
from engine import EngineError, Game, game_class, game_ids, new_game
from engine.game_log import replay_log
from firmware_bridge import (
    calibrate_command,
    cribbage_command,
    display_command,
    firmware_command,
    history_command,
    monitor_command,
    play_command,
    run_command,
    udev_command,
)
from firmware_bridge.command_support import EXIT_BAD_INPUT, UsageError, key_values
from firmware_bridge.log_setup import add_log_level_option, for_journal, setup_logging
from firmware_bridge.scoreboard_text import render_scoreboard

__all__ = ["DEMO_GAMES", "main"]

DEMO_GAMES: tuple[tuple[str, tuple[str, ...], dict[str, str]], ...] = (
    ("x01", ("Ann", "Bob"), {"start": "301"}),
    ("cricket", ("Ann", "Bob"), {}),
    ("cricket-shanghai", ("Ann", "Bob"), {}),
)
"""The bundled sample games ``oche demo`` replays: game id, players, options.
Each log is ``firmware_bridge/samples/<game id>.log``."""


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


def _replay(args: argparse.Namespace) -> int:
    teams = _teams(args.team)
    players = args.player or [m for members in teams.values() for m in members]
    game = new_game(
        args.game,
        players or ["Player 1", "Player 2"],
        key_values(args.option, "option"),
        teams or None,
    )
    replay_log(game, _read_log(args.file))
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


def _demo(args: argparse.Namespace) -> int:
    samples = resources.files("firmware_bridge") / "samples"
    for game_id, players, options in DEMO_GAMES:
        game = replay_log(
            new_game(game_id, players, options), (samples / f"{game_id}.log").read_text("utf-8")
        )
        sys.stdout.write(render_scoreboard(game.state()) + "\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oche", description="Oche: the open controller for soft-tip dartboards."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay",
        help="re-score a game log and print the final state",
        description="Replay a game log (one visit per line, darts separated by spaces, "
        "'#' comments, UNDO takes back a dart) and print the final state JSON.",
    )
    replay.add_argument("game", help=f"game id: {', '.join(game_ids())}")
    replay.add_argument(
        "-p", "--player", action="append", default=[], help="player name, in throwing order"
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
    replay.add_argument("file", nargs="?", default="-", help="the log file ('-': stdin)")
    replay.set_defaults(run=_replay)

    games = commands.add_parser("games", help="list the games and their options")
    games.add_argument("--json", action="store_true", help="print JSON")
    games.set_defaults(run=_games)

    demo = commands.add_parser("demo", help="replay the bundled sample games")
    demo.set_defaults(run=_demo)

    for module in (
        play_command,
        run_command,
        display_command,
        history_command,
        monitor_command,
        calibrate_command,
        firmware_command,
        udev_command,
        cribbage_command,
    ):
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``oche`` command; returns the exit status."""
    parser = _parser()
    add_log_level_option(parser)
    # Python 3.11's argparse cannot place an optional positional (replay's FILE)
    # after options (gh-59317), so a single leftover argument is taken as FILE.
    args, extra = parser.parse_known_args(argv)
    lone = extra[0] if len(extra) == 1 else None
    if args.command == "replay" and args.file == "-" and lone and (lone == "-" or lone[0] != "-"):
        args.file = extra.pop()
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    setup_logging(args.log_level)
    try:
        status: int = args.run(args)
    except (EngineError, DriverError, UsageError) as error:
        sys.stderr.write(for_journal(logging.ERROR, f"oche {args.command}: {error}\n"))
        return EXIT_BAD_INPUT
    return status


if __name__ == "__main__":
    sys.exit(main())
