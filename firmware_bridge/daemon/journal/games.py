"""The journal's games and their event tokens: the store :attr:`Journal.games`.

A game is journaled when it starts, each input's event tokens (``T20``,
``NEXT``, ``UNDO``) as it is decided, and the game's finish (its result, and
the result's outbox entry) or its reopening by an undo in the same
transaction as the input that decided it (:meth:`GameStore.record`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import NotationError
from engine.events import parse_event
from firmware_bridge.daemon.journal.database import Database
from firmware_bridge.daemon.journal.ledger import Charge, LedgerStore
from firmware_bridge.daemon.journal.outbox import OutboxStore, Withdrawal
from firmware_bridge.daemon.journal.remote import RemoteStore
from firmware_bridge.daemon.journal.totals import books_kept

__all__ = ["STATUSES", "Finish", "GameStore", "JournalGame"]

STATUSES = ("playing", "finished", "ended")
"""A game is ``playing``, ``finished`` (with a result) or ``ended`` (abandoned)."""


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
    :meth:`GameStore.games`, which leaves events out)."""
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
    match: dict[str, Any] | None = None
    """The game's match format (``engine.MatchFormat.to_json``): its events
    are every leg's; ``None`` for a single game."""
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


_GAME_COLUMNS = (
    "id, game, options, players, teams, board, started_at, finished_at, status, result, bots, "
    "remote, game_key, revision, match, (SELECT CASE WHEN stored_at IS NOT NULL THEN 'stored' "
    "WHEN sent_at IS NOT NULL THEN 'sent' ELSE 'pending' END FROM outbox "
    "WHERE outbox.game_id = games.id ORDER BY outbox.id DESC LIMIT 1)"
)
"""A game's columns, and where its latest result is (``JournalGame.delivery``)."""

_PLAYING = "INDEXED BY games_one_playing_per_board"
"""SQL: a board's game still playing is found by its index, never by a scan
of the board's games (a year of them is some 20,000)."""


