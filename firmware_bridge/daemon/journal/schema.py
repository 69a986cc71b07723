"""The journal's schema and its migrations: what each version of the file holds.

The file identifies itself (``PRAGMA application_id``) and records its schema
version (``PRAGMA user_version``); :func:`migrate` takes an older one to
:data:`SCHEMA_VERSION` by :data:`MIGRATIONS`, a step per transaction. See
docs/journal.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.daemon.journal.errors import JournalError
from firmware_bridge.daemon.journal.totals import rebuild_books

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "migrate",
    "schema_version_of",
]

APPLICATION_ID = 0x4F434845
"""``PRAGMA application_id`` of an Oche journal: ``OCHE`` in ASCII."""


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
    action  TEXT NOT NULL,                  -- hit, dart, miss, next, undo, bounce, correct
    segment TEXT,                           -- for hit and dart, and a correct's 2=T19
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


# ---- version 6: the books as running totals

_SCHEMA_V6_BOOKS = """
CREATE TABLE books_credits (            -- the credit lines summed, per book
    board      TEXT NOT NULL,
    book       TEXT NOT NULL CHECK (book IN ('security', 'customer')),
    source     TEXT NOT NULL,
    coin_input INTEGER NOT NULL,        -- 0: the lines without one
    change     INTEGER NOT NULL,
    pulses     INTEGER NOT NULL,
    PRIMARY KEY (board, book, source, coin_input)
) WITHOUT ROWID;

CREATE TABLE books_games (              -- the games over (finished or ended), per book
    board    TEXT NOT NULL,
    book     TEXT NOT NULL CHECK (book IN ('security', 'customer')),
    game     TEXT NOT NULL,
    played   INTEGER NOT NULL,
    finished INTEGER NOT NULL,
    seconds  REAL NOT NULL,
    PRIMARY KEY (board, book, game)
) WITHOUT ROWID;

CREATE INDEX guest_matches_by_board ON guest_matches (board, joined_at);
CREATE INDEX books_resets_by_board ON books_resets (board, at);
CREATE INDEX outbox_by_game ON outbox (game_id, id);
CREATE INDEX games_by_board_id ON games (board, id)
"""


def _add_books_v6(connection: sqlite3.Connection) -> None:
    """Version 6: the books as running totals (``books_credits``,
    ``books_games``), kept by the stores in the same transaction as the credit
    line, the game or the reset that changes them
    (:mod:`firmware_bridge.daemon.journal.totals`) and summed once here from
    the history, so the books cost the same with a year's journal as with an
    empty one; with the indexes the day's books, a guest's matches, a
    game's latest result and a board's latest game are read by."""
    for statement in _SCHEMA_V6_BOOKS.split(";"):
        if statement.strip():
            connection.execute(statement)
    rebuild_books(connection)


def _add_match_v7(connection: sqlite3.Connection) -> None:
    """Version 7: a game's match format (JSON, ``engine.MatchFormat.to_json``;
    ``NULL``: a single game, as every game before). The game's events are the
    match's, every leg's in one list (a ``NEXT`` after a won leg starts the
    next), so a replay with the format gives the same match (docs/matches.md)."""
    connection.execute("ALTER TABLE games ADD COLUMN match TEXT")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _create_v1,
    2: _add_bots_v2,
    3: _add_remote_v3,
    4: _add_credits_v4,
    5: _add_delivery_v5,
    6: _add_books_v6,
    7: _add_match_v7,
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


def migrate(connection: sqlite3.Connection, version: int) -> None:
    """Take the journal ``connection`` has open from schema ``version`` to
    :data:`SCHEMA_VERSION`, each step in its own transaction together with
    the ``user_version`` bump."""
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
