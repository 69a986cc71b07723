"""``run_service``: the ingest, the live feed, the snapshots and the HTTP app
on one loop, against a real Mosquitto, a real SQLite file and real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from leaderboard.service import ServiceSettings, run_service
from tests.leaderboard.mqtt_harness import eventually, payload, publish, result_documents
from tests.mosquitto_broker import MosquittoBroker, free_port


@contextlib.asynccontextmanager
async def service(settings: ServiceSettings) -> AsyncIterator[asyncio.Task[None]]:
    """``run_service(settings)`` as a task, once HTTP answers; cancelled after."""
    task = asyncio.create_task(run_service(settings))
    url = f"http://{settings.http_host}:{settings.http_port}/openapi.json"
    async with httpx.AsyncClient() as http:

        async def answers() -> bool:
            with contextlib.suppress(httpx.HTTPError):
                return (await http.get(url)).status_code == 200
            return False

        for _ in range(500):
            if task.done() or await answers():
                break
            await asyncio.sleep(0.02)
    if task.done():
        task.result()
    try:
        yield task
    finally:
        await stop(task)


STOP_TIMEOUT = 20.0
"""Far more than a cancelled service needs: a regression fails, it does not hang."""


async def stop(task: asyncio.Task[None]) -> None:
    """Cancel the service as Ctrl-C does and wait, boundedly, for it to end."""
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=STOP_TIMEOUT)
    assert done, f"the service did not end within {STOP_TIMEOUT} s of being cancelled"
    with contextlib.suppress(asyncio.CancelledError):
        task.result()


def settings_for(tmp_path: Path, broker: MosquittoBroker) -> ServiceSettings:
    return ServiceSettings(
        db_url=f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}",
        mqtt_url=broker.url,
        http_port=free_port(),
        client_id="lb-service-test",
    )


async def test_a_published_result_shows_in_the_api(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    settings = settings_for(tmp_path, mosquitto)
    document = next(d for d in result_documents(4, seed=2) if d["game"] == "x01")
    names = {p["name"] for p in document["players"]}
    base = f"http://127.0.0.1:{settings.http_port}"
    async with service(settings), httpx.AsyncClient(base_url=base) as http:
        await publish(mosquitto, [(f"oche/{document['board']}/result", payload(document))])

        async def both_ranked() -> bool:
            """both players are in the all-time X01 table"""
            query = {"game": "x01", "period": "all"}
            rows = (await http.get("/api/leaderboard", params=query)).json()
            return {row["player"] for row in rows} == names

        await eventually(both_ranked)
        detail = await http.get(f"/api/results/{document['result_id']}")
        assert detail.status_code == 200
        assert detail.json()["winner_name"] == document["winner_name"]


async def test_cancelling_the_service_frees_its_port(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    settings = settings_for(tmp_path, mosquitto)
    async with service(settings) as task:
        assert not task.done()
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((settings.http_host, settings.http_port))  # free again


async def test_a_taken_http_port_is_a_clear_error(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    settings = settings_for(tmp_path, mosquitto)
    with socket.socket() as taken:
        taken.bind((settings.http_host, settings.http_port))
        taken.listen()
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{settings.http_port}"):
            await run_service(settings)


async def test_the_service_waits_for_a_broker_that_is_not_there_yet(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """HTTP serves at once; results flow once the broker comes up."""
    mosquitto.stop()
    settings = settings_for(tmp_path, mosquitto)
    document = result_documents(1, seed=8)[0]
    base = f"http://127.0.0.1:{settings.http_port}"
    async with service(settings), httpx.AsyncClient(base_url=base) as http:
        mosquitto.start()

        async def stored() -> bool:
            """the result is stored"""
            # Like a daemon's outbox: sent again until it is in (the service's
            # session only exists once it first connected).
            await publish(mosquitto, [(f"oche/{document['board']}/result", payload(document))])
            return (await http.get(f"/api/results/{document['result_id']}")).status_code == 200

        await eventually(stored, timeout=30)


async def test_bad_settings_are_clear_errors_before_anything_starts(tmp_path: Path) -> None:
    database = tmp_path / "leaderboard.sqlite3"
    port = free_port()
    for settings, complaint in (
        (ServiceSettings(f"sqlite:///{database}", "http://broker", http_port=port), "MQTT URL"),
        (ServiceSettings(f"sqlite:///{database}", "mqtt://b", "oche/#", http_port=port), "base"),
        (
            ServiceSettings(f"sqlite:///{database}", "mqtt://b", http_port=port, share_group="a/b"),
            "share group",
        ),
    ):
        with pytest.raises(ValueError, match=complaint):
            await run_service(settings)
    assert not database.exists()  # nothing was opened
