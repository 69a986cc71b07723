"""``oche books``: a coin-operated board's books, from the daemon's journal.

Prints the customer books (since the board's last ``reset_books``) and the
lifetime security books side by side: the coins per input and the credits
they gave, the credits in per source, the credits spent, the games played per
game id and the play time (docs/credits.md, "The books"). ``--since`` and
``--until`` narrow both to a period; ``--json`` prints everything, as the
daemon's retained ``books`` snapshot does (both come from
:func:`firmware_bridge.daemon.books.books`).

The journal is found as ``oche history`` finds it: ``--journal PATH``, else
the one the daemon's config names, else the default path. Reading it never
blocks the running daemon (SQLite WAL readers do not wait for the writer).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import date, datetime, timedelta
from typing import Any

from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.history_command import _journal, _journal_argument
from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.config import ConfigError, load_config
from firmware_bridge.daemon.journal import Journal, JournalError

__all__ = ["add_parser", "books_table", "parse_when"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_when(text: str, end: bool = False) -> float:
    """A date or time given on the command line, in unix seconds:
    ``YYYY-MM-DD`` is that day's local midnight (with ``end``, the next day's,
    so ``--until`` takes in the whole day); an ISO datetime without an offset is
    local time. Anything else is a ValueError saying what is expected."""
    text = text.strip()
    problem = f"{text!r} is not a date (YYYY-MM-DD) nor an ISO datetime (YYYY-MM-DDTHH:MM[:SS])"
    try:
        if _DAY.fullmatch(text):
            day = date.fromisoformat(text) + timedelta(days=1 if end else 0)
            return datetime(day.year, day.month, day.day).timestamp()
        return datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        raise ValueError(problem) from None


def _since(text: str) -> float:
    try:
        return parse_when(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _until(text: str) -> float:
    try:
        return parse_when(text, end=True)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _local(timestamp: float | None, none: str = "-") -> str:
    if timestamp is None:
        return none
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _duration(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def books_table(result: dict[str, Any]) -> str:
    """The text ``oche books`` prints: a title line naming the board, then one
    row per figure with the customer and the security books side by side
    (times in local time, play time as H:MM:SS)."""
    customer, security = result["customer"], result["security"]
    reset = customer.get("reset_at")
    rows: list[tuple[str, str, str]] = [
        ("from", _local(customer["from"], "the start"), _local(security["from"], "the start")),
        ("until", _local(customer["until"], "now"), _local(security["until"], "now")),
        ("last reset", _local(reset), "never reset"),
    ]
    for coin_input in sorted({*customer["coins"], *security["coins"]}, key=int):
        for what in ("pulses", "credits"):
            cells = [
                book["coins"].get(coin_input, {}).get(what, 0) for book in (customer, security)
            ]
            rows.append((f"coin input {coin_input} {what}", str(cells[0]), str(cells[1])))
    rows.append(("coins", str(customer["coins_total"]), str(security["coins_total"])))
    for source in security["credits_in"]:
        cells = [book["credits_in"].get(source, 0) for book in (customer, security)]
        rows.append((f"credits in: {source}", str(cells[0]), str(cells[1])))
    for key, label in (
        ("credits_in_total", "credits in"),
        ("credits_spent", "credits spent"),
        ("credits_net", "credits net"),
    ):
        rows.append((label, str(customer[key]), str(security[key])))
    for game in sorted({*customer["games"], *security["games"]}):
        cells = [book["games"].get(game, {}).get("played", 0) for book in (customer, security)]
        rows.append((f"games: {game}", str(cells[0]), str(cells[1])))
    rows.append(("games played", str(customer["games_played"]), str(security["games_played"])))
    rows.append(
        ("play time", _duration(customer["play_time_s"]), _duration(security["play_time_s"]))
    )
    header = ("BOOKS", "CUSTOMER", "SECURITY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [f"books of board {result['board']}\n"]
    for row in [header, *rows]:
        lines.append(
            f"{row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2].rjust(widths[2])}\n"
        )
    return "".join(lines)


def _board(args: argparse.Namespace, journal: Journal) -> str:
    """``--board``, else the one board in the journal, else the config's."""
    if args.board is not None:
        return str(args.board)
    boards = journal.books_boards()
    if len(boards) == 1:
        return boards[0]
    if boards:
        raise UsageError(
            f"the journal {journal.path} holds the books of several boards "
            f"({', '.join(boards)}): choose one with --board ID"
        )
    try:
        return load_config(args.config).board.id
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _books(args: argparse.Namespace) -> int:
    if args.since is not None and args.until is not None and args.until <= args.since:
        raise UsageError(
            f"the period is empty: --until ends it at {_local(args.until)}, "
            f"which is not after --since starts it at {_local(args.since)}"
        )
    try:
        with _journal(args) as journal:
            result = books(journal, _board(args, journal), args.since, args.until)
    except JournalError as error:
        raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(books_table(result))
    return 0


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "books",
        help="print a coin-operated board's books from the journal",
        description="Print a board's books: coins per input and their credits, credits in "
        "per source, credits spent, games played per game and play time, for the customer "
        "books (since the last reset_books) and the lifetime security books side by side.",
    )
    _journal_argument(parser)
    parser.add_argument(
        "--board", metavar="ID", help="the board (default: the journal's only board)"
    )
    parser.add_argument(
        "--since",
        type=_since,
        metavar="DATE",
        help="from this day (YYYY-MM-DD, local time) or time (an ISO datetime) on",
    )
    parser.add_argument(
        "--until",
        type=_until,
        metavar="DATE",
        help="up to this day's end (YYYY-MM-DD, local time) or this time (an ISO datetime)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=_books)
