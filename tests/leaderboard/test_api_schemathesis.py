"""Schemathesis against the app's own ``/openapi.json`` over a seeded SQLite
file: whatever parameters the schema allows (and some it does not), no
endpoint answers 5xx. ``/api/live`` is left out: its stream never ends.

The schema is loaded when the module is imported (schemathesis's lazy
``from_fixture`` does not work with pytest 9), so the app is built then, over
a database that the module's fixture migrates and seeds before any case runs
(building the app does no I/O)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.web_seed import VENUES, seed

FOLDER = Path(tempfile.mkdtemp(prefix="oche-schemathesis-"))
DATABASE = Database(f"sqlite:///{FOLDER / 'leaderboard.sqlite3'}")
schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(DATABASE, LiveHub(), VENUES)
).exclude(path="/api/live")


@pytest.fixture(scope="module", autouse=True)
def seeded_database() -> Iterator[None]:
    DATABASE.migrate()
    seed(DATABASE, games=4)
    yield
    DATABASE.dispose()
    shutil.rmtree(FOLDER, ignore_errors=True)


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_no_input_makes_the_api_fail(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
