"""The HTTP API and pages through FastAPI's TestClient (httpx, the real ASGI
app) over a real SQLite file seeded through ``ingest``: each endpoint's shape,
its 404 and 422 answers, and pages that escape player names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from engine import game_ids
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.web_seed import (
    ADMIN_PASSWORD,
    ADMIN_PASSWORD_HASH,
    TRICKY_NAME,
    VENUES,
    Seeded,
    seed,
)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    yield database
    database.dispose()


@pytest.fixture
def seeded(database: Database) -> Seeded:
    return seed(database)


@pytest.fixture
def client(database: Database, seeded: Seeded) -> Iterator[TestClient]:
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        yield client


def test_the_x01_table_ranks_players_with_their_x01_figures(client: TestClient) -> None:
    response = client.get("/api/leaderboard", params={"game": "x01", "period": "day"})
    assert response.status_code == 200
    rows = response.json()
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    assert {row["player"] for row in rows} == {"Ann", "Bob", "Cy", TRICKY_NAME}
    for row in rows:
        for key in ("played", "won", "rating", "three_dart_average", "checkout_percent"):
            assert key in row, key
    ann = next(row for row in rows if row["player"] == "Ann")
    assert ann["highest_checkout"] is not None and ann["highest_checkout"] >= 121
    assert ann["count_180"] >= 1


def test_the_cricket_table_has_marks_per_round(client: TestClient) -> None:
    rows = client.get("/api/leaderboard", params={"game": "cricket"}).json()
    assert rows and all(row["mpr"] is not None for row in rows)
    assert "three_dart_average" not in rows[0]


def test_a_venue_filter_keeps_other_venues_out(client: TestClient) -> None:
    crown = client.get("/api/leaderboard", params={"game": "x01", "venue": "The Crown"})
    assert crown.status_code == 200 and crown.json()
    assert {row["venue"] for row in crown.json()} == {"The Crown"}
    nowhere = client.get("/api/leaderboard", params={"game": "x01", "venue": "Nowhere"})
    assert nowhere.json() == []


def test_an_unknown_game_or_period_is_a_422_that_says_what_is_wrong(client: TestClient) -> None:
    response = client.get("/api/leaderboard", params={"game": "darts-golf"})
    assert response.status_code == 422
    # FastAPI's documented error shape (HTTPValidationError), naming the parameter.
    (error,) = response.json()["detail"]
    assert error["loc"] == ["query", "game"]
    assert "darts-golf" in error["msg"] and all(game in error["msg"] for game in game_ids())
    response = client.get("/api/leaderboard", params={"game": "x01", "period": "year"})
    assert response.status_code == 422
    assert "period" in response.text
    assert client.get("/api/leaderboard").status_code == 422  # game is required


def test_a_player_card_is_found_whatever_the_case_and_spaces(
    client: TestClient, seeded: Seeded
) -> None:
    response = client.get("/api/players/%20ann%20", params={"venue": "The Crown"})
    assert response.status_code == 200
    card = response.json()
    assert card["name"] == "Ann"
    assert "x01" in {stats["game"] for stats in card["games"]}
    assert seeded.result_ids["x01"] in {result["result_id"] for result in card["recent"]}
    assert card["average_history"] and card["rating_history"]


def test_an_unknown_player_is_a_404_naming_them(client: TestClient) -> None:
    response = client.get("/api/players/Nobody")
    assert response.status_code == 404
    assert "Nobody" in response.json()["detail"]


def test_a_result_comes_with_its_visits(client: TestClient, seeded: Seeded) -> None:
    result_id = seeded.result_ids["x01"]
    detail = client.get(f"/api/results/{result_id}").json()
    assert detail["result_id"] == result_id
    assert (detail["game"], detail["board"], detail["venue"]) == ("x01", "pub", "The Crown")
    assert detail["winner_name"] == "Ann"
    assert [visit["darts"] for visit in detail["visits"]] == [
        ["T20", "T20", "T20"],
        ["S20", "S20", "S20"],
        ["T20", "T7", "D20"],
    ]
    assert [visit["score_after"] for visit in detail["visits"]] == [121, 241, 0]
    missing = client.get("/api/results/no-such-result")
    assert missing.status_code == 404 and "no-such-result" in missing.json()["detail"]


def test_records_name_the_day_s_highest_checkout(client: TestClient) -> None:
    records = client.get("/api/records", params={"period": "day"}).json()
    assert records["period"] == "day"
    checkout = records["highest_checkout"]
    assert checkout is not None and checkout["value"] >= 121
    assert client.get("/api/records", params={"period": "fortnight"}).status_code == 422


def test_rejected_results_are_listed_with_their_reason(database: Database, seeded: Seeded) -> None:
    # An admin view: behind the admin password (tests/leaderboard/test_web_security.py).
    app = create_app(database, LiveHub(), VENUES, admin_password_hash=ADMIN_PASSWORD_HASH)
    with TestClient(app) as client:
        client.auth = ("admin", ADMIN_PASSWORD)
        entries = client.get("/api/rejected").json()
        assert [entry["reason"] for entry in entries] == [seeded.rejected_reason]
        assert client.get("/api/rejected", params={"limit": 0}).status_code == 422
        page = client.get("/admin/rejected")
        assert page.status_code == 200 and "not JSON" in page.text


def test_every_api_answer_is_typed_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/leaderboard", "/api/players/{name}", "/api/results/{result_id}"} <= set(paths)
    assert {"/api/records", "/api/rejected", "/api/live", "/api/boards"} <= set(paths)
    assert {"/api/boards/{board}/join-options", "/api/boards/{board}/join"} <= set(paths)
    assert {"/api/boards/{board}/pair", "/api/boards/{board}/command", "/api/games"} <= set(paths)
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method == "delete":  # forgetting: 204, nothing to type
                assert set(operation["responses"]) & {"200", "204"} == {"204"}
                assert "content" not in operation["responses"]["204"], path
                continue
            content = operation["responses"]["200"]["content"]
            if path.endswith("/live"):
                assert "text/event-stream" in content
            else:
                assert content["application/json"]["schema"], (method, path)


def test_the_tv_page_shows_today_s_tables_with_names_escaped(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = response.text
    assert 'data-game="x01"' in page and 'data-game="cricket"' in page
    assert "&lt;b&gt;Zoë&lt;/b&gt; &amp; &#34;co&#34;" in page
    assert "<b>Zoë</b>" not in page
    # Every script and stylesheet is served by the app itself (no CDN).
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert "/static/tv.js" in assets and "/static/leaderboard.css" in assets
    assert [asset for asset in assets if "//" in asset or ":" in asset] == []
    for asset in assets:  # /static/..., the manifest, icons and favicon (app_shell)
        assert client.get(asset).status_code == 200, asset


def test_the_player_page_draws_a_chart_and_links_recent_games(
    client: TestClient, seeded: Seeded
) -> None:
    page = client.get("/players/Ann").text
    assert "<svg" in page and '<path class="line"' in page
    assert f'href="/results/{seeded.result_ids["x01"]}"' in page
    tricky = client.get("/players/" + quote(TRICKY_NAME))
    assert tricky.status_code == 200
    assert "&lt;b&gt;Zoë&lt;/b&gt;" in tricky.text and "<b>Zoë</b>" not in tricky.text


def test_pages_for_unknown_players_and_results_are_404s(client: TestClient) -> None:
    assert client.get("/players/Nobody").status_code == 404
    response = client.get("/results/<script>")
    assert response.status_code == 404
    assert "<script>" not in response.text


def test_the_result_page_breaks_the_game_down_by_visit(client: TestClient, seeded: Seeded) -> None:
    page = client.get(f"/results/{seeded.result_ids['x01']}").text
    assert "T20 T7 D20" in page and "Ann" in page


def test_a_database_that_is_away_gives_503_not_500(tmp_path: Path) -> None:
    away = Database(f"sqlite:///{tmp_path / 'no-such-folder' / 'leaderboard.sqlite3'}")
    with TestClient(create_app(away, LiveHub(), VENUES), raise_server_exceptions=False) as client:
        response = client.get("/api/leaderboard", params={"game": "x01"})
        assert response.status_code == 503
        assert "database is unavailable" in response.json()["detail"]
        assert client.get("/").status_code == 503


def test_the_api_and_pages_read_postgresql_too(postgres_url: str) -> None:
    database = Database(postgres_url)
    database.migrate()
    try:
        seeded = seed(database)
        with TestClient(create_app(database, LiveHub(), VENUES)) as client:
            rows = client.get("/api/leaderboard", params={"game": "x01", "period": "day"}).json()
            assert {row["player"] for row in rows} == {"Ann", "Bob", "Cy", TRICKY_NAME}
            card = client.get("/api/players/ANN", params={"venue": "The Crown"}).json()
            assert card["name"] == "Ann" and card["average_history"]
            detail = client.get(f"/api/results/{seeded.result_ids['x01']}").json()
            assert detail["visits"][-1]["darts"] == ["T20", "T7", "D20"]
            assert client.get("/api/records").json()["highest_checkout"]["value"] >= 121
            assert 'data-game="cricket"' in client.get("/").text
            assert '<path class="line"' in client.get("/players/Ann").text
    finally:
        database.dispose()


def test_suggested_handicaps_come_from_the_players_figures(client: TestClient) -> None:
    """GET /api/handicap: what ``oche leaderboard handicap --json`` prints (issue #26)."""
    rows = client.get("/api/leaderboard", params={"game": "x01"}).json()
    averages = {row["player"]: row["three_dart_average"] for row in rows}
    response = client.get("/api/handicap", params={"game": "x01", "player": ["Ann", "Bob"]})
    assert response.status_code == 200, response.text
    report = response.json()
    best = max(averages["Ann"], averages["Bob"])
    starts = [round(501 * averages[name] / best) for name in ("Ann", "Bob")]
    assert [line["start"] for line in report["new_game"]["players"]] == starts
    cricket = client.get("/api/handicap", params={"game": "cricket", "player": ["Ann", "Bob"]})
    assert cricket.status_code == 200 and "marks" in str(cricket.json()["players"])
    unknown = client.get("/api/handicap", params={"game": "x01", "player": ["Ann", "Nobody"]})
    assert unknown.status_code == 404 and "Nobody" in unknown.text
    killer = client.get("/api/handicap", params={"game": "killer", "player": ["Ann", "Bob"]})
    assert killer.status_code == 404
    assert client.get("/api/handicap", params={"game": "x01", "player": "Ann"}).status_code == 422
