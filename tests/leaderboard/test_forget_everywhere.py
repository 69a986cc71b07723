"""Issue #21 item 10: ``forget`` takes the name out of everything kept, not
only the results that count: rejected and failed payloads, superseded
revisions, and the retained ``{base}/leaderboard/{game}`` snapshots on the
broker (a real Mosquitto; ``oche leaderboard forget`` as a real process)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from sqlalchemy import select

from leaderboard import store
from leaderboard.database import Database
from leaderboard.models import Player, Rejected, Result, Superseded
from leaderboard.players import FORGOTTEN_NAME, forget
from leaderboard.scoring import ScoredResult, score_result
from leaderboard.store import ingest, rescore
from leaderboard.venues import VenueMap
from mqtt_contract import leaderboard_topic
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.mqtt_harness import eventually, publish, running_ingest, wait_until
from tests.leaderboard.result_documents import result_document
from tests.mosquitto_broker import MosquittoBroker, free_port

OCHE = Path(sys.executable).parent / "oche"
VENUES = VenueMap(boards={"crown-1": "The Crown"})
T0 = 1_780_000_000.0
BOB_WINS = ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"]
"""301: the first player (Bob) wins with a 121 checkout."""
CRICKET_WIN = ["T20 T19 T18", "M M M", "T17 T16 T15", "M M M", "DB SB"]


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    yield database
    database.dispose()


def x01(players: list[str], at: float, board: str = "board1", **kwargs: Any) -> dict[str, Any]:
    return result_document(
        "x01", BOB_WINS, players=players, options={"start": 301}, finished_at=at, board=board,
        **kwargs,
    )  # fmt: skip


def everything_kept(database: Database) -> list[str]:
    """Every payload kept, counted or not, as text."""
    with database.session() as session:
        texts = [json.dumps(p) for p in session.execute(select(Result.payload)).scalars()]
        texts += [json.dumps(p) for p in session.execute(select(Superseded.payload)).scalars()]
        texts += list(session.execute(select(Rejected.payload)).scalars())
    return texts


def test_forget_takes_the_name_out_of_every_payload_kept(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = x01(["Bob", "Ann"], T0)
    first = x01(["Bob", "Ann"], T0 + 100)
    again = x01(["Bob", "Ann"], T0 + 130, revision_of=first)
    tampered = {**x01(["Bob", "Ann"], T0 + 200), "winner": 1, "winner_name": "Ann"}
    failing = x01(["Ann", "Bob"], T0 + 300)
    elsewhere = {**x01(["Bob", "Cy"], T0 + 400, board="crown-1"), "winner": 1}
    whole = as_payload(x01(["Bob", "Ann"], T0 + 500))
    cut = whole[: whole.index(b'"Bob"') + 20]  # not JSON any more
    for document in (counted, first, again, tampered, elsewhere):
        ingest(database, as_payload(document), VENUES)
    ingest(database, cut, VENUES)

    def buggy(document: Mapping[str, Any]) -> ScoredResult:
        if document.get("result_id") == failing["result_id"]:
            raise RuntimeError("a bug")
        return score_result(document)

    with monkeypatch.context() as patched:
        patched.setattr(store, "score_result", buggy)
        assert ingest(database, as_payload(failing), VENUES).status == "failed"
    assert sum("Bob" in text for text in everything_kept(database)) == 7

    outcome = forget(database, "bob", venue="home", venues=VENUES)
    assert (outcome.games, outcome.kept) == (2, 4)
    kept = everything_kept(database)
    assert [text for text in kept if "Bob" in text] == [
        next(text for text in kept if elsewhere["result_id"] in text)
    ]  # Bob at The Crown is another player
    assert sum(FORGOTTEN_NAME in text for text in kept) == 6

    # The failed result, re-scored later, is stored without giving the
    # forgotten name a player of its own.
    assert rescore(database, VENUES)["imported"] == 1
    with database.session() as session:
        assert (
            store.player_key(FORGOTTEN_NAME)
            not in session.execute(select(Player.key)).scalars().all()
        )


async def retained(broker: MosquittoBroker, topic: str) -> bytes:
    """The retained message on ``topic`` as a new subscriber gets it."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(topic, qos=1)
        async with asyncio.timeout(10):
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                return message.payload
    raise AssertionError("no retained message")


async def test_forget_republishes_the_retained_snapshots_without_the_name(
    tmp_path: Path, mosquitto: MosquittoBroker, database: Database
) -> None:
    now = time.time()  # today: the snapshots' records are the day's
    ann_and_cy = result_document(
        "cricket", CRICKET_WIN, players=["Ann", "Cy"], started_at=now - 60, finished_at=now
    )
    async with running_ingest(mosquitto, database, snapshots=True) as running:
        await publish(
            mosquitto,
            [
                ("oche/board1/result", as_payload(x01(["Bob", "Ann"], now))),
                ("oche/board1/result", as_payload(ann_and_cy)),
            ],
        )
        await wait_until(lambda: [o.status for o in running.outcomes] == ["imported"] * 2)

        async def snapshots_name_bob() -> bool:
            """both games' retained snapshots are published, and name Bob"""
            found = [
                await retained(mosquitto, leaderboard_topic("oche", g)) for g in ("x01", "cricket")
            ]
            return all(b'"Bob"' in payload for payload in found)

        await eventually(snapshots_name_bob)

    done = subprocess.run(
        [str(OCHE), "leaderboard", "forget", "Bob", "--db", database.url, "--mqtt", mosquitto.url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "the retained snapshots are published again" in done.stdout
    x01_snapshot = json.loads(await retained(mosquitto, leaderboard_topic("oche", "x01")))
    cricket_snapshot = await retained(mosquitto, leaderboard_topic("oche", "cricket"))
    assert [row["player"] for row in x01_snapshot["top"]] == ["Ann"]
    assert b"Bob" not in json.dumps(x01_snapshot).encode() and b"Bob" not in cricket_snapshot
    assert x01_snapshot["records"]["highest_checkout"]["player"] == FORGOTTEN_NAME


def test_forget_says_when_the_snapshots_could_not_be_republished(database: Database) -> None:
    ingest(database, as_payload(x01(["Bob", "Ann"], T0)), VENUES)
    nowhere = f"mqtt://127.0.0.1:{free_port()}"
    done = subprocess.run(
        [str(OCHE), "leaderboard", "forget", "Bob", "--db", database.url, "--mqtt", nowhere],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("forgot 'Bob' at home")
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"oche leaderboard: the retained snapshots on {nowhere} may still")
    assert "oche leaderboard serve" in line
