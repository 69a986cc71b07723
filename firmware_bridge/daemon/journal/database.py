"""The journal's one SQLite connection, shared by its stores.

:class:`Database` opens the file (WAL, ``synchronous=FULL``, foreign keys),
checks and migrates it, and gives the stores their transactions and reads
under one lock, with the checks every store makes of what it is given
(a time, a JSON value) and the errors that name the journal's path.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from firmware_bridge.daemon.journal.errors import (
    JournalDamaged,
    JournalError,
    JournalWriteError,
    WriteListener,
)
from firmware_bridge.daemon.journal.schema import migrate, schema_version_of

__all__ = ["Database"]

_BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another connection's write (``oche history``
reading while the daemon writes never waits: WAL readers do not block)."""

_DAMAGED_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
"""SQLite's error codes for a file it cannot read as a database (damaged)."""

_STORAGE_CODES = ("SQLITE_FULL", "SQLITE_IOERR")
"""SQLite's error codes (and the extended ones they start) for a disk that
refused a write: full or failing, it may take the write later."""


class Database:
    """The connection to the journal at ``path`` (none until :meth:`open`),
    shared safely between threads: each transaction and read holds a lock.
    ``on_write`` is told the outcome of every write transaction."""

    def __init__(self, path: Path, on_write: WriteListener | None = None) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._on_write = on_write
        self._troubled = False
        """A write or a read failed while open: no stamp at close."""

    @property
    def connection(self) -> sqlite3.Connection | None:
        """The open SQLite connection (``None`` when closed): for tests and tools
        that watch what the journal runs; the stores use :meth:`transaction`."""
        return self._connection

    def open(self) -> None:
        """Open the file, creating its parent directories and the schema if
        needed; switch on WAL, ``synchronous=FULL`` and foreign keys; migrate an
        older schema. A foreign or newer file is a :class:`JournalError`, a
        damaged one a :class:`JournalDamaged`. Opening an open journal does nothing."""
        with self._lock:
            if self._connection is not None:
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise self.error(f"cannot create its directory: {error.strerror}") from None
            checked = self._as_closed()  # before SQLite opens the write-ahead log
            with contextlib.suppress(OSError):  # it vouches for the file until it is opened
                self.stamp_path.unlink()
            try:
                connection = sqlite3.connect(
                    self.path,
                    timeout=_BUSY_TIMEOUT_S,
                    isolation_level=None,  # autocommit; transactions are explicit
                    check_same_thread=False,  # guarded by self._lock
                )
            except sqlite3.Error as error:
                raise self.error(f"cannot open: {error}") from None
            try:
                self._prepare(connection, checked)
            except BaseException:
                connection.close()
                raise
            self._connection = connection
            self._troubled = False

    def _prepare(self, connection: sqlite3.Connection, checked: bool) -> None:
        """Check (unless ``checked``: as a clean close left it), set up and migrate."""
        try:
            version = schema_version_of(connection, self.path)
            problems = ["ok"] if checked else self._quick_check(connection)
            if problems != ["ok"]:
                raise JournalDamaged(
                    f"journal {self.path}: the database is corrupt: {'; '.join(problems[:3])}",
                    problems[:10],
                )
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise self.error(f"cannot switch to WAL mode (journal_mode is {mode})")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            migrate(connection, version)
        except sqlite3.Error as error:
            message = f"journal {self.path}: not a readable Oche journal: {error}"
            code = getattr(error, "sqlite_errorname", None)
            if code in _DAMAGED_CODES:
                raise JournalDamaged(message, [str(error)]) from None
            if code is not None and code.startswith(_STORAGE_CODES):  # the disk, not the file
                raise JournalWriteError(message, str(error), code == "SQLITE_FULL") from None
            raise JournalError(message) from None

    def close(self) -> None:
        """Close the file (a no-op when closed). Everything is already committed.
        A journal that took every write and read while open is stamped as closed."""
        with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                try:
                    connection.close()
                except sqlite3.Error as error:
                    raise self.error(f"cannot close: {error}") from None
                if not self._troubled:
                    self._stamp()

    # ---- the check at open, and the stamp that spares it
    # SQLite's quick_check reads every page: some 300 ms for a year's journal
    # on a desktop, seconds on a Raspberry Pi. It runs at open unless the file
    # is exactly as a clean close left it (the stamp beside it names its
    # size, modification time and inode, and no write-ahead log is left): a
    # crash, a power cut, a copy or any other writer changes one of those.

    @property
    def stamp_path(self) -> Path:
        """The stamp of the journal's last clean close: ``<journal>.closed``."""
        return self.path.with_name(f"{self.path.name}.closed")

    def _file_id(self) -> str | None:
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return f"{found.st_size} {found.st_mtime_ns} {found.st_ino}"

    def _as_closed(self) -> bool:
        """The file is as the last clean close left it (no check needed)."""
        try:
            stamp = self.stamp_path.read_text("ascii").strip()
        except (OSError, ValueError):
            return False
        wal = Path(f"{self.path}-wal")
        return not wal.exists() and stamp == self._file_id()

    def _stamp(self) -> None:
        """Stamp the file as closed cleanly (when its write-ahead log is gone:
        no other connection has it open); a stamp that cannot be written is
        left out, and the next open checks the file."""
        if Path(f"{self.path}-wal").exists():
            return
        file_id = self._file_id()
        try:
            if file_id is None:
                return
            self.stamp_path.write_text(file_id + "\n", "ascii")
        except OSError:
            with contextlib.suppress(OSError):
                self.stamp_path.unlink()

    @staticmethod
    def _quick_check(connection: sqlite3.Connection) -> list[str]:
        """SQLite's ``quick_check``: ``["ok"]``, or what it found."""
        return [str(row[0]) for row in connection.execute("PRAGMA quick_check")]

    def _open_connection(self) -> sqlite3.Connection:
        if self._connection is None:
            raise self.error("not open")
        return self._connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, committed (durably) before the block's caller
        returns, rolled back on any error; SQLite errors become JournalError
        (a constraint the write broke) or JournalWriteError (the storage
        refused it), and ``on_write`` hears how the storage took it."""
        with self._lock:
            connection = self._open_connection()
            try:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    yield connection
                    connection.execute("COMMIT")
                except BaseException:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as error:
                raise self.error(f"write failed: {error}") from None
            except sqlite3.Error as error:
                refused = JournalWriteError(
                    f"journal {self.path}: write failed: {error}",
                    str(error),
                    getattr(error, "sqlite_errorname", None) == "SQLITE_FULL",
                )
                self._wrote(refused)
                raise refused from None
            self._wrote(None)

    def _wrote(self, problem: JournalWriteError | None) -> None:
        if problem is not None:
            self._troubled = True
        if self._on_write is not None:
            self._on_write(problem)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, to read from under the lock; SQLite errors become
        :class:`JournalError`."""
        with self._lock:
            connection = self._open_connection()
            try:
                yield connection
            except sqlite3.Error as error:
                self._troubled = True
                raise self.error(f"read failed: {error}") from None

    def probe(self) -> None:
        """A write that changes nothing (the schema version written again, in
        a transaction of its own): whether the storage takes writes now. A
        :class:`JournalWriteError` when it does not."""
        with self.transaction() as connection:
            version = int(connection.execute("PRAGMA user_version").fetchone()[0])
            connection.execute(f"PRAGMA user_version = {version}")

    # ---- what every store checks and says

    def error(self, message: str) -> JournalError:
        """A :class:`JournalError` whose message names the journal's path."""
        return JournalError(f"journal {self.path}: {message}")

    def no_game(self, game_id: int) -> JournalError:
        """The error for an unknown game id."""
        return self.error(f"no game {game_id}")

    def status(self, connection: sqlite3.Connection, game_id: int) -> str:
        """The status of game ``game_id`` (a :meth:`no_game` error for none)."""
        row = connection.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise self.no_game(game_id)
        return str(row[0])

    def json(self, value: Any, what: str) -> str:
        """``value`` as the JSON text the journal keeps (``what`` names it in the error)."""
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise self.error(f"{what} cannot be stored as JSON: {error}") from None

    def time(self, value: float) -> float:
        """``value`` as a time the journal keeps: finite unix seconds."""
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self.error(f"{value!r} is not a time in unix seconds")
        return float(value)
