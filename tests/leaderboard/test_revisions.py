"""A game finished again after an undo (docs/leaderboard.md, "A game finished
again"): each revision of a ``game_key`` replaces the one before everywhere
(tables, totals, ratings, records), a late lower one is kept as superseded,
a withdrawn one takes the game out; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import func, select, text

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.models import Rating, Result, ResultPlayer, Superseded
from leaderboard.store import ingest, ingest_many
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document

VENUES = VenueMap()
T0 = 1_780_000_000.0

OPENING = ["T20 T20 T20", "T20 T20 T20", "T20 T7 M", "T20 T7 M"]
"""301 between Ann and Bob: both on 40 after four visits, Ann to throw."""

ANN_WINS = [*OPENING, "D20"]
BOB_WINS_AFTER_THE_UNDO = [*ANN_WINS, "UNDO M M M", "D20"]
"""Ann's winning D20 taken back (the game reopens), Ann misses, Bob checks out."""


def x01(moves: list[str], at: float, **kwargs: Any) -> dict[str, Any]:
    return result_document("x01", moves, options={"start": 301}, finished_at=at, **kwargs)


def table(db: Database) -> dict[str, tuple[int, int]]:
    """Each player's (played, won) in the all-time X01 table."""
    with db.session() as session:
        return {
            row.player: (row.played, row.won) for row in queries.leaderboard(session, "x01", "all")
        }


def day_table(db: Database, now: float) -> dict[str, tuple[int, int]]:
    with db.session() as session:
        rows = queries.leaderboard(session, "x01", "day", now=now)
        return {row.player: (row.played, row.won) for row in rows}


def ratings(db: Database) -> dict[str, float]:
    with db.session() as session:
        return {row.player: row.rating for row in queries.leaderboard(session, "x01", "all")}


def count(db: Database, model: type) -> int:
    with db.session() as session:
        return int(session.execute(select(func.count()).select_from(model)).scalar_one())


def retired(db: Database) -> list[tuple[str, int, str, str | None]]:
    with db.session() as session:
        rows = session.execute(
            select(
                Superseded.result_id, Superseded.revision, Superseded.why, Superseded.superseded_by
            ).order_by(Superseded.id)
        ).all()
    return [(row.result_id, row.revision, row.why, row.superseded_by) for row in rows]


def test_a_game_finished_again_counts_once_with_its_latest_outcome(database: Database) -> None:
    first = x01(ANN_WINS, T0)
    again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 30, revision_of=first)
    assert ingest(database, as_payload(first), VENUES).status == "imported"
    assert table(database) == {"Ann": (1, 1), "Bob": (1, 0)}

    outcome = ingest(database, as_payload(again), VENUES)
    assert (outcome.status, outcome.result_id, outcome.replaced) == (
        "imported",
        again["result_id"],
        first["result_id"],
    )
    assert outcome.summary is not None and outcome.summary.winner_name == "Bob"
    assert table(database) == {"Bob": (1, 1), "Ann": (1, 0)}
    assert day_table(database, T0 + 60) == {"Bob": (1, 1), "Ann": (1, 0)}
    assert count(database, Result) == 1 and count(database, ResultPlayer) == 2
    with database.session() as session:
        card = queries.player_card(session, "Ann")
        records = queries.records(session, "all")
        history = session.execute(select(Rating.result_id)).scalars().all()
        with pytest.raises(queries.ResultNotFoundError, match="replaced by"):
            queries.result_detail(session, first["result_id"])
    assert [result.result_id for result in card.recent] == [again["result_id"]]
    assert records.highest_checkout is not None
    assert (records.highest_checkout.player, records.highest_checkout.result_id) == (
        "Bob",
        again["result_id"],
    )
    assert history == [again["result_id"]] * 2  # rated once, as the game Bob won
    fresh = ratings_of_alone(database, again)
    if fresh is not None:
        assert ratings(database) == fresh
    assert retired(database) == [(first["result_id"], 1, "replaced", again["result_id"])]
    # Every revision kept as received, for audit.
    with database.session() as session:
        kept = session.execute(select(Superseded.payload)).scalar_one()
    assert kept == first


def ratings_of_alone(database: Database, document: dict[str, Any]) -> dict[str, float] | None:
    """The ratings a fresh SQLite database gives ``document`` alone (None on PostgreSQL)."""
    if database.dialect != "sqlite":
        return None
    fresh = Database(database.url.replace("leaderboard.sqlite3", "alone.sqlite3"))
    fresh.migrate()
    try:
        assert ingest(fresh, as_payload(document), VENUES).status == "imported"
        return ratings(fresh)
    finally:
        fresh.dispose()


