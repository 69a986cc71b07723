"""Count-Up and Cricket Count-Up on the leaderboard: their tables rank by
points per dart and MPR (not by wins), and a player's soft-tip rating is
made from the two as DARTSLIVE's RATING is; on SQLite and PostgreSQL, over
results stored by ingest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from leaderboard import queries
from leaderboard.api_models import CountUpRow, CricketRow
from leaderboard.database import Database
from leaderboard.soft_tip_rating import figure_rating, soft_tip_rating
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.test_queries import NOW

VENUES = VenueMap(boards={}, default="home", timezone="UTC", timezones={})


def store(db: Database, document: dict[str, Any]) -> None:
    outcome = ingest(db, as_payload(document), VENUES)
    assert outcome.status == "imported", outcome.reason


def table(db: Database, game: str) -> list[Any]:
    with db.session() as session:
        return queries.leaderboard(session, game, "all", None, now=NOW)


def test_count_up_ranks_by_points_per_dart_not_by_wins(database: Database) -> None:
    one = {"rounds": 1}
    store(database, result_document("count-up", ["S20 S20 S20", "S5 S5 M"], options=one))
    store(database, result_document("count-up", ["T20 T20 T20"], players=("Bob",), options=one))
    bob, ann = table(database, "count-up")
    assert isinstance(bob, CountUpRow) and isinstance(ann, CountUpRow)
    assert (bob.player, bob.rank, bob.won, bob.points_per_dart) == ("Bob", 1, 0, 31.67)
    assert (ann.player, ann.rank, ann.won, ann.points_per_dart) == ("Ann", 2, 1, 20.0)


def test_the_fat_bull_counts_fifty_in_the_points(database: Database) -> None:
    store(database, result_document("count-up", ["SB SB DB", "M M M"], options={"rounds": 1}))
    ann = table(database, "count-up")[0]
    assert (ann.player, ann.points_per_dart) == ("Ann", 50.0)


def test_cricket_count_up_ranks_by_mpr(database: Database) -> None:
    one = {"rounds": 1}
    store(database, result_document("cricket-count-up", ["T20 M M", "S20 M M"], options=one))
    store(
        database,
        result_document("cricket-count-up", ["T19 T18 T17"], players=("Bob",), options=one),
    )
    bob, ann = table(database, "cricket-count-up")
    assert isinstance(bob, CricketRow)
    assert (bob.player, bob.mpr, bob.count_9_marks) == ("Bob", 5.0, 1)  # (1 + 9) marks in 6 darts
    assert (ann.player, ann.mpr, ann.won) == ("Ann", 3.0, 1)


def test_the_player_card_shows_the_soft_tip_rating_and_its_rank(database: Database) -> None:
    one = {"rounds": 1}
    store(database, result_document("count-up", ["T20 S20 M", "S5 M M"], options=one))
    store(database, result_document("cricket-count-up", ["T20 D19 M", "M M M"], options=one))
    with database.session() as session:
        card = queries.player_card(session, "Ann")
        bob = queries.player_card(session, "Bob")
    assert card.soft_tip_rating is not None
    # 80 points per round (level 10.00) and MPR 5.00 (above 4.75: 18.00)
    assert (card.soft_tip_rating.points_per_round, card.soft_tip_rating.mpr) == (80.0, 5.0)
    assert (card.soft_tip_rating.rating, card.soft_tip_rating.flight) == (14.0, "AA")
    assert {stats.game: stats.row.rank for stats in card.games} == {
        "count-up": 1,
        "cricket-count-up": 1,
    }
    assert bob.soft_tip_rating is not None and bob.soft_tip_rating.mpr == 0.0
    assert {stats.game: stats.row.rank for stats in bob.games}["count-up"] == 2


def test_a_player_without_count_up_games_has_no_soft_tip_rating(database: Database) -> None:
    store(
        database,
        result_document("x01", ["T20 T20 T20", "S1 S1 S1", "T20 T19 D2"], options={"start": 301}),
    )
    with database.session() as session:
        assert queries.player_card(session, "Ann").soft_tip_rating is None


@pytest.mark.parametrize(
    ("value", "level"),
    [
        (0.0, 1.0),
        (20.0, 1.5),
        (40.0, 2.0),
        (42.5, 2.5),
        (95.0, 13.0),
        (98.5, 13.5),
        (130.0, 18.0),
        (200.0, 18.0),
    ],
)
def test_a_figure_s_level_follows_the_dartslive_table(value: float, level: float) -> None:
    from leaderboard.soft_tip_rating import RATING_TABLE

    starts = tuple(step.points_per_round for step in RATING_TABLE)
    assert figure_rating(value, starts) == pytest.approx(level)


def test_the_rating_is_the_mean_of_both_figures_levels_with_its_flight() -> None:
    both = soft_tip_rating(62.5, 2.50)  # 6.50 and 8.00
    assert both is not None and (both.rating, both.flight) == (7.25, "B")
    alone = soft_tip_rating(None, 1.40)  # 2.50
    assert alone is not None and (alone.rating, alone.flight) == (2.5, "C")
    assert soft_tip_rating(None, None) is None


def test_the_player_page_and_api_show_the_soft_tip_rating(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from leaderboard.live_hub import LiveHub
    from leaderboard.web.app import create_app

    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    one = {"rounds": 1}
    store(database, result_document("count-up", ["T20 S20 M", "S5 M M"], options=one))
    store(database, result_document("cricket-count-up", ["T20 D19 M", "M M M"], options=one))
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        card = client.get("/api/players/Ann").json()
        assert card["soft_tip_rating"] == {
            "rating": 14.0,
            "flight": "AA",
            "points_per_round": 80.0,
            "mpr": 5.0,
        }
        rows = client.get("/api/leaderboard", params={"game": "count-up"}).json()
        assert [(row["player"], row["points_per_dart"]) for row in rows] == [
            ("Ann", 26.67),
            ("Bob", 1.67),
        ]
        page = client.get("/players/Ann").text
    database.dispose()
    assert 'class="soft-tip-rating" data-rating="14.0"' in page
    assert "Soft-tip rating <strong>14.00</strong> (flight AA)" in page
    assert "Count-Up 80.00 points per round and Cricket Count-Up MPR 5.00" in page
    assert 'data-label="PPD">26.67<' in page
