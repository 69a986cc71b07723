"""What the ``oche`` subcommands share: the usage error, the board options,
reading a secret to hash, and the message for a module of an optional extra
that is not installed."""

from __future__ import annotations

import argparse
import getpass
import logging
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from drivers.board_decoder import PROTOCOLS
from drivers.factory import DRIVERS, BoardSpec, preset

__all__ = [
    "EXIT_BAD_INPUT",
    "EXTRAS",
    "OTHER_WAYS",
    "Commands",
    "UsageError",
    "add_board_arguments",
    "board_spec",
    "key_values",
    "missing_extra",
    "quiet_board_logs",
    "read_secret",
]

EXIT_BAD_INPUT = 2


class Commands(Protocol):
    """Where a command module adds its sub-command: what
    ``ArgumentParser.add_subparsers()`` returns (argparse names that type only
    privately)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """A new sub-command's parser."""
        ...


EXTRAS = {
    "pygame": "display",
    "segno": "display",
    "usb": "usb",
    "libusb_package": "usb",
    "bleak": "ble",
    "amqtt": "broker",
    "mpremote": "firmware",
    "sqlalchemy": "leaderboard",
    "alembic": "leaderboard",
    "psycopg": "leaderboard",
    "fastapi": "leaderboard",
    "uvicorn": "leaderboard",
    "openskill": "leaderboard",
    "evdev": "cards",
    "smartcard": "cards",
}
"""The top-level modules of Oche's optional extras (pyproject.toml), by the
extra that installs them: a Pi running only the daemon needs none of them."""


OTHER_WAYS = {
    "broker": "use an MQTT broker of your own: --set mqtt.url=mqtt://HOST:1883 "
    "(or [mqtt] url in the config)",
}
"""What else does without an extra, where something does (the embedded broker
is only needed while ``[mqtt] url`` is empty)."""


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The line that says which extra to install for the module ``error`` could
    not import (and any other way out), or None when that module is no
    extra's (a broken install)."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    other = f", or {OTHER_WAYS[extra]}" if extra in OTHER_WAYS else ""
    return f"this needs {module}, which is not installed: pip install 'oche[{extra}]'{other}"


class UsageError(Exception):
    """A command-line value that is not valid; the message says which."""


def read_secret(from_stdin: bool, prompt: str, what: str, command: str) -> str:
    """A secret to hash (a PIN, a password): standard input's first line with
    ``from_stdin`` or when it is not a terminal, else asked twice without echo
    (``prompt``); none piped in, or two that differ, are a UsageError naming
    ``what`` (and ``command``, to run on a terminal)."""
    if from_stdin or not sys.stdin.isatty():
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:  # nothing piped in, or no terminal to ask on (a service, ssh without -t)
            raise UsageError(
                f"no {what} on standard input: run {command} on a terminal to be asked "
                f"for it, or give the {what} as standard input's first line (--stdin)"
            )
        return line
    first = getpass.getpass(prompt)
    again = getpass.getpass(f"The same {what} again: ")
    if first != again:
        raise UsageError(f"the two {what}s differ: nothing hashed")
    return first


def key_values(pairs: Sequence[str], what: str) -> dict[str, str]:
    """``KEY=VALUE`` arguments (``-o``, ``-t``) as a dict; a bad one is a UsageError."""
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{what} {pair!r} is not KEY=VALUE")
        result[key.strip()] = value.strip()
    return result


def _hex_id(text: str) -> int:
    try:
        value = int(text, 16)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a hex USB id such as 2e8a") from None
    if not 0 <= value <= 0xFFFF:
        raise argparse.ArgumentTypeError(f"{text!r} is not a 16-bit USB id")
    return value


def add_board_arguments(parser: argparse.ArgumentParser, default_driver: str = "serial") -> None:
    """The options that choose a board: driver, port, protocol, map, USB ids, script."""
    group = parser.add_argument_group("board")
    group.add_argument(
        "--driver",
        choices=DRIVERS,
        default=default_driver,
        help=f"how the board is read (default {default_driver}): serial port, USB HID, "
        "a simulated script, the keyboard, or a GranBoard over Bluetooth LE",
    )
    group.add_argument("--port", help="serial port, e.g. /dev/oche-board or /dev/ttyACM0")
    group.add_argument(
        "--baudrate",
        type=int,
        default=None,
        help="serial speed in bits/s (default 115200, 9600 with --protocol dascr; "
        "a USB CDC board ignores it)",
    )
    group.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="oche",
        help="what the board sends (default oche, Oche's firmware; dascr for a "
        "DaSCR/dARts board: 9600 baud, its button, piezo and takeout sensor; "
        "darts-codes and row-col for other boards with dARts-style firmware)",
    )
    group.add_argument("--map", dest="map_path", metavar="FILE", help="matrix map (TOML)")
    group.add_argument("--vid", type=_hex_id, help="USB vendor id (hex)")
    group.add_argument("--pid", type=_hex_id, help="USB product id (hex)")
    group.add_argument("--interface", type=int, default=0, help="USB interface number")
    group.add_argument(
        "--usb-report", choices=("line", "cells"), default="line", help="USB report format"
    )
    group.add_argument(
        "--ble-address",
        default="",
        metavar="ADDRESS",
        help="granboard: the board's Bluetooth address (default: found by --ble-name)",
    )
    group.add_argument(
        "--ble-name",
        default="",
        metavar="NAME",
        help="granboard: how the board's advertised name starts (default: the first GranBoard)",
    )
    group.add_argument(
        "--script", default="", help="simulated board: darts, button:NAME, coin:N, +SECONDS"
    )
    group.add_argument("--delay", type=float, default=0.0, help="simulated board: seconds per dart")


def board_spec(args: argparse.Namespace) -> BoardSpec:
    """The :class:`BoardSpec` the board options describe; bad values are a UsageError."""
    implied = preset(args.protocol)
    spec = BoardSpec(
        driver=args.driver,
        port=args.port,
        baudrate=implied.baudrate if args.baudrate is None else args.baudrate,
        protocol=args.protocol,
        sensors=implied.sensors,
        map_path=args.map_path,
        script=args.script,
        delay=args.delay,
        usb_vid=args.vid,
        usb_pid=args.pid,
        usb_interface=args.interface,
        usb_report=args.usb_report,
        ble_address=args.ble_address,
        ble_name=args.ble_name,
    )
    try:
        spec.check()
    except ValueError as error:
        raise UsageError(str(error)) from None
    return spec


def quiet_board_logs() -> None:
    """For commands that show the board's errors themselves (monitor, calibrate):
    log only what is worse than a rejected frame, so nothing is said twice."""
    logging.getLogger("drivers").setLevel(logging.ERROR)
