"""``oche leaderboard serve``: the MQTT ingest, the live feed, the retained
snapshots, the caller of tournaments' and leagues' matches
(:mod:`leaderboard.match_caller`) and the HTTP app, on one event loop until
cancelled. Once its port
is bound it logs where it serves (``serving http://127.0.0.1:8080/``)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import socket
import time
from collections.abc import Callable, Generator
from typing import Any

import anyio.lowlevel
import uvicorn
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from leaderboard import roster
from leaderboard.board_feeds import BoardFeeds
from leaderboard.command_relay import CommandRelay
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.log_throttle import ThrottledLog
from leaderboard.match_caller import MatchCaller
from leaderboard.mqtt_ingest import MqttIngest
from leaderboard.pairings import BoardPairings
from leaderboard.service_settings import (
    DB_BACKOFF_CAP,
    DB_BACKOFF_JITTER,
    DB_BACKOFF_START,
    ServiceSettings,
)
from leaderboard.snapshots import SnapshotPublisher
from leaderboard.web.app import create_app
from mqtt_client.backoff import Backoff

__all__ = ["ServiceSettings", "http_url", "raise_open_file_limit", "run_service"]

log = logging.getLogger(__name__)


async def run_service(settings: ServiceSettings) -> None:
    """Run until cancelled; a lost broker or database is retried, not fatal.
    A bad broker URL, base or share group is a ``ValueError`` saying which;
    then the HTTP port is bound (an ``OSError`` names it when taken) and the
    schema migrated (retried while the database is away). A bad admin
    password hash or stream limit is a ``ValueError`` too."""
    database = Database(settings.db_url)
    hub = LiveHub()
    snapshots = SnapshotPublisher(database, settings.base)
    feeds = BoardFeeds(database, settings.base, settings.venues)
    # a bad URL or base: ValueError
    pairings = BoardPairings(database)
    mqtt = MqttIngest(settings, database, hub, snapshots, feeds=feeds, pairings=pairings)
    relay = CommandRelay(settings)
    caller = MatchCaller(database, hub, relay, settings.base)
    app = create_app(
        database,
        hub,
        settings.venues,
        admin_password_hash=settings.admin_password_hash,
        max_live_streams=settings.max_live_streams,
        max_live_streams_per_client=settings.max_live_streams_per_client,
        relay=relay,
        card_linker=lambda player, card: _link_card(database, player, card),
        pairings=pairings,
    )
    raise_open_file_limit()
    loop = asyncio.get_running_loop()
    previous_handler = _quiet_accept_errors(loop)
    try:
        listener = _listen(settings.http_host, settings.http_port)
    except BaseException:
        loop.set_exception_handler(previous_handler)
        raise
    try:
        log.info("serving %s (database %s)", http_url(settings), _shown(settings.db_url))
        await _migrate(database)
        # Starlette's streams load anyio's asyncio backend on first use: load it
        # now, so a first stream met with no file descriptor left can still answer.
        await anyio.lowlevel.checkpoint()
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_graceful_shutdown=1,  # open SSE streams never end by themselves
        )
        server = _Server(config)
        http = asyncio.create_task(server.serve(sockets=[listener]))
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(mqtt.run())
                tasks.create_task(relay.run())
                tasks.create_task(caller.run())
                tasks.create_task(_fail_when_done(http))
        finally:
            # Cancelled (or the MQTT side failed): let uvicorn close its
            # connections, then stop waiting.
            server.should_exit = True
            await caller.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(http, SHUTDOWN_TIMEOUT)
    finally:
        listener.close()
        await asyncio.to_thread(database.dispose)
        loop.set_exception_handler(previous_handler)


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (systemd
    gives services 1,024 soft and far more hard): each HTTP client, live
    stream and database connection is a file descriptor. The soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


_ExceptionHandler = Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object]


def _link_card(database: Database, player: int, card: str) -> None:
    """A card a board linked from a phone's join: the player's now (blocking)."""
    roster.add_card(database, player, card)


def _quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> _ExceptionHandler | None:
    """When the process runs out of file descriptors, asyncio logs a traceback
    for every refused accept, hundreds a second (CPython retries the accept
    in a loop): log one line a minute with a count instead. Every other error
    goes to the handler that was there, which is returned (to put back)."""
    previous = loop.get_exception_handler()
    out_of_files = ThrottledLog(log)

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in _OUT_OF_RESOURCES:
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            out_of_files.warn(
                f"cannot accept an HTTP connection: {error.strerror} (the limit is {soft} "
                "open files: raise LimitNOFILE, or lower [leaderboard] max_live_streams)"
            )
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    return previous


def http_url(settings: ServiceSettings) -> str:
    """Where the service's pages are: ``http://HOST:PORT/`` (an IPv6 host in brackets)."""
    host = settings.http_host
    return f"http://{f'[{host}]' if ':' in host else host}:{settings.http_port}/"


def _shown(db_url: str) -> str:
    """A database URL as a log may show it: with its password hidden."""
    try:
        return make_url(db_url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a URL)"


SHUTDOWN_TIMEOUT = 5.0
"""How long a cancelled service waits for uvicorn to close its connections."""


async def _fail_when_done(http: asyncio.Task[None]) -> None:
    """The HTTP server never stops by itself: if it does, the service fails."""
    await asyncio.shield(http)
    raise RuntimeError("the HTTP server stopped")


class _Server(uvicorn.Server):
    """uvicorn's server, leaving signals to the caller: cancelling
    :func:`run_service` stops it (uvicorn would take SIGINT and SIGTERM)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def _listen(host: str, port: int) -> socket.socket:
    """The HTTP socket, bound and listening; an ``OSError`` names ``host:port``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        listener = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(128)
        listener.setblocking(False)
    except OSError as exc:
        listener.close()
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return listener


async def _migrate(database: Database) -> None:
    """``database.migrate()`` in a thread, retried with backoff while it is away."""
    backoff = Backoff(DB_BACKOFF_START, DB_BACKOFF_CAP, DB_BACKOFF_JITTER)
    down_since: float | None = None
    while True:
        try:
            await asyncio.to_thread(database.migrate)
        except (SQLAlchemyError, OSError) as exc:
            if down_since is None:
                down_since = time.monotonic()
                text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
                log.warning("database unavailable (%s); retrying", text)
            await asyncio.sleep(backoff.next_delay())
            continue
        if down_since is not None:
            log.info("database back after %.1f s", time.monotonic() - down_since)
        return
