"""The books' running totals (journal schema version 6) on real SQLite: kept
in every transaction that changes what they sum, they always equal the
books summed from the history, and a migration or a salvage sums them once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.journal import Charge, Finish, Journal
from firmware_bridge.daemon.journal.schema import MIGRATIONS
from firmware_bridge.daemon.journal.totals import rebuild_books

T0 = 1_700_000_000.0
BOARD = "pub"


def summed(journal: Journal, board: str = BOARD) -> dict[str, Any]:
    """The books summed over the history (a period from 0 on: every row)."""
    snapshot = books(journal, board, 0.0, now=1.0)
    for book in ("customer", "security"):
        snapshot[book]["from"] = None if book == "security" else snapshot[book]["reset_at"]
    snapshot["since"] = None
    return snapshot


def kept(journal: Journal, board: str = BOARD) -> dict[str, Any]:
    """The books from the running totals."""
    return books(journal, board, now=1.0)


def a_busy_history(journal: Journal) -> None:
    """Coins, credits, paid games won, undone, won again, abandoned and
    replaced, books resets between, and remote matches as a guest."""
    ledger, games, remote = journal.ledger, journal.games, journal.remote
    ledger.record_coin(BOARD, 1, 3, "boot", T0, 2, bonus_per_pulse=1)
    ledger.add_credits(BOARD, 5, "remote", T0 + 1, "the operator")
    first = games.start_game("x01", {}, ["A", "B"], None, BOARD, T0 + 2, charge=Charge(2))
    games.record(first, [("T20", T0 + 3)], finish=Finish({}, T0 + 10, "r-1", "{}"))
    games.record(first, [("UNDO", T0 + 11)], reopen=True)
    games.record(first, [("T20", T0 + 12)], finish=Finish({}, T0 + 13, "r-2", "{}"))
    second = games.start_game("cricket", {}, ["A"], None, BOARD, T0 + 20, charge=Charge(1))
    games.append(second, "S20", T0 + 21)
    ledger.reset_books(BOARD, T0 + 22, "settled")
    games.start_game("cricket", {}, ["A"], None, BOARD, T0 + 30, charge=Charge(0, "free-play"))
    ledger.record_coin(BOARD, 2, 1, "boot", T0 + 31, 4)
    remote.guest_join("m-1", "oche/host", BOARD, "x01", {}, [], T0 + 40)
    remote.guest_forward("m-1", "dart", "T20", T0 + 41)
    remote.guest_finish("m-1", T0 + 45, {"winner": "A"})
    remote.guest_reopen("m-1")
    remote.guest_finish("m-1", T0 + 46, {"winner": "A"})
    remote.guest_close("m-1", "finished", T0 + 47, "done")
    remote.guest_join("m-2", "oche/host", BOARD, "x01", {}, [], T0 + 50)
    remote.guest_forward("m-2", "dart", "S1", T0 + 52)
    games.start_game("x01", {}, ["A"], None, "other", T0 + 53)  # another board's
    playing = games.start_game("x01", {}, ["A"], None, BOARD, T0 + 60, charge=Charge(1))
    games.append(playing, "S5", T0 + 64)


def test_the_running_totals_are_the_books_summed_from_the_history(tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        assert kept(journal) == summed(journal)
        a_busy_history(journal)
        assert kept(journal) == summed(journal)
        assert kept(journal)["security"]["games_played"] == 6
        assert kept(journal)["customer"]["games_played"] == 4
        assert kept(journal, "other") == summed(journal, "other")
        journal.games.end_game(journal.games.games(1, BOARD)[0].id, T0 + 70)
        journal.ledger.reset_books(BOARD, T0 + 71)
        assert kept(journal) == summed(journal)
        assert journal.ledger.credit_balance(BOARD) == 6 + 3 + 5 - 2 - 1 + 4 - 1


def test_a_rebuild_gives_the_totals_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        a_busy_history(journal)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        tables = ("books_credits", "books_games")
        before = [
            connection.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall() for t in tables
        ]
        connection.execute("BEGIN")
        rebuild_books(connection)
        connection.execute("COMMIT")
        after = [
            connection.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall() for t in tables
        ]
    finally:
        connection.close()
    assert after[0] == before[0]
    assert [row[:5] for row in after[1]] == [row[:5] for row in before[1]]
    assert [row[5] for row in after[1]] == pytest.approx([row[5] for row in before[1]])


def test_a_version_5_journal_gets_its_totals_from_its_history(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        a_busy_history(journal)
        expected = summed(journal)
    connection = sqlite3.connect(path, isolation_level=None)
    try:  # as a version 5 journal has it: no running totals
        for statement in (
            "DROP TABLE books_credits",
            "DROP TABLE books_games",
            "DROP INDEX guest_matches_by_board",
            "DROP INDEX books_resets_by_board",
            "DROP INDEX outbox_by_game",
            "DROP INDEX games_by_board_id",
            "ALTER TABLE games DROP COLUMN match",  # schema version 7's
            "PRAGMA user_version = 5",
        ):
            connection.execute(statement)
    finally:
        connection.close()
    assert 6 in MIGRATIONS
    with Journal(path) as journal:
        assert kept(journal) == expected
