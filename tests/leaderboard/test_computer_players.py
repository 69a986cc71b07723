"""Computer players (issue #21 item 9): a result marks them (``cpu`` in the
player's line, put there by the daemon); tables, ratings and records rank
people only, while a person's figures keep their games against computers,
whose pages name the computer ``Tin (CPU 7)``. Through the real ASGI app
over a real SQLite file, and the real ``oche leaderboard show``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.models import PlayerRating, Rating
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document

OCHE = Path(sys.executable).parent / "oche"
VENUES = VenueMap(boards={"crown-1": "The Crown"})
T0 = 1_780_000_000.0
SEAT_0_WINS = ["T20 T19 T18", "M M M", "T17 T16 T15", "M M M", "DB SB"]
"""Cricket: the first player closes everything (a 9-mark visit first), the second misses."""


def cricket(players: list[str], at: float, cpu: dict[str, int] | None = None) -> dict[str, Any]:
    return result_document(
        "cricket", SEAT_0_WINS, players=players, board="crown-1", finished_at=at, cpu=cpu
    )


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    yield database
    database.dispose()


@pytest.fixture
def games(database: Database) -> dict[str, dict[str, Any]]:
    """Tin (CPU 7) beats Ann, Ann beats Robo (CPU 5), Ann beats Bob, Robo beats Tin."""
    played = {
        "tin-ann": cricket(["Tin", "Ann"], T0, {"Tin": 7}),
        "ann-robo": cricket(["Ann", "Robo"], T0 + 100, {"Robo": 5}),
        "ann-bob": cricket(["Ann", "Bob"], T0 + 200),
        "robo-tin": cricket(["Robo", "Tin"], T0 + 300, {"Robo": 5, "Tin": 7}),
    }
    for document in played.values():
        assert ingest(database, as_payload(document), VENUES).status == "imported"
    return played


def test_computer_players_are_not_ranked_but_their_games_count_for_people(
    database: Database, games: dict[str, dict[str, Any]]
) -> None:
    with database.session() as session:
        for period in ("all", "day"):
            rows = queries.leaderboard(session, "cricket", period, now=T0 + 400)
            assert [(row.player, row.played, row.won) for row in rows] == [
                ("Ann", 3, 2),
                ("Bob", 1, 0),
            ], period
        records = queries.records(session, "all")
        rated = session.execute(select(Rating.result_id).order_by(Rating.id)).scalars().all()
        current = session.execute(select(func.count()).select_from(PlayerRating)).scalar_one()
        with pytest.raises(queries.PlayerNotFoundError):
            queries.player_card(session, "Tin")
    # Only the game between two people is rated.
    assert rated == [games["ann-bob"]["result_id"]] * 2
    assert current == 2
    # Tin's 9-mark visit came first, but records are people's.
    (best,) = [entry for entry in records.highlights if entry.game == "cricket"]
    assert (best.player, best.value, best.result_id) == (
        "Ann",
        9.0,
        games["ann-robo"]["result_id"],
    )


def test_pages_name_the_computer_opponent(
    database: Database, games: dict[str, dict[str, Any]]
) -> None:
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        detail = client.get(f"/api/results/{games['tin-ann']['result_id']}").json()
        assert [(p["name"], p["cpu_level"]) for p in detail["result_players"]] == [
            ("Tin", 7),
            ("Ann", None),
        ]
        card = client.get("/api/players/Ann").json()
        recent = {tuple(r["players"]): r["cpu_levels"] for r in card["recent"]}
        assert recent[("Tin", "Ann")] == [7, None]
        assert recent[("Ann", "Bob")] == [None, None]
        page = client.get(f"/results/{games['tin-ann']['result_id']}").text
        assert "Tin (CPU 7)" in page
        assert "/players/Tin" not in page  # a computer has no card
        player_page = client.get("/players/Ann").text
        assert "Tin (CPU 7)" in player_page and "Robo (CPU 5)" in player_page
        assert client.get("/api/players/Robo").status_code == 404
        table = client.get("/api/leaderboard", params={"game": "cricket"}).json()
        assert [row["player"] for row in table] == ["Ann", "Bob"]


def test_show_lists_people_only(database: Database, games: dict[str, dict[str, Any]]) -> None:
    done = subprocess.run(
        [str(OCHE), "leaderboard", "show", "--game", "cricket", "--db", database.url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = [line.split()[1] for line in done.stdout.splitlines()[1:]]
    assert names == ["Ann", "Bob"]


def test_results_stored_without_cpu_stay_as_they_were(database: Database) -> None:
    """A result from before computer players were marked: every name a person."""
    old = cricket(["Robo", "Ann"], T0)
    assert "cpu" not in old["players"][0]
    ingest(database, as_payload(old), VENUES)
    with database.session() as session:
        rows = queries.leaderboard(session, "cricket", "all")
    assert sorted(row.player for row in rows) == ["Ann", "Robo"]
