"""The board page as the real app serves it (``create_app``, FastAPI's
TestClient, a migrated SQLite): ``/boards/{board}`` is the board's page with
its own script and CSS and no inline script, ``/boards/{board}/view`` the
scoreboard fragment, neither cached; bad board ids are 422s, never 5xx. The
page's behaviour in a browser is tests/leaderboard/test_board_page_browser.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import STATIC_DIR, create_app
from tests.leaderboard.web_seed import VENUES

STATE = {
    "game": "x01",
    "phase": "throwing",
    "players": [{"name": "Ann", "score": 281}, {"name": "Bob", "score": 301}],
    "current_player": 0,
    "visit": ["S20"],
    "finished": False,
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    hub = LiveHub()
    hub.board_availability("pub", "The Crown", "online")
    hub.board_state("pub", "The Crown", STATE)
    with TestClient(create_app(database, hub, VENUES)) as client:
        yield client
    database.dispose()


def test_the_page_has_the_live_board_and_only_its_own_files(client: TestClient) -> None:
    page = client.get("/boards/pub")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    html = page.text
    assert "Board pub" in html and "Ann" in html and "281" in html
    assert 'data-board="pub"' in html
    assert 'src="/static/board.js"' in html and 'href="/static/board.css"' in html
    assert re.search(r"<script(?![^>]*\bsrc=)", html) is None, "an inline script"
    assert " style=" not in html, "an inline style (the CSP refuses it)"
    assert 'data-bed="T19"' in html and 'data-command="next"' in html
    for asset in ("board.js", "board.css"):
        assert client.get(f"/static/{asset}").status_code == 200


def test_the_view_is_the_scoreboard_fragment(client: TestClient) -> None:
    view = client.get("/boards/pub/view")
    assert view.status_code == 200
    assert view.headers["cache-control"] == "no-store"
    assert "<html" not in view.text and "<script" not in view.text
    assert 'data-dart="1"' in view.text and "Ann" in view.text


def test_an_unknown_board_waits_and_a_bad_id_is_a_422(client: TestClient) -> None:
    unknown = client.get("/boards/cellar")
    assert unknown.status_code == 404
    assert "has not heard from board cellar yet" in unknown.text
    assert client.get("/boards/cellar/view").status_code == 404
    assert client.get("/boards/a%00b").status_code == 422
    assert client.get("/boards/" + "x" * 65).status_code == 422


def test_the_page_s_own_files_stay_small() -> None:
    own = sum((STATIC_DIR / name).stat().st_size for name in ("board.js", "board.css"))
    assert own < 40 * 1024, f"board.js and board.css weigh {own} bytes"
