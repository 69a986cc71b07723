"""A throw-away PostgreSQL database for tests, on the machine's server.

The server is the one on 127.0.0.1:5432 (user ``postgres``, trust auth; ``make
postgres`` starts one). Each test gets a database of its own, ``oche_test_``
and a random suffix, dropped afterwards (``WITH (FORCE)``: even if a
connection was left open). Without a server the tests skip with the reason,
except under ``CI=true``, where they fail: CI must run them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

__all__ = ["POSTGRES_ADMIN_URL", "postgres_database", "postgres_url", "sqlite_or_postgres_url"]

POSTGRES_HOST = os.environ.get("OCHE_TEST_PGHOST", "127.0.0.1")
POSTGRES_PORT = int(os.environ.get("OCHE_TEST_PGPORT", "5432"))
POSTGRES_ADMIN_URL = f"postgresql://postgres@{POSTGRES_HOST}:{POSTGRES_PORT}/postgres"
"""Where the test databases are created and dropped (libpq form, for psycopg)."""


def _unavailable(reason: str) -> None:
    message = f"PostgreSQL is not reachable on {POSTGRES_HOST}:{POSTGRES_PORT} ({reason}); "
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + "CI must run the PostgreSQL tests: make postgres", pytrace=False)
    pytest.skip(message + "run `make postgres` to start one")


@contextmanager
def postgres_database() -> Iterator[str]:
    """Create ``oche_test_<random>``, yield its SQLAlchemy URL
    (``postgresql+psycopg://...``), drop it afterwards."""
    import psycopg

    name = f"oche_test_{secrets.token_hex(6)}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        _unavailable(str(error).strip().splitlines()[0] if str(error).strip() else "no answer")
        raise AssertionError("unreachable") from error  # pytest.skip/fail raised already
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgresql+psycopg://postgres@{POSTGRES_HOST}:{POSTGRES_PORT}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database's URL for one test."""
    with postgres_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def sqlite_or_postgres_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """Run the test twice: on a SQLite file in ``tmp_path``, and on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/leaderboard.sqlite3"
        return
    with postgres_database() as url:
        yield url
