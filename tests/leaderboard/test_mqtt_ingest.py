"""The service's MQTT side against a real Mosquitto and a real database:
results stored exactly once (duplicates, malformed payloads, results sent
while the service was down, two instances sharing the subscription), boards'
state and availability reaching the live hub, retained snapshots."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import event

from leaderboard.database import Database
from leaderboard.mqtt_ingest import result_subscription, session_client_id
from leaderboard.service_settings import DEFAULT_CLIENT_ID
from leaderboard.venues import VenueMap
from mqtt_contract import LEADERBOARD_TOPIC
from tests.leaderboard.mqtt_harness import (
    Ingesting,
    payload,
    publish,
    rejected_ids,
    result_documents,
    running_ingest,
    stored_ids,
    wait_until,
)
from tests.mosquitto_broker import MosquittoBroker


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    """A migrated SQLite file."""
    db = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    db.migrate()
    try:
        yield db
    finally:
        db.dispose()


def result_topic(document: dict[str, object]) -> str:
    return f"oche/{document['board']}/result"


async def test_results_are_stored_once_and_bad_ones_rejected(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    documents = result_documents(8)
    tampered = {**documents[0], "result_id": "tampered-1", "winner": 1 - documents[0]["winner"]}
    messages = [(result_topic(d), payload(d)) for d in documents]
    messages += [(result_topic(d), payload(d)) for d in documents[:3]]  # redeliveries
    messages += [
        ("oche/board-0/result", b"not json at all"),
        ("oche/board-1/result", b'{"result_id": "no-schema"}'),
        ("oche/board-1/result", payload(tampered)),
    ]
    async with running_ingest(mosquitto, database) as running:
        await publish(mosquitto, messages)
        await wait_until(lambda: len(running.outcomes) == len(messages))
        # The hub hands results to its subscribers on the loop's next turns.
        await wait_until(lambda: sum(m.kind == "result" for m in running.live) >= len(documents))

    statuses = Counter(outcome.status for outcome in running.outcomes)
    assert statuses == {"imported": 8, "duplicate": 3, "rejected": 3}
    assert sorted(stored_ids(database)) == sorted(d["result_id"] for d in documents)
    assert sorted(rejected_ids(database), key=str) == sorted(
        [None, "no-schema", "tampered-1"], key=str
    )
    reasons = [o.reason for o in running.outcomes if o.status == "rejected"]
    assert all(reasons) and any("winner" in str(reason) for reason in reasons), reasons
    # Each new result went to the live feed once, as the API's summary.
    live_results = [m.data["result_id"] for m in running.live if m.kind == "result"]
    assert sorted(live_results) == sorted(d["result_id"] for d in documents)


async def test_results_sent_while_the_service_is_down_are_stored_when_it_returns(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    documents = result_documents(6, seed=11)
    async with running_ingest(mosquitto, database, client_id="lb-persistent") as running:
        await publish(mosquitto, [(result_topic(documents[0]), payload(documents[0]))])
        await wait_until(lambda: len(running.outcomes) == 1)
    # The service is away; its session (clean session off) keeps the results.
    await publish(mosquitto, [(result_topic(d), payload(d)) for d in documents[1:]])
    async with running_ingest(mosquitto, database, client_id="lb-persistent") as running:
        await wait_until(lambda: len(running.outcomes) == 5)
    assert sorted(stored_ids(database)) == sorted(d["result_id"] for d in documents)


async def test_a_burst_waiting_for_the_service_is_stored_in_batches(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    """What waits when the service comes back is stored a batch a transaction
    (fewer commits than results), every result once, and a bad payload in the
    middle is rejected alone."""
    documents = result_documents(40, seed=17, boards=4)
    async with running_ingest(mosquitto, database, client_id="lb-burst") as running:
        await publish(mosquitto, [(result_topic(documents[0]), payload(documents[0]))])
        await wait_until(lambda: len(running.outcomes) == 1)
    burst = [(result_topic(d), payload(d)) for d in documents[1:20]]
    burst.append(("oche/board-0/result", b'{"result_id": "bad-in-the-burst"}'))
    burst += [(result_topic(d), payload(d)) for d in documents[20:]]
    await publish(mosquitto, burst)  # while the service is away

    commits = 0

    def committed(_connection: object) -> None:
        nonlocal commits
        commits += 1

    event.listen(database.engine, "commit", committed)
    try:
        async with running_ingest(mosquitto, database, client_id="lb-burst") as running:
            await wait_until(lambda: len(running.outcomes) == len(burst))
    finally:
        event.remove(database.engine, "commit", committed)

    statuses = Counter(outcome.status for outcome in running.outcomes)
    assert statuses == {"imported": 39, "rejected": 1}
    assert sorted(stored_ids(database)) == sorted(d["result_id"] for d in documents)
    assert rejected_ids(database) == ["bad-in-the-burst"]
    # One commit a batch (and one for the rejected payload), not one a result.
    assert 2 <= commits <= len(burst) // 2, commits


async def test_a_result_the_database_refuses_does_not_stall_the_others(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    """A result the database itself refuses (here a trigger; in life a value a
    column cannot take) is not retried as if the database were away: the
    results behind it are stored, and it is kept as rejected with the
    database's reason (and acknowledged: the broker does not bring it back)."""
    documents = result_documents(6, seed=23, boards=2)
    poison = documents[2]["result_id"]
    with database.engine.begin() as connection:
        connection.exec_driver_sql(
            "CREATE TRIGGER refuse_one BEFORE INSERT ON results "
            f"WHEN NEW.result_id = '{poison}' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    async with running_ingest(mosquitto, database, client_id="lb-refused") as running:
        await publish(mosquitto, [(result_topic(d), payload(d)) for d in documents])
        await wait_until(lambda: len(running.outcomes) == len(documents))
    expected = sorted(d["result_id"] for d in documents if d["result_id"] != poison)
    assert sorted(stored_ids(database)) == expected
    refused = next(o for o in running.outcomes if o.result_id == poison)
    assert refused.status == "rejected"
    assert refused.reason is not None and "database refused" in refused.reason
    assert "refused" in refused.reason.split(":", 1)[1]  # the database's own words
    assert rejected_ids(database) == [poison]
    # Acknowledged: a new session of the same client gets nothing back.
    async with running_ingest(mosquitto, database, client_id="lb-refused") as running:
        marker = result_documents(1, seed=77)[0]
        await publish(mosquitto, [(result_topic(marker), payload(marker))])
        await wait_until(lambda: marker["result_id"] in [o.result_id for o in running.outcomes])
    assert [o.result_id for o in running.outcomes] == [marker["result_id"]]


async def test_a_stored_result_is_acknowledged_and_not_delivered_again(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    """The PUBACK goes out once stored: a reconnect brings nothing back."""
    documents = result_documents(3, seed=5)
    async with running_ingest(mosquitto, database, client_id="lb-acked") as running:
        await publish(mosquitto, [(result_topic(d), payload(d)) for d in documents])
        await wait_until(lambda: len(running.outcomes) == 3)
    async with running_ingest(mosquitto, database, client_id="lb-acked") as running:
        # A marker sent now arrives after anything the broker still held.
        marker = result_documents(1, seed=99)[0]
        await publish(mosquitto, [(result_topic(marker), payload(marker))])
        await wait_until(lambda: marker["result_id"] in [o.result_id for o in running.outcomes])
    assert [o.result_id for o in running.outcomes] == [marker["result_id"]]
    assert [o.status for o in running.outcomes] == ["imported"]


@pytest.mark.slow
async def test_two_instances_sharing_the_subscription_store_each_result_once(
    mosquitto: MosquittoBroker, postgres_url: str
) -> None:
    database = Database(postgres_url)
    database.migrate()
    documents = result_documents(40, seed=3, boards=5)
    messages = [(result_topic(d), payload(d)) for d in documents]
    messages += [(result_topic(d), payload(d)) for d in documents[::4]]  # redelivered
    try:
        async with (
            running_ingest(mosquitto, database, "lb-1", share_group="lb") as first,
            running_ingest(mosquitto, database, "lb-2", share_group="lb") as second,
        ):
            await publish(mosquitto, messages)
            await wait_until(lambda: len(first.outcomes) + len(second.outcomes) == len(messages))
        ids = stored_ids(database)
    finally:
        database.dispose()
    assert sorted(ids) == sorted(d["result_id"] for d in documents)
    # The broker split the results between the two.
    assert first.outcomes and second.outcomes
    imported = [o for o in first.outcomes + second.outcomes if o.status == "imported"]
    assert len(imported) == len(documents)


async def test_boards_state_and_availability_reach_the_live_hub(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    state = {"game": None, "phase": "idle", "board": {"id": "pub-1"}}
    await publish(
        mosquitto,
        [
            ("oche/pub-1/state", json.dumps(state).encode()),
            ("oche/pub-1/availability", b"online"),
            ("oche/home-1/availability", b"offline"),
        ],
        retain=True,
    )
    venues = VenueMap(boards={"pub-1": "The Crown"})
    try:
        async with running_ingest(mosquitto, database, venues=venues) as running:
            hub = running.hub
            await wait_until(lambda: {b.board for b in hub.boards()} == {"pub-1", "home-1"})
            await wait_until(lambda: hub.boards()[1].state is not None)
            pub, home = hub.boards()[1], hub.boards()[0]
            assert (pub.venue, pub.availability, pub.state) == ("The Crown", "online", state)
            assert (home.venue, home.availability, home.state) == ("home", "offline", None)

            # Garbage is ignored, the feed goes on; a cleared state is None.
            # (The live feed is drained by a task of its own: wait for the
            # three retained messages there before counting what follows.)
            await wait_until(lambda: len(running.live) >= 3)
            seen = len(running.live)
            await publish(
                mosquitto,
                [
                    ("oche/pub-1/state", b"{not json"),
                    ("oche/pub-1/availability", b"maybe"),
                    ("oche/pub-1/state", b""),
                    ("oche/pub-1/availability", b"offline"),
                ],
                retain=True,
            )
            await wait_until(lambda: hub.boards()[1].availability == "offline")
            assert hub.boards()[1].state is None
            await wait_until(lambda: len(running.live) >= seen + 2)
            assert [m.kind for m in running.live[seen:]] == ["state", "availability"]
    finally:
        await publish(
            mosquitto,
            [
                (f"oche/{b}/{t}", b"")
                for b in ("pub-1", "home-1")
                for t in ("state", "availability")
            ],
            retain=True,
        )


async def test_snapshots_are_published_retained_after_new_results(
    mosquitto: MosquittoBroker, database: Database
) -> None:
    documents = result_documents(6, seed=21)
    x01 = [d for d in documents if d["game"] == "x01"]
    players = {
        game: {p["name"] for d in documents if d["game"] == game for p in d["players"]}
        for game in ("x01", "cricket")
    }

    def shown(running: Ingesting, game: str) -> set[str]:
        """the players of the latest snapshot of ``game`` on the live feed"""
        latest = [m.data for m in running.live if m.kind == "leaderboard"]
        latest = [data for data in latest if data.get("game") == game][-1:]
        return {row["player"] for data in latest for row in data["top"]}

    async with running_ingest(mosquitto, database, snapshots=True) as running:
        await publish(mosquitto, [(result_topic(d), payload(d)) for d in documents])
        await wait_until(lambda: len(running.outcomes) == len(documents))
        # Coalesced: a later snapshot (within about a second) has every result.
        await wait_until(lambda: all(shown(running, g) == players[g] for g in players))

    # A scoreboard that subscribes later gets every game's snapshot, retained.
    snapshots: dict[str, dict[str, object]] = {}
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe("oche/leaderboard/+", qos=1)
        async with asyncio.timeout(10):
            async for message in client.messages:
                assert message.retain
                document = json.loads(bytes(message.payload))  # type: ignore[arg-type]
                snapshots[str(message.topic).rsplit("/", 1)[1]] = document
                if set(snapshots) >= {"x01", "cricket"}:
                    break
    validator = Draft202012Validator(LEADERBOARD_TOPIC.schema)
    for game, snapshot in snapshots.items():
        assert list(validator.iter_errors(snapshot)) == [], game
        assert snapshot["game"] == game
    top = snapshots["x01"]["top"]
    assert isinstance(top, list)
    assert {row["player"] for row in top} == players["x01"]
    assert [row["rank"] for row in top] == list(range(1, len(top) + 1))
    today = time.time() // 86400 * 86400  # the default venue's day is UTC's
    if all(d["finished_at"] >= today for d in x01):
        assert snapshots["x01"]["period"] == "day"


def test_subscription_and_session_id_follow_the_share_group() -> None:
    assert result_subscription("oche", None) == "oche/+/result"
    assert result_subscription("home/darts", "league") == "$share/league/home/darts/+/result"
    with pytest.raises(ValueError, match="share group"):
        result_subscription("oche", "a/b")
    # One instance: the fixed default id. Several: each its own, kept across
    # restarts, so the broker keeps each one's unacknowledged results for it.
    assert session_client_id(DEFAULT_CLIENT_ID, None) == DEFAULT_CLIENT_ID
    assert session_client_id(DEFAULT_CLIENT_ID, "league") == (
        f"{DEFAULT_CLIENT_ID}-{socket.gethostname()}"
    )
    assert session_client_id("lb-2", "league") == "lb-2"
