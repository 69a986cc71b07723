"""The journal's outbox of result payloads: the store :attr:`Journal.outbox`.

Each result is ``sent`` once the broker acknowledged it and ``stored`` once a
leaderboard said it has it (``result/stored``); a result none has stored is
sent again whenever a leaderboard comes online. A result enters the outbox in
the same transaction as its game's finish (or, for a withdrawal, its end).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from firmware_bridge.daemon.journal.database import Database

__all__ = ["OutboxEntry", "OutboxStore", "Withdrawal"]


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


class OutboxStore:
    """The results waiting for the broker and for a leaderboard."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add_rows(
        self, connection: sqlite3.Connection, result_id: str, game_id: int, payload: str, at: float
    ) -> None:
        """Within a transaction of the game's: ``payload`` enters the outbox."""
        connection.execute(
            "INSERT INTO outbox (result_id, game_id, payload, created_at) VALUES (?, ?, ?, ?)",
            (result_id, game_id, payload, at),
        )

    def mark_sent(self, *result_ids: str) -> None:
        """The broker acknowledged the results ``result_ids`` (one transaction):
        they leave :meth:`pending_results` (and stay in :meth:`unstored_results`
        until a leaderboard has them). An id that is unknown (removed by
        :meth:`reopen_game` while it was being sent) or already sent is ignored."""
        now = time.time()
        with self._db.transaction() as connection:
            connection.executemany(
                "UPDATE outbox SET sent_at = ? WHERE result_id = ? AND sent_at IS NULL",
                [(now, str(result_id)) for result_id in result_ids],
            )

    def mark_stored(self, board: str, result_ids: Sequence[str], at: float) -> int:
        """A leaderboard has ``board``'s results ``result_ids`` (its
        ``result/stored``): they leave :meth:`unstored_results`, in one
        transaction. Ids that are another board's, unknown or already stored
        are ignored. Returns how many were marked."""
        at = self._db.time(at)
        ids = sorted({str(result_id) for result_id in result_ids})
        marked = 0
        with self._db.transaction() as connection:
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

    def withdrawable(self, game_id: int) -> tuple[str, str, int] | None:
        """What abandoning the ``playing`` game must withdraw: ``(payload,
        game_key, revision)`` of its latest result still in the outbox (a
        result of a reopened game stays there only once it was sent), with
        the last revision the game used; ``None`` when there is none."""
        with self._db.reading() as connection:
            row = connection.execute(
                "SELECT outbox.payload, games.game_key, games.revision FROM games"
                " JOIN outbox ON outbox.game_id = games.id"
                " WHERE games.id = ? AND games.status = 'playing' AND games.game_key IS NOT NULL"
                " ORDER BY outbox.id DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            return None if row is None else (str(row[0]), str(row[1]), int(row[2]))

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
        with self._db.reading() as connection:
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
