"""The web app's defences (issue #21), through FastAPI's TestClient on real
databases: the admin views need the configured password (and are refused
without one), every answer carries the security headers, no page loads
anything from another site, and bad parameters (a 64-bit offset, a NUL byte in
a name) get a 422 in FastAPI's documented shape before any database call, on
SQLite and PostgreSQL alike."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import jsonschema
import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.admin import LOCKOUT_SECONDS, MAX_FAILURES, AdminGuard
from leaderboard.web.app import create_app
from tests.leaderboard.web_seed import (
    ADMIN_PASSWORD,
    ADMIN_PASSWORD_HASH,
    TRICKY_NAME,
    VENUES,
    Seeded,
    seed,
)

ADMIN_PATHS = ("/api/rejected", "/admin/rejected")


@pytest.fixture
def seeded(database: Database) -> Seeded:
    return seed(database, games=2)


@pytest.fixture
def client(database: Database, seeded: Seeded) -> Iterator[TestClient]:
    app = create_app(database, LiveHub(), VENUES, admin_password_hash=ADMIN_PASSWORD_HASH)
    with TestClient(app) as client:
        yield client


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


# --- item 16: the admin views ------------------------------------------------


def test_without_a_configured_password_the_admin_views_are_refused(
    database: Database, seeded: Seeded
) -> None:
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        for path in ADMIN_PATHS:
            for headers in ({}, basic("admin", ADMIN_PASSWORD), basic("admin", "")):
                response = client.get(path, headers=headers)
                assert response.status_code == 403, path
                detail = response.json()["detail"]
                assert "admin_password_hash" in detail
                assert "oche leaderboard admin-password" in detail
                assert "this is not JSON" not in response.text


def test_the_admin_views_ask_for_the_password_and_take_only_the_right_one(
    client: TestClient, seeded: Seeded
) -> None:
    for path in ADMIN_PATHS:
        asked = client.get(path)
        assert asked.status_code == 401, path
        assert asked.headers["www-authenticate"].startswith('Basic realm="Oche leaderboard admin"')
        assert seeded.rejected_reason not in asked.text
        wrong = client.get(path, headers=basic("admin", ADMIN_PASSWORD + "x"))
        assert wrong.status_code == 401 and "wrong admin password" in wrong.json()["detail"]
        no_colon = "Basic " + base64.b64encode(b"no-colon").decode()
        for header in ("Bearer abc", "Basic !!!", no_colon):
            assert client.get(path, headers={"Authorization": header}).status_code == 401
        # Any user name; the password is checked, sent as UTF-8 as browsers do.
        for user in ("admin", "bar manager", ""):
            granted = client.get(path, headers=basic(user, ADMIN_PASSWORD))
            assert granted.status_code == 200, (path, user)
            assert granted.headers["cache-control"] == "no-store"
    entries = client.get("/api/rejected", headers=basic("a", ADMIN_PASSWORD)).json()
    assert [entry["reason"] for entry in entries] == [seeded.rejected_reason]
    page = client.get("/admin/rejected", headers=basic("a", ADMIN_PASSWORD))
    assert "not JSON" in page.text


def test_wrong_passwords_lock_the_address_out_for_a_while() -> None:
    now = [1000.0]
    guard = AdminGuard(ADMIN_PASSWORD_HASH, clock=lambda: now[0])
    wrong = basic("admin", "guess")["Authorization"]
    right = basic("admin", ADMIN_PASSWORD)["Authorization"]
    for _ in range(MAX_FAILURES):
        with pytest.raises(HTTPException, match="wrong admin password") as refused:
            guard.check("192.0.2.7", wrong)
        assert refused.value.status_code == 401
    with pytest.raises(HTTPException, match="try again in") as locked:
        guard.check("192.0.2.7", right)  # even the right one, while locked
    assert locked.value.status_code == 429
    assert locked.value.headers == {"Retry-After": str(int(LOCKOUT_SECONDS) + 1)}
    guard.check("192.0.2.8", right)  # another address is not locked
    now[0] += LOCKOUT_SECONDS + 1
    guard.check("192.0.2.7", right)


def test_a_bad_admin_password_hash_is_refused_when_the_app_is_built(database: Database) -> None:
    with pytest.raises(ValueError, match="admin_password_hash"):
        create_app(database, LiveHub(), VENUES, admin_password_hash="scrypt$3$8$1$abc$def")


# --- item 17: the security headers, no CDN -----------------------------------

SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def test_every_answer_carries_the_security_headers(client: TestClient, seeded: Seeded) -> None:
    answers = {
        "/": 200,
        "/players/Ann": 200,
        f"/results/{seeded.result_ids['x01']}": 200,
        "/tv/rankings": 200,
        "/static/tv.js": 200,
        "/static/leaderboard.css": 200,
        "/api/leaderboard?game=x01": 200,
        "/api/boards": 200,
        "/openapi.json": 200,
        "/api/leaderboard?game=golf": 422,
        "/api/rejected": 401,
        "/players/Nobody": 404,
        "/no-such-page": 404,
    }
    for path, status in answers.items():
        response = client.get(path)
        assert response.status_code == status, path
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (path, name)
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, path
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, path


def test_no_docs_ui_from_a_cdn_and_the_openapi_document_stays(client: TestClient) -> None:
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404
    assert client.get("/docs/oauth2-redirect").status_code == 404
    assert client.get("/openapi.json").json()["info"]["title"] == "Oche leaderboard"
    for path in ("/", "/players/Ann"):
        page = client.get(path).text
        assert not re.search(r"""(?:src|href)=["'](?:https?:)?//""", page), path


