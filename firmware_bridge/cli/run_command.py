"""``oche run``: start the daemon for one board; Ctrl-C or SIGTERM stops it
cleanly (availability offline, board released, journal closed). Exits 2 when
another daemon holds the board id on the broker (board_claim.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys

from engine import new_game
from engine.lineup import MAX_NAME_LENGTH
from firmware_bridge.cli.command_support import Commands, UsageError, key_values
from firmware_bridge.daemon.board_claim import BoardIdTaken
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import Config, ConfigError, load_config
from firmware_bridge.daemon.embedded_broker import EmbeddedBrokerError
from firmware_bridge.daemon.game_session import SessionSetup
from firmware_bridge.daemon.journal import JournalError, JournalWriteError
from firmware_bridge.daemon.log_setup import for_journal, use_config_level

__all__ = ["add_parser", "broker_error", "run_daemon"]


async def run_daemon(daemon: Daemon) -> None:
    """Run ``daemon`` until SIGINT or SIGTERM, then let it shut down."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, main.cancel)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await daemon.run()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def broker_error(error: EmbeddedBrokerError, config: Config) -> UsageError:
    """The embedded broker did not start: one line, with the way out when its
    port is taken (use the broker that holds it, or another port)."""
    if not error.in_use:
        return UsageError(str(error))
    return UsageError(
        f"{error}: use that broker with --set mqtt.url={config.mqtt.address().url}, "
        "or give the embedded one another port with --set mqtt.embedded_port=PORT"
    )


def _first_game(args: argparse.Namespace) -> SessionSetup | None:
    """The game ``--game`` asks for (players default to two), or ``None``."""
    if args.game is None:
        if args.player or args.option:
            raise UsageError("--player and --option need --game")
        return None
    setup = SessionSetup(
        args.game, key_values(args.option, "option"), args.player or ["Player 1", "Player 2"]
    )
    new_game(setup.game, setup.players, setup.options)  # a bad game, option or player raises here
    return setup


EXIT_TRY_AGAIN = 75
"""``oche run``'s status when the journal's storage refused a write at start
(a full SD card): EX_TEMPFAIL, which systemd restarts (``oche@.service``
prevents a restart only for 2, a mistake that would come back)."""


def _run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config, args.set)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    use_config_level(args.log_level, config.log.level)
    try:
        asyncio.run(run_daemon(Daemon(config, first_game=_first_game(args))))
    except EmbeddedBrokerError as error:
        raise broker_error(error, config) from None
    except JournalWriteError as error:  # a full or failing disk: it may take the write later
        sys.stderr.write(for_journal(logging.ERROR, f"oche run: {error}; trying again later\n"))
        return EXIT_TRY_AGAIN
    except (JournalError, BoardIdTaken) as error:  # not ours / another daemon holds the id
        raise UsageError(str(error)) from None
    return 0


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "run",
        help="run the daemon: board in, journaled game, MQTT out",
        description="Run the Oche daemon for one board. The config file is --config, "
        "$OCHE_CONFIG, $XDG_CONFIG_HOME/oche/oche.toml or /etc/oche/oche.toml "
        "(see docs/config.md); any key can be set with --set section.key=value. "
        "--game starts a game before the board is read, unless an unfinished game "
        "resumes from the journal; it is priced as new_game is (on a coin-operated board "
        "short of credits the daemon runs with no game and logs why, docs/credits.md). "
        "Exits 2 on a bad config, or when another daemon holds the board id on the broker "
        "(naming its host and pid).",
    )
    parser.add_argument("--config", metavar="FILE", help="the config file (TOML)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="override one config key, e.g. --set board.driver=simulated",
    )
    parser.add_argument("--game", metavar="GAME", help="start this game (see `oche games`)")
    parser.add_argument(
        "-p",
        "--player",
        action="append",
        default=[],
        help=f"with --game: a player, in order (1 to {MAX_NAME_LENGTH} characters)",
    )
    parser.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option"
    )
    parser.set_defaults(run=_run)