def test_a_lower_revision_arriving_late_is_superseded_and_not_counted(
    database: Database,
) -> None:
    first = x01(ANN_WINS, T0)
    again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 30, revision_of=first)
    assert ingest(database, as_payload(again), VENUES).status == "imported"
    late = ingest(database, as_payload(first), VENUES)
    assert (late.status, late.result_id, late.summary) == ("superseded", first["result_id"], None)
    assert table(database) == {"Bob": (1, 1), "Ann": (1, 0)}
    assert retired(database) == [(first["result_id"], 1, "superseded", again["result_id"])]
    # Redeliveries of either are had already.
    assert ingest(database, as_payload(first), VENUES).status == "duplicate"
    assert ingest(database, as_payload(again), VENUES).status == "duplicate"
    assert count(database, Result) == 1 and count(database, Superseded) == 1


def test_an_equal_revision_with_another_id_is_superseded(database: Database) -> None:
    first = x01(ANN_WINS, T0)
    again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 30, revision_of=first)
    twin = {**again, "result_id": "another-id-for-revision-2"}
    ingest(database, as_payload(first), VENUES)
    assert ingest(database, as_payload(again), VENUES).status == "imported"
    assert ingest(database, as_payload(twin), VENUES).status == "superseded"
    assert table(database) == {"Bob": (1, 1), "Ann": (1, 0)}


def test_both_revisions_in_one_batch_count_the_latest_in_either_order(
    database: Database,
) -> None:
    first = x01(ANN_WINS, T0)
    again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 30, revision_of=first)
    outcomes = ingest_many(database, [as_payload(again), as_payload(first)], VENUES)
    assert [(o.status, o.result_id) for o in outcomes] == [
        ("imported", again["result_id"]),
        ("superseded", first["result_id"]),
    ]
    assert table(database) == {"Bob": (1, 1), "Ann": (1, 0)}
    other = x01(ANN_WINS, T0 + 100)
    other_again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 130, revision_of=other)
    outcomes = ingest_many(database, [as_payload(other), as_payload(other_again)], VENUES)
    assert [o.status for o in outcomes] == ["superseded", "imported"]
    assert table(database) == {"Bob": (2, 2), "Ann": (2, 0)}


def test_a_replaced_game_before_later_ones_replays_the_ratings_after_it(
    database: Database,
) -> None:
    """The revised game is the first of three: every later rating is as if
    the game had always ended the second way."""
    first = x01(ANN_WINS, T0)
    later = [x01(ANN_WINS, T0 + 100 * n) for n in (1, 2)]
    for document in [first, *later]:
        assert ingest(database, as_payload(document), VENUES).status == "imported"
    before = ratings(database)
    again = x01(BOB_WINS_AFTER_THE_UNDO, T0 + 30, revision_of=first)
    assert ingest(database, as_payload(again), VENUES).status == "imported"
    assert table(database) == {"Ann": (3, 2), "Bob": (3, 1)}
    assert ratings(database) != before
    if database.dialect == "sqlite":
        fresh = Database(database.url.replace("leaderboard.sqlite3", "fresh.sqlite3"))
        fresh.migrate()
        for document in [again, *later]:
            ingest(fresh, as_payload(document), VENUES)
        assert ratings(database) == ratings(fresh)
        with fresh.session() as session:
            expected = session.execute(
                select(Rating.result_id, Rating.ordinal).order_by(Rating.at, Rating.player_id)
            ).all()
        fresh.dispose()
        with database.session() as session:
            history = session.execute(
                select(Rating.result_id, Rating.ordinal).order_by(Rating.at, Rating.player_id)
            ).all()
        assert history == expected


def test_a_withdrawn_game_leaves_every_table_rating_and_record(database: Database) -> None:
    first = x01(ANN_WINS, T0)
    kept = x01(ANN_WINS, T0 + 100, players=["Ann", "Cy"])
    for document in (first, kept):
        assert ingest(database, as_payload(document), VENUES).status == "imported"
    withdrawal = {
        **first,
        "result_id": "withdrawal-of-the-first",
        "game_key": first["result_id"],
        "revision": 2,
        "withdrawn": True,
    }
    outcome = ingest(database, as_payload(withdrawal), VENUES)
    assert (outcome.status, outcome.replaced) == ("withdrawn", first["result_id"])
    assert outcome.summary is not None and outcome.summary.game == "x01"
    assert table(database) == {"Ann": (1, 1), "Cy": (1, 0)}
    with database.session() as session:
        assert queries.player_card(session, "Ann").recent[0].result_id == kept["result_id"]
        with pytest.raises(queries.PlayerNotFoundError):
            queries.player_card(session, "Bob")
        history = session.execute(select(Rating.result_id)).scalars().all()
    assert history == [kept["result_id"]] * 2
    assert retired(database) == [
        (first["result_id"], 1, "withdrawn", "withdrawal-of-the-first"),
        ("withdrawal-of-the-first", 2, "withdrawal", None),
    ]
    # The first result again, or a lower revision: the game stays withdrawn.
    assert ingest(database, as_payload(first), VENUES).status == "duplicate"
    assert ingest(database, as_payload(withdrawal), VENUES).status == "duplicate"
    assert table(database) == {"Ann": (1, 1), "Cy": (1, 0)}


