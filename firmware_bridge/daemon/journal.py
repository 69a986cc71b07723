"""The daemon's crash-proof journal: every game, every event, every result.

One SQLite file (stdlib :mod:`sqlite3`) holds the games a board played, the
event tokens of each (``T20``, ``NEXT``, ``UNDO``) in order, the contacts
that were deliberately not scored (kept for audit, never replayed), and an
*outbox* of result payloads: each is ``sent`` once the broker acknowledged it
and ``stored`` once a leaderboard said it has it (``result/stored``); a
result none has stored is sent again whenever a leaderboard comes online.

The daemon writes an event here *before* it applies or publishes it, and
every write is committed before the method returns. The database runs in WAL
mode with ``synchronous=FULL``: a commit is on disk (the WAL is fsync'ed)
when it returns, so neither a crash of the process (``SIGKILL``, an
exception) nor a power cut loses an event the daemon went on to show. After
a restart :meth:`Journal.unfinished_game` gives the game back with its
tokens, and replaying them restores it exactly.

What one input decides is one transaction (:meth:`Journal.record`): the
event tokens of a dart, a button or a command, and with them the game's
finish (its result and outbox entry) or its reopening by an undo. They are
written together or not at all, so a power cut can never leave a winning dart
without its result, nor an undone win without the game reopened.

The file identifies itself (``PRAGMA application_id``) and records its schema
version (``PRAGMA user_version``); a newer version is refused, an older one is
migrated on :meth:`Journal.open` by :data:`MIGRATIONS`. Any other database
is a :class:`JournalError` naming the path, a damaged file a
:class:`JournalDamaged`. A write the storage refuses (a full disk) is a
:class:`JournalWriteError` and leaves nothing of it behind. See
docs/journal.md.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.errors import NotationError
from engine.events import parse_event

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STATUSES",
    "Charge",
    "CoinCredit",
    "Finish",
    "GuestAction",
    "GuestMatch",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalGame",
    "JournalWriteError",
    "OutboxEntry",
    "Withdrawal",
    "WriteListener",
    "default_journal_path",
    "schema_version_of",
]

APPLICATION_ID = 0x4F434845
"""``PRAGMA application_id`` of an Oche journal: ``OCHE`` in ASCII."""

STATUSES = ("playing", "finished", "ended")
"""A game is ``playing``, ``finished`` (with a result) or ``ended`` (abandoned)."""

_BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another connection's write (``oche history``
reading while the daemon writes never waits: WAL readers do not block)."""


class JournalError(ValueError):
    """The journal cannot do what was asked: a corrupt or foreign file, an
    unknown game id, a game in the wrong status, a failed write. The message
    names the journal's path."""


class JournalWriteError(JournalError):
    """The storage refused a write (nothing of it was written): its file
    system is full (``full``), or the disk failed, is read-only or the file is
    damaged. Unlike a refusal of what was asked, the same write may succeed
    later. ``reason`` is SQLite's words (``database or disk is full``)."""

    def __init__(self, message: str, reason: str, full: bool) -> None:
        super().__init__(message)
        self.reason = reason
        self.full = full


class JournalDamaged(JournalError):
    """:meth:`Journal.open` found the file damaged (SQLite reads it as corrupt,
    or not as a database at all): what ``firmware_bridge.daemon.journal_salvage``
    salvages. ``problems`` are what SQLite said, at most a few lines."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


WriteListener = Callable[[JournalWriteError | None], None]
"""Told the outcome of every write to the storage: ``None`` when it was
committed, the :class:`JournalWriteError` when the storage refused it."""

_DAMAGED_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
"""SQLite's error codes for a file it cannot read as a database (damaged)."""

_STORAGE_CODES = ("SQLITE_FULL", "SQLITE_IOERR")
"""SQLite's error codes (and the extended ones they start) for a disk that
refused a write: full or failing, it may take the write later."""


@dataclass(frozen=True)
class JournalGame:
    """One journaled game. ``events`` are the event tokens in the order they
    were appended (undone darts and their ``UNDO`` included); replaying them
    with the engine gives the game. ``finished_at`` is when it finished or was
    ended (``None`` while playing); ``result`` is the daemon's result for a
    finished game, else ``None``."""

    id: int
    game: str
    options: dict[str, Any]
    players: list[str]
    teams: dict[str, list[str]] | None
    board: str
    started_at: float
    finished_at: float | None
    status: str
    result: dict[str, Any] | None
    events: list[str]
    last_event_at: float | None = None
    """When the last event was journaled (``None`` without events, and in
    :meth:`Journal.games`, which leaves events out)."""
    bots: dict[str, Any] | None = None
    """The game's computer players, as the daemon started it (their spread
    and the seed their darts are drawn from), or ``None`` without any."""
    remote: dict[str, Any] | None = None
    """The remote match this board hosts with the game (``match``, ``host``
    and ``boards``: player name -> ``base/board``), or ``None``."""
    game_key: str | None = None
    """The ``game_key`` of the game's results (the result_id of its first),
    ``None`` before its first result."""
    revision: int = 0
    """The last ``revision`` a result of the game used (0: none yet)."""
    delivery: str | None = None
    """Where the game's latest result (or withdrawal) is: ``stored`` (a
    leaderboard has it), ``sent`` (the broker acknowledged it), ``pending``
    (not sent yet), or ``None`` without one."""


@dataclass(frozen=True)
class Finish:
    """What finishing a game writes: the ``result`` kept with the game, and
    the ``payload`` (JSON text) that enters the outbox under ``result_id``.
    ``game_key`` and ``revision`` are the payload's: a revision must be above
    every one the game used and the key the game's (``None``: the next
    revision, and the game's key or else this result_id)."""

    result: dict[str, Any]
    finished_at: float
    result_id: str
    payload: str
    game_key: str | None = None
    revision: int | None = None


@dataclass(frozen=True)
class Withdrawal:
    """What ending a reopened game whose result was sent writes to the
    outbox: ``payload``, that result with ``withdrawn: true``, under a new
    ``result_id`` and the next ``revision`` of game ``game_id``."""

    game_id: int
    result_id: str
    revision: int
    payload: str


@dataclass(frozen=True)
class OutboxEntry:
    """One result in the outbox: ``sent_at`` when the broker acknowledged it
    (``None``: not yet), ``stored_at`` when a leaderboard said it has it."""

    id: int
    result_id: str
    payload: str
    sent_at: float | None
    stored_at: float | None


@dataclass(frozen=True)
class Charge:
    """What starting a game costs (``credit_ledger``): ``credits`` spent
    (0 or more) and the line's ``source``: ``game``, or ``free-play`` for a
    game free play let start (0 credits, kept so the books count it)."""

    credits: int
    source: str = "game"
    reason: str | None = None


@dataclass(frozen=True)
class CoinCredit:
    """What :meth:`Journal.record_coin` credited: the ``pulses`` counted now
    (0 for a count already journaled), their ``credits`` and happy-hour
    ``bonus``, and the ``balance`` after them."""

    pulses: int
    credits: int
    bonus: int
    balance: int


def default_journal_path() -> Path:
    """``$XDG_STATE_HOME/oche/journal.sqlite3``; ``XDG_STATE_HOME`` defaults to
    ``~/.local/state`` (and is ignored when empty or relative, as the XDG Base
    Directory specification says)."""
    state_home = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state_home) if os.path.isabs(state_home) else Path.home() / ".local" / "state"
    return base / "oche" / "journal.sqlite3"


# ------------------------------------------------------------------ schema

