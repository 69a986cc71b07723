"""The journal's remote matches: the store :attr:`Journal.remote` (docs/remote.md).

As a host, the last action taken from each guest of a game (``remote_taken``,
written in the same transaction as what the action did); as a guest, every
match this board joined and every action it forwarded.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from firmware_bridge.daemon.journal.database import Database
from firmware_bridge.daemon.journal.totals import books_kept

__all__ = ["GuestAction", "GuestMatch", "RemoteStore"]

_GUEST_OPEN = "(status = 'playing' OR (status = 'finished' AND end_reason IS NULL))"
"""SQL: the guest match is open, this board still in it (see ``RemoteStore.guest_finish``)."""

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
    (``hit``, ``dart``, ``miss``, ``next``, ``undo``, ``bounce``, ``correct``),
    ``segment`` for a hit, a dart or a correction, when it was registered, and
    for a correction the ``dart`` of the visit it names."""

    seq: int
    action: str
    segment: str | None
    at: float
    dart: int | None = None


class RemoteStore:
    """What this board keeps of remote matches, as their host and as a guest."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- remote matches: the host
    # A guest's actions are taken in seq order, exactly once: the last seq
    # taken from each guest (remote_taken) is written in the same transaction
    # as what the action did (record, note_ignored), or alone (note_taken).

    def note_taken(self, game_id: int, board: str, seq: int) -> None:
        """A remote guest's action ``seq`` from ``board`` (``base/board``) was
        taken and did nothing the game keeps (the game refused it): only its
        seq is journaled, so it is never taken again."""
        with self._db.transaction() as connection:
            self.taken_rows(connection, game_id, (board, seq))

    def remote_taken(self, game_id: int) -> dict[str, int]:
        """The last action taken from each guest of the game's remote match:
        ``base/board`` -> seq (empty for a game on one board)."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT board, seq FROM remote_taken WHERE game_id = ? ORDER BY board",
                (game_id,),
            ).fetchall()
            return {str(board): int(seq) for board, seq in rows}

    def taken_rows(
        self, connection: sqlite3.Connection, game_id: int, taken: tuple[str, int]
    ) -> None:
        """Within a transaction: ``taken`` ``(board, seq)`` is the guest's last
        action taken in the game (a seq never goes back)."""
        board, seq = taken
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise self._db.error(
                f"game {game_id}: seq {seq!r} of {board} is not a positive integer"
            )
        if self._db.status(connection, game_id) == "ended":
            raise self._db.error(f"game {game_id} has ended: no more actions from {board}")
        connection.execute(
            "INSERT INTO remote_taken (game_id, board, seq) VALUES (?, ?, ?) "
            "ON CONFLICT (game_id, board) DO UPDATE SET seq = max(seq, excluded.seq)",
            (game_id, str(board), seq),
        )

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
            self._db.json(options, "options"),
            self._db.json(players, "players"),
            self._db.time(joined_at),
        )
        with self._db.transaction() as connection:
            if connection.execute(
                "SELECT 1 FROM guest_matches WHERE match = ?", (row[0],)
            ).fetchone():
                raise self._db.error(f"match {match} is already journaled")
            replaced = connection.execute(
                f"SELECT match FROM guest_matches WHERE board = ? AND {_GUEST_OPEN}", (row[2],)
            ).fetchone()
            with books_kept(
                connection, "guest_matches", "play.match = ?", (replaced and replaced[0],)
            ):
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

    def guest_forward(
        self, match: str, action: str, segment: str | None, at: float, dart: int | None = None
    ) -> int:
        """Journal one action this board forwards in ``match`` (durably, before
        it is sent) and return its ``seq``: one more than the match's last, never
        reused. A match that is not open (ended, or finished and closed) is a
        :class:`JournalError`; a won game still open takes an UNDO, a BOUNCE or
        a correction that takes the win back. A correction's ``dart`` is kept
        in the ``segment`` column before its bed (``2=T19``, as its engine token
        ends), so the schema is unchanged."""
        at = self._db.time(at)
        with self._db.transaction() as connection:
            found = connection.execute(
                f"SELECT status, {_GUEST_OPEN}, (SELECT coalesce(max(seq), 0) "
                "FROM guest_forwarded WHERE match = ?1) FROM guest_matches WHERE match = ?1",
                (str(match),),
            ).fetchone()
            if found is None:
                raise self._db.error(f"no match {match}")
            if not found[1]:
                raise self._db.error(f"match {match} is {found[0]}: nothing more is forwarded")
            seq = int(found[2]) + 1
            connection.execute(
                "INSERT INTO guest_forwarded (match, seq, action, segment, at) "
                "VALUES (?, ?, ?, ?, ?)",
                (str(match), seq, str(action), _segment_column(segment, dart), at),
            )
        return seq

    def guest_taken(self, match: str, seq: int) -> None:
        """The host has taken ``match``'s actions up to ``seq`` (its state's ``applied``)."""
        with self._db.transaction() as connection:
            connection.execute(
                "UPDATE guest_matches SET taken = ? WHERE match = ?", (int(seq), str(match))
            )

    def guest_finish(self, match: str, at: float, result: dict[str, Any]) -> None:
        """The host's state says the open match's game is won (or won anew,
        with another ``result``): it is ``finished`` now, with the host's
        ``result``, and stays open (no ``end_reason``) until the host moves on
        or :meth:`guest_reopen`. A match already closed is left as it is."""
        row = (self._db.time(at), self._db.json(result, "result"), str(match))
        self._change_match(
            str(match),
            "UPDATE guest_matches SET status = 'finished', "
            "finished_at = CASE status WHEN 'finished' THEN finished_at ELSE ? END, result = ? "
            f"WHERE match = ? AND {_GUEST_OPEN}",
            row,
        )

    def guest_reopen(self, match: str) -> None:
        """The host took the win of the open match back (an undo, a bounce-out
        of the winning dart): it is ``playing`` again, with no result."""
        self._change_match(
            str(match),
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
            raise self._db.error(f"a match closes finished or ended, not {status!r}")
        row = (
            status,
            self._db.time(at),
            str(end_reason),
            None if result is None else self._db.json(result, "result"),
            str(match),
        )
        self._change_match(
            str(match),
            "UPDATE guest_matches SET status = ?, finished_at = coalesce(finished_at, ?), "
            f"end_reason = ?, result = ? WHERE match = ? AND {_GUEST_OPEN}",
            row,
        )

    def _change_match(self, match: str, sql: str, parameters: tuple[Any, ...]) -> None:
        """One UPDATE (``sql``) of the guest match ``match``, its books kept."""
        with (
            self._db.transaction() as connection,
            books_kept(connection, "guest_matches", "play.match = ?", (match,)),
        ):
            connection.execute(sql, parameters)

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
        with self._db.reading() as connection:
            rows = connection.execute(
                f"SELECT {_GUEST_COLUMNS} FROM guest_matches "
                "WHERE substr(match, 1, length(?1)) = ?1 ORDER BY match = ?1 DESC LIMIT 2",
                (str(prefix),),
            ).fetchall()
            exact = [row for row in rows if row[0] == prefix]
            if len(rows) > 1 and not exact:
                raise self._db.error(f"several matches start with {prefix!r}: give more of the id")
            return None if not rows else self._guest(connection, (exact or rows)[0])

    def guest_matches(self, limit: int = 50, board: str | None = None) -> list[GuestMatch]:
        """Up to ``limit`` matches this board joined as a guest, newest first
        (every board's, or ``board``'s)."""
        if limit < 0:
            raise self._db.error(f"limit {limit} is negative")
        where, parameters = ("", ()) if board is None else ("WHERE board = ?", (str(board),))
        with self._db.reading() as connection:
            rows = connection.execute(
                f"SELECT {_GUEST_COLUMNS} FROM guest_matches {where} "
                "ORDER BY joined_at DESC, rowid DESC LIMIT ?",
                (*parameters, limit),
            ).fetchall()
            return [self._guest(connection, row) for row in rows]

    def guest_untaken(self, match: str, taken: int) -> list[GuestAction]:
        """``match``'s forwarded actions after ``taken`` (the host's ``applied``), in order."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT seq, action, segment, at FROM guest_forwarded "
                "WHERE match = ? AND seq > ? ORDER BY seq",
                (str(match), int(taken)),
            ).fetchall()
            return [
                _guest_action(int(seq), str(action), segment, float(at))
                for seq, action, segment, at in rows
            ]

    def _guest_where(self, condition: str, parameters: tuple[Any, ...]) -> GuestMatch | None:
        with self._db.reading() as connection:
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
            raise self._db.error(f"match {match} is damaged: {error}") from None


def _segment_column(segment: str | None, dart: int | None) -> str | None:
    """What ``guest_forwarded.segment`` holds: the bed, after a correction's dart."""
    if segment is None:
        return None
    return str(segment) if dart is None else f"{int(dart)}={segment}"


def _guest_action(seq: int, action: str, column: str | None, at: float) -> GuestAction:
    """A ``guest_forwarded`` row as its action (a correction's ``2=T19`` split)."""
    if column is None:
        return GuestAction(seq, action, None, at)
    dart, sep, bed = str(column).partition("=")
    if sep and dart.isdigit():
        return GuestAction(seq, action, bed, at, int(dart))
    return GuestAction(seq, action, str(column), at)
