"""The journal's credit ledger and the books: the store :attr:`Journal.ledger`.

Every change of a board's credits is one ``credit_ledger`` line with its
source; the credits held are the sum of the board's lines. A coin's line is
written in the same transaction as the firmware's running count it came with
(``coin_counts``), so a count is credited exactly once however often it is
seen, and pulses missed while the daemon was down are credited when the next
count arrives. Read by :mod:`firmware_bridge.daemon.books` (docs/credits.md).
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

from firmware_bridge.daemon.journal.database import Database
from firmware_bridge.daemon.journal.totals import credit_line_in, recount_customer

__all__ = ["Charge", "CoinCredit", "LedgerStore"]


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
    """What :meth:`LedgerStore.record_coin` credited: the ``pulses`` counted now
    (0 for a count already journaled), their ``credits`` and happy-hour
    ``bonus``, and the ``balance`` after them."""

    pulses: int
    credits: int
    bonus: int
    balance: int


class LedgerStore:
    """Every board's credit lines, coin counts and books resets."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def credit_balance(self, board: str) -> int:
        """The credits ``board`` holds: the sum of its ledger lines."""
        with self._db.reading() as connection:
            return self.balance_in(connection, str(board))

    @staticmethod
    def balance_in(connection: sqlite3.Connection, board: str) -> int:
        """Within a transaction: the credits ``board`` holds (the sum of its
        lines, kept as the security books' running totals)."""
        row = connection.execute(
            "SELECT coalesce(sum(change), 0) FROM books_credits"
            " WHERE board = ? AND book = 'security'",
            (board,),
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
            raise self._db.error(f"coin input {coin_input!r} is not a positive integer")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
            raise self._db.error(f"coin count {count!r} is not an integer")
        at, board = self._db.time(at), str(board)
        with self._db.transaction() as connection:
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
                line = connection.execute(
                    "INSERT INTO credit_ledger (board, at, change, source, coin_input, pulses) "
                    "VALUES (?, ?, ?, 'coin', ?, ?)",
                    (board, at, credits, coin_input, pulses),
                )
                credit_line_in(connection, int(line.lastrowid or 0))
            if bonus:
                line = connection.execute(
                    "INSERT INTO credit_ledger (board, at, change, source, coin_input, reason) "
                    "VALUES (?, ?, ?, 'happy-hour', ?, 'happy hour bonus')",
                    (board, at, bonus, coin_input),
                )
                credit_line_in(connection, int(line.lastrowid or 0))
            balance = self.balance_in(connection, board)
        return CoinCredit(pulses, credits, bonus, balance)

    def add_credits(
        self, board: str, change: int, source: str, at: float, reason: str | None = None
    ) -> int:
        """One ledger line of ``change`` credits from ``source`` (``remote``,
        ``happy-hour``, ...); returns the balance after it. A change that
        would leave fewer than 0 credits is a :class:`JournalError`."""
        if isinstance(change, bool) or not isinstance(change, int):
            raise self._db.error(f"credit change {change!r} is not an integer")
        at, board = self._db.time(at), str(board)
        with self._db.transaction() as connection:
            balance = self.balance_in(connection, board) + change
            if balance < 0:
                raise self._db.error(
                    f"board {board} holds {balance - change} credits, not {-change}"
                )
            line = connection.execute(
                "INSERT INTO credit_ledger (board, at, change, source, reason) "
                "VALUES (?, ?, ?, ?, ?)",
                (board, at, change, str(source), reason),
            )
            credit_line_in(connection, int(line.lastrowid or 0))
        return balance

    def charge_rows(
        self, connection: sqlite3.Connection, board: str, game_id: int, charge: Charge, at: float
    ) -> None:
        """Within :meth:`start_game`'s transaction: spend the game's price."""
        held = self.balance_in(connection, board)
        if charge.credits < 0 or held < charge.credits:
            raise self._db.error(
                f"board {board} holds {held} credits; the game costs {charge.credits}"
            )
        line = connection.execute(
            "INSERT INTO credit_ledger (board, at, change, source, game_id, reason) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (board, at, -charge.credits, str(charge.source), game_id, charge.reason),
        )
        credit_line_in(connection, int(line.lastrowid or 0))

    def reset_books(self, board: str, at: float, reason: str | None = None) -> None:
        """Reset ``board``'s customer books: they count from ``at`` on. The
        ledger keeps every line (the security books, and the credits held)."""
        with self._db.transaction() as connection:
            connection.execute(
                "INSERT INTO books_resets (board, at, reason) VALUES (?, ?, ?)",
                (str(board), self._db.time(at), reason),
            )
            recount_customer(connection, str(board))

    # ---- the books (reads)
    # Read by firmware_bridge.daemon.books, which sums them up into the books
    # (docs/credits.md). A period is ``start <= at < end``; ``None`` leaves
    # that side open.

    def books_boards(self) -> list[str]:
        """Every board with a game, a credit line or a books reset here, sorted."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT board FROM games UNION SELECT board FROM guest_matches"
                " UNION SELECT board FROM credit_ledger UNION SELECT board FROM books_resets"
                " ORDER BY board"
            ).fetchall()
            return [str(board) for (board,) in rows]

    def last_books_reset(self, board: str, end: float | None = None) -> float | None:
        """When ``board``'s customer books were last reset (before ``end``), or ``None``."""
        with self._db.reading() as connection:
            row = connection.execute(
                "SELECT max(at) FROM books_resets WHERE board = ? AND at < ?",
                (str(board), _period(None, end)[1]),
            ).fetchone()
            return None if row[0] is None else float(row[0])

    def credit_totals(
        self, board: str, start: float | None, end: float | None
    ) -> list[tuple[str, int | None, int, int]]:
        """``board``'s credit lines in the period, summed per source and coin
        input: ``(source, coin_input, change, pulses)`` (``coin_input`` is
        ``None`` but for coins). Read by the ledger's index on the period:
        the cost is the period's lines (see :meth:`running_credit_totals`)."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT source, coin_input, sum(change), coalesce(sum(pulses), 0)"
                " FROM credit_ledger WHERE board = ? AND at >= ? AND at < ?"
                " GROUP BY source, coin_input ORDER BY source, coin_input",
                (str(board), *_period(start, end)),
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
        last event while it is still playing. Read by the index on the start."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT game, count(*), sum(status = 'finished'), sum(seconds) FROM ("
                " SELECT game, status, coalesce(finished_at,"
                "  (SELECT max(at) FROM events WHERE game_id = games.id), started_at)"
                "  - started_at AS seconds FROM games"
                "  WHERE board = ?1 AND started_at >= ?2 AND started_at < ?3"
                " UNION ALL"
                " SELECT game, status, coalesce(finished_at,"
                "  (SELECT max(at) FROM guest_forwarded WHERE match = guest_matches.match),"
                "  joined_at) - joined_at FROM guest_matches"
                "  WHERE board = ?1 AND joined_at >= ?2 AND joined_at < ?3"
                ") GROUP BY game ORDER BY game",
                (str(board), *_period(start, end)),
            ).fetchall()
            return [
                (str(game), int(played), int(finished), max(0.0, float(seconds)))
                for game, played, finished, seconds in rows
            ]

    # ---- the books' running totals (schema version 6)
    # Kept by triggers in the transaction of every credit line, game status and
    # books reset (firmware_bridge.daemon.journal.schema): the security books
    # sum everything, the customer books what is dated from the last reset on.

    def running_credit_totals(
        self, board: str, book: str
    ) -> list[tuple[str, int | None, int, int]]:
        """:meth:`credit_totals` of ``book`` (``security``: every line of
        ``board``; ``customer``: from its last books reset on), read from the
        running totals: as cheap with a year's ledger as with an empty one."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT source, coin_input, change, pulses FROM books_credits"
                " WHERE board = ? AND book = ? ORDER BY source, coin_input",
                (str(board), str(book)),
            ).fetchall()
            return [
                (str(source), int(coin) or None, int(change), int(pulses))
                for source, coin, change, pulses in rows
            ]

    def running_game_totals(
        self, board: str, book: str, start: float | None
    ) -> list[tuple[str, int, int, float]]:
        """:meth:`game_totals` of ``book``: the games over from the running
        totals, with the board's games still playing (started from ``start``
        on, the book's start) added as they stand."""
        totals: dict[str, tuple[int, int, float]] = {}
        low = _period(start, None)[0]
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT game, played, finished, seconds FROM books_games"
                " WHERE board = ?1 AND book = ?2 UNION ALL"
                " SELECT game, 1, 0, coalesce((SELECT max(at) FROM events"
                "  WHERE game_id = games.id), started_at) - started_at"
                " FROM games INDEXED BY games_one_playing_per_board"
                "  WHERE board = ?1 AND status = 'playing' AND started_at >= ?3 UNION ALL"
                " SELECT game, 1, 0, coalesce((SELECT max(at) FROM guest_forwarded"
                "  WHERE match = guest_matches.match), joined_at) - joined_at"
                " FROM guest_matches INDEXED BY guest_matches_one_playing"
                "  WHERE board = ?1 AND status = 'playing' AND joined_at >= ?3",
                (str(board), str(book), low),
            ).fetchall()
        for game, played, finished, seconds in rows:
            was = totals.get(str(game), (0, 0, 0.0))
            totals[str(game)] = (was[0] + played, was[1] + finished, was[2] + float(seconds))
        return [
            (game, played, finished, max(0.0, seconds))
            for game, (played, finished, seconds) in sorted(totals.items())
            if played
        ]


def _period(start: float | None, end: float | None) -> tuple[float, float]:
    """A period's bounds for SQL, ``None`` open (infinite): so the index on
    the time column reads the period alone."""
    return (-math.inf if start is None else start), (math.inf if end is None else end)
