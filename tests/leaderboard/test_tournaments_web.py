"""The tournaments' API and pages through FastAPI's TestClient (the real ASGI
app) over a real SQLite file: the list and one tournament as ``oche
tournament show --json`` gives it, the operator's create and walkover behind
the admin password (refused without it, and a bad one changes nothing), the
tournament page, the operator's pages, and the TV's bracket slide, each
escaping the players' names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.store import ingest
from leaderboard.web.app import create_app
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.web_seed import ADMIN_PASSWORD, ADMIN_PASSWORD_HASH, TRICKY_NAME, VENUES

NEW: dict[str, Any] = {
    "title": "Friday Cup",
    "format": "single-elimination",
    "game": "x01",
    "options": {"start": "301"},
    "legs": 2,
    "boards": ["oche/pub"],
    "players": ["Ann", "Bob", TRICKY_NAME],
}


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    yield database
    database.dispose()


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    app = create_app(database, LiveHub(), VENUES, admin_password_hash=ADMIN_PASSWORD_HASH)
    with TestClient(app) as client:
        yield client


def _created(client: TestClient, body: dict[str, Any] = NEW) -> int:
    answer = client.post("/api/tournaments", json=body, auth=("admin", ADMIN_PASSWORD))
    assert answer.status_code == 200, answer.text
    made: int = answer.json()["id"]
    assert answer.headers["Location"] == f"/api/tournaments/{made}"
    return made


def test_the_operator_creates_a_tournament_and_everyone_reads_it(client: TestClient) -> None:
    made = _created(client)
    listed = client.get("/api/tournaments").json()
    assert [(t["id"], t["title"], t["status"], t["players"]) for t in listed] == [
        (made, "Friday Cup", "running", 3)
    ]
    view = client.get(f"/api/tournaments/{made}").json()
    assert view["options"] == {"start": 301}
    assert view["match_format"] == {"legs": 2, "starts": "alternate"}
    assert [(m["id"], m["players"], m["status"]) for m in view["matches"]] == [
        ("R1-2", ["Bob", TRICKY_NAME], "queued"),
        ("R2-1", ["Ann", None], "waiting"),
    ]
    assert client.get("/api/tournaments", params={"running": "true"}).json() == listed


def test_the_changes_need_the_admin_password_and_bad_ones_change_nothing(
    client: TestClient,
) -> None:
    assert client.post("/api/tournaments", json=NEW).status_code == 401
    assert client.post("/api/tournaments", json=NEW, auth=("admin", "wrong")).status_code == 401
    refused = client.post(
        "/api/tournaments", json={**NEW, "players": ["Ann", "ann"]}, auth=("admin", ADMIN_PASSWORD)
    )
    assert refused.status_code == 400
    assert refused.json() == {"detail": "a player is named twice: Ann, ann"}
    unknown = client.post(
        "/api/tournaments", json={**NEW, "format": "swiss"}, auth=("admin", ADMIN_PASSWORD)
    )
    assert unknown.status_code == 422
    assert client.get("/api/tournaments").json() == []
    made = _created(client)
    walk = f"/api/tournaments/{made}/matches/R1-2/walkover"
    assert client.post(walk, json={"winner": "Bob"}).status_code == 401
    refused = client.post(walk, json={"winner": "Ann"}, auth=("admin", ADMIN_PASSWORD))
    assert refused.status_code == 400
    assert "'Ann' is not in match R1-2" in refused.json()["detail"]
    missing = client.post(
        f"/api/tournaments/{made + 1}/matches/R1-2/walkover",
        json={"winner": "Bob"},
        auth=("admin", ADMIN_PASSWORD),
    )
    assert missing.status_code == 404
    assert client.get(f"/api/tournaments/{made + 1}").status_code == 404
    assert client.get("/tournaments/99").status_code == 404


def test_a_walkover_through_the_api_and_a_result_finish_the_tournament(
    client: TestClient, database: Database
) -> None:
    made = _created(client)
    answer = client.post(
        f"/api/tournaments/{made}/matches/r1-2/walkover",
        json={"winner": TRICKY_NAME},
        auth=("admin", ADMIN_PASSWORD),
    )
    assert answer.status_code == 200, answer.text
    final = answer.json()["matches"][1]
    assert (final["players"], final["status"]) == (["Ann", TRICKY_NAME], "queued")
    document = result_document("x01", X01_MOVES, players=final["players"], options={"start": 301})
    document["call_id"] = final["call_id"]
    document["legs_won"] = [2, 0]
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    view = client.get(f"/api/tournaments/{made}").json()
    assert (view["status"], view["champion"]) == ("finished", "Ann")
    assert view["standings"][0] == {
        "place": 1, "player": "Ann", "seed": 1, "played": 1, "won": 1,
        "legs_won": 2, "legs_lost": 0, "points": 2, "out": False,
    }  # fmt: skip


def test_the_pages_render_the_bracket_and_escape_names(client: TestClient) -> None:
    made = _created(client)
    page = client.get(f"/tournaments/{made}")
    assert page.status_code == 200
    assert "<b>Zoë</b>" not in page.text and "&lt;b&gt;Zoë&lt;/b&gt;" in page.text
    assert 'data-match="R1-2"' in page.text and "Semi-final" in page.text
    assert '<meta http-equiv="refresh"' in page.text  # running: it reloads itself
    assert "walkover-button" not in page.text
    assert f'href="/tournaments/{made}"' in client.get("/tournaments").text
    # the operator's pages: behind the password, with the form and the walkover buttons
    assert client.get("/admin/tournaments").status_code == 401
    form = client.get("/admin/tournaments", auth=("admin", ADMIN_PASSWORD))
    assert form.status_code == 200 and 'id="tournament-form"' in form.text
    assert f'href="/admin/tournaments/{made}"' in form.text
    admin = client.get(f"/admin/tournaments/{made}", auth=("admin", ADMIN_PASSWORD))
    assert admin.text.count('class="walkover-button"') == 2  # the semi-final's two players
    assert admin.headers["Cache-Control"] == "no-store"


def test_the_tv_shows_a_running_tournament_s_bracket(client: TestClient) -> None:
    made = _created(client)
    tv = client.get("/", params={"rotate": "0"})
    assert f'data-slide="tournament-{made}"' in tv.text
    assert "Friday Cup" in tv.text and "&lt;b&gt;Zoë&lt;/b&gt;" in tv.text
    rankings = client.get("/tv/rankings")
    assert f'data-slide="tournament-{made}"' in rankings.text
