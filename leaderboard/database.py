"""Where results are stored: the database URL, the SQLAlchemy engine and its
sessions, and the schema migrations. SQLite by default, PostgreSQL through a
``postgresql+psycopg://`` URL."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

__all__ = ["Database", "DatabaseUrlError", "default_url", "head_revision", "upsert"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for another process's write to finish."""

MIGRATION_LOCK_KEY = 0x0C4E_1EAD
"""PostgreSQL advisory lock held while migrating, so two services starting at
once do not both create the tables."""

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_WRITE = "oche_write"


class DatabaseUrlError(ValueError):
    """A ``--db`` / ``[leaderboard] db`` URL Oche cannot use; the message says why."""


def _state_home() -> Path:
    value = os.environ.get("XDG_STATE_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "state"


def default_url() -> str:
    """``sqlite:///$XDG_STATE_HOME/oche/leaderboard.sqlite3`` (the folder made on use)."""
    return f"sqlite:///{_state_home() / 'oche' / 'leaderboard.sqlite3'}"


def upsert(session: Session, model: type[Any]) -> Any:
    """An ``INSERT`` for ``model`` with ``ON CONFLICT`` support, in the session's dialect."""
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(model)


def _parse(url: str) -> URL:
    """The URL as SQLAlchemy reads it, checked: SQLite or PostgreSQL (psycopg 3)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUrlError(
            f"{url!r} is not a database URL; use sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST/DB"
        ) from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        return parsed
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    raise DatabaseUrlError(
        f"{parsed.drivername!r} databases are not supported; use sqlite:///PATH or "
        "postgresql+psycopg://USER@HOST/DB"
    )


def head_revision() -> str:
    """The newest migration's revision: what :meth:`Database.migrate` brings a database to."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _sqlite_connect(dbapi_connection: Any, _record: object) -> None:
    # Autocommit at the driver: the "begin" hook below emits BEGIN itself, so
    # a writer can take the lock first (BEGIN IMMEDIATE) and never deadlock.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    write = connection.get_execution_options().get(_WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Database:
    """One database. The constructor does no I/O; :meth:`migrate` brings the
    schema up to date (Alembic) and is safe to call from several processes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._url = _parse(url)
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._url.get_backend_name()

    @property
    def sqlite_file(self) -> Path | None:
        """The file a SQLite URL names (``None``: PostgreSQL, or in memory)."""
        path = self._url.database
        if self.dialect != "sqlite" or not path or path == ":memory:" or path.startswith("file:"):
            return None
        return Path(path).expanduser()

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, made on first use (a SQLite file's folder too)."""
        with self._lock:
            if self._engine is None:
                self._engine = self._create_engine()
            return self._engine

    def _create_engine(self) -> Engine:
        if self.dialect == "sqlite":
            if self.sqlite_file is not None:
                self.sqlite_file.parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(
                self._url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
            )
            event.listen(engine, "connect", _sqlite_connect)
            event.listen(engine, "begin", _sqlite_begin)
            return engine
        return create_engine(self._url, pool_pre_ping=True, pool_size=5, max_overflow=5)

    def migrate(self, revision: str = "head") -> None:
        """Create or upgrade the schema to the newest migration (or to
        ``revision``; Alembic, run in code: no alembic.ini). Two processes may
        call it at once."""
        alembic_log = logging.getLogger("alembic")
        if alembic_log.level == logging.NOTSET:  # its INFO lines say nothing to a user
            alembic_log.setLevel(logging.WARNING)
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(_MIGRATIONS))
        engine = self.engine.execution_options(**{_WRITE: True})
        with engine.begin() as connection:
            if self.dialect == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on error."""
        with self._sessions(write=False)() as session, session.begin():
            yield session

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session for changes: on SQLite it takes the write lock at its start
        (``BEGIN IMMEDIATE``), so two writers queue instead of deadlocking."""
        with self._sessions(write=True)() as session, session.begin():
            yield session

    def _sessions(self, write: bool) -> sessionmaker[Session]:
        bind = self.engine.execution_options(**{_WRITE: True}) if write else self.engine
        return sessionmaker(bind=bind, expire_on_commit=False)

    def dispose(self) -> None:
        """Close every pooled connection (the engine is made again on next use)."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None
