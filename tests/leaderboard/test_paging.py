"""A league's table a page at a time: ``GET /api/leaderboard`` and
``oche leaderboard show`` take ``limit`` (default 100) and ``offset``; the
ranks are the whole table's, and the two give the same rows. A real SQLite
file, seeded through ``ingest_many``; the real ASGI app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from firmware_bridge.cli.main import main
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.store import ingest_many
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document

PLAYERS = 130
"""More than a default page (100) of players."""


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    """A SQLite file holding PLAYERS X01 players (one result a pair)."""
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    payloads = []
    for pair in range(PLAYERS // 2):
        document = result_document(
            "x01",
            X01_MOVES,
            players=[f"Player {2 * pair:03d}", f"Player {2 * pair + 1:03d}"],
            options={"start": 301},
        )
        document["result_id"] = f"paging-{pair:03d}"
        payloads.append(as_payload(document))
    outcomes = ingest_many(database, payloads, VenueMap())
    assert {outcome.status for outcome in outcomes} == {"imported"}
    yield database
    database.dispose()


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database, LiveHub(), VenueMap())) as client:
        yield client


def table(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/api/leaderboard", params={"game": "x01", **params})
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()
    return rows


def test_the_table_comes_a_page_of_100_rows_at_a_time(client: TestClient) -> None:
    first = table(client)
    assert [row["rank"] for row in first] == list(range(1, 101))
    rest = table(client, offset=100)
    assert [row["rank"] for row in rest] == list(range(101, PLAYERS + 1))
    whole = table(client, limit=5000)
    assert len(whole) == PLAYERS
    assert first + rest == whole
    assert len({row["player"] for row in whole}) == PLAYERS


def test_pages_of_any_size_are_consecutive_slices_of_the_table(client: TestClient) -> None:
    whole = table(client, limit=5000)
    pages = [table(client, limit=7, offset=offset) for offset in range(0, PLAYERS, 7)]
    assert [len(page) for page in pages[:-1]] == [7] * (len(pages) - 1)
    assert [row for page in pages for row in page] == whole
    assert table(client, offset=PLAYERS) == []


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 5001}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"offset": -1}, "offset"),
    ],
)
def test_a_bad_limit_or_offset_is_a_422_naming_it(
    client: TestClient, params: dict[str, Any], named: str
) -> None:
    response = client.get("/api/leaderboard", params={"game": "x01", **params})
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [["query", named]]


def test_show_pages_the_same_rows_as_the_api(
    database: Database,
    client: TestClient,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = ["--db", database.url]

    def show(*args: str) -> tuple[int, str, str]:
        status = main(["leaderboard", "show", "--game", "x01", "--json", *db, *args])
        out, err = capsys.readouterr()
        return status, out, err

    first_page, last_rows = table(client), table(client, limit=20, offset=110)
    status, out, err = show()
    assert (status, err) == (0, "")
    assert json.loads(out) == first_page
    status, out, err = show("--limit", "20", "--offset", "110")
    assert (status, err) == (0, "")
    rows = json.loads(out)
    assert [row["rank"] for row in rows] == list(range(111, PLAYERS + 1))
    assert rows == last_rows

    for args, named in [
        (["--limit", "0"], "--limit"),
        (["--limit", "5001"], "--limit"),
        (["--offset", "-3"], "--offset"),
    ]:
        try:
            status, out, err = show(*args)
        except SystemExit as exited:  # refused by argparse
            status, (out, err) = exited.code, capsys.readouterr()
        assert (status, out) == (2, ""), args
        assert named in err and len(err.strip().splitlines()[-1]) < 200, (args, err)
