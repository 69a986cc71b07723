"""The times of a result, at the leaderboard: a board whose clock was not
synchronised (``clock_synced: false``) has its game dated by the result's
arrival, never refused for its times; and a time stored before the contract
bounded them (``finished_at`` 1e308) never makes a page or the API fail."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.models import Player, Rating, Result, ResultPlayer
from leaderboard.store import ingest
from leaderboard.web.app import create_app
from mqtt_contract import LATEST_TIMESTAMP
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.web_seed import VENUES, seed, seed_history

DAY = 86_400.0


def unsynced(finished_at: float, started_at: float, result_id: str) -> dict[str, object]:
    """Ann beats Bob, as a board whose clock was not set sends it."""
    document = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
    document.update(
        result_id=result_id,
        game_key=result_id,
        started_at=started_at,
        finished_at=finished_at,
        clock_synced=False,
    )
    return document


def test_a_game_from_a_board_whose_clock_was_not_set_is_dated_by_its_arrival(
    database: Database,
) -> None:
    """A Raspberry Pi before NTP answered: 1970-01-02, a 5-minute game. The
    leaderboard files it at its arrival, 5 minutes long, in today's table,
    not first in the ratings' order."""
    arrived = time.time()
    earlier = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
    earlier.update(finished_at=arrived - 3600, started_at=arrived - 3900)
    assert ingest(database, as_payload(earlier), VENUES, arrived - 3600).status == "imported"
    document = unsynced(DAY + 300, DAY, "pi-1970")
    assert ingest(database, as_payload(document), VENUES, arrived).status == "imported"
    with database.session() as session:
        stored = session.execute(
            select(Result.started_at, Result.finished_at).where(Result.result_id == "pi-1970")
        ).one()
        assert tuple(stored) == (arrived - 300, arrived)
        lines = session.scalars(
            select(ResultPlayer.finished_at).join(Result).where(Result.result_id == "pi-1970")
        ).all()
        assert lines == [arrived, arrived]
        order = session.scalars(select(Rating.result_pk).order_by(Rating.at, Rating.id)).all()
        pi = session.scalar(select(Result.id).where(Result.result_id == "pi-1970"))
        assert order[-1] == pi  # rated after the game an hour earlier, not first
        rows = queries.leaderboard(session, "x01", "day", now=arrived)
        assert {row.player: row.played for row in rows} == {"Ann": 2, "Bob": 2}


def test_times_out_of_bounds_from_a_board_whose_clock_was_not_set_are_no_rejection(
    database: Database,
) -> None:
    """The bound (2100) judges dates; a board that says its clock was not set
    sent no dates, so its game is dated by its arrival whatever it says."""
    arrived = time.time()
    document = unsynced(LATEST_TIMESTAMP * 2, LATEST_TIMESTAMP * 2 - 60, "far-future")
    assert ingest(database, as_payload(document), VENUES, arrived).status == "imported"
    for key, huge in [("finished_at", 2.8e11), ("finished_at", 1e308), ("started_at", 1e308)]:
        synced = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
        synced.update({key: huge, "result_id": f"{key}-{huge}"})  # a board that says it is right
        outcome = ingest(database, as_payload(synced), VENUES, arrived)
        assert outcome.status == "rejected", (key, huge)
        assert key in (outcome.reason or ""), outcome.reason


@pytest.fixture
def spoiled(tmp_path: Path) -> Iterator[tuple[Database, str]]:
    """A leaderboard with history (charts) and one result stored before the
    contract bounded times: Ann beat Bob at 1e308 (set in every table that
    keeps the time, as an older ingest would have stored it)."""
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    now = time.time()
    seed_history(database, now)
    seed(database, now)
    document = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
    document.update(result_id="huge", finished_at=now - 10)
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    with database.write_session() as session:
        pk = session.scalar(select(Result.id).where(Result.result_id == "huge"))
        session.execute(update(Result).where(Result.id == pk).values(finished_at=1e308))
        session.execute(
            update(ResultPlayer).where(ResultPlayer.result_pk == pk).values(finished_at=1e308)
        )
        session.execute(update(Rating).where(Rating.result_pk == pk).values(at=1e308))
        session.execute(update(Player).values(name_at=1e308))
    yield database, "huge"
    database.dispose()


@pytest.mark.parametrize(
    "path",
    [
        "/players/Ann",  # the winner
        "/players/Bob",  # the opponent
        "/results/huge",
        "/api/players/Ann",
        "/api/players/Bob",
        "/api/results/huge",
        "/api/leaderboard?game=x01&period=all",
        "/api/leaderboard?game=x01&period=day",
        "/api/records?game=x01",
        "/",
        "/tv/rankings",
    ],
)
def test_a_time_stored_before_the_bound_never_fails_a_page(
    spoiled: tuple[Database, str], path: str
) -> None:
    database, _ = spoiled
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        response = client.get(quote(path, safe="/?=&"))
    assert response.status_code == 200, response.text[:500]


def test_the_result_page_says_its_date_is_unknown(spoiled: tuple[Database, str]) -> None:
    database, result_id = spoiled
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        page = client.get(f"/results/{result_id}").text
        card = client.get("/players/Ann").text
    assert "date unknown" in page
    assert "date unknown" in card  # the card's list of games; its chart leaves it out
