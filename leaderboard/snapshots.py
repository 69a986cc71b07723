"""The retained ``{base}/leaderboard/{game}`` snapshots: a game's top 10 and the
day's records, rebuilt from the database after new results (at most about once
a second per game) and republished on every (re)connection, so a scoreboard
between games shows them without asking the HTTP API. A game left without a
ranked result (its only game withdrawn) has its snapshot cleared (an empty
retained message). :func:`republish_snapshots` publishes every game's at once
from a command (``oche leaderboard forget``: no snapshot keeps the name)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from engine import game_ids
from leaderboard import queries
from leaderboard.database import Database
from leaderboard.service_settings import ServiceSettings
from mqtt_client.client import load_tls, new_client
from mqtt_contract import LEADERBOARD_TOP, leaderboard_topic, parse_broker_url

__all__ = [
    "SLOW_BUILD_FACTOR",
    "SNAPSHOT_INTERVAL",
    "Publish",
    "SnapshotPublisher",
    "build_snapshot",
    "publish_every_snapshot",
    "republish_snapshots",
    "snapshot_payload",
]

log = logging.getLogger(__name__)

SNAPSHOT_INTERVAL = 1.0
"""The shortest time between two snapshots of one game, in seconds."""

SLOW_BUILD_FACTOR = 10.0
"""A game's next snapshot waits at least this many times as long as its last
took to build and publish (when that is longer than the interval)."""

Publish = Callable[[str, bytes], Awaitable[bool]]
"""Publish ``payload`` retained at QoS 1 on ``topic``; True once the broker has it."""


def build_snapshot(
    database: Database, game: str, now: float | None = None
) -> dict[str, Any] | None:
    """``game``'s snapshot (the leaderboard topic's payload): the day's table, or
    the all-time table when nobody played it today, and the day's records;
    ``None`` when the game has no ranked result at all. Blocking (database)."""
    at = time.time() if now is None else now
    with database.session() as session:
        period = "day"
        rows = queries.leaderboard(session, game, "day", now=at, limit=LEADERBOARD_TOP)
        if not rows:
            period = "all"
            rows = queries.leaderboard(session, game, "all", now=at, limit=LEADERBOARD_TOP)
        if not rows:
            return None
        day_records = queries.records(session, "day", now=at)
    return {
        "game": game,
        "updated_at": at,
        "period": period,
        "top": [row.model_dump(mode="json") for row in rows],
        "records": day_records.model_dump(mode="json"),
    }


class SnapshotPublisher:
    """Coalesces "this game has new results" into at most one snapshot per game
    every ``interval`` seconds (longer when building one is slow), built in a
    worker thread and handed to the ``publish`` given to :meth:`run`. A
    snapshot that cannot be built (database away) or published (broker away)
    stays due and is tried again."""

    def __init__(self, database: Database, base: str, interval: float = SNAPSHOT_INTERVAL) -> None:
        self._database = database
        self._base = base
        self._interval = interval
        self._dirty: set[str] = set()
        self._changed: set[str] = set()
        """Games whose results changed: cleared when nothing of them is ranked any more."""
        self._last: dict[str, float] = {}
        self._wake = asyncio.Event()

    def mark(self, game: str) -> None:
        """``game`` has a new result (or lost one): publish its snapshot soon."""
        self._dirty.add(game)
        self._changed.add(game)
        self._wake.set()

    def mark_all(self) -> None:
        """Publish every game's snapshot again (after a (re)connection)."""
        for game in game_ids():
            self._dirty.add(game)
        self._wake.set()

    async def run(self, publish: Publish) -> None:
        """Publish due snapshots until cancelled."""
        while True:
            timeout = self._next_due()
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            self._wake.clear()
            now = time.monotonic()
            due = sorted(g for g in self._dirty if self._last.get(g, -1e18) + self._interval <= now)
            for game in due:
                self._dirty.discard(game)
                started = time.monotonic()
                if not await self._publish_one(game, publish):
                    self._dirty.add(game)  # try again after the interval
                # A slow build (a busy day's table) waits longer, so snapshots
                # never take more than a tenth of the time: ingest comes first.
                spent = time.monotonic() - started
                self._last[game] = started + max(0.0, SLOW_BUILD_FACTOR * spent - self._interval)

    def _next_due(self) -> float | None:
        """Seconds until the earliest dirty game may be published; None: none dirty."""
        if not self._dirty:
            return None
        now = time.monotonic()
        earliest = min(self._last.get(g, -1e18) + self._interval for g in self._dirty)
        return max(0.0, earliest - now)

    async def _publish_one(self, game: str, publish: Publish) -> bool:
        changed = game in self._changed
        self._changed.discard(game)  # a change from now on is published next time
        try:
            snapshot = await asyncio.to_thread(build_snapshot, self._database, game)
        except (SQLAlchemyError, OSError) as exc:
            log.warning("leaderboard snapshot of %s not built: %s", game, _first_line(exc))
            if changed:
                self._changed.add(game)
            return False
        except Exception:
            # A bug, not an outage: say so once and wait for the next result.
            log.exception("leaderboard snapshot of %s failed", game)
            return True
        if snapshot is None and not changed:
            return True  # nothing ranked yet: nothing to show
        published = await publish(leaderboard_topic(self._base, game), snapshot_payload(snapshot))
        if not published and changed:
            self._changed.add(game)
        return published


def snapshot_payload(snapshot: dict[str, Any] | None) -> bytes:
    """A snapshot as published: compact JSON; empty (clearing the retained
    one) for a game with nothing ranked."""
    if snapshot is None:
        return b""
    return json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False).encode()


async def publish_every_snapshot(database: Database, base: str, publish: Publish) -> bool:
    """Build every game's snapshot now and publish it, an empty retained
    message (clearing an old one) for a game with nothing ranked: after a
    change to what was counted already. True when each one was published."""
    at = time.time()
    published = True
    for game in game_ids():
        snapshot = await asyncio.to_thread(build_snapshot, database, game, at)
        published = await publish(leaderboard_topic(base, game), snapshot_payload(snapshot)) and (
            published
        )
    return published


async def republish_snapshots(
    database: Database, settings: ServiceSettings, timeout: float = 15.0
) -> None:
    """Connect to the service's broker (``settings``: its URL, account and CA)
    in a session of this process's own, :func:`publish_every_snapshot`, and
    disconnect. An ``aiomqtt.MqttError`` (or ``TimeoutError``) says why not."""
    address = parse_broker_url(settings.mqtt_url)
    client = new_client(
        address,
        tls=await load_tls(address, settings.mqtt_ca_file),
        username=settings.mqtt_username,
        password=settings.mqtt_password,
        identifier=f"{settings.client_id}-snapshots-{os.getpid()}",
        timeout=timeout,
    )

    async def publish(topic: str, payload: bytes) -> bool:
        await client.publish(topic, payload, qos=1, retain=True)
        return True

    async with asyncio.timeout(timeout * 4), client:
        await publish_every_snapshot(database, settings.base, publish)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
