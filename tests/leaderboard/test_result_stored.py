"""What the service tells the boards: a ``result/stored`` for every result it
received, once it is committed (redeliveries too, each with what became of
it), and its own availability, retained: ``online`` while it serves,
``offline`` when it stops and, as its last will, when it is killed."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from leaderboard.database import Database
from leaderboard.mqtt_ingest import stored_message
from leaderboard.store import IngestOutcome
from mqtt_contract import TOPICS, leaderboard_availability_topic
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.mqtt_harness import publish, running_ingest, wait_until
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.test_faults import ServiceProcess
from tests.mosquitto_broker import MosquittoBroker

STORED_SCHEMA = TOPICS["result/stored"].schema


@contextlib.asynccontextmanager
async def listening(broker: MosquittoBroker, *filters: str) -> AsyncIterator[list[Any]]:
    """Every ``(topic, payload, retain)`` on ``filters`` while the block runs."""
    heard: list[Any] = []
    ready = asyncio.Event()

    async def listen() -> None:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            for topic_filter in filters:
                await client.subscribe(topic_filter, qos=1)
            ready.set()
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                heard.append((str(message.topic), message.payload.decode(), message.retain))

    task = asyncio.create_task(listen())
    try:
        await asyncio.wait_for(ready.wait(), 10)
        yield heard
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def stored_on(heard: list[Any], board: str) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p, _ in heard if t == f"oche/{board}/result/stored"]


async def test_every_result_received_is_confirmed_to_its_board_with_what_became_of_it(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    good = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
    forged = {**good, "result_id": "forged", "winner": 1}  # the log says Ann won
    async with (
        listening(mosquitto, "oche/+/result/stored") as heard,
        running_ingest(mosquitto, database) as ingesting,
    ):
        messages = [
            ("oche/pub/result", as_payload(good)),
            ("oche/pub/result", as_payload(good)),  # delivered again
            ("oche/other/result", as_payload(forged)),
        ]
        await publish(mosquitto, messages)
        await wait_until(lambda: len(heard) >= 3)
        assert len(ingesting.outcomes) == 3
    pub = stored_on(heard, "pub")
    assert [(m["result_id"], m["status"]) for m in pub] == [
        (good["result_id"], "stored"),
        (good["result_id"], "duplicate"),
    ]
    assert [(m["result_id"], m["status"]) for m in stored_on(heard, "other")] == [
        ("forged", "rejected")
    ]
    validator = Draft202012Validator(STORED_SCHEMA)
    for message in pub:
        assert not list(validator.iter_errors(message)), message


def test_each_outcome_has_its_word_in_the_contract() -> None:
    def status(outcome: IngestOutcome) -> str | None:
        message = stored_message(outcome, 1.0)
        return None if message is None else json.loads(message)["status"]

    assert status(IngestOutcome("imported", "a")) == "stored"
    assert status(IngestOutcome("duplicate", "a")) == "duplicate"
    assert status(IngestOutcome("rejected", "a", "bad")) == "rejected"
    later: Any = "superseded"  # a later revision of the game was there first
    assert status(IngestOutcome(later, "a")) == "superseded"
    withdrawal: Any = "withdrawn"  # a withdrawal, stored: its game is taken out
    assert status(IngestOutcome(withdrawal, "a")) == "stored"
    failed: Any = "failed"  # kept whole, not counted (for now): the board lets it go
    assert status(IngestOutcome(failed, "a")) == "rejected"
    assert stored_message(IngestOutcome("rejected", None, "not JSON"), 1.0) is None


async def test_the_service_is_online_while_it_serves_and_offline_when_it_stops(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    topic = leaderboard_availability_topic("oche", "oche-leaderboard-test")
    async with listening(mosquitto, "oche/leaderboard/availability/+") as heard:
        async with running_ingest(mosquitto, database):
            await wait_until(lambda: (topic, "online", False) in heard)
        await wait_until(lambda: (topic, "offline", False) in heard)
    async with listening(mosquitto, "oche/leaderboard/availability/+") as late:
        await wait_until(lambda: late == [(topic, "offline", True)])  # retained


@pytest.mark.slow
async def test_a_killed_service_is_offline_by_its_last_will(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    service = ServiceProcess(database.url, mosquitto.url, tmp_path / "service.log")
    topic = leaderboard_availability_topic("oche", "lb-faults")
    try:
        async with listening(mosquitto, "oche/leaderboard/availability/+") as heard:
            service.start()
            await wait_until(lambda: (topic, "online", False) in heard, timeout=60)
            service.kill()
            await wait_until(lambda: (topic, "offline", False) in heard, timeout=30)
    finally:
        service.stop()
        database.dispose()
