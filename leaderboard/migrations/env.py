"""Alembic's environment for the leaderboard: it migrates the connection that
``Database.migrate`` hands over in ``config.attributes`` (no alembic.ini, no
URL of its own), so the caller's lock covers the whole upgrade."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from leaderboard.models import Base

__all__: list[str] = []


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


_connection = context.config.attributes.get("connection")
if _connection is None:
    raise RuntimeError("run the leaderboard's migrations through Database.migrate()")
_run(_connection)
