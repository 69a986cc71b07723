"""``oche operator pin``: hash the operator menu's PIN for ``[operator] pin_hash``.

On a terminal it asks for the PIN twice without echo; with ``--stdin`` (or
when standard input is not a terminal) it reads one line. It prints the
config line, ``pin_hash = "scrypt$..."`` (display/operator_pin.py: scrypt
with a random salt), and never the PIN itself, not even in an error.
"""

from __future__ import annotations

import argparse
import sys

from firmware_bridge.cli.command_support import Commands, UsageError, read_secret

__all__ = ["add_parser", "read_pin"]


def read_pin(from_stdin: bool) -> str:
    """The PIN from standard input's first line, or asked twice on the terminal."""
    return read_secret(from_stdin, "Operator PIN (4 to 12 digits): ", "PIN", "oche operator pin")


def _pin(args: argparse.Namespace) -> int:
    # The display's module: it hashes and checks PINs, and imports no pygame.
    from display.operator_pin import check_pin, hash_pin

    pin = read_pin(args.stdin)
    try:
        check_pin(pin)
    except ValueError as error:
        raise UsageError(str(error)) from None
    sys.stdout.write(f'pin_hash = "{hash_pin(pin)}"\n')
    sys.stderr.write("Put this line in the [operator] section of the config (oche.toml).\n")
    return 0


def add_parser(commands: Commands) -> None:
    """Add ``oche operator pin``."""
    operator = commands.add_parser(
        "operator",
        help="the operator menu's PIN (oche operator pin)",
        description="Tools for the board's operator (docs/credits.md).",
    )
    actions = operator.add_subparsers(dest="operator_command", required=True, metavar="ACTION")
    pin = actions.add_parser(
        "pin",
        help="hash a PIN for [operator] pin_hash",
        description="Ask for the operator PIN (4 to 12 digits) and print the config line "
        'pin_hash = "scrypt$..." for the [operator] section: the PIN hashed with scrypt and a '
        "random salt. The PIN itself is never printed or stored.",
    )
    pin.add_argument(
        "--stdin", action="store_true", help="read the PIN from standard input's first line"
    )
    pin.set_defaults(run=_pin)
