"""The daemon's crash-proof journal: every game, every event, every result.

One SQLite file (stdlib :mod:`sqlite3`) holds the games a board played, the
event tokens of each (``T20``, ``NEXT``, ``UNDO``) in order, the contacts
that were deliberately not scored (kept for audit, never replayed), an
*outbox* of result payloads (each ``sent`` once the broker acknowledged it
and ``stored`` once a leaderboard said it has it), the remote matches, the
credit ledger with the books' running totals, and the operator's settings.

:class:`Journal` opens the one connection (:class:`Database`), migrates the
schema and gives a store for each thing it keeps, over that connection:
``games`` (games and their tokens), ``outbox``, ``remote`` (remote-taken,
guest matches), ``ledger`` (credits and the books) and ``settings``.

What one input decides is one transaction (:meth:`GameStore.record`): the
event tokens of a dart, a button or a command, and with them the game's
finish (its result and outbox entry) or its reopening by an undo, and a
remote guest's ``taken`` seq. They are written together or not at all. The
daemon applies an input to its game in memory, records it here, and only
then publishes what it caused; when the journal refuses, the game is rebuilt
from the journal and nothing of the input is published. Every write is
committed before the method returns, in WAL mode with ``synchronous=FULL``:
a commit is on disk when it returns, so neither a crash of the process
(``SIGKILL``, an exception) nor a power cut loses an event the daemon went
on to show. After a restart the daemon replays the board's
:meth:`GameStore.latest_game` (playing, or finished and its winner shown),
and completes a finish or an undone win the events give but the journal
does not say.

The file identifies itself and records its schema version; a newer version
is refused, an older one is migrated on :meth:`Journal.open` by
:data:`MIGRATIONS`. Any other database is a :class:`JournalError` naming the
path, a damaged file a :class:`JournalDamaged`. A write the storage refuses
(a full disk) is a :class:`JournalWriteError` and leaves nothing of it
behind. See docs/journal.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from firmware_bridge.daemon.journal.database import Database
from firmware_bridge.daemon.journal.errors import (
    JournalDamaged,
    JournalError,
    JournalWriteError,
    WriteListener,
)
from firmware_bridge.daemon.journal.games import STATUSES, Finish, GameStore, JournalGame
from firmware_bridge.daemon.journal.ledger import Charge, CoinCredit, LedgerStore
from firmware_bridge.daemon.journal.outbox import OutboxEntry, OutboxStore, Withdrawal
from firmware_bridge.daemon.journal.remote import GuestAction, GuestMatch, RemoteStore
from firmware_bridge.daemon.journal.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    schema_version_of,
)
from firmware_bridge.daemon.journal.settings import SettingsStore

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STATUSES",
    "Charge",
    "CoinCredit",
    "Database",
    "Finish",
    "GameStore",
    "GuestAction",
    "GuestMatch",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalGame",
    "JournalWriteError",
    "LedgerStore",
    "OutboxEntry",
    "OutboxStore",
    "RemoteStore",
    "SettingsStore",
    "Withdrawal",
    "WriteListener",
    "default_journal_path",
    "schema_version_of",
]


def default_journal_path() -> Path:
    """``$XDG_STATE_HOME/oche/journal.sqlite3``; ``XDG_STATE_HOME`` defaults to
    ``~/.local/state`` (and is ignored when empty or relative, as the XDG Base
    Directory specification says)."""
    state_home = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state_home) if os.path.isabs(state_home) else Path.home() / ".local" / "state"
    return base / "oche" / "journal.sqlite3"


class Journal:
    """The journal at ``path``. Nothing is read or written until :meth:`open`
    (or ``with Journal(path) as journal:``). One connection, shared safely
    between threads (each call holds a lock) by the stores: :attr:`games`,
    :attr:`outbox`, :attr:`remote`, :attr:`ledger` and :attr:`settings`.
    ``on_write`` is told the outcome of every write transaction (the daemon
    shows a full disk with it)."""

    def __init__(self, path: str | os.PathLike[str], on_write: WriteListener | None = None) -> None:
        self.path = Path(path)
        self.database = Database(self.path, on_write)
        self.outbox = OutboxStore(self.database)
        """The results waiting for the broker and a leaderboard."""
        self.remote = RemoteStore(self.database)
        """Remote matches: what the host took from each guest, a guest's matches."""
        self.ledger = LedgerStore(self.database)
        """The credit ledger and the books."""
        self.settings = SettingsStore(self.database)
        """What the operator set at a board."""
        self.games = GameStore(self.database, self.outbox, self.remote, self.ledger)
        """The games and their event tokens."""

    def open(self) -> None:
        """Open the file, creating its parent directories and the schema if
        needed, and migrate an older schema (see :meth:`Database.open`).
        Opening an open journal does nothing."""
        self.database.open()

    def close(self) -> None:
        """Close the file (a no-op when closed). Everything is already committed."""
        self.database.close()

    def probe(self) -> None:
        """Whether the storage takes writes now: a :class:`JournalWriteError`
        when it does not (see :meth:`Database.probe`)."""
        self.database.probe()

    def __enter__(self) -> Journal:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
