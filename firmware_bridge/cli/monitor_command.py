"""``oche monitor``: print every board event as one JSON object per line.

The first thing a builder runs after wiring a board: each contact shows its
cell (and, with ``--map``, its segment), and noise shows up as errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys

from drivers.factory import open_board
from firmware_bridge.cli.command_support import (
    Commands,
    add_board_arguments,
    board_spec,
    quiet_board_logs,
)

__all__ = ["add_parser", "monitor"]


async def monitor(args: argparse.Namespace) -> None:
    """Print events until the source ends or the user presses Ctrl-C."""
    async with open_board(board_spec(args)) as board:
        async for event in board:
            sys.stdout.write(json.dumps(event.to_json()) + "\n")
            sys.stdout.flush()


def _run(args: argparse.Namespace) -> int:
    quiet_board_logs()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(monitor(args))
    return 0


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "monitor",
        help="print every board event as JSON lines",
        description="Print every event from a board (hit, button, stuck, released, connected, "
        "disconnected, error) as one JSON object per line. Ctrl-C stops.",
    )
    add_board_arguments(parser)
    parser.set_defaults(run=_run)
