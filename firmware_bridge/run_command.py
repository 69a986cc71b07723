"""``oche run``: start the daemon for one board; Ctrl-C or SIGTERM stops it
cleanly (availability offline, board released, journal closed)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal

from firmware_bridge.command_support import UsageError
from firmware_bridge.config import ConfigError, load_config
from firmware_bridge.daemon import Daemon

__all__ = ["add_parser", "run_daemon"]


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


def _run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config, args.set)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    asyncio.run(run_daemon(Daemon(config)))
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        help="run the daemon: board in, journaled game, MQTT out",
        description="Run the Oche daemon for one board. The config file is --config, "
        "$OCHE_CONFIG, $XDG_CONFIG_HOME/oche/oche.toml or /etc/oche/oche.toml "
        "(see docs/config.md); any key can be set with --set section.key=value.",
    )
    parser.add_argument("--config", metavar="FILE", help="the config file (TOML)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="override one config key, e.g. --set board.driver=simulated",
    )
    parser.set_defaults(run=_run)
