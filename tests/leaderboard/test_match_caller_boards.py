"""The caller's answers to what boards say (leaderboard/match_caller.py),
with the whole service running on a real Mosquitto and a SQLite file, and
boards played by a test client that publishes their retained state and
answers their commands: a board that refuses a call ``busy`` puts it back
to ready and the next free board gets it; a busy or offline board is never
sent one; a board showing a call walked over is told ``cancel_call``; a call
whose board shows its game in progress is ``playing``."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from sqlalchemy import select

from leaderboard.database import Database
from leaderboard.match_calls import cancel_call, queue_call
from leaderboard.models import MatchCall
from leaderboard.service import ServiceSettings, run_service
from tests.daemon_harness import QUIET, TIMEOUT, until
from tests.mosquitto_broker import MosquittoBroker, free_port

IDLE: dict[str, Any] = {"game": None, "phase": "idle", "board": {"id": "x", "connected": True}}


class Boards:
    """Fake boards on the broker: retained states and availability, and an
    answer to each command (``answer(board, command)`` -> the error, or None: ok)."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.broker = broker
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self.answer: Callable[[str, dict[str, Any]], str | None] = lambda board, command: None
        self._client: aiomqtt.Client | None = None
        self.ready = asyncio.Event()

    async def run(self) -> None:
        async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
            self._client = client
            await client.subscribe("oche/+/cmd", qos=1)
            self.ready.set()
            async for message in client.messages:
                board = str(message.topic).split("/")[1]
                raw = message.payload
                command = json.loads(raw if isinstance(raw, bytes | str) else b"{}")
                self.commands.append((board, command))
                error = self.answer(board, command)
                response = {"id": command.get("id"), "ok": error is None, "error": error}
                await client.publish(f"oche/{board}/cmd/response", json.dumps(response), qos=1)

    async def show(self, board: str, state: dict[str, Any], online: bool = True) -> None:
        assert self._client is not None
        availability = "online" if online else "offline"
        await self._client.publish(f"oche/{board}/availability", availability, qos=1, retain=True)
        await self._client.publish(f"oche/{board}/state", json.dumps(state), qos=1, retain=True)

    def sent(self, name: str) -> list[tuple[str, str]]:
        return [(b, c["call_id"]) for b, c in self.commands if c.get("command") == name]


@pytest.fixture
async def boards(mosquitto: MosquittoBroker) -> AsyncIterator[Boards]:
    made = Boards(mosquitto)
    task = asyncio.create_task(made.run())
    await asyncio.wait_for(made.ready.wait(), TIMEOUT)
    try:
        yield made
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
            await task


@pytest.fixture
async def database(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Database]:
    """A migrated SQLite file and the whole service running on it."""
    url = f"sqlite:///{tmp_path}/leaderboard.sqlite3"
    database = Database(url)
    database.migrate()
    settings = ServiceSettings(
        db_url=url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-calls"
    )
    service = asyncio.create_task(run_service(settings))
    try:
        yield database
    finally:
        service.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await service
        database.dispose()


def queue(database: Database, boards: list[str]) -> str:
    with database.write_session() as session:
        return queue_call(
            session,
            owner_kind="test",
            owner_id=1,
            title=None,
            game="x01",
            options={},
            match_format=None,
            players=[{"name": "Ann"}, {"name": "Bob"}],
            boards=boards,
        ).call_id


def status(database: Database, call_id: str) -> tuple[str, str | None]:
    with database.session() as session:
        call = session.execute(select(MatchCall).where(MatchCall.call_id == call_id)).scalar_one()
        return call.status, call.board


async def test_a_busy_refusal_puts_the_call_back_and_the_next_free_board_gets_it(
    boards: Boards, database: Database
) -> None:
    boards.answer = lambda board, command: (
        "busy: a game of X01 is in progress" if board == "b1" else None
    )
    await boards.show("b1", IDLE)  # its state says idle, but it refuses (a game just began)
    await boards.show("b2", {**IDLE, "phase": "throwing", "game": "x01"})  # busy: not sent one
    await boards.show("b3", IDLE, online=False)  # offline: not sent one
    await boards.show("b4", IDLE)
    call_id = queue(database, ["oche/b1", "oche/b2", "oche/b3", "b4"])
    await until(lambda: ("b4", call_id) in boards.sent("call_match"))
    assert boards.sent("call_match")[0] == ("b1", call_id)
    assert {board for board, _ in boards.sent("call_match")} == {"b1", "b4"}
    await until(lambda: status(database, call_id) == ("called", "b4"))

    # The board shows it waiting; then its game in progress: playing.
    call = {"call_id": call_id, "game": "x01", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    await boards.show("b4", {**IDLE, "call": call})
    await asyncio.sleep(QUIET)
    assert status(database, call_id) == ("called", "b4")
    await boards.show("b4", {**IDLE, "phase": "throwing", "game": "x01"})
    await until(lambda: status(database, call_id) == ("playing", "b4"))


async def test_a_board_showing_a_walked_over_call_is_told_to_cancel_it(
    boards: Boards, database: Database
) -> None:
    await boards.show("b1", IDLE)
    call_id = queue(database, ["b1"])
    await until(lambda: status(database, call_id) == ("called", "b1"))
    call = {"call_id": call_id, "game": "x01", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    await boards.show("b1", {**IDLE, "call": call})
    with database.write_session() as session:
        cancel_call(session, call_id)
    await until(lambda: ("b1", call_id) in boards.sent("cancel_call"))
    assert status(database, call_id)[0] == "walkover"
    assert boards.sent("call_match") == [("b1", call_id)]