# --- item 18: parameters checked before the database -------------------------


def openapi_error_schema(client: TestClient) -> dict[str, Any]:
    """The app's own HTTPValidationError schema, its references resolvable."""
    document = client.get("/openapi.json").json()
    return {
        "$ref": "#/components/schemas/HTTPValidationError",
        "components": document["components"],
    }


def assert_a_documented_422(client: TestClient, path: str, where: list[str], says: str) -> None:
    response = client.get(path)
    assert response.status_code == 422, (path, response.status_code, response.text)
    body = response.json()
    jsonschema.validate(body, openapi_error_schema(client))
    assert [error["loc"] for error in body["detail"]] == [where], body
    assert says in body["detail"][0]["msg"], body


@pytest.mark.parametrize("offset", [2**31, 2**63, 2**64, 10**30])
def test_an_offset_past_what_the_databases_take_is_a_422(client: TestClient, offset: int) -> None:
    assert_a_documented_422(
        client,
        f"/api/leaderboard?game=x01&offset={offset}",
        ["query", "offset"],
        "less than or equal to 2147483647",
    )


def test_the_largest_offset_is_an_empty_page(client: TestClient) -> None:
    response = client.get(f"/api/leaderboard?game=x01&offset={2**31 - 1}")
    assert response.status_code == 200 and response.json() == []


@pytest.mark.parametrize("character", ["\x00", "\x1b", "\t", "\x7f"])
def test_control_characters_in_names_venues_and_result_ids_are_a_422(
    client: TestClient, character: str
) -> None:
    bad = quote(f"An{character}n")
    for path, where in (
        (f"/api/players/{bad}", ["path", "name"]),
        (f"/api/players/Ann?venue={bad}", ["query", "venue"]),
        (f"/api/results/{bad}", ["path", "result_id"]),
        (f"/api/leaderboard?game=x01&venue={bad}", ["query", "venue"]),
        (f"/api/records?venue={bad}", ["query", "venue"]),
        (f"/api/boards?venue={bad}", ["query", "venue"]),
        (f"/players/{bad}", ["path", "name"]),
        (f"/results/{bad}", ["path", "result_id"]),
        (f"/?venue={bad}", ["query", "venue"]),
    ):
        assert_a_documented_422(client, path, where, "must not contain control characters")


def test_an_unknown_game_is_a_documented_422_naming_the_games(client: TestClient) -> None:
    assert_a_documented_422(
        client, "/api/leaderboard?game=golf", ["query", "game"], "the games are: x01"
    )
    parameters = client.get("/openapi.json").json()["paths"]["/api/leaderboard"]["get"]
    game = next(p for p in parameters["parameters"] if p["name"] == "game")
    assert "x01" in game["schema"]["enum"]


def test_names_with_spaces_markup_and_accents_are_still_found(
    client: TestClient, seeded: Seeded
) -> None:
    assert client.get("/api/players/%20ann%20").status_code == 200
    card = client.get("/api/players/" + quote(TRICKY_NAME))
    assert card.status_code == 200 and card.json()["name"] == TRICKY_NAME
