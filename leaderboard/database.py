"""Where results are stored: the database URL, the SQLAlchemy engine and its
sessions, and the schema migrations. SQLite by default, PostgreSQL through a
``postgresql+psycopg://`` URL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

__all__ = ["Database", "default_url"]


def default_url() -> str:
    """``sqlite:///$XDG_STATE_HOME/oche/leaderboard.sqlite3`` (the folder made on use)."""
    raise NotImplementedError


class Database:
    """One database. The constructor does no I/O; :meth:`migrate` brings the
    schema up to date (Alembic) and is safe to call from several processes."""

    def __init__(self, url: str) -> None:
        self.url = url

    def migrate(self) -> None:
        raise NotImplementedError

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on error."""
        raise NotImplementedError
        yield

    def dispose(self) -> None:
        raise NotImplementedError
