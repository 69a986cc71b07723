"""Fixtures of the leaderboard tests: database URLs (a SQLite file, and a real
PostgreSQL database of the test's own), result documents to ingest, and the
phone-join tests' roster and running service (over their module's ``db_url``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from leaderboard.database import Database
from leaderboard.phone_roster import venue_players
from leaderboard.service import ServiceSettings
from tests.leaderboard.app_server import ServiceThread
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = [
    "X01_MOVES",
    "as_payload",
    "database",
    "postgres_url",
    "roster",
    "service",
    "sqlite_or_postgres_url",
]

X01_MOVES = ["T20 T20 T20", "S20 S20 S20", "T20 T7 D20"]
"""301 between two: the first player throws a 180, the second 60, then the
first checks out 121 (T20 T7 D20): a 6-dart leg, average 150.5."""


def as_payload(document: dict[str, Any]) -> bytes:
    """A document as the daemon sends it: compact JSON, UTF-8."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.fixture
def database(sqlite_or_postgres_url: str) -> Iterator[Database]:
    """A migrated database, once on SQLite and once on PostgreSQL (a module
    may define its own ``database`` to use one only)."""
    db = Database(sqlite_or_postgres_url)
    db.migrate()
    yield db
    db.dispose()


@pytest.fixture
def roster(db_url: str) -> dict[int, str]:
    """The phone-join tests' venue players, id -> name (their module's ``db_url``)."""
    database = Database(db_url)
    try:
        return {choice.id: choice.name for choice in venue_players(database, "The Crown")}
    finally:
        database.dispose()


@pytest.fixture
def service(
    db_url: str, mosquitto: MosquittoBroker, request: pytest.FixtureRequest
) -> Iterator[ServiceThread]:
    """The whole service over the phone-join tests' ``db_url``, on the test broker."""
    from tests.leaderboard.web_seed import VENUES  # it imports this module's X01_MOVES

    settings = ServiceSettings(
        db_url=db_url,
        mqtt_url=mosquitto.url,
        http_port=free_port(),
        venues=VENUES,
        client_id=f"lb-{request.module.__name__.rpartition('.')[2]}",
    )
    running = ServiceThread(settings)
    running.start()
    yield running
    running.stop()
