"""``oche journal check`` and ``oche journal salvage FILE``: the operator's
tools for a damaged journal (docs/journal.md, "A damaged journal").

``check`` runs SQLite's full integrity check on the journal ``oche history``
would read (``--journal PATH``, else the daemon's config's), without writing
to it, so it is safe while the daemon runs: exit 0 and the rows of each table
for a sound journal, exit 1 and what SQLite found for a damaged one.
``salvage FILE`` reads what can be read of FILE (a damaged journal, or one
the daemon set aside as ``journal.sqlite3.damaged-...``) into a new journal,
``FILE.salvaged`` or ``--output PATH``; FILE itself is only read. The daemon
does the same by itself when it starts on a damaged journal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.history_command import _journal_argument, _journal_path
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.journal_salvage import check_journal, salvage_journal

__all__ = ["EXIT_DAMAGED", "add_parser"]

EXIT_DAMAGED = 1
"""``oche journal check``'s status for a damaged journal."""


def _check(args: argparse.Namespace) -> int:
    path = _journal_path(args)
    try:
        checked = check_journal(path)
    except JournalError as error:
        raise UsageError(str(error)) from None
    if not checked.ok:
        lines = [f"journal {path}: damaged (SQLite's integrity check):"]
        lines += [f"  {line}" for problem in checked.problems for line in problem.splitlines()]
        lines.append(
            "the daemon sets it aside and salvages it when it starts; "
            f"or stop it and run: oche journal salvage {path}"
        )
        sys.stdout.write("\n".join(lines) + "\n")
        return EXIT_DAMAGED
    counts = ", ".join(f"{table}: {rows}" for table, rows in checked.rows.items() if rows)
    version = checked.schema_version
    sys.stdout.write(f"journal {path}: ok (schema version {version}); {counts or 'empty'}\n")
    return 0


def _salvage(args: argparse.Namespace) -> int:
    source = Path(args.file).expanduser()
    target = Path(args.output).expanduser() if args.output else Path(f"{source}.salvaged")
    try:
        report = salvage_journal(source, target)
    except JournalError as error:
        raise UsageError(str(error)) from None
    lines = [f"journal {source}: salvaged into {target}"]
    lines += [f"  SQLite said: {line}" for line in report.problems[:3]]
    lines.append(f"  {report.summary()}")
    lines.append(
        "to use it: stop the daemon, move it to the journal's path (delete the "
        "-wal and -shm files beside the old journal), start the daemon"
    )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def add_parser(commands: Commands) -> None:
    journal = commands.add_parser(
        "journal",
        help="check a journal, or salvage a damaged one",
        description="Check the daemon's journal (SQLite's integrity check, read only), or "
        "read what can be read of a damaged journal into a new one. The daemon sets a "
        "damaged journal aside and salvages it by itself when it starts.",
    )
    actions = journal.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="check the journal: exit 0 when sound, 1 when damaged",
        description="Run SQLite's full integrity check on the journal without writing to it "
        "(safe while the daemon runs). Exit status 0: sound (the rows of each table are "
        "printed); 1: damaged (what SQLite found is printed); 2: no journal, or not one.",
    )
    _journal_argument(check)
    check.set_defaults(run=_check)
    salvage = actions.add_parser(
        "salvage",
        help="read what can be read of a damaged journal into a new one",
        description="Read what can be read of FILE (games, their darts, results still to "
        "send, the credit ledger, ...) into a new journal; FILE is only read. Move the new "
        "journal to the daemon's journal path (with the daemon stopped) to use it.",
    )
    salvage.add_argument("file", metavar="FILE", help="the damaged journal")
    salvage.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="the new journal (default FILE.salvaged; it must not exist)",
    )
    salvage.set_defaults(run=_salvage)