_SCHEMA_V1 = """
CREATE TABLE games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,          -- JSON object
    players     TEXT NOT NULL,          -- JSON array of names
    teams       TEXT,                   -- JSON object {team: [names]} or NULL
    board       TEXT NOT NULL,
    started_at  REAL NOT NULL,
    finished_at REAL,
    status      TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'ended')),
    result      TEXT                    -- JSON object, finished games only
);
CREATE INDEX games_by_board ON games (board, started_at);
CREATE UNIQUE INDEX games_one_playing_per_board ON games (board) WHERE status = 'playing';

CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,           -- 1, 2, 3, ... within the game
    token   TEXT NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TABLE ignored (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER REFERENCES games (id),
    what    TEXT NOT NULL,
    reason  TEXT NOT NULL,
    at      REAL NOT NULL
);
CREATE INDEX ignored_by_game ON ignored (game_id);

CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id    TEXT NOT NULL UNIQUE,
    game_id      INTEGER NOT NULL REFERENCES games (id),
    payload      TEXT NOT NULL,
    created_at   REAL NOT NULL,
    delivered_at REAL
);
CREATE INDEX outbox_pending ON outbox (delivered_at, id);
"""


def _create_v1(connection: sqlite3.Connection) -> None:
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            connection.execute(statement)


def _add_bots_v2(connection: sqlite3.Connection) -> None:
    """Version 2: a game's computer players (JSON, ``NULL`` without any)."""
    connection.execute("ALTER TABLE games ADD COLUMN bots TEXT")


_SCHEMA_V3_REMOTE = """
ALTER TABLE games ADD COLUMN remote TEXT;  -- JSON {match, host, boards: {name: base/board}}

CREATE TABLE remote_taken (                 -- host: each guest's last action taken, per game
    game_id INTEGER NOT NULL REFERENCES games (id),
    board   TEXT NOT NULL,                  -- the guest, base/board
    seq     INTEGER NOT NULL,
    PRIMARY KEY (game_id, board)
) WITHOUT ROWID;

CREATE TABLE guest_matches (                -- guest: every match this board joined
    match       TEXT PRIMARY KEY,
    host        TEXT NOT NULL,              -- base/board
    board       TEXT NOT NULL,              -- this board's id
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,              -- JSON object
    players     TEXT NOT NULL,              -- JSON [{name, board}]
    joined_at   REAL NOT NULL,
    finished_at REAL,
    status      TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'ended')),
    result      TEXT,                       -- JSON: the host's final state's result
    end_reason  TEXT,
    taken       INTEGER NOT NULL DEFAULT 0  -- the highest seq the host has taken
);
CREATE UNIQUE INDEX guest_matches_one_playing ON guest_matches (board) WHERE status = 'playing';

CREATE TABLE guest_forwarded (              -- guest: every action it forwarded, in order
    match   TEXT NOT NULL REFERENCES guest_matches (match),
    seq     INTEGER NOT NULL,               -- 1, 2, 3, ... within the match
    action  TEXT NOT NULL,                  -- hit, dart, miss, next, undo
    segment TEXT,                           -- for hit and dart
    at      REAL NOT NULL,
    PRIMARY KEY (match, seq)
) WITHOUT ROWID;
"""


def _add_remote_v3(connection: sqlite3.Connection) -> None:
    """Version 3: remote matches (docs/remote.md). As a host, a game's match
    (``games.remote``) and the last action of each guest it took
    (``remote_taken``, written in the same transaction as what the action
    did); as a guest, the matches it joined and what it forwarded."""
    for statement in _SCHEMA_V3_REMOTE.split(";"):
        if statement.strip():
            connection.execute(statement)


_SCHEMA_V4_CREDITS = """
CREATE TABLE credit_ledger (               -- every change of the credits: the books
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    board     TEXT NOT NULL,
    at        REAL NOT NULL,
    change    INTEGER NOT NULL,            -- credits in (+) or spent (-)
    source    TEXT NOT NULL CHECK (source IN ('coin', 'remote', 'happy-hour', 'free-play', 'game')),
    coin_input INTEGER,                    -- coins: the input (1, 2, ...)
    pulses    INTEGER,                     -- coins: the pulses this line counts
    game_id   INTEGER REFERENCES games (id),  -- spends: the game they paid for
    reason    TEXT
);
CREATE INDEX credit_ledger_by_board ON credit_ledger (board, at);

CREATE TABLE coin_counts (                 -- the firmware's running pulse count per input
    board     TEXT NOT NULL,
    coin_input INTEGER NOT NULL,
    boot      TEXT NOT NULL,               -- the firmware run the count belongs to
    count     INTEGER NOT NULL,
    PRIMARY KEY (board, coin_input)
) WITHOUT ROWID;

CREATE TABLE books_resets (                -- resets of the customer books (reset_books)
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    board  TEXT NOT NULL,
    at     REAL NOT NULL,
    reason TEXT
);

CREATE TABLE operator_settings (           -- what the operator set at the board (prices, free play)
    board TEXT NOT NULL,
    key   TEXT NOT NULL,
    value TEXT NOT NULL,                   -- JSON
    at    REAL NOT NULL,
    PRIMARY KEY (board, key)
) WITHOUT ROWID;
"""


def _add_credits_v4(connection: sqlite3.Connection) -> None:
    """Version 4: a coin-operated board's books (docs/credits.md): every
    credit change with its source (``credit_ledger``, a coin's line written
    in the same transaction as the firmware's running count it came with,
    ``coin_counts``), the customer books' resets, and the operator's settings."""
    for statement in _SCHEMA_V4_CREDITS.split(";"):
        if statement.strip():
            connection.execute(statement)


_SCHEMA_V5_DELIVERY = """
ALTER TABLE outbox RENAME COLUMN delivered_at TO sent_at;  -- the broker's PUBACK
ALTER TABLE outbox ADD COLUMN stored_at REAL;              -- a leaderboard has it (result/stored)
UPDATE outbox SET stored_at = sent_at WHERE sent_at IS NOT NULL;
CREATE INDEX outbox_unstored ON outbox (stored_at, id);

ALTER TABLE games ADD COLUMN game_key TEXT;                -- the result_id of its first result
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;  -- the last revision used
UPDATE games SET
    game_key = (SELECT result_id FROM outbox WHERE game_id = games.id ORDER BY id LIMIT 1),
    revision = (SELECT count(*) FROM outbox WHERE game_id = games.id)
"""


def _add_delivery_v5(connection: sqlite3.Connection) -> None:
    """Version 5: results kept until a leaderboard has them, and games that
    name their results. The outbox's ``delivered_at`` becomes ``sent_at``
    and ``stored_at`` is new; a result an older Oche delivered is taken as
    stored (it never asked, so nothing better is known, and sending a whole
    history again could bring back what a leaderboard forgot). A game keeps
    the ``game_key`` and the last ``revision`` of its results (its first
    outbox entry's id; as many revisions as it has entries)."""
    for statement in _SCHEMA_V5_DELIVERY.split(";"):
        if statement.strip():
            connection.execute(statement)


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _create_v1,
    2: _add_bots_v2,
    3: _add_remote_v3,
    4: _add_credits_v4,
    5: _add_delivery_v5,
}
"""The migration hook: ``MIGRATIONS[n]`` takes a journal at schema version
``n - 1`` to version ``n`` (version 0 is an empty file). :meth:`Journal.open`
runs the missing steps in order, each in its own transaction together with
the ``user_version`` bump, so a crash mid-migration leaves the old version.
To change the schema, add the next number here and raise SCHEMA_VERSION."""

