"""The service's caller (leaderboard/match_caller.py) in the league shape of
docs/deploy.md: TWO service instances (real processes, one shared
subscription) on one PostgreSQL, a real daemon on a real Mosquitto. Three
queued matches are called to the board in turn, each played by darts on
the board; each is called exactly once (one ``match_called`` each), each
result advances its owner exactly once, and a ``kill -9`` of an instance
mid-call loses nothing. A call claimed by an instance that died before it
sent ``call_match`` is sent by the next to start."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from leaderboard.database import Database
from leaderboard.match_calls import claim_board, queue_call
from leaderboard.models import MatchCall
from tests.daemon.test_match_calls import Board, connected
from tests.daemon_harness import TIMEOUT, Watcher
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO
from tests.postgres_database import postgres_database

pytestmark = pytest.mark.slow

SERVE = """
import asyncio, logging, os, sys
from sqlalchemy import text
from leaderboard import match_calls
from leaderboard.service import ServiceSettings, run_service
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
db_url, mqtt_url, port, client = sys.argv[1:5]

def advance(session, call):
    session.execute(
        text("INSERT INTO call_advances (call_id, instance, winner) VALUES (:c, :i, :w)"),
        {"c": call.call_id, "i": client, "w": call.winner},
    )

match_calls.register_owner("test", advance)
asyncio.run(run_service(ServiceSettings(
    db_url=db_url, mqtt_url=mqtt_url, http_port=int(port), client_id=client,
    share_group="league")))
"""


class Instance:
    """One service instance as a child process (``oche leaderboard serve``'s ``run_service``)."""

    def __init__(self, name: str, db_url: str, mqtt_url: str, log: Path) -> None:
        self.name = name
        self.args = [sys.executable, "-c", SERVE, db_url, mqtt_url, str(free_port()), name]
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
            )

    def kill(self) -> None:
        """``kill -9``: no clean-up, no goodbye to the broker."""
        assert self.process is not None and self.process.poll() is None, self.text()
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def text(self) -> str:
        return self.log.read_text("utf-8", "replace")

    async def connected(self, times: int = 1) -> None:
        async with asyncio.timeout(60):
            while self.text().count("MQTT: connected to") < times:
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def db_url() -> Iterator[str]:
    with postgres_database() as url:
        database = Database(url)
        database.migrate()
        with database.write_session() as session:
            session.execute(
                text(
                    "CREATE TABLE call_advances (id SERIAL PRIMARY KEY, call_id TEXT, "
                    "instance TEXT, winner INTEGER)"
                )
            )
        database.dispose()
        yield url


def queue(database: Database, players: list[str], title: str, claimed: bool = False) -> str:
    with database.write_session() as session:
        call = queue_call(
            session,
            owner_kind="test",
            owner_id=1,
            title=title,
            game="x01",
            options={"start": 301, "out": "straight"},
            match_format=None,
            players=[{"name": name} for name in players],
            boards=["oche/board1"],
        )
        if claimed:  # as an instance that died before it sent call_match left it
            session.flush()
            assert claim_board(session, call.call_id, "oche/board1", 1.0)
        return call.call_id


def calls(database: Database) -> dict[str, tuple[str, int | None, str | None]]:
    with database.session() as session:
        rows = session.execute(select(MatchCall)).scalars()
        return {row.call_id: (row.status, row.winner, row.result_id) for row in rows}


def advances(database: Database) -> list[tuple[str, int]]:
    with database.session() as session:
        found = session.execute(text("SELECT call_id, winner FROM call_advances ORDER BY id"))
        return [(str(call_id), int(winner)) for call_id, winner in found]


def called(watcher: Watcher) -> list[str]:
    return [
        e["call_id"]
        for e in watcher.of("event")
        if isinstance(e, dict) and e.get("type") == "match_called"
    ]


async def play_the_called_match(board: Board, watcher: Watcher, call_id: str) -> dict[str, Any]:
    """Wait for ``call_id`` on the board, confirm it with a dart, play it to
    its first player's win by the board's darts and NEXTs; its result."""
    await watcher.state_where(lambda s: (s.get("call") or {}).get("call_id") == call_id)
    board.source.dart("S5")  # confirms the call: not scored
    await watcher.state_where(lambda s: s["phase"] == "throwing")
    for number, visit in enumerate([["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]):
        if number:
            board.source.press("next")
        for segment in visit:
            board.source.dart(segment)
    result: dict[str, Any] = await watcher.wait_for(
        "result", lambda r: isinstance(r, dict) and r.get("call_id") == call_id
    )
    return result


async def until_finished(database: Database, call_id: str) -> None:
    try:
        async with asyncio.timeout(TIMEOUT):
            while (await asyncio.to_thread(calls, database))[call_id][0] != "finished":
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"{call_id} not finished: {calls(database)}") from None


async def test_two_instances_call_each_match_once_and_advance_each_result_once(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, db_url: str
) -> None:
    database = Database(db_url)
    lost = queue(database, ["Ann", "Bob"], "round 1", claimed=True)
    second = queue(database, ["Cy", "Dee"], "round 2")
    third = queue(database, ["Eve", "Fay"], "round 3")
    board = Board(tmp_path, mosquitto)
    first, other = (
        Instance(name, db_url, mosquitto.url, tmp_path / f"{name}.log") for name in ("lb-a", "lb-b")
    )
    try:
        await board.start()
        await connected(watcher)
        first.start()
        other.start()
        await first.connected()
        await other.connected()

        result = await play_the_called_match(board, watcher, lost)
        assert [p["name"] for p in result["players"]] == ["Ann", "Bob"]
        await until_finished(database, lost)

        # The next match is called; an instance is killed while it waits and
        # is played, and comes back (a result the broker gave its session waits there).
        await watcher.state_where(lambda s: (s.get("call") or {}).get("call_id") == second)
        first.kill()
        await play_the_called_match(board, watcher, second)
        first.start()
        await first.connected(times=2)
        await until_finished(database, second)
        await play_the_called_match(board, watcher, third)
        await until_finished(database, third)

        final = await asyncio.to_thread(calls, database)
        assert {call: status for call, (status, _, _) in final.items()} == dict.fromkeys(
            (lost, second, third), "finished"
        )
        assert all(winner == 0 and result_id for _, winner, result_id in final.values())
        assert sorted(await asyncio.to_thread(advances, database)) == sorted(
            [(lost, 0), (second, 0), (third, 0)]
        )
        assert called(watcher) == [lost, second, third]
    finally:
        first.stop()
        other.stop()
        await board.stop()
        database.dispose()
