"""The service's roster and after-game lines on a real Mosquitto: each board
it knows gets its venue's roster retained (the venue map's boards and a board
it only heard), again after ``oche players`` changed it in another session,
and a board's stored result its ``result/lines``; no card UID on any topic."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from credentials.card_hash import card_hash
from firmware_bridge.cli.main import main
from leaderboard import roster
from leaderboard.board_feeds import BoardFeeds
from leaderboard.database import Database
from leaderboard.venues import VenueMap
from mqtt_contract import TOPICS
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.mqtt_harness import publish, running_ingest, wait_until
from tests.leaderboard.result_documents import result_document
from tests.mosquitto_broker import MosquittoBroker

SECRET = "the-crowns-card-secret"
UID = "04:A2:1B:3F:5C:80"
VENUES = VenueMap(boards={"crown-1": "The Crown", "crown-2": "The Crown"})


@dataclass
class Seen:
    """Every message under ``oche/#`` in arrival order: (topic, payload, retained)."""

    messages: list[tuple[str, bytes, bool]] = field(default_factory=list)

    def last(self, topic: str) -> dict[str, Any] | None:
        for where, payload, _ in reversed(self.messages):
            if where == topic and payload:
                document: dict[str, Any] = json.loads(payload)
                return document
        return None


@contextlib.asynccontextmanager
async def seeing(broker: MosquittoBroker) -> AsyncIterator[Seen]:
    """Record everything on the broker until the block ends."""
    seen = Seen()
    ready = asyncio.Event()

    async def listen() -> None:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("oche/#", qos=1)
            ready.set()
            async for message in client.messages:
                payload = message.payload
                data = payload if isinstance(payload, bytes) else str(payload).encode()
                seen.messages.append((str(message.topic), data, bool(message.retain)))

    task = asyncio.create_task(listen())
    await asyncio.wait_for(ready.wait(), 10)
    try:
        yield seen
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def names(document: dict[str, Any] | None) -> set[str]:
    return {player["name"] for player in (document or {}).get("players", [])}


async def retained(broker: MosquittoBroker, topic: str) -> dict[str, Any]:
    """The message a board subscribing now gets on ``topic``: retained."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(topic, qos=1)
        async with asyncio.timeout(10):
            async for message in client.messages:
                assert message.retain
                document: dict[str, Any] = json.loads(message.payload)  # type: ignore[arg-type]
                return document
    raise AssertionError("no message")


async def test_each_board_gets_its_venues_roster_and_its_results_lines(
    mosquitto: MosquittoBroker,
    database: Database,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OCHE_CARD_SECRET", SECRET)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    ann = roster.add(database, "Ann", "The Crown", VENUES, card_hash(SECRET, UID))
    feeds = BoardFeeds(database, "oche", VENUES, interval=2.0)
    async with (
        seeing(mosquitto) as seen,
        running_ingest(mosquitto, database, venues=VENUES, feeds=feeds),
    ):
        # the venue map's boards get The Crown's roster, Ann's card as its hash
        await wait_until(lambda: names(seen.last("oche/crown-2/roster")) == {"Ann"})
        crown = seen.last("oche/crown-1/roster")
        assert crown is not None and crown["venue"] == "The Crown"
        assert crown["players"] == [
            {
                "id": ann.id,
                "name": "Ann",
                "cards": [card_hash(SECRET, UID)],
                "average": None,
                "mpr": None,
                "regular": False,
            }
        ]
        Draft202012Validator(TOPICS["roster"].schema).validate(crown)
        # a board the service only hears gets its venue's (the default, home)
        await publish(mosquitto, [("oche/pub-7/availability", b"online")])
        await wait_until(lambda: seen.last("oche/pub-7/roster") is not None)
        home = seen.last("oche/pub-7/roster")
        assert home is not None and (home["venue"], home["players"]) == ("home", [])
        # oche players, in another session of the database: the boards hear it
        changed_at = time.monotonic()
        assert main(["players", "add", "Bob", "--venue", "The Crown", "--db", database.url]) == 0
        await wait_until(lambda: names(seen.last("oche/crown-1/roster")) == {"Ann", "Bob"})
        assert time.monotonic() - changed_at < 10  # the check runs every 2 s here
        assert names(seen.last("oche/pub-7/roster")) == set()  # home's did not change
        # Ann, joined by her card, wins a game on crown-1 under another name
        document = result_document(
            "x01",
            X01_MOVES,
            players=["Annie", "Cy"],
            options={"start": 301},
            board="crown-1",
            finished_at=time.time() - 5,
        )
        document["players"][0]["player_id"] = ann.id
        await publish(mosquitto, [("oche/crown-1/result", as_payload(document))])
        await wait_until(lambda: seen.last("oche/crown-1/result/lines") is not None)
        lines = seen.last("oche/crown-1/result/lines")
        assert lines is not None and lines["result_id"] == document["result_id"]
        Draft202012Validator(TOPICS["result/lines"].schema).validate(lines)
        first, second = lines["players"]
        assert (first["player_id"], first["average"]) == (ann.id, 150.5)
        assert second["name"] == "Cy" and second["player_id"] is not None
        # the roster follows: Ann's average, Cy (new by name), both regulars now
        await wait_until(lambda: names(seen.last("oche/crown-1/roster")) == {"Ann", "Bob", "Cy"})
        latest = seen.last("oche/crown-1/roster")
        assert latest is not None
        by_name = {p["name"]: p for p in latest["players"]}
        assert (by_name["Ann"]["average"], by_name["Ann"]["regular"]) == (150.5, True)
        assert not by_name["Bob"]["regular"]

    # a board connecting later finds both retained
    assert names(await retained(mosquitto, "oche/crown-2/roster")) == {"Ann", "Bob", "Cy"}
    lines = await retained(mosquitto, "oche/crown-1/result/lines")
    assert lines["result_id"] == document["result_id"]
    # the UID is on no topic and in no log line
    uid_forms = [UID, UID.replace(":", ""), UID.replace(":", "").lower()]
    for topic, payload, _ in seen.messages:
        for uid in uid_forms:
            assert uid.encode() not in payload, topic
    for uid in uid_forms:
        assert uid not in caplog.text


async def test_the_rosters_are_sent_again_on_every_connection(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    roster.add(database, "Ann", "The Crown", VENUES)
    async with seeing(mosquitto) as seen:

        def sent() -> int:
            """how many rosters crown-1 was sent"""
            return len([m for m in seen.messages if m[0] == "oche/crown-1/roster"])

        for _ in range(2):
            before = sent()
            feeds = BoardFeeds(database, "oche", VENUES)
            async with running_ingest(mosquitto, database, venues=VENUES, feeds=feeds):
                await wait_until(lambda before=before: sent() > before)  # type: ignore[misc]