class GameStore:
    """The games of every board this journal keeps, with their events; a
    game's finish writes its result's outbox entry, its charge a ledger line
    and a remote guest's action its ``taken``, each in the same transaction."""

    def __init__(
        self, db: Database, outbox: OutboxStore, remote: RemoteStore, ledger: LedgerStore
    ) -> None:
        self._db = db
        self._outbox = outbox
        self._remote = remote
        self._ledger = ledger

    # ---- writes

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
        match: dict[str, Any] | None = None,
    ) -> int:
        """Journal a new game on ``board`` and return its id. The board's game
        still ``playing``, if any, is marked ``ended`` at ``started_at`` in the
        same transaction: a new game replaces it (with its ``withdrawal``, if
        it is that game's: see :meth:`end_game`). ``bots`` and ``remote`` are
        kept as given (the daemon's record of the computer players and of the
        remote match it hosts). A ``charge`` is spent in the same transaction
        (a ``credit_ledger`` line with the game's id): the game starts paid
        for, or, when the credits held are short, not at all. A ``match``
        (its format's JSON) makes the game a match: its events are every
        leg's, and its finish is the match's."""
        row = (
            str(game),
            self._db.json(options, "options"),
            self._db.json(list(players), "players"),
            None if teams is None else self._db.json(teams, "teams"),
            str(board),
            self._db.time(started_at),
            None if bots is None else self._db.json(bots, "bots"),
            None if remote is None else self._db.json(remote, "remote"),
            None if match is None else self._db.json(match, "match"),
        )
        with self._db.transaction() as connection:
            if withdrawal is not None:
                self._withdrawal_rows(connection, withdrawal, row[5], board=row[4])
            replaced = connection.execute(
                f"SELECT id FROM games {_PLAYING} WHERE board = ? AND status = 'playing'", (row[4],)
            ).fetchone()
            with books_kept(connection, "games", "play.id = ?", (replaced and replaced[0],)):
                connection.execute(
                    f"UPDATE games {_PLAYING} SET status = 'ended', finished_at = ? "
                    "WHERE board = ? AND status = 'playing'",
                    (row[5], row[4]),
                )
            cursor = connection.execute(
                "INSERT INTO games (game, options, players, teams, board, started_at, bots, "
                "remote, match, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'playing')",
                row,
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            if charge is not None:
                self._ledger.charge_rows(connection, row[4], game_id, charge, row[5])
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
        ``(token, at)`` events, then either the game's ``finish`` (the
        ``playing`` game becomes ``finished`` with its result, and the result's
        payload enters the outbox under its ``result_id``) or, for an undo of
        the winning dart, its reopening (see :meth:`reopen_game`), and, for a
        remote guest's action, its ``taken`` ``(board, seq)`` (see
        :meth:`RemoteStore.note_taken`). Both
        ``reopen`` and ``finish``: the input re-decided a finished game (a
        bounce-out of its last dart), reopened, then finished with the new
        result. Either all of it is written or none of it. Returns the
        sequence number of the last event (0 when there are none)."""
        rows = [(self._token(game_id, token), self._db.time(at)) for token, at in events]
        result_json = None if finish is None else self._db.json(finish.result, "result")
        with self._db.transaction() as connection:
            if taken is not None:
                self._remote.taken_rows(connection, game_id, taken)
            seq = self._append_rows(connection, game_id, rows) if rows else 0
            if reopen or finish is not None:
                with books_kept(connection, "games", "play.id = ?", (game_id,)):
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
            raise self._db.error(f"game {game_id}: {error}") from None

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
            raise self._db.no_game(game_id)
        if found[0] == "ended":
            raise self._db.error(f"game {game_id} has ended: no more events")
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
        transaction (see :meth:`RemoteStore.note_taken`)."""
        if taken is not None and game_id is None:
            raise self._db.error("a remote guest's action is taken within a game")
        with self._db.transaction() as connection:
            if taken is not None and game_id is not None:
                self._remote.taken_rows(connection, game_id, taken)
            elif game_id is not None:
                self._db.status(connection, game_id)
            connection.execute(
                "INSERT INTO ignored (game_id, what, reason, at) VALUES (?, ?, ?, ?)",
                (game_id, str(what), str(reason), self._db.time(at)),
            )

    def _finish_rows(
        self, connection: sqlite3.Connection, game_id: int, finish: Finish, result_json: str
    ) -> None:
        finished_at = self._db.time(finish.finished_at)
        status = self._db.status(connection, game_id)
        if status != "playing":
            raise self._db.error(f"game {game_id} is {status}, not playing: cannot finish it")
        result_id = str(finish.result_id)
        taken = connection.execute(
            "SELECT game_id FROM outbox WHERE result_id = ?", (result_id,)
        ).fetchone()
        if taken is not None:
            raise self._db.error(f"result id {result_id!r} is already used (game {taken[0]})")
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
        self._outbox.add_rows(connection, result_id, game_id, str(finish.payload), finished_at)

    def _check_revision(
        self, connection: sqlite3.Connection, game_id: int, game_key: str | None, revision: int
    ) -> None:
        """A new result of the game must keep its game_key and go past every
        revision it used, or a consumer would keep the wrong one."""
        known_key, last = connection.execute(
            "SELECT game_key, revision FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if isinstance(revision, bool) or not isinstance(revision, int) or revision <= last:
            raise self._db.error(
                f"game {game_id}: revision {revision!r} is not above its last, {last}"
            )
        if known_key is not None and game_key is not None and game_key != known_key:
            raise self._db.error(f"game {game_id}: its results are of game key {known_key!r}")

    def end_game(self, game_id: int, at: float, withdrawal: Withdrawal | None = None) -> None:
        """The ``playing`` game is abandoned: ``ended`` at ``at``, no result. A
        game already over (finished or ended) is left as it is. A game
        reopened after its result was sent comes with its ``withdrawal``
        (see :meth:`OutboxStore.withdrawable`), which enters the outbox in the same
        transaction, so the result it withdraws never counts alone."""
        at = self._db.time(at)
        with self._db.transaction() as connection:
            if self._db.status(connection, game_id) == "playing":
                if withdrawal is not None:
                    self._withdrawal_rows(connection, withdrawal, at)
                with books_kept(connection, "games", "play.id = ?", (game_id,)):
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
        self._outbox.add_rows(
            connection, str(withdrawal.result_id), withdrawal.game_id, str(withdrawal.payload), at
        )

    def result_revision(self, game_id: int) -> tuple[str | None, int]:
        """The game's ``game_key`` (``None`` before its first result) and the
        last revision its results used (0: none): a new result of it takes
        the next."""
        with self._db.reading() as connection:
            row = connection.execute(
                "SELECT game_key, revision FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise self._db.no_game(game_id)
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
        status = self._db.status(connection, game_id)
        if status == "playing":
            return
        if status != "finished":
            raise self._db.error(f"game {game_id} is {status}: only a finished game reopens")
        other = connection.execute(
            f"SELECT other.id FROM games AS this JOIN games AS other {_PLAYING} "
            "ON other.board = this.board AND other.status = 'playing' WHERE this.id = ?",
            (game_id,),
        ).fetchone()
        if other is not None:
            raise self._db.error(
                f"game {game_id} cannot reopen: game {other[0]} is playing on its board"
            )
        connection.execute(
            "UPDATE games SET status = 'playing', finished_at = NULL, result = NULL WHERE id = ?",
            (game_id,),
        )
        connection.execute("DELETE FROM outbox WHERE game_id = ? AND sent_at IS NULL", (game_id,))

    # ---- reads

    def latest_game(self, board: str) -> JournalGame | None:
        """The newest game of ``board`` (whatever its status) with its events,
        or ``None``: the daemon checks on start that it is what replaying it
        says (playing or finished)."""
        with self._db.reading() as connection:
            row = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games INDEXED BY games_by_board_id "
                "WHERE board = ? ORDER BY id DESC LIMIT 1",
                (str(board),),
            ).fetchone()
            return None if row is None else self._game(row, *self._events(connection, row[0]))

    def game(self, game_id: int) -> JournalGame:
        """The game ``game_id`` with its events; a :class:`JournalError` naming
        the id when there is no such game."""
        with self._db.reading() as connection:
            row = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise self._db.no_game(game_id)
            return self._game(row, *self._events(connection, game_id))

    def games(self, limit: int = 50, board: str | None = None) -> list[JournalGame]:
        """Up to ``limit`` games, newest first, of every board or of ``board``.
        Their ``events`` are left empty (use :meth:`game` for those)."""
        if limit < 0:
            raise self._db.error(f"limit {limit} is negative")
        where, parameters = ("", ()) if board is None else ("WHERE board = ?", (str(board),))
        with self._db.reading() as connection:
            rows = connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games {where} "
                "ORDER BY started_at DESC, id DESC LIMIT ?",
                (*parameters, limit),
            ).fetchall()
            return [self._game(row, []) for row in rows]

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
            match,
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
                match=None if match is None else json.loads(match),
                delivery=None if delivery is None else str(delivery),
            )
        except (TypeError, ValueError) as error:
            raise self._db.error(f"game {game_id} is damaged: {error}") from None
