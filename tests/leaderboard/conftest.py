"""Fixtures of the leaderboard tests: database URLs (a SQLite file, and a real
PostgreSQL database of the test's own) and result documents to ingest."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from leaderboard.database import Database
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = ["X01_MOVES", "as_payload", "database", "postgres_url", "sqlite_or_postgres_url"]

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
