"""The books' running totals (schema version 6), kept in the transaction that changes them.

Two books per board: the *security* books sum every credit line and every
game over, the *customer* books those dated from the board's last books
reset on (a game by its start). ``books_credits`` holds the credit lines
summed per source and coin input, ``books_games`` the games over (finished or
ended, own and guest) per game id: a game still playing is added when the
books are read, as it stands. Each store that writes a credit line, changes
a game's status or finish, or resets the books calls these functions within
its transaction, so the totals are always the history's sums and reading the
books costs the same with a year's journal as with an empty one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["BOOKS_TABLES", "books_kept", "credit_line_in", "rebuild_books", "recount_customer"]

BOOKS_TABLES = ("books_credits", "books_games")
"""The running totals: derived from the history, never copied by a salvage."""

_PLAYS = {
    "games": ("started_at", "(SELECT max(at) FROM events WHERE game_id = play.id)"),
    "guest_matches": (
        "joined_at",
        "(SELECT max(at) FROM guest_forwarded WHERE match = play.match)",
    ),
}
"""A board's own games and the matches it joined as a guest: the column of
the start, and the last event (the time of a game without a finish)."""

_SINCE_RESET = (
    "{at} >= coalesce((SELECT max(at) FROM books_resets AS reset"
    " WHERE reset.board = {board}), -1e999)"
)
"""SQL: a row dated ``{at}`` of ``{board}`` is in its customer books."""

_BOOKS = "(SELECT 'security' AS book UNION ALL SELECT 'customer') AS books"


def _in_book(at: str, board: str) -> str:
    return f"(books.book = 'security' OR {_SINCE_RESET.format(at=at, board=board)})"


def _add_games(table: str, where: str, sign: int, book: str | None = None) -> str:
    """SQL: the games over of ``table`` (as ``play``) that match ``where``
    added to (``sign`` 1) or taken from (-1) their books (or ``book`` only)."""
    start, last = _PLAYS[table]
    seconds = f"coalesce(play.finished_at, {last}, play.{start}) - play.{start}"
    which = f"books.book = '{book}'" if book else _in_book(f"play.{start}", "play.board")
    return (
        "INSERT INTO books_games (board, book, game, played, finished, seconds) "
        f"SELECT play.board, books.book, play.game, {sign} * count(*), "
        f"{sign} * sum(play.status = 'finished'), {sign} * sum({seconds}) "
        f"FROM {table} AS play, {_BOOKS} WHERE play.status != 'playing' AND {which} "
        f"AND ({where}) GROUP BY play.board, books.book, play.game "
        "ON CONFLICT (board, book, game) DO UPDATE SET played = played + excluded.played, "
        "finished = finished + excluded.finished, seconds = seconds + excluded.seconds"
    )


def _add_credits(where: str, book: str | None = None) -> str:
    """SQL: the credit lines (as ``line``) that match ``where`` added to their books."""
    which = f"books.book = '{book}'" if book else _in_book("line.at", "line.board")
    return (
        "INSERT INTO books_credits (board, book, source, coin_input, change, pulses) "
        "SELECT line.board, books.book, line.source, coalesce(line.coin_input, 0), "
        "sum(line.change), coalesce(sum(line.pulses), 0) "
        f"FROM credit_ledger AS line, {_BOOKS} WHERE {which} AND ({where}) "
        "GROUP BY line.board, books.book, line.source, coalesce(line.coin_input, 0) "
        "ON CONFLICT (board, book, source, coin_input) DO UPDATE SET "
        "change = change + excluded.change, pulses = pulses + excluded.pulses"
    )


def credit_line_in(connection: sqlite3.Connection, line_id: int) -> None:
    """Within the transaction that wrote it: credit line ``line_id`` counted in the books."""
    connection.execute(_add_credits("line.id = ?"), (line_id,))


@contextmanager
def books_kept(
    connection: sqlite3.Connection, table: str, where: str, parameters: Sequence[Any]
) -> Iterator[None]:
    """Around a change of the games of ``table`` (``games``, ``guest_matches``)
    that match ``where`` (on ``play``), within its transaction: what they
    counted in the books is taken out before, and put in again after."""
    connection.execute(_add_games(table, where, -1), parameters)
    yield
    connection.execute(_add_games(table, where, 1), parameters)


def recount_customer(connection: sqlite3.Connection, board: str) -> None:
    """Within the transaction of a books reset: ``board``'s customer books
    summed again from its last reset on (read by the indexes on the dates:
    the cost is what was dated after the reset, normally nothing)."""
    for table in BOOKS_TABLES:
        connection.execute(f"DELETE FROM {table} WHERE board = ? AND book = 'customer'", (board,))
    since = _SINCE_RESET.format(at="{at}", board="?1")
    connection.execute(
        _add_credits("line.board = ?1 AND " + since.format(at="line.at"), "customer"), (board,)
    )
    for table, (start, _) in _PLAYS.items():
        where = f"play.board = ?1 AND {since.format(at=f'play.{start}')}"
        connection.execute(_add_games(table, where, 1, "customer"), (board,))


def rebuild_books(connection: sqlite3.Connection) -> None:
    """Within a transaction: the running totals summed again from the whole
    history (the migration to version 6, and a salvage, do this once)."""
    for table in BOOKS_TABLES:
        connection.execute(f"DELETE FROM {table}")
    connection.execute(_add_credits("true"))
    for table in _PLAYS:
        connection.execute(_add_games(table, "true", 1))