SCHEMA_VERSION = max(MIGRATIONS)
"""The schema version this code writes (``PRAGMA user_version``)."""


def schema_version_of(connection: sqlite3.Connection, path: Path) -> int:
    """The schema version of the Oche journal ``connection`` has open (0 for
    an empty file); a :class:`JournalError` naming ``path`` for a file that is
    not ours (another program's database, a newer Oche's journal). SQLite
    errors (a damaged file) are left to the caller."""
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if application_id == 0 and version == 0:
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise JournalError(
                f"journal {path}: not an Oche journal: a SQLite database of something else"
            )
        return 0
    if application_id != APPLICATION_ID:
        raise JournalError(
            f"journal {path}: not an Oche journal: a SQLite database with application id "
            f"{application_id:#x}"
        )
    if version > SCHEMA_VERSION:
        raise JournalError(
            f"journal {path}: schema version {version} was written by a newer Oche "
            f"(this one knows up to {SCHEMA_VERSION})"
        )
    return version


# ----------------------------------------------------------------- journal


class Journal:
    """The journal at ``path``. Nothing is read or written until :meth:`open`
    (or ``with Journal(path) as journal:``). One connection, shared safely
    between threads (each call holds a lock). ``on_write`` is told the outcome
    of every write transaction (the daemon shows a full disk with it)."""

    def __init__(self, path: str | os.PathLike[str], on_write: WriteListener | None = None) -> None:
        self.path = Path(path)
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._on_write = on_write

    # -------------------------------------------------------- open / close

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
                raise self._error(f"cannot create its directory: {error.strerror}") from None
            try:
                connection = sqlite3.connect(
                    self.path,
                    timeout=_BUSY_TIMEOUT_S,
                    isolation_level=None,  # autocommit; transactions are explicit
                    check_same_thread=False,  # guarded by self._lock
                )
            except sqlite3.Error as error:
                raise self._error(f"cannot open: {error}") from None
            try:
                self._prepare(connection)
            except BaseException:
                connection.close()
                raise
            self._connection = connection

    def _prepare(self, connection: sqlite3.Connection) -> None:
        try:
            version = schema_version_of(connection, self.path)
            problems = [str(row[0]) for row in connection.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise JournalDamaged(
                    f"journal {self.path}: the database is corrupt: {'; '.join(problems[:3])}",
                    problems[:10],
                )
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise self._error(f"cannot switch to WAL mode (journal_mode is {mode})")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            self._migrate(connection, version)
        except sqlite3.Error as error:
            message = f"journal {self.path}: not a readable Oche journal: {error}"
            code = getattr(error, "sqlite_errorname", None)
            if code in _DAMAGED_CODES:
                raise JournalDamaged(message, [str(error)]) from None
            if code is not None and code.startswith(_STORAGE_CODES):  # the disk, not the file
                raise JournalWriteError(message, str(error), code == "SQLITE_FULL") from None
            raise JournalError(message) from None

    def _migrate(self, connection: sqlite3.Connection, version: int) -> None:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            connection.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while we waited for the lock.
                if int(connection.execute("PRAGMA user_version").fetchone()[0]) >= target:
                    connection.execute("COMMIT")
                    continue
                MIGRATIONS[target](connection)
                connection.execute(f"PRAGMA application_id = {int(APPLICATION_ID)}")
                connection.execute(f"PRAGMA user_version = {int(target)}")
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the file (a no-op when closed). Everything is already committed."""
        with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                try:
                    connection.close()
                except sqlite3.Error as error:
                    raise self._error(f"cannot close: {error}") from None

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

    # ---------------------------------------------------------------- writes

    def start_game(
        self,
        game: str,
        options: dict[str, Any],
        players: list[str],
        teams: dict[str, list[str]] | None,
        board: str,
        started_at: float,
        bots: dict[str, Any] | None = None,
        remote: dict[str, Any] | None = None,
        charge: Charge | None = None,
        withdrawal: Withdrawal | None = None,
    ) -> int:
        """Journal a new game on ``board`` and return its id. The board's game
        still ``playing``, if any, is marked ``ended`` at ``started_at`` in the
        same transaction: a new game replaces it (with its ``withdrawal``, if
        it is that game's: see :meth:`end_game`). ``bots`` and ``remote`` are
        kept as given (the daemon's record of the computer players and of the
        remote match it hosts). A ``charge`` is spent in the same transaction
        (a ``credit_ledger`` line with the game's id): the game starts paid
        for, or, when the credits held are short, not at all."""
        row = (
            str(game),
            self._json(options, "options"),
            self._json(list(players), "players"),
            None if teams is None else self._json(teams, "teams"),
            str(board),
            self._time(started_at),
            None if bots is None else self._json(bots, "bots"),
            None if remote is None else self._json(remote, "remote"),
        )
        with self._transaction() as connection:
            if withdrawal is not None:
                self._withdrawal_rows(connection, withdrawal, row[5], board=row[4])
            connection.execute(
                "UPDATE games SET status = 'ended', finished_at = ? "
                "WHERE board = ? AND status = 'playing'",
                (row[5], row[4]),
            )
            cursor = connection.execute(
                "INSERT INTO games (game, options, players, teams, board, started_at, bots, "
                "remote, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing')",
                row,
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            if charge is not None:
                self._charge_rows(connection, row[4], game_id, charge, row[5])
        return game_id

    def append(self, game_id: int, event: str, at: float) -> int:
        """Journal one event token (a dart, ``NEXT`` or ``UNDO``, stored in its
        canonical upper-case form) of a ``playing`` or ``finished`` game, and
        return its sequence number in the game (1 for the first). The event is
        committed, durably, when this returns. An ended game, an unknown id or
        a token that is not an event is a :class:`JournalError`."""
        return self.record(game_id, [(event, at)])

    def record(
        self,
        game_id: int,
        events: Sequence[tuple[str, float]],
        *,
        finish: Finish | None = None,
        reopen: bool = False,
        taken: tuple[str, int] | None = None,
    ) -> int:
        """Journal what one input decided, in ONE durable transaction: its
        ``(token, at)`` events, then either the game's ``finish`` (see
        :meth:`finish_game`) or, for an undo of the winning dart, its
        reopening (see :meth:`reopen_game`), and, for a remote guest's action,
        its ``taken`` ``(board, seq)`` (see :meth:`note_taken`). Both
        ``reopen`` and ``finish``: the input re-decided a finished game (a
        bounce-out of its last dart), reopened, then finished with the new
        result. Either all of it is written or none of it. Returns the
        sequence number of the last event (0 when there are none)."""
        rows = [(self._token(game_id, token), self._time(at)) for token, at in events]
        result_json = None if finish is None else self._json(finish.result, "result")
        with self._transaction() as connection:
            if taken is not None:
                self._taken_rows(connection, game_id, taken)
            seq = self._append_rows(connection, game_id, rows) if rows else 0
            if reopen:
                self._reopen_rows(connection, game_id)
            if finish is not None:
                assert result_json is not None
                self._finish_rows(connection, game_id, finish, result_json)
        return seq

    def _token(self, game_id: int, event: str) -> str:
        try:
            return str(parse_event(event))
        except NotationError as error:
            raise self._error(f"game {game_id}: {error}") from None

    def _append_rows(
        self, connection: sqlite3.Connection, game_id: int, rows: list[tuple[str, float]]
    ) -> int:
        # One statement for the status and the last sequence number: this runs for every dart.
        found = connection.execute(
            "SELECT status, (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?1) "
            "FROM games WHERE id = ?1",
            (game_id,),
        ).fetchone()
        if found is None:
            raise self._no_game(game_id)
        if found[0] == "ended":
            raise self._error(f"game {game_id} has ended: no more events")
        last = int(found[1])
        connection.executemany(
            "INSERT INTO events (game_id, seq, token, at) VALUES (?, ?, ?, ?)",
            [(game_id, last + n, token, at) for n, (token, at) in enumerate(rows, start=1)],
        )
        return last + len(rows)

    def note_ignored(
        self,
        game_id: int | None,
        what: str,
        reason: str,
        at: float,
        *,
        taken: tuple[str, int] | None = None,
    ) -> None:
        """Keep a contact that was deliberately not scored (takeout, a coalesced
        bounce) for audit. It is never one of a game's events. A remote guest's
        action comes with its ``taken`` ``(board, seq)``, written in the same
        transaction (see :meth:`note_taken`)."""
        if taken is not None and game_id is None:
            raise self._error("a remote guest's action is taken within a game")
        with self._transaction() as connection:
            if taken is not None and game_id is not None:
                self._taken_rows(connection, game_id, taken)
            elif game_id is not None:
                self._status(connection, game_id)
            connection.execute(
                "INSERT INTO ignored (game_id, what, reason, at) VALUES (?, ?, ?, ?)",
                (game_id, str(what), str(reason), self._time(at)),
            )

    def finish_game(
        self,
        game_id: int,
        result: dict[str, Any],
        finished_at: float,
        result_id: str,
        result_payload: str,
    ) -> None:
        """In ONE transaction: the ``playing`` game becomes ``finished`` with
        ``result``, and ``result_payload`` goes into the outbox under
        ``result_id`` (see :meth:`pending_results`). Either both happen or
        neither does."""
        self.record(game_id, [], finish=Finish(result, finished_at, result_id, result_payload))

    def _finish_rows(
        self, connection: sqlite3.Connection, game_id: int, finish: Finish, result_json: str
    ) -> None:
        finished_at = self._time(finish.finished_at)
        status = self._status(connection, game_id)
        if status != "playing":
            raise self._error(f"game {game_id} is {status}, not playing: cannot finish it")
        result_id = str(finish.result_id)
        taken = connection.execute(
            "SELECT game_id FROM outbox WHERE result_id = ?", (result_id,)
        ).fetchone()
        if taken is not None:
            raise self._error(f"result id {result_id!r} is already used (game {taken[0]})")
        known_key, last = connection.execute(
            "SELECT game_key, revision FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        game_key = str(finish.game_key or known_key or result_id)
        revision = last + 1 if finish.revision is None else finish.revision
        self._check_revision(connection, game_id, game_key, revision)
        connection.execute(
            "UPDATE games SET status = 'finished', finished_at = ?, result = ?, game_key = ?, "
            "revision = ? WHERE id = ?",
            (finished_at, result_json, game_key, revision, game_id),
        )
        connection.execute(
            "INSERT INTO outbox (result_id, game_id, payload, created_at) VALUES (?, ?, ?, ?)",
            (result_id, game_id, str(finish.payload), finished_at),
        )

    def _check_revision(
        self, connection: sqlite3.Connection, game_id: int, game_key: str | None, revision: int
    ) -> None:
        """A new result of the game must keep its game_key and go past every
        revision it used, or a consumer would keep the wrong one."""
        known_key, last = connection.execute(
            "SELECT game_key, revision FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if isinstance(revision, bool) or not isinstance(revision, int) or revision <= last:
            raise self._error(
                f"game {game_id}: revision {revision!r} is not above its last, {last}"
            )
        if known_key is not None and game_key is not None and game_key != known_key:
            raise self._error(f"game {game_id}: its results are of game key {known_key!r}")

    def end_game(self, game_id: int, at: float, withdrawal: Withdrawal | None = None) -> None:
        """The ``playing`` game is abandoned: ``ended`` at ``at``, no result. A
        game already over (finished or ended) is left as it is. A game
        reopened after its result was sent comes with its ``withdrawal``
        (see :meth:`withdrawable`), which enters the outbox in the same
        transaction, so the result it withdraws never counts alone."""
        at = self._time(at)
        with self._transaction() as connection:
            if self._status(connection, game_id) == "playing":
                if withdrawal is not None:
                    self._withdrawal_rows(connection, withdrawal, at)
                connection.execute(
                    "UPDATE games SET status = 'ended', finished_at = ? WHERE id = ?",
                    (at, game_id),
                )

    def _withdrawal_rows(
        self,
        connection: sqlite3.Connection,
        withdrawal: Withdrawal,
        at: float,
        board: str | None = None,
    ) -> None:
        """Within a transaction: ``withdrawal`` enters the outbox if its game
        is ``playing`` (and on ``board``, when given); else nothing happens."""
        row = connection.execute(
            "SELECT status, board FROM games WHERE id = ?", (withdrawal.game_id,)
        ).fetchone()
        if row is None or row[0] != "playing" or (board is not None and row[1] != board):
            return
        self._check_revision(connection, withdrawal.game_id, None, withdrawal.revision)
        connection.execute(
            "UPDATE games SET revision = ? WHERE id = ?", (withdrawal.revision, withdrawal.game_id)
        )
        connection.execute(
            "INSERT INTO outbox (result_id, game_id, payload, created_at) VALUES (?, ?, ?, ?)",
            (str(withdrawal.result_id), withdrawal.game_id, str(withdrawal.payload), at),
        )

    def withdrawable(self, game_id: int) -> tuple[str, str, int] | None:
        """What abandoning the ``playing`` game must withdraw: ``(payload,
        game_key, revision)`` of its latest result still in the outbox (a
        result of a reopened game stays there only once it was sent), with
        the last revision the game used; ``None`` when there is none."""
        with self._reading() as connection:
            row = connection.execute(
                "SELECT outbox.payload, games.game_key, games.revision FROM games"
                " JOIN outbox ON outbox.game_id = games.id"
                " WHERE games.id = ? AND games.status = 'playing' AND games.game_key IS NOT NULL"
                " ORDER BY outbox.id DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            return None if row is None else (str(row[0]), str(row[1]), int(row[2]))

    def result_revision(self, game_id: int) -> tuple[str | None, int]:
        """The game's ``game_key`` (``None`` before its first result) and the
        last revision its results used (0: none): a new result of it takes
        the next."""
        with self._reading() as connection:
            row = connection.execute(
                "SELECT game_key, revision FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise self._no_game(game_id)
            return (None if row[0] is None else str(row[0])), int(row[1])

    def reopen_game(self, game_id: int) -> None:
        """Undo after a win: the ``finished`` game is ``playing`` again, its
        result cleared, and its outbox entry removed unless already sent (a
        sent result stays: the game's next result, or its withdrawal,
        replaces it at the consumers). Reopening a game that is
        playing does nothing; an ended game, or a finished one whose board has
        started another game since, is a :class:`JournalError`."""
        self.record(game_id, [], reopen=True)

    def _reopen_rows(self, connection: sqlite3.Connection, game_id: int) -> None:
        status = self._status(connection, game_id)
        if status == "playing":
            return
        if status != "finished":
            raise self._error(f"game {game_id} is {status}: only a finished game reopens")
        other = connection.execute(
            "SELECT other.id FROM games AS this JOIN games AS other "
            "ON other.board = this.board AND other.status = 'playing' WHERE this.id = ?",
            (game_id,),
        ).fetchone()
        if other is not None:
            raise self._error(
                f"game {game_id} cannot reopen: game {other[0]} is playing on its board"
            )
        connection.execute(
            "UPDATE games SET status = 'playing', finished_at = NULL, result = NULL WHERE id = ?",
            (game_id,),
        )
        connection.execute("DELETE FROM outbox WHERE game_id = ? AND sent_at IS NULL", (game_id,))

    def mark_sent(self, *result_ids: str) -> None:
        """The broker acknowledged the results ``result_ids`` (one transaction):
        they leave :meth:`pending_results` (and stay in :meth:`unstored_results`
        until a leaderboard has them). An id that is unknown (removed by
        :meth:`reopen_game` while it was being sent) or already sent is ignored."""
        now = time.time()
        with self._transaction() as connection:
            connection.executemany(
                "UPDATE outbox SET sent_at = ? WHERE result_id = ? AND sent_at IS NULL",
                [(now, str(result_id)) for result_id in result_ids],
            )

    def mark_stored(self, board: str, result_ids: Sequence[str], at: float) -> int:
        """A leaderboard has ``board``'s results ``result_ids`` (its
        ``result/stored``): they leave :meth:`unstored_results`, in one
        transaction. Ids that are another board's, unknown or already stored
        are ignored. Returns how many were marked."""
        at = self._time(at)
        ids = sorted({str(result_id) for result_id in result_ids})
        marked = 0
        with self._transaction() as connection:
            for start in range(0, len(ids), 500):  # under SQLite's limit of parameters
                chunk = ids[start : start + 500]
                marks = ", ".join(f"?{n}" for n in range(3, len(chunk) + 3))
                marked += connection.execute(
                    f"UPDATE outbox SET stored_at = ?1, sent_at = coalesce(sent_at, ?1)"
                    f" WHERE stored_at IS NULL AND result_id IN ({marks})"
                    " AND game_id IN (SELECT id FROM games WHERE board = ?2)",
                    (at, str(board), *chunk),
                ).rowcount
        return marked

    # ---- remote matches: the host
    # A guest's actions are taken in seq order, exactly once: the last seq
    # taken from each guest (remote_taken) is written in the same transaction
    # as what the action did (record, note_ignored), or alone (note_taken).

    def note_taken(self, game_id: int, board: str, seq: int) -> None:
        """A remote guest's action ``seq`` from ``board`` (``base/board``) was
        taken and did nothing the game keeps (the game refused it): only its
        seq is journaled, so it is never taken again."""
        with self._transaction() as connection:
            self._taken_rows(connection, game_id, (board, seq))

    def remote_taken(self, game_id: int) -> dict[str, int]:
        """The last action taken from each guest of the game's remote match:
        ``base/board`` -> seq (empty for a game on one board)."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT board, seq FROM remote_taken WHERE game_id = ? ORDER BY board",
                (game_id,),
            ).fetchall()
            return {str(board): int(seq) for board, seq in rows}

    def _taken_rows(
        self, connection: sqlite3.Connection, game_id: int, taken: tuple[str, int]
    ) -> None:
        """Within a transaction: ``taken`` ``(board, seq)`` is the guest's last
        action taken in the game (a seq never goes back)."""
        board, seq = taken
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise self._error(f"game {game_id}: seq {seq!r} of {board} is not a positive integer")
        if self._status(connection, game_id) == "ended":
            raise self._error(f"game {game_id} has ended: no more actions from {board}")
        connection.execute(
            "INSERT INTO remote_taken (game_id, board, seq) VALUES (?, ?, ?) "
            "ON CONFLICT (game_id, board) DO UPDATE SET seq = max(seq, excluded.seq)",
            (game_id, str(board), seq),
        )

    # ---- credits and the books
    # Every change of a board's credits is one credit_ledger line with its
    # source; the credits held are the sum of the board's lines. A coin's
    # line is written in the same transaction as the firmware's running count
    # it came with (coin_counts), so a count is credited exactly once however
    # often it is seen, and pulses missed while the daemon was down are
    # credited when the next count arrives. Read by books.py.

    def credit_balance(self, board: str) -> int:
        """The credits ``board`` holds: the sum of its ledger lines."""
        with self._reading() as connection:
            return self._balance(connection, str(board))

    @staticmethod
    def _balance(connection: sqlite3.Connection, board: str) -> int:
        row = connection.execute(
            "SELECT coalesce(sum(change), 0) FROM credit_ledger WHERE board = ?", (board,)
        ).fetchone()
        return int(row[0])

    def record_coin(
        self,
        board: str,
        coin_input: int,
        count: int | None,
        boot: str | None,
        at: float,
        credits_per_pulse: int,
        bonus_per_pulse: int = 0,
    ) -> CoinCredit:
        """Journal coin pulses on ``coin_input`` and credit them, in ONE
        transaction. ``count`` is the firmware's running total on that input
        in its run ``boot``: the pulses counted are ``count`` minus the last
        count journaled for the same run (a new run starts from 0; with an
        unknown ``boot``, a count lower than the last one is a new run), so a
        count seen again credits nothing. ``count`` None is one pulse. Each
        pulse gives ``credits_per_pulse`` (a ``coin`` line) and
        ``bonus_per_pulse`` (a ``happy-hour`` line)."""
        if isinstance(coin_input, bool) or not isinstance(coin_input, int) or coin_input < 1:
            raise self._error(f"coin input {coin_input!r} is not a positive integer")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
            raise self._error(f"coin count {count!r} is not an integer")
        at, board = self._time(at), str(board)
        with self._transaction() as connection:
            pulses = 1
            if count is not None:
                run = "" if boot is None else str(boot)
                last = connection.execute(
                    "SELECT boot, count FROM coin_counts WHERE board = ? AND coin_input = ?",
                    (board, coin_input),
                ).fetchone()
                if last is None or str(last[0]) != run:
                    pulses = max(0, count)
                elif count >= int(last[1]):
                    pulses = count - int(last[1])
                else:
                    pulses = max(0, count) if boot is None else 0
                if last is None or str(last[0]) != run or count > int(last[1]) or boot is None:
                    connection.execute(
                        "INSERT INTO coin_counts (board, coin_input, boot, count) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT (board, coin_input) "
                        "DO UPDATE SET boot = excluded.boot, count = excluded.count",
                        (board, coin_input, run, count),
                    )
            credits = pulses * max(0, int(credits_per_pulse))
            bonus = pulses * max(0, int(bonus_per_pulse))
            if pulses:
                connection.execute(
                    "INSERT INTO credit_ledger (board, at, change, source, coin_input, pulses) "
                    "VALUES (?, ?, ?, 'coin', ?, ?)",
                    (board, at, credits, coin_input, pulses),
                )
            if bonus:
                connection.execute(
                    "INSERT INTO credit_ledger (board, at, change, source, coin_input, reason) "
                    "VALUES (?, ?, ?, 'happy-hour', ?, 'happy hour bonus')",
                    (board, at, bonus, coin_input),
                )
            balance = self._balance(connection, board)
        return CoinCredit(pulses, credits, bonus, balance)

    def add_credits(
        self, board: str, change: int, source: str, at: float, reason: str | None = None
    ) -> int:
        """One ledger line of ``change`` credits from ``source`` (``remote``,
        ``happy-hour``, ...); returns the balance after it. A change that
        would leave fewer than 0 credits is a :class:`JournalError`."""
        if isinstance(change, bool) or not isinstance(change, int):
            raise self._error(f"credit change {change!r} is not an integer")
        at, board = self._time(at), str(board)
        with self._transaction() as connection:
            balance = self._balance(connection, board) + change
            if balance < 0:
                raise self._error(f"board {board} holds {balance - change} credits, not {-change}")
            connection.execute(
                "INSERT INTO credit_ledger (board, at, change, source, reason) "
                "VALUES (?, ?, ?, ?, ?)",
                (board, at, change, str(source), reason),
            )
        return balance

    def _charge_rows(
        self, connection: sqlite3.Connection, board: str, game_id: int, charge: Charge, at: float
    ) -> None:
        """Within :meth:`start_game`'s transaction: spend the game's price."""
        held = self._balance(connection, board)
        if charge.credits < 0 or held < charge.credits:
            raise self._error(
                f"board {board} holds {held} credits; the game costs {charge.credits}"
            )
        connection.execute(
            "INSERT INTO credit_ledger (board, at, change, source, game_id, reason) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (board, at, -charge.credits, str(charge.source), game_id, charge.reason),
        )

    def reset_books(self, board: str, at: float, reason: str | None = None) -> None:
        """Reset ``board``'s customer books: they count from ``at`` on. The
        ledger keeps every line (the security books, and the credits held)."""
        with self._transaction() as connection:
            connection.execute(
                "INSERT INTO books_resets (board, at, reason) VALUES (?, ?, ?)",
                (str(board), self._time(at), reason),
            )

    def set_operator_setting(self, board: str, key: str, value: Any, at: float) -> None:
        """Keep what the operator set at ``board`` (``free_play``, ``price``,
        ``price.<game>``; ``value`` as JSON; ``None`` removes the setting)."""
        with self._transaction() as connection:
            if value is None:
                connection.execute(
                    "DELETE FROM operator_settings WHERE board = ? AND key = ?",
                    (str(board), str(key)),
                )
                return
            connection.execute(
                "INSERT INTO operator_settings (board, key, value, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (board, key) DO UPDATE SET value = excluded.value, at = excluded.at",
                (str(board), str(key), self._json(value, key), self._time(at)),
            )

    def operator_settings(self, board: str) -> dict[str, Any]:
        """What the operator set at ``board``: key -> value."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT key, value FROM operator_settings WHERE board = ? ORDER BY key",
                (str(board),),
            ).fetchall()
        settings: dict[str, Any] = {}
        for key, value in rows:
            try:
                settings[str(key)] = json.loads(value)
            except ValueError:
                continue  # a damaged setting is as if unset
        return settings

    # ----------------------------------------------------------------- reads

    def unfinished_game(self, board: str) -> JournalGame | None:
        """The ``playing`` game of ``board`` with its events, or ``None``."""
        return self._newest(board, "status = 'playing'")

    def latest_game(self, board: str) -> JournalGame | None:
        """The newest game of ``board`` (whatever its status) with its events,
        or ``None``: the daemon checks on start that it is what replaying it
        says (playing or finished)."""
        return self._newest(board, "1")

    def _newest(self, board: str, condition: str) -> JournalGame | None:
        with self._reading() as connection:
            row = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE board = ? AND {condition} "
                "ORDER BY id DESC LIMIT 1",
                (str(board),),
            ).fetchone()
            return None if row is None else self._game(row, *self._events(connection, row[0]))

    def game(self, game_id: int) -> JournalGame:
        """The game ``game_id`` with its events; a :class:`JournalError` naming
        the id when there is no such game."""
        with self._reading() as connection:
            row = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise self._no_game(game_id)
            return self._game(row, *self._events(connection, game_id))

    def games(self, limit: int = 50, board: str | None = None) -> list[JournalGame]:
        """Up to ``limit`` games, newest first, of every board or of ``board``.
        Their ``events`` are left empty (use :meth:`game` for those)."""
        if limit < 0:
            raise self._error(f"limit {limit} is negative")
        where, parameters = ("", ()) if board is None else ("WHERE board = ?", (str(board),))
        with self._reading() as connection:
            rows = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games {where} "
                "ORDER BY started_at DESC, id DESC LIMIT ?",
                (*parameters, limit),
            ).fetchall()
            return [self._game(row, []) for row in rows]

    def pending_results(self, board: str | None = None) -> list[tuple[str, str]]:
        """``(result_id, payload)`` of every result the broker has not
        acknowledged yet, oldest first; only ``board``'s when given (several
        daemons may share one journal)."""
        return [
            (entry.result_id, entry.payload)
            for entry in self.outbox_page(board, unstored=False, limit=None)
        ]

    def unstored_results(
        self, board: str | None = None, after: int = 0, limit: int | None = None
    ) -> list[OutboxEntry]:
        """The results no leaderboard has stored yet (sent or not), oldest
        first, from outbox id ``after`` on, at most ``limit``: what the
        daemon sends again when a leaderboard comes online, a page at a time."""
        return self.outbox_page(board, after, unstored=True, limit=limit)

    def outbox_page(
        self,
        board: str | None,
        after: int = 0,
        *,
        unstored: bool,
        limit: int | None,
    ) -> list[OutboxEntry]:
        """Outbox entries after id ``after``, oldest first: the unsent ones, or
        with ``unstored`` every one not stored; ``board``'s only when given."""
        column = "stored_at" if unstored else "sent_at"
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT outbox.id, outbox.result_id, outbox.payload, outbox.sent_at,"
                " outbox.stored_at FROM outbox JOIN games ON games.id = outbox.game_id"
                f" WHERE outbox.{column} IS NULL AND outbox.id > ?"
                " AND (? IS NULL OR games.board = ?) ORDER BY outbox.id LIMIT ?",
                (int(after), board, board, -1 if limit is None else int(limit)),
            ).fetchall()
            return [
                OutboxEntry(
                    int(ident),
                    str(result_id),
                    str(payload),
                    None if sent is None else float(sent),
                    None if stored is None else float(stored),
                )
                for ident, result_id, payload, sent, stored in rows
            ]

    # ------------------------------------------------------------- internals

    def _error(self, message: str) -> JournalError:
        return JournalError(f"journal {self.path}: {message}")

    def _no_game(self, game_id: int) -> JournalError:
        return self._error(f"no game {game_id}")

    def _open_connection(self) -> sqlite3.Connection:
        if self._connection is None:
            raise self._error("not open")
        return self._connection

    def probe(self) -> None:
        """A write that changes nothing (the schema version written again, in
        a transaction of its own): whether the storage takes writes now. A
        :class:`JournalWriteError` when it does not."""
        with self._transaction() as connection:
            version = int(connection.execute("PRAGMA user_version").fetchone()[0])
            connection.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
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
                raise self._error(f"write failed: {error}") from None
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
        if self._on_write is not None:
            self._on_write(problem)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            connection = self._open_connection()
            try:
                yield connection
            except sqlite3.Error as error:
                raise self._error(f"read failed: {error}") from None

    def _status(self, connection: sqlite3.Connection, game_id: int) -> str:
        row = connection.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise self._no_game(game_id)
        return str(row[0])

    @staticmethod
    def _events(connection: sqlite3.Connection, game_id: int) -> tuple[list[str], float | None]:
        """The game's tokens in order, and when the last one was journaled."""
        rows = connection.execute(
            "SELECT token, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        return [str(token) for token, _ in rows], float(rows[-1][1]) if rows else None

    def _game(
        self, row: tuple[Any, ...], events: list[str], last_event_at: float | None = None
    ) -> JournalGame:
        (
            game_id,
            game,
            options,
            players,
            teams,
            board,
            started,
            finished,
            status,
            result,
            bots,
            remote,
            game_key,
            revision,
            delivery,
        ) = row
        try:
            return JournalGame(
                id=int(game_id),
                game=str(game),
                options=json.loads(options),
                players=json.loads(players),
                teams=None if teams is None else json.loads(teams),
                board=str(board),
                started_at=float(started),
                finished_at=None if finished is None else float(finished),
                status=str(status),
                result=None if result is None else json.loads(result),
                events=events,
                last_event_at=last_event_at,
                bots=None if bots is None else json.loads(bots),
                remote=None if remote is None else json.loads(remote),
                game_key=None if game_key is None else str(game_key),
                revision=int(revision),
                delivery=None if delivery is None else str(delivery),
            )
        except (TypeError, ValueError) as error:
            raise self._error(f"game {game_id} is damaged: {error}") from None

    def _json(self, value: Any, what: str) -> str:
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise self._error(f"{what} cannot be stored as JSON: {error}") from None

    def _time(self, value: float) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self._error(f"{value!r} is not a time in unix seconds")
        return float(value)

    # ---- remote matches: a guest
    # A match is open while this board is in it: ``playing``, or ``finished``
    # with no ``end_reason`` yet (the host's state says the game is won, and
    # the host may still take the win back until it moves on).

    def guest_join(
        self,
        match: str,
        host: str,
        board: str,
        game: str,
        options: dict[str, Any],
        players: list[dict[str, str]],
        joined_at: float,
    ) -> None:
        """Journal a match ``board`` joins as a guest (``playing``). The
        board's match still open, if any, is closed (reason ``replaced``;
        ``ended`` unless it is ``finished``) in the same transaction: a board
        is a guest in one match at a time. A match id already journaled is a
        :class:`JournalError`."""
        row = (
            str(match),
            str(host),
            str(board),
            str(game),
            self._json(options, "options"),
            self._json(players, "players"),
            self._time(joined_at),
        )
        with self._transaction() as connection:
            if connection.execute(
                "SELECT 1 FROM guest_matches WHERE match = ?", (row[0],)
            ).fetchone():
                raise self._error(f"match {match} is already journaled")
            connection.execute(
                "UPDATE guest_matches "
                "SET status = CASE status WHEN 'playing' THEN 'ended' ELSE status END, "
                "end_reason = 'replaced', finished_at = coalesce(finished_at, ?) "
                f"WHERE board = ? AND {_GUEST_OPEN}",
                (row[6], row[2]),
            )
            connection.execute(
                "INSERT INTO guest_matches (match, host, board, game, options, players, "
                "joined_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing')",
                row,
            )

    def guest_forward(self, match: str, action: str, segment: str | None, at: float) -> int:
        """Journal one action this board forwards in ``match`` (durably, before
        it is sent) and return its ``seq``: one more than the match's last, never
        reused. A match that is not open (ended, or finished and closed) is a
        :class:`JournalError`; a won game still open takes an UNDO or a BOUNCE
        that takes the win back."""
        at = self._time(at)
        with self._transaction() as connection:
            found = connection.execute(
                f"SELECT status, {_GUEST_OPEN}, (SELECT coalesce(max(seq), 0) "
                "FROM guest_forwarded WHERE match = ?1) FROM guest_matches WHERE match = ?1",
                (str(match),),
            ).fetchone()
            if found is None:
                raise self._error(f"no match {match}")
            if not found[1]:
                raise self._error(f"match {match} is {found[0]}: nothing more is forwarded")
            seq = int(found[2]) + 1
            connection.execute(
                "INSERT INTO guest_forwarded (match, seq, action, segment, at) "
                "VALUES (?, ?, ?, ?, ?)",
                (str(match), seq, str(action), None if segment is None else str(segment), at),
            )
        return seq

    def guest_taken(self, match: str, seq: int) -> None:
        """The host has taken ``match``'s actions up to ``seq`` (its state's ``applied``)."""
        with self._transaction() as connection:
            connection.execute(
                "UPDATE guest_matches SET taken = ? WHERE match = ?", (int(seq), str(match))
            )

    def guest_finish(self, match: str, at: float, result: dict[str, Any]) -> None:
        """The host's state says the open match's game is won (or won anew,
        with another ``result``): it is ``finished`` now, with the host's
        ``result``, and stays open (no ``end_reason``) until the host moves on
        or :meth:`guest_reopen`. A match already closed is left as it is."""
        row = (self._time(at), self._json(result, "result"), str(match))
        with self._transaction() as connection:
            connection.execute(
                "UPDATE guest_matches SET status = 'finished', "
                "finished_at = CASE status WHEN 'finished' THEN finished_at ELSE ? END, result = ? "
                f"WHERE match = ? AND {_GUEST_OPEN}",
                row,
            )

    def guest_reopen(self, match: str) -> None:
        """The host took the win of the open match back (an undo, a bounce-out
        of the winning dart): it is ``playing`` again, with no result."""
        with self._transaction() as connection:
            connection.execute(
                "UPDATE guest_matches SET status = 'playing', finished_at = NULL, result = NULL "
                "WHERE match = ? AND status = 'finished' AND end_reason IS NULL",
                (str(match),),
            )

    def guest_close(
        self,
        match: str,
        status: str,
        at: float,
        end_reason: str,
        result: dict[str, Any] | None = None,
    ) -> None:
        """The open match is over here: ``finished`` (with the host's final
        ``result``; when the game was won, see :meth:`guest_finish`) or
        ``ended``, for ``end_reason``. A match already closed is left as it is."""
        if status not in ("finished", "ended"):
            raise self._error(f"a match closes finished or ended, not {status!r}")
        row = (
            status,
            self._time(at),
            str(end_reason),
            None if result is None else self._json(result, "result"),
            str(match),
        )
        with self._transaction() as connection:
            connection.execute(
                "UPDATE guest_matches SET status = ?, finished_at = coalesce(finished_at, ?), "
                f"end_reason = ?, result = ? WHERE match = ? AND {_GUEST_OPEN}",
                row,
            )

    def guest_match(self, match: str) -> GuestMatch | None:
        """The match ``match`` this board joined, or ``None``."""
        return self._guest_where("match = ?", (str(match),))

    def guest_playing(self, board: str) -> GuestMatch | None:
        """The match ``board`` is still a guest in (open: ``playing``, or
        ``finished`` while the host has not moved on), or ``None``."""
        return self._guest_where(f"board = ? AND {_GUEST_OPEN}", (str(board),))

    def guest_find(self, prefix: str) -> GuestMatch | None:
        """The match whose id is or starts with ``prefix`` (as ``oche history``
        shortens it); ``None`` for none, a :class:`JournalError` when several do."""
        with self._reading() as connection:
            rows = connection.execute(
                f"SELECT {_GUEST_COLUMNS} FROM guest_matches "
                "WHERE substr(match, 1, length(?1)) = ?1 ORDER BY match = ?1 DESC LIMIT 2",
                (str(prefix),),
            ).fetchall()
            exact = [row for row in rows if row[0] == prefix]
            if len(rows) > 1 and not exact:
                raise self._error(f"several matches start with {prefix!r}: give more of the id")
            return None if not rows else self._guest(connection, (exact or rows)[0])

    def guest_matches(self, limit: int = 50, board: str | None = None) -> list[GuestMatch]:
        """Up to ``limit`` matches this board joined as a guest, newest first
        (every board's, or ``board``'s)."""
        if limit < 0:
            raise self._error(f"limit {limit} is negative")
        where, parameters = ("", ()) if board is None else ("WHERE board = ?", (str(board),))
        with self._reading() as connection:
            rows = connection.execute(
                f"SELECT {_GUEST_COLUMNS} FROM guest_matches {where} "
                "ORDER BY joined_at DESC, rowid DESC LIMIT ?",
                (*parameters, limit),
            ).fetchall()
            return [self._guest(connection, row) for row in rows]

    def guest_untaken(self, match: str, taken: int) -> list[GuestAction]:
        """``match``'s forwarded actions after ``taken`` (the host's ``applied``), in order."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT seq, action, segment, at FROM guest_forwarded "
                "WHERE match = ? AND seq > ? ORDER BY seq",
                (str(match), int(taken)),
            ).fetchall()
            return [
                GuestAction(
                    int(seq), str(action), None if segment is None else str(segment), float(at)
                )
                for seq, action, segment, at in rows
            ]

    def _guest_where(self, condition: str, parameters: tuple[Any, ...]) -> GuestMatch | None:
        with self._reading() as connection:
            row = connection.execute(
                f"SELECT {_GUEST_COLUMNS} FROM guest_matches WHERE {condition} "
                "ORDER BY joined_at DESC LIMIT 1",
                parameters,
            ).fetchone()
            return None if row is None else self._guest(connection, row)

    def _guest(self, connection: sqlite3.Connection, row: tuple[Any, ...]) -> GuestMatch:
        match, host, board, game, options, players, joined, finished = row[:8]
        status, result, end_reason, taken = row[8:]
        forwarded = connection.execute(
            "SELECT coalesce(max(seq), 0) FROM guest_forwarded WHERE match = ?", (match,)
        ).fetchone()[0]
        try:
            return GuestMatch(
                match=str(match),
                host=str(host),
                board=str(board),
                game=str(game),
                options=json.loads(options),
                players=json.loads(players),
                joined_at=float(joined),
                finished_at=None if finished is None else float(finished),
                status=str(status),
                result=None if result is None else json.loads(result),
                end_reason=None if end_reason is None else str(end_reason),
                taken=int(taken),
                forwarded=int(forwarded),
            )
        except (TypeError, ValueError) as error:
            raise self._error(f"match {match} is damaged: {error}") from None

    # ---- the books (reads)
    # Read by firmware_bridge.daemon.books, which sums them up into the books
    # (docs/credits.md). A period is ``start <= at < end``; ``None`` leaves
    # that side open.

    def books_boards(self) -> list[str]:
        """Every board with a game, a credit line or a books reset here, sorted."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT board FROM games UNION SELECT board FROM guest_matches"
                " UNION SELECT board FROM credit_ledger UNION SELECT board FROM books_resets"
                " ORDER BY board"
            ).fetchall()
            return [str(board) for (board,) in rows]

    def last_books_reset(self, board: str, end: float | None = None) -> float | None:
        """When ``board``'s customer books were last reset (before ``end``), or ``None``."""
        with self._reading() as connection:
            row = connection.execute(
                "SELECT max(at) FROM books_resets WHERE board = ? AND (? IS NULL OR at < ?)",
                (str(board), end, end),
            ).fetchone()
            return None if row[0] is None else float(row[0])

    def credit_totals(
        self, board: str, start: float | None, end: float | None
    ) -> list[tuple[str, int | None, int, int]]:
        """``board``'s credit lines in the period, summed per source and coin
        input: ``(source, coin_input, change, pulses)`` (``coin_input`` is
        ``None`` but for coins)."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT source, coin_input, sum(change), coalesce(sum(pulses), 0)"
                " FROM credit_ledger WHERE board = ? AND (? IS NULL OR at >= ?)"
                " AND (? IS NULL OR at < ?) GROUP BY source, coin_input"
                " ORDER BY source, coin_input",
                (str(board), start, start, end, end),
            ).fetchall()
            return [
                (str(source), None if coin is None else int(coin), int(change), int(pulses))
                for source, coin, change, pulses in rows
            ]

    def game_totals(
        self, board: str, start: float | None, end: float | None
    ) -> list[tuple[str, int, int, float]]:
        """The games ``board`` started in the period (its own, and the remote
        matches it joined as a guest), per game id: ``(game, played, finished,
        seconds)``. A game's time runs from its start to its finish, or to its
        last event while it is still playing."""
        with self._reading() as connection:
            rows = connection.execute(
                "SELECT game, count(*), sum(status = 'finished'), sum(seconds) FROM ("
                " SELECT game, status, coalesce(finished_at,"
                "  (SELECT max(at) FROM events WHERE game_id = games.id), started_at)"
                "  - started_at AS seconds, started_at AS at FROM games WHERE board = ?"
                " UNION ALL"
                " SELECT game, status, coalesce(finished_at,"
                "  (SELECT max(at) FROM guest_forwarded WHERE match = guest_matches.match),"
                "  joined_at) - joined_at, joined_at FROM guest_matches WHERE board = ?"
                ") WHERE (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?)"
                " GROUP BY game ORDER BY game",
                (str(board), str(board), start, start, end, end),
            ).fetchall()
            return [
                (str(game), int(played), int(finished), max(0.0, float(seconds)))
                for game, played, finished, seconds in rows
            ]


_GAME_COLUMNS = (
    "id, game, options, players, teams, board, started_at, finished_at, status, result, bots, "
    "remote, game_key, revision, (SELECT CASE WHEN stored_at IS NOT NULL THEN 'stored' "
    "WHEN sent_at IS NOT NULL THEN 'sent' ELSE 'pending' END FROM outbox "
    "WHERE outbox.game_id = games.id ORDER BY outbox.id DESC LIMIT 1)"
)
"""A game's columns, and where its latest result is (``JournalGame.delivery``)."""


