"""What the leaderboard's MQTT tests share: sample result documents, a
publisher, the MQTT side run in this loop, and waiting for a condition."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import aiomqtt

from leaderboard.board_feeds import BoardFeeds
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub, LiveMessage
from leaderboard.mqtt_ingest import MqttIngest
from leaderboard.sample_results import SAMPLE_GAMES, SimulatedPlayer, sample_result
from leaderboard.service import ServiceSettings
from leaderboard.snapshots import SnapshotPublisher
from leaderboard.store import IngestOutcome
from leaderboard.venues import VenueMap
from tests.mosquitto_broker import MosquittoBroker

__all__ = [
    "Ingesting",
    "eventually",
    "publish",
    "rejected_ids",
    "result_documents",
    "running_ingest",
    "stored_ids",
    "wait_until",
]

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")


def result_documents(
    count: int, seed: int = 7, boards: int = 3, finished_at: float | None = None
) -> list[dict[str, Any]]:
    """``count`` engine-played X01 and Cricket results from ``boards`` boards,
    finished a minute apart up to ``finished_at`` (default: now)."""
    rng = random.Random(seed)
    end = time.time() if finished_at is None else finished_at
    documents = []
    for index in range(count):
        names = rng.sample(NAMES, 2)
        players = [SimulatedPlayer(name, rng.uniform(0.15, 0.4), rng) for name in names]
        game = SAMPLE_GAMES[index % len(SAMPLE_GAMES)]
        at = end - 60.0 * (count - index)
        documents.append(sample_result(rng, f"board-{index % boards}", players, game, at))
    return documents


def payload(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode()


async def publish(
    broker: MosquittoBroker, messages: Iterable[tuple[str, bytes]], retain: bool = False
) -> None:
    """Publish each ``(topic, payload)`` at QoS 1, waiting for every PUBACK."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        for topic, data in messages:
            await client.publish(topic, data, qos=1, retain=retain)


async def wait_until(condition: Callable[[], bool], timeout: float = 15.0) -> None:
    """Return once ``condition()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {condition.__doc__ or condition}")
        await asyncio.sleep(0.02)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 15.0) -> None:
    """Return once ``await check()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {check.__doc__ or check}")
        await asyncio.sleep(0.05)


@dataclass
class Ingesting:
    """A running :class:`MqttIngest` and what it did."""

    ingest: MqttIngest
    hub: LiveHub
    outcomes: list[IngestOutcome] = field(default_factory=list)
    live: list[LiveMessage] = field(default_factory=list)


@contextlib.asynccontextmanager
async def running_ingest(
    broker: MosquittoBroker,
    database: Database,
    client_id: str = "oche-leaderboard-test",
    share_group: str | None = None,
    venues: VenueMap | None = None,
    snapshots: bool = False,
    base: str = "oche",
    feeds: BoardFeeds | None = None,
) -> AsyncIterator[Ingesting]:
    """The MQTT side in this loop, connected and subscribed, until the block ends."""
    settings = ServiceSettings(
        db_url=database.url,
        mqtt_url=broker.url,
        base=base,
        client_id=client_id,
        share_group=share_group,
        venues=venues or VenueMap(),
    )
    hub = LiveHub()
    publisher = SnapshotPublisher(database, settings.base) if snapshots else None
    outcomes: list[IngestOutcome] = []
    ingest = MqttIngest(settings, database, hub, publisher, outcomes.append, feeds=feeds)
    running = Ingesting(ingest, hub, outcomes)

    async def listen() -> None:
        async for message in hub.subscribe():
            running.live.append(message)

    listener = asyncio.create_task(listen())
    task = asyncio.create_task(running.ingest.run())
    try:
        await wait_until(lambda: running.ingest.connected or task.done(), 10)
        if task.done():
            task.result()
        yield running
    finally:
        task.cancel()
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(asyncio.CancelledError):
            await listener


def stored_ids(database: Database) -> list[str]:
    """The result ids stored (not rejected), one per row: a doubled result
    would show twice."""
    from sqlalchemy import select

    from leaderboard.models import Result

    with database.session() as session:
        return list(session.scalars(select(Result.result_id)))


def rejected_ids(database: Database) -> list[str | None]:
    """The result ids of the rejected payloads (None: no readable id), one per row."""
    from sqlalchemy import select

    from leaderboard.models import Rejected

    with database.session() as session:
        return list(session.scalars(select(Rejected.result_id)))