def test_a_withdrawal_before_its_game_keeps_the_game_out(database: Database) -> None:
    first = x01(ANN_WINS, T0)
    withdrawal = {**first, "result_id": "w", "game_key": first["result_id"], "revision": 2}
    withdrawal["withdrawn"] = True
    assert ingest(database, as_payload(withdrawal), VENUES).status == "withdrawn"
    assert ingest(database, as_payload(first), VENUES).status == "superseded"
    assert table(database) == {}
    assert count(database, Result) == 0


def test_a_game_key_too_long_is_rejected(database: Database) -> None:
    document = x01(ANN_WINS, T0)
    document["game_key"] = "k" * 201
    outcome = ingest(database, as_payload(document), VENUES)
    assert outcome.status == "rejected"
    assert "game_key is 201 characters long" in (outcome.reason or "")


def test_results_without_a_game_key_are_each_their_own_game(database: Database) -> None:
    """What boards sent before revisions: no ``game_key``, no ``revision``."""
    documents = [x01(ANN_WINS, T0), x01(ANN_WINS, T0 + 1)]
    for document in documents:
        del document["game_key"], document["revision"]
        assert ingest(database, as_payload(document), VENUES).status == "imported"
    assert table(database) == {"Ann": (2, 2), "Bob": (2, 0)}
    with database.session() as session:
        stored = session.execute(select(Result.result_id, Result.game_key, Result.revision)).all()
    assert sorted(tuple(row) for row in stored) == sorted(
        (d["result_id"], d["result_id"], 1) for d in documents
    )
    assert json.loads(as_payload(documents[0])) == documents[0]


def test_upgrading_makes_every_stored_result_its_own_games_first_revision(
    sqlite_or_postgres_url: str,
) -> None:
    """Migration 0004 on a database with results, figures and ratings: each
    result is revision 1 of the game keyed by its id, and nothing else is
    touched (the columns are added in place: no copy of ``results``, whose
    drop would cascade to the figures on SQLite)."""
    db = Database(sqlite_or_postgres_url)
    db.migrate("0003")
    with db.write_session() as session:
        session.execute(text("INSERT INTO venues (id, name, timezone) VALUES (1, 'home', 'UTC')"))
        session.execute(
            text(
                "INSERT INTO players (id, venue_id, key, name, name_at) VALUES "
                "(1, 1, 'ann', 'Ann', 0), (2, 1, 'bob', 'Bob', 0)"
            )
        )
        for pk, result_id in ((1, "old-1"), (2, "old-2")):
            session.execute(
                text(
                    "INSERT INTO results (id, result_id, board, venue_id, game, options, "
                    "result, finished_at, received_at, visits, payload) VALUES "
                    f"({pk}, '{result_id}', 'b', 1, 'x01', '{{}}', 'checkout', {pk}, 0, '[]', "
                    "'{}')"
                )
            )
            for seat, player in ((0, 1), (1, 2)):
                session.execute(
                    text(
                        "INSERT INTO result_players (result_pk, player_id, seat, name, game, "
                        "venue_id, finished_at, score, won, placement, darts, points, "
                        "first9_points, first9_darts, checkout_darts, checkouts, count_100, "
                        "count_140, count_180, marks, count_5_marks, count_7_marks, "
                        f"count_9_marks) VALUES ({pk}, {player}, {seat}, 'p', 'x01', 1, {pk}, "
                        f"0, {'true' if seat == 0 else 'false'}, {seat + 1}, 3, 0, 0, 0, 0, 0, "
                        "0, 0, 0, 0, 0, 0, 0)"
                    )
                )
                session.execute(
                    text(
                        "INSERT INTO ratings (player_id, game, mu, sigma, ordinal, result_pk, "
                        f"result_id, at) VALUES ({player}, 'x01', 25, 8, 1, {pk}, "
                        f"'{result_id}', {pk})"
                    )
                )
    db.migrate()
    with db.session() as session:
        stored = session.execute(
            select(Result.result_id, Result.game_key, Result.revision).order_by(Result.id)
        ).all()
        assert [tuple(row) for row in stored] == [("old-1", "old-1", 1), ("old-2", "old-2", 1)]
        assert session.execute(select(func.count()).select_from(ResultPlayer)).scalar_one() == 4
        assert session.execute(select(func.count()).select_from(Rating)).scalar_one() == 4
    # A later revision of an old result replaces it.
    document = x01(BOB_WINS_AFTER_THE_UNDO, T0, revision_of={"result_id": "old-1"})
    assert ingest(db, as_payload(document), VENUES).replaced == "old-1"
    with db.session() as session:
        keys = session.execute(select(Result.game_key).order_by(Result.game_key)).scalars().all()
    assert keys == ["old-1", "old-2"]
    db.dispose()
