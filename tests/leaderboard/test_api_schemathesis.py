"""Schemathesis against the app's own ``/openapi.json``, over a seeded SQLite
file and a seeded PostgreSQL database: whatever parameters the schema allows
(and some it does not), no endpoint answers 5xx, every answer (a 422 too)
matches its documented schema, and every request the schema allows is
taken. ``/api/live`` is left out: its stream never ends. The board API
(``/api/boards/{board}/...``, ``/api/games``) is in: with no board heard and
no token, a board's stream and pairing are 404s and every control a 401,
whatever the body (tests/leaderboard/test_board_api.py drives them paired).

The schema is loaded when the module is imported (schemathesis's lazy
``from_fixture`` does not work with pytest 9), so the app is built then; the
module's fixture migrates and seeds each database and points the app at it
(``app.state.database``, read per request; building the app does no I/O)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.web_seed import ADMIN_PASSWORD_HASH, VENUES, seed
from tests.postgres_database import postgres_database

FOLDER = Path(tempfile.mkdtemp(prefix="oche-schemathesis-"))
APP = create_app(
    Database(f"sqlite:///{FOLDER / 'unused.sqlite3'}"),
    LiveHub(),
    VENUES,
    admin_password_hash=ADMIN_PASSWORD_HASH,
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path="/api/live")


@contextmanager
def sqlite_url() -> Iterator[str]:
    """The SQLite file's URL; its folder removed afterwards."""
    try:
        yield f"sqlite:///{FOLDER / 'leaderboard.sqlite3'}"
    finally:
        shutil.rmtree(FOLDER, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True, params=["sqlite", "postgresql"])
def seeded_database(request: pytest.FixtureRequest) -> Iterator[None]:
    with postgres_database() if request.param == "postgresql" else sqlite_url() as url:
        database = Database(url)
        database.migrate()
        seed(database, games=4)
        APP.state.database = database
        try:
            yield
        finally:
            database.dispose()


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_no_input_makes_the_api_fail_or_answer_off_schema(case: schemathesis.Case) -> None:
    case.call_and_validate()
