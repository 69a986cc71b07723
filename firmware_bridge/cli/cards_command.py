"""``oche cards``: player cards (docs/players.md).

``oche cards monitor`` reads the card reader (``[cards] reader`` of the
config, or ``--reader``) and prints a line for each tap: the card masked to
its last four digits and the hash a board would look it up by (with
``[cards] secret``), or, with ``--show-uid``, the UID itself, to a terminal
only and never to a log. Like the daemon it grabs a keyboard-wedge reader,
so stop ``oche run`` first. ``oche cards secret`` prints a new venue secret
as the config line ``secret = "..."``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import TextIO

from credentials.card_hash import CardUidError, card_hash, masked_uid, new_card_secret
from drivers.board_events import CardTapped, ConnectedEvent, DisconnectedEvent
from drivers.card_readers import CardReaderSpec, open_card_reader, parse_card_reader
from drivers.errors import DriverError
from drivers.source import BoardSource
from firmware_bridge.cli.command_support import Commands, UsageError, quiet_board_logs
from firmware_bridge.daemon.config import ConfigError, load_config

__all__ = ["add_parser", "monitor_taps", "tap_line"]


def tap_line(uid: str, secret: str, show_uid: bool) -> str:
    """What the monitor prints for a tap of ``uid``: the card (masked unless
    ``show_uid``) and the hash it is stored as under ``secret``."""
    shown = uid if show_uid else masked_uid(uid)
    if not secret:
        return f"card {shown}  (no [cards] secret: set one to see the hash it is stored as)"
    try:
        return f"card {shown}  {card_hash(secret, uid)}"
    except CardUidError as error:
        return f"card {shown}  not usable as a card: {error}"


async def monitor_taps(
    reader: BoardSource, secret: str, show_uid: bool, out: TextIO = sys.stdout
) -> None:
    """Print the reader's taps and connection changes until it ends."""
    async with reader:
        async for event in reader:
            if isinstance(event, CardTapped):
                line = tap_line(event.uid, secret, show_uid)
            elif isinstance(event, ConnectedEvent):
                line = f"{event.source}: connected, tap a card"
            elif isinstance(event, DisconnectedEvent):
                line = f"{event.source}: {event.reason}; retrying"
            else:
                continue
            out.write(line + "\n")
            out.flush()


def _reader_spec(args: argparse.Namespace, configured: CardReaderSpec) -> CardReaderSpec:
    if args.reader is None:
        spec = configured
    else:
        try:
            spec = parse_card_reader(args.reader)
        except DriverError as error:
            raise UsageError(f"--reader: {error}") from None
    if spec.kind == "none":
        raise UsageError(
            "no card reader: set [cards] reader in the config or pass --reader "
            "(evdev:/dev/input/by-id/...-event-kbd, pcsc or pcsc:NAME)"
        )
    return spec


def _monitor(args: argparse.Namespace) -> int:
    if args.show_uid and not sys.stdout.isatty():
        raise UsageError("--show-uid prints card UIDs to a terminal only: standard output is not")
    try:
        config = load_config(args.config, args.set)
        spec = _reader_spec(args, config.cards.reader_spec())
    except ConfigError as error:
        raise UsageError(str(error)) from None
    reader = open_card_reader(spec)
    assert reader is not None  # not "none": refused above
    quiet_board_logs()  # the monitor prints the reader's connection itself
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(monitor_taps(reader, config.cards.secret, args.show_uid))
    return 0


def _secret(args: argparse.Namespace) -> int:
    sys.stdout.write(f'secret = "{new_card_secret()}"\n')
    sys.stderr.write(
        "Put this line in the [cards] section of the config of every board of the venue "
        "and of its leaderboard service: the same secret everywhere, kept private.\n"
    )
    return 0


def add_parser(commands: Commands) -> None:
    """Add ``oche cards monitor`` and ``oche cards secret``."""
    cards = commands.add_parser(
        "cards",
        help="player cards: watch a card reader, make a venue secret",
        description="Player cards (docs/players.md): watch the card reader's taps, "
        "make the venue's card secret.",
    )
    actions = cards.add_subparsers(dest="cards_command", required=True, metavar="ACTION")
    monitor = actions.add_parser(
        "monitor",
        help="print each card tapped on the reader",
        description="Read the card reader ([cards] reader, or --reader) and print a line for "
        "each tap: the card masked to its last four digits and the hash it is stored as "
        "under [cards] secret. Grabs a keyboard-wedge reader: stop oche run first. "
        "Ctrl-C stops.",
    )
    monitor.add_argument("--config", metavar="FILE", help="the config file (TOML)")
    monitor.add_argument(
        "--set", action="append", default=[], metavar="SECTION.KEY=VALUE", help="override a key"
    )
    monitor.add_argument(
        "--reader",
        metavar="READER",
        help="evdev:PATH, pcsc or pcsc:NAME (default: the config's [cards] reader)",
    )
    monitor.add_argument(
        "--show-uid",
        action="store_true",
        help="print each card's UID in full (to a terminal only; never logged)",
    )
    monitor.set_defaults(run=_monitor)
    secret = actions.add_parser(
        "secret",
        help="print a new venue secret for [cards] secret",
        description='Print a new random venue secret as the config line secret = "..." for '
        "the [cards] section: every board of a venue and its leaderboard need the same one.",
    )
    secret.set_defaults(run=_secret)
