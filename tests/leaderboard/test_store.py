"""Storage: the database (SQLite file and a real PostgreSQL), its migrations,
and ingest: every payload stored once, refused ones kept with their reason."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from leaderboard import queries
from leaderboard.database import Database, DatabaseUrlError, default_url, head_revision
from leaderboard.figures import AWARD_FIGURES, LINE_FIGURES, Aggregate
from leaderboard.models import Player, Rating, Rejected, Result, ResultPlayer
from leaderboard.store import MAX_RESULT_BYTES, ingest, ingest_many
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.paths import REPO

VENUES = VenueMap(boards={"pub-1": "The Crown"}, default="home")


@pytest.fixture
def database(sqlite_or_postgres_url: str) -> Database:
    db = Database(sqlite_or_postgres_url)
    db.migrate()
    yield db  # type: ignore[misc]
    db.dispose()


def x01(result_id: str | None = None, **kwargs: Any) -> bytes:
    document = result_document("x01", X01_MOVES, options={"start": 301}, **kwargs)
    if result_id is not None:
        document["result_id"] = result_id
    return as_payload(document)


def count(db: Database, model: type) -> int:
    with db.session() as session:
        return int(session.execute(select(func.count()).select_from(model)).scalar_one())


def test_the_default_url_is_a_sqlite_file_under_xdg_state_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert default_url() == f"sqlite:///{tmp_path}/state/oche/leaderboard.sqlite3"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_url() == f"sqlite:///{tmp_path}/home/.local/state/oche/leaderboard.sqlite3"


def test_the_constructor_touches_nothing_and_the_folder_is_made_on_use(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "lb.sqlite3"
    db = Database(f"sqlite:///{path}")
    assert not path.parent.exists()
    db.migrate()
    assert path.exists()
    with db.session() as session:
        assert session.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert session.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
    db.dispose()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mysql://root@localhost/oche", "'mysql' databases are not supported"),
        ("not a url", "is not a database URL"),
        ("postgresql+asyncpg://x/y", "'postgresql+asyncpg' databases are not supported"),
    ],
)
def test_a_url_oche_cannot_use_is_named(url: str, said: str) -> None:
    with pytest.raises(DatabaseUrlError, match=re.escape(said)):
        Database(url)


def test_migrating_again_changes_nothing(database: Database) -> None:
    assert ingest(database, x01(), VENUES).status == "imported"
    database.migrate()
    assert count(database, Result) == 1


@pytest.mark.slow
def test_two_processes_migrating_at_once_both_succeed(sqlite_or_postgres_url: str) -> None:
    script = (
        "import sys; from leaderboard.database import Database; Database(sys.argv[1]).migrate()"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, sqlite_or_postgres_url],
            cwd=REPO,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    errors = [process.communicate(timeout=60)[1] for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], errors
    db = Database(sqlite_or_postgres_url)
    with db.session() as session:
        version = session.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    assert version == [head_revision()]
    db.dispose()


def test_upgrading_a_database_keeps_its_results_and_counts_their_totals(
    sqlite_or_postgres_url: str,
) -> None:
    db = Database(sqlite_or_postgres_url)
    db.migrate("0001")
    with db.write_session() as session:
        session.execute(text("INSERT INTO venues (id, name, timezone) VALUES (1, 'home', 'UTC')"))
        session.execute(
            text(
                "INSERT INTO players (id, venue_id, key, name, name_at) "
                "VALUES (1, 1, 'ann', 'Ann', 0)"
            )
        )
        session.execute(
            text(
                "INSERT INTO results (id, result_id, board, venue_id, game, options, result, "
                "finished_at, received_at, visits, payload) VALUES "
                "(1, 'old', 'b', 1, 'x01', '{}', 'checkout', 0, 0, '[]', '{}')"
            )
        )
        added_later = {"legs_won", "legs_lost"}  # migration 0009's
        added_later |= {figure.name for figure in AWARD_FIGURES}  # migration 0013's
        figures = [
            str(f.column)
            for f in LINE_FIGURES
            if f.aggregate is Aggregate.SUM and f.column not in added_later
        ]
        session.execute(
            text(
                "INSERT INTO result_players (result_pk, player_id, seat, name, game, venue_id, "
                "finished_at, score, won, placement, darts, highlight, highest_checkout, "
                f"leg_darts, {', '.join(figures)}) VALUES (1, 1, 0, 'Ann', 'x01', 1, 0, 0, "
                f"true, 1, 12, 40, 40, 12, {', '.join('1' for _ in figures)})"
            )
        )
    db.migrate()
    with db.session() as session:
        (row,) = queries.leaderboard(session, "x01", "all")
    assert (row.player, row.played, row.won, row.highest_checkout, row.best_leg_darts) == (
        "Ann",
        1,
        1,
        40,
        12,
    )
    assert (row.legs_won, row.legs_lost) == (1, 0)  # a won game: a match of one leg won
    db.dispose()


def test_a_result_is_stored_once_and_a_redelivery_is_a_duplicate(database: Database) -> None:
    payload = x01(board="pub-1", result_id="r-1")
    first = ingest(database, payload, VENUES, received_at=1_780_000_100.0)
    assert first.status == "imported"
    assert first.result_id == "r-1"
    assert first.summary is not None
    assert first.summary.venue == "The Crown"
    assert first.summary.players == ["Ann", "Bob"]
    assert first.summary.winner_name == "Ann"
    again = ingest(database, payload, VENUES)
    assert (again.status, again.result_id, again.summary) == ("duplicate", "r-1", None)
    assert count(database, Result) == 1
    assert count(database, ResultPlayer) == 2
    with database.session() as session:
        stored = session.execute(select(Result)).scalar_one()
        assert stored.payload == json.loads(payload)
        assert (stored.board, stored.game, stored.received_at) == ("pub-1", "x01", 1_780_000_100.0)


def test_racing_writers_store_a_result_once(database: Database) -> None:
    payload = x01(result_id="raced")
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def deliver() -> None:
        barrier.wait()
        outcomes.append(ingest(database, payload, VENUES).status)

    threads = [threading.Thread(target=deliver) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["duplicate"] * 5 + ["imported"]
    assert count(database, Result) == 1


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"{not json", "not JSON: Expecting property name enclosed in double quotes"),
        (b"\xff\xfe", "not UTF-8 text"),
        (b"[1, 2]", "not a JSON object but list"),
        (b" " * (MAX_RESULT_BYTES + 1), f"over the limit of {MAX_RESULT_BYTES}"),
    ],
    ids=["not-json", "not-utf8", "not-object", "oversized"],
)
def test_what_is_not_a_result_is_rejected_once_with_its_reason(
    database: Database, payload: bytes, reason: str
) -> None:
    outcome = ingest(database, payload, VENUES)
    assert outcome.status == "rejected"
    assert outcome.result_id is None
    assert reason in (outcome.reason or "")
    assert ingest(database, payload, VENUES).status == "rejected"
    with database.session() as session:
        rows = session.execute(select(Rejected)).scalars().all()
    assert [(row.result_id, row.reason) for row in rows] == [(None, outcome.reason)]
    assert rows[0].payload == payload[:MAX_RESULT_BYTES].decode("utf-8", "backslashreplace")
    assert count(database, Result) == 0


def test_a_result_that_fails_re_scoring_is_rejected_once_by_its_id(database: Database) -> None:
    document = result_document("x01", X01_MOVES, options={"start": 301})
    document["result_id"] = "broken-1"
    document["board"] = "pub-1"
    del document["finished_at"]
    outcome = ingest(database, as_payload(document), VENUES)
    assert (outcome.status, outcome.result_id) == ("rejected", "broken-1")
    assert "finished_at" in (outcome.reason or "")
    document["log"] = "a changed payload, redelivered under the same id"
    assert ingest(database, as_payload(document), VENUES).status == "rejected"
    with database.session() as session:
        rows = session.execute(select(Rejected.result_id, Rejected.board)).all()
    assert [tuple(row) for row in rows] == [("broken-1", "pub-1")]


def test_names_are_one_player_whatever_their_case_and_spaces(database: Database) -> None:
    early = result_document(
        "x01", X01_MOVES, players=["ann", "Bob"], options={"start": 301}, finished_at=1.78e9
    )
    late = result_document(
        "x01", X01_MOVES, players=[" ANN  ", "bob"], options={"start": 301}, finished_at=1.79e9
    )
    assert ingest(database, as_payload(late), VENUES).status == "imported"
    assert ingest(database, as_payload(early), VENUES).status == "imported"
    with database.session() as session:
        players = session.execute(select(Player.key, Player.name).order_by(Player.key)).all()
        played = session.execute(select(ResultPlayer.name).order_by(ResultPlayer.id)).scalars()
        assert list(played) == ["ANN", "bob", "ann", "Bob"]
    # the display name is the spelling of the latest game, whatever arrived last
    assert [tuple(row) for row in players] == [("ann", "ANN"), ("bob", "bob")]


def test_the_same_name_at_one_board_in_another_venue_is_another_player(
    database: Database,
) -> None:
    assert ingest(database, x01(board="pub-1"), VENUES).status == "imported"
    assert ingest(database, x01(board="board9"), VENUES).status == "imported"
    assert count(database, Player) == 4


def test_two_seats_with_one_name_are_rejected(database: Database) -> None:
    document = result_document("x01", X01_MOVES, options={"start": 301})
    document["players"][1]["name"] = "ann "
    outcome = ingest(database, as_payload(document), VENUES)
    assert outcome.status == "rejected"
    assert "'ann'" in (outcome.reason or "")
    assert count(database, Result) == 0


def test_a_batch_is_stored_in_one_go_with_each_payloads_outcome(database: Database) -> None:
    late, early = x01(result_id="late", finished_at=2e9), x01(result_id="early", finished_at=1e9)
    outcomes = ingest_many(database, [late, b"junk", early, late, x01(result_id="early")], VENUES)
    assert [(o.status, o.result_id) for o in outcomes] == [
        ("imported", "late"),
        ("rejected", None),
        ("imported", "early"),
        ("duplicate", "late"),
        ("duplicate", "early"),
    ]
    assert count(database, Result) == 2
    with database.session() as session:
        history = session.execute(select(Rating.result_id).order_by(Rating.id)).scalars().all()
    assert history == ["early", "early", "late", "late"]  # rated in the order played


def test_a_batch_gives_each_player_the_spelling_of_their_latest_game(database: Database) -> None:
    documents = [
        result_document("x01", X01_MOVES, players=players, options={"start": 301}, finished_at=at)
        for players, at in ((["ann", "Bob"], 3e9), (["ANN", "bob"], 1e9), (["Ann", "BOB"], 2e9))
    ]
    outcomes = ingest_many(database, [as_payload(document) for document in documents], VENUES)
    assert {outcome.status for outcome in outcomes} == {"imported"}
    with database.session() as session:
        names = session.execute(select(Player.name).order_by(Player.key)).scalars().all()
    assert names == ["ann", "Bob"]
