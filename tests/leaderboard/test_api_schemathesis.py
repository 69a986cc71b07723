"""Schemathesis against the app's own ``/openapi.json`` over a seeded SQLite
file: whatever parameters the schema allows (and some it does not), no
endpoint answers 5xx. ``/api/live`` is left out: its stream never ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.web_seed import VENUES, seed


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    path = tmp_path_factory.mktemp("schemathesis") / "leaderboard.sqlite3"
    database = Database(f"sqlite:///{path}")
    database.migrate()
    seed(database, games=4)
    app = create_app(database, LiveHub(), VENUES)
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    database.dispose()


schema = schemathesis.pytest.from_fixture("api_schema").exclude(path="/api/live")


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_no_input_makes_the_api_fail(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