# ---- remote matches: a guest

_GUEST_OPEN = "(status = 'playing' OR (status = 'finished' AND end_reason IS NULL))"
"""SQL: the guest match is open, this board still in it (see ``Journal.guest_finish``)."""

_GUEST_COLUMNS = (
    "match, host, board, game, options, players, joined_at, finished_at, status, result, "
    "end_reason, taken"
)


@dataclass(frozen=True)
class GuestMatch:
    """A remote match this board joined as a guest (docs/remote.md): the game
    ran at ``host``, so only the match and what this board forwarded are here."""

    match: str
    host: str
    """The host, ``base/board``."""
    board: str
    """This board's id."""
    game: str
    options: dict[str, Any]
    players: list[dict[str, str]]
    """Every player of the match with their board: ``[{"name", "board"}]``."""
    joined_at: float
    finished_at: float | None
    status: str
    """``playing``, ``finished`` (``result`` is the host's final state's) or ``ended``."""
    result: dict[str, Any] | None
    end_reason: str | None
    """Why it is over: an ``end`` message's reason, ``left`` (end_game here), ``replaced``;
    ``None`` while it is open (``playing``, or ``finished`` with the host not moved on yet)."""
    taken: int
    """The highest ``seq`` the host has taken."""
    forwarded: int
    """The highest ``seq`` this board forwarded (0 for none)."""


@dataclass(frozen=True)
class GuestAction:
    """One action a guest forwarded: ``seq`` in its match, ``action``
    (``hit``, ``dart``, ``miss``, ``next``, ``undo``), ``segment`` for a hit or a
    dart, and when it was registered."""

    seq: int
    action: str
    segment: str | None
    at: float
