"""Faults during ingest, with the service as a real process: ``kill -9`` it
20 times while results stream in, and restart PostgreSQL under it. Every
result must be stored exactly once: none lost, none doubled (count and a
checksum of the result ids)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from leaderboard.database import Database
from tests.leaderboard.mqtt_harness import (
    eventually,
    payload,
    publish,
    result_documents,
    stored_ids,
)
from tests.leaderboard.private_postgres import PrivatePostgres, postgres_binaries
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO

pytestmark = pytest.mark.slow

SERVE = """
import asyncio, logging, sys
from leaderboard.service import ServiceSettings, run_service
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
db_url, mqtt_url, port = sys.argv[1:4]
asyncio.run(run_service(ServiceSettings(
    db_url=db_url, mqtt_url=mqtt_url, http_port=int(port), client_id="lb-faults")))
"""


class ServiceProcess:
    """``run_service`` in a child process (what ``oche leaderboard serve`` runs)."""

    def __init__(self, db_url: str, mqtt_url: str, log: Path) -> None:
        self.args = [sys.executable, "-c", SERVE, db_url, mqtt_url, str(free_port())]
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
            )

    def kill(self) -> None:
        """``kill -9``: no clean-up, no goodbye to the broker."""
        assert self.process is not None and self.process.poll() is None, self.log.read_text()
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    async def connected(self) -> None:
        """Wait for its first connection to the broker: from then on its
        persistent session keeps the results it has not acknowledged."""

        async def said_so() -> bool:
            """the service connected to the broker"""
            return "MQTT: connected to" in self.log.read_text("utf-8", "replace")

        await eventually(said_so, timeout=60)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def checksum(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


@contextlib.asynccontextmanager
async def streaming(
    broker: MosquittoBroker, documents: list[dict[str, Any]], per_second: float
) -> AsyncIterator[asyncio.Task[None]]:
    """Publish ``documents`` (every fifth twice, as a daemon may) at about
    ``per_second``, each acknowledged by the broker, in a task."""
    rng = random.Random(5)

    async def run() -> None:
        for index, document in enumerate(documents):
            copies = 2 if index % 5 == 0 else 1
            message = (f"oche/{document['board']}/result", payload(document))
            await publish(broker, [message] * copies)
            await asyncio.sleep(rng.expovariate(per_second))

    task = asyncio.create_task(run())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def count_stored(database: Database) -> int:
    return len(await asyncio.to_thread(stored_ids, database))


async def test_kill_9_during_ingest_loses_and_doubles_nothing(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    documents = result_documents(240, seed=13, boards=8)
    service = ServiceProcess(database.url, mosquitto.url, tmp_path / "service.log")
    rng = random.Random(9)
    kills = 0
    try:
        service.start()
        await service.connected()
        async with streaming(mosquitto, documents, per_second=8) as stream:
            while kills < 20:
                # Kill it while it ingests: once it stored something new.
                before = await count_stored(database)

                async def grew(before: int = before) -> bool:
                    """the service stored another result"""
                    return await count_stored(database) > before or stream.done()

                await eventually(grew, timeout=60)
                await asyncio.sleep(rng.uniform(0.0, 0.3))
                service.kill()
                kills += 1
                service.start()
            await stream
        expected = sorted(d["result_id"] for d in documents)

        async def all_in() -> bool:
            """every result is stored"""
            return await count_stored(database) >= len(expected)

        await eventually(all_in, timeout=120)
        ids = await asyncio.to_thread(stored_ids, database)
    finally:
        service.stop()
        database.dispose()
    assert kills == 20
    assert len(ids) == len(expected)  # none doubled
    assert sorted(ids) == expected  # none lost
    assert checksum(ids) == checksum(expected)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    if postgres_binaries() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL's initdb and pg_ctl are missing under CI")
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)")
    cluster = PrivatePostgres()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.remove()


async def test_postgresql_restarts_during_ingest_and_the_service_catches_up(
    tmp_path: Path, mosquitto: MosquittoBroker, private_postgres: PrivatePostgres
) -> None:
    database = Database(private_postgres.url)
    database.migrate()
    documents = result_documents(90, seed=17, boards=4)
    log = tmp_path / "service.log"
    service = ServiceProcess(database.url, mosquitto.url, log)
    try:
        service.start()
        await service.connected()
        async with streaming(mosquitto, documents, per_second=15) as stream:
            for outage in (0.0, 2.0):  # a plain restart, then one that lasts
                before = await count_stored(database)

                async def grew(before: int = before) -> bool:
                    """the service stored more results"""
                    return await count_stored(database) >= before + 10

                await eventually(grew, timeout=60)
                database.dispose()  # the test's own connections die with it
                if outage:
                    await asyncio.to_thread(private_postgres.stop)
                    await asyncio.sleep(outage)
                    await asyncio.to_thread(private_postgres.start)
                else:
                    await asyncio.to_thread(private_postgres.restart)
            await stream
        expected = sorted(d["result_id"] for d in documents)

        async def all_in() -> bool:
            """every result is stored"""
            return await count_stored(database) >= len(expected)

        await eventually(all_in, timeout=90)
        ids = await asyncio.to_thread(stored_ids, database)
    finally:
        service.stop()
        database.dispose()
    assert len(ids) == len(expected)
    assert sorted(ids) == expected
    text = log.read_text("utf-8", "replace")
    assert "database unavailable" in text, text[-3000:]
    assert "database back after" in text
