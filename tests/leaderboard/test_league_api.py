"""``/api/leagues``, ``/api/leagues/{league}`` and the league's page through
FastAPI's TestClient on SQLite and PostgreSQL: the API gives what ``oche
league show --json`` prints (the seeded league: standings, fixtures, games),
by id or name; the page shows the same, escaped; an unknown league is a 404
naming it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from leaderboard import leagues
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.league_seed import seed_league
from tests.leaderboard.web_seed import VENUES


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    seed_league(database, VENUES)
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        yield client


def test_the_api_gives_the_league_as_show_does(client: TestClient, database: Database) -> None:
    answer = client.get("/api/leagues/1")
    assert answer.status_code == 200
    with database.session() as session:
        assert answer.json() == leagues.league_view(session, 1).model_dump()
    by_name = client.get("/api/leagues/thursday night darts league")
    assert by_name.json() == answer.json()
    league = answer.json()
    assert [row["team"] for row in league["standings"]] == ["Tigers", "Crown Arrows Wanderers"]
    first, second = league["fixtures"]
    assert (first["status"], second["status"]) == ("finished", "scheduled")
    assert [game["source"] for game in first["games"]] == ["oche", "oche", "hand", "hand"]
    assert [game["status"] for game in second["games"]] == ["ready"] * 4  # pairs are called too
    assert client.get("/api/leagues").json() == [
        {"id": 1, "name": "Thursday Night Darts League", "season": "2026/27",
         "teams": 2, "fixtures": 2}
    ]  # fmt: skip


def test_the_page_shows_standings_and_fixtures(client: TestClient) -> None:
    page = client.get("/leagues/1")
    assert page.status_code == 200
    text = page.text
    assert '<h1 id="league">Thursday Night Darts League</h1>' in text
    assert 'data-label="Points"><strong>1</strong>' in text
    assert "Crown Arrows Wanderers v Tigers" in text and "Tigers v Crown Arrows Wanderers" in text
    assert "Maximilian-Alexander v Dan" in text
    assert '<a href="/leagues/1">Thursday Night Darts League</a>' in client.get("/leagues").text


def test_an_unknown_league_is_a_404_naming_it(client: TestClient) -> None:
    answer = client.get("/api/leagues/Autumn")
    assert answer.status_code == 404
    assert "no league 'Autumn'" in answer.json()["detail"]
    assert client.get("/api/leagues/99").status_code == 404
    page = client.get("/leagues/Autumn")
    assert page.status_code == 404 and "No league &#39;Autumn&#39;." in page.text


def test_the_page_says_a_remote_fixture_s_away_board(
    client: TestClient, database: Database
) -> None:
    with database.write_session() as session:
        leagues.add_fixture(
            session, 1, home="Tigers", away="Crown Arrows Wanderers", boards=["swan-1"],
            away_board="crown-1", now=5000.0,
        )  # fmt: skip
    text = client.get("/leagues/1").text
    assert "remote, Crown Arrows Wanderers at crown-1" in text
    assert client.get("/api/leagues/1").json()["fixtures"][2]["away_board"] == "crown-1"
