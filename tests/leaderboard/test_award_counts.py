"""The leaderboard counts awards (issue #26): each result re-scored from its
log counts every player's awards as the engine settles them visit by visit;
stored on SQLite and PostgreSQL, they add up on the player card, in the
period's records (who threw each award most), on the player page and on the
TV's records slide; migration 0013 adds their columns and takes them away."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import inspect

import leaderboard
from engine.awards import Award
from leaderboard import queries
from leaderboard.database import Database
from leaderboard.figures import AWARD_FIGURES, award_column
from leaderboard.live_hub import LiveHub
from leaderboard.scoring import score_result
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document

VENUES = VenueMap(boards={}, default="home", timezone="UTC")

X01_AWARDS = ["T20 T20 T20", "S20 S20 S20", "T20 T7 D20"]
"""301: Ann's Ton 80, Bob's Three in a Bed (S20 S20 S20), Ann's 121 out (a Low Ton)."""
CRICKET_AWARDS = ["T20 T19 T18", "M M M", "T17 T16 T15", "M M M", "DB SB"]
"""Cricket: Ann's two White Horses (nine marks each, the horse the award shown)."""


def counts(line: Any) -> dict[str, int]:
    """A player line's awards thrown, by id."""
    return {
        str(award): int(line.figures[award_column(award)])
        for award in Award
        if line.figures[award_column(award)]
    }


def x01_document(**more: Any) -> dict[str, Any]:
    return result_document("x01", X01_AWARDS, options={"start": 301}, **more)


def cricket_document(**more: Any) -> dict[str, Any]:
    return result_document("cricket", CRICKET_AWARDS, **more)


def test_every_award_is_a_figure_counted_on_the_replay() -> None:
    assert [figure.name for figure in AWARD_FIGURES] == [award_column(a) for a in Award]
    ann, bob = score_result(x01_document()).players
    assert counts(ann) == {"ton-80": 1, "low-ton": 1}
    assert counts(bob) == {"three-in-a-bed": 1}
    ann, bob = score_result(cricket_document()).players
    assert counts(ann) == {"white-horse": 2}
    assert counts(bob) == {}


def test_a_bust_visit_earns_nothing() -> None:
    """Ann's T20 T20 on 121 busts: no Ton for it; her T20 T7 D20 out is a Low Ton."""
    moves = ["T20 T20 T20", "M M M", "T20 T20", "M M M", "T20 T7 D20"]
    ann, _ = score_result(result_document("x01", moves, options={"start": 301})).players
    assert counts(ann) == {"ton-80": 1, "low-ton": 1}


def store(database: Database, document: dict[str, Any]) -> None:
    outcome = ingest(database, as_payload(document), VENUES)
    assert outcome.status == "imported", outcome.reason


def test_the_card_and_the_records_add_up_the_awards(database: Database) -> None:
    store(database, x01_document(finished_at=1_767_230_000.0))
    store(database, x01_document(finished_at=1_767_231_000.0))
    store(database, cricket_document(finished_at=1_767_232_000.0))
    with database.session() as session:
        ann = queries.player_card(session, "Ann")
        bob = queries.player_card(session, "Bob")
        records = queries.records(session, "all")
    by_game = {stats.game: stats.awards for stats in ann.games}
    assert by_game == {"cricket": {"white-horse": 2}, "x01": {"low-ton": 2, "ton-80": 2}}
    assert {stats.game: stats.awards for stats in bob.games} == {
        "cricket": {},
        "x01": {"three-in-a-bed": 2},
    }
    most = {entry.award: (entry.player, entry.value, entry.game) for entry in records.most_awards}
    assert most == {
        "low-ton": ("Ann", 2.0, "x01"),
        "ton-80": ("Ann", 2.0, "x01"),
        "three-in-a-bed": ("Bob", 2.0, "x01"),
        "white-horse": ("Ann", 2.0, "cricket"),
    }
    assert [entry.award for entry in records.most_awards] == [
        "low-ton",
        "ton-80",
        "three-in-a-bed",
        "white-horse",
    ]  # in the awards' order
    assert records.most_180s is not None and records.most_180s.value == 2.0


def test_a_computer_players_awards_are_in_no_record(database: Database) -> None:
    store(database, x01_document(cpu={"Ann": 9}))
    with database.session() as session:
        records = queries.records(session, "all")
    assert [entry.player for entry in records.most_awards] == ["Bob"]


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    """The app over two games finished a minute ago (the TV shows today's records)."""
    store(database, x01_document(finished_at=time.time() - 60))
    store(database, cricket_document(finished_at=time.time() - 50))
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        yield client


def test_the_player_page_the_api_and_the_tv_show_the_awards(client: TestClient) -> None:
    card = client.get("/api/players/Ann").json()
    assert {game["game"]: game["awards"] for game in card["games"]} == {
        "cricket": {"white-horse": 2},
        "x01": {"ton-80": 1, "low-ton": 1},
    }
    page = client.get("/players/Ann").text
    assert 'id="awards"' in page
    assert re.search(r'data-award="white-horse"><span class="award-name">WHITE HORSE</span> '
                     r'<span class="num">2</span>', page)  # fmt: skip
    assert "TON 80!" in page
    records = client.get("/api/records", params={"period": "all"}).json()
    assert {entry["award"] for entry in records["most_awards"]} == {
        "ton-80",
        "low-ton",
        "three-in-a-bed",
        "white-horse",
    }
    tv = client.get("/tv/rankings").text
    assert 'data-award="ton-80"' in tv and "Most TON 80!" in tv


def test_migration_0013_adds_the_award_columns_and_takes_them_away(database: Database) -> None:
    tables = ("result_players", "player_totals")

    def columns() -> dict[str, set[str]]:
        found = inspect(database.engine)
        return {t: {c["name"] for c in found.get_columns(t)} for t in tables}

    wanted = {award_column(award) for award in Award}
    assert all(wanted <= names for names in columns().values())
    store(database, x01_document())  # lines and totals stored: they keep their other figures
    config = Config()
    config.set_main_option("script_location", str(Path(leaderboard.__file__).parent / "migrations"))
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0013")
    assert all(not (wanted & names) for names in columns().values())
    database.migrate()
    assert all(wanted <= names for names in columns().values())
    with database.session() as session:
        ann = queries.player_card(session, "Ann")
    assert ann.games[0].awards == {}  # stored before: no awards counted
    assert ann.games[0].row.played == 1
