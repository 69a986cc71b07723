"""``oche leaderboard serve``: the MQTT ingest, the live feed, the retained
snapshots and the HTTP app, on one event loop until cancelled. Once its port
is bound it logs where it serves (``serving http://127.0.0.1:8080/``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
import time
from collections.abc import Generator
from dataclasses import dataclass, field

import uvicorn
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.mqtt_ingest import DEFAULT_CLIENT_ID, MqttIngest
from leaderboard.snapshots import SnapshotPublisher
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app

__all__ = ["ServiceSettings", "http_url", "run_service"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    db_url: str
    mqtt_url: str
    base: str = "oche"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    venues: VenueMap = field(default_factory=VenueMap)
    share_group: str | None = None
    """Set: subscribe as ``$share/{group}/{base}/+/result`` (several instances)."""
    client_id: str = DEFAULT_CLIENT_ID
    """The persistent session's id (clean start off): results wait at the broker.
    With ``share_group``, each instance needs its own: the default becomes
    ``oche-leaderboard-{hostname}`` (:func:`leaderboard.mqtt_ingest.session_client_id`)."""
    mqtt_username: str | None = None
    """Set: the broker account, in place of any user name (and password) in ``mqtt_url``."""
    mqtt_password: str | None = None
    mqtt_ca_file: str | None = None
    """The CA to verify a TLS broker (``mqtts://``, ``wss://``) with; ``None``: the system's."""


async def run_service(settings: ServiceSettings) -> None:
    """Run until cancelled; a lost broker or database is retried, not fatal.
    A bad broker URL, base or share group is a ``ValueError`` saying which;
    then the HTTP port is bound (an ``OSError`` names it when taken) and the
    schema migrated (retried while the database is away)."""
    database = Database(settings.db_url)
    hub = LiveHub()
    snapshots = SnapshotPublisher(database, settings.base)
    mqtt = MqttIngest(settings, database, hub, snapshots)  # a bad URL or base: ValueError
    app = create_app(database, hub, settings.venues)
    listener = _listen(settings.http_host, settings.http_port)
    try:
        log.info("serving %s (database %s)", http_url(settings), _shown(settings.db_url))
        await _migrate(database)
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
                tasks.create_task(_fail_when_done(http))
        finally:
            # Cancelled (or the MQTT side failed): let uvicorn close its
            # connections, then stop waiting.
            server.should_exit = True
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(http, SHUTDOWN_TIMEOUT)
    finally:
        listener.close()
        await asyncio.to_thread(database.dispose)


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
    failures = 0
    down_since: float | None = None
    while True:
        try:
            await asyncio.to_thread(database.migrate)
        except (SQLAlchemyError, OSError) as exc:
            if down_since is None:
                down_since = time.monotonic()
                text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
                log.warning("database unavailable (%s); retrying", text)
            await asyncio.sleep(min(5.0, 0.2 * 2.0**failures) * random.uniform(0.75, 1.25))
            failures += 1
            continue
        if down_since is not None:
            log.info("database back after %.1f s", time.monotonic() - down_since)
        return
