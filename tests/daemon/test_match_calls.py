"""A match the venue's service calls to a board (docs/matches.md, "Called
matches"): ``call_match`` seats its players in the lobby and waits (the
state's ``call`` block, ``match_called``), a dart on the board (not scored)
or NEXT starts it, its result carries the ``call_id`` and the players'
roster ids; the same call again changes nothing; a board with a game in
progress refuses a call ``busy``; ``cancel_call`` takes it back; a restart
keeps the waiting call and the called game's ``call_id``. A real daemon, a
real Mosquitto, the daemon's own board input path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from drivers.board_events import BoardEvent, ButtonEvent, ConnectedEvent, HitEvent
from drivers.source import BoardSource
from engine import Bed
from firmware_bridge.daemon.board_daemon import Daemon
from mqtt_contract import TOPICS
from tests.daemon_harness import QUIET, Running, Watcher
from tests.mosquitto_broker import MosquittoBroker

OPTIONS = {"start": 301, "out": "straight"}
CALL: dict[str, Any] = {
    "command": "call_match",
    "call_id": "t1-m1",
    "title": "Friday Cup, round 1",
    "game": "x01",
    "options": OPTIONS,
    "players": [{"name": "Ann", "player_id": 12}, {"name": "Bob"}],
}


class DartSource(BoardSource):
    """A board whose darts and buttons a test puts in."""

    name = "darts"

    def __init__(self) -> None:
        super().__init__()
        self.pending: asyncio.Queue[BoardEvent] = asyncio.Queue()

    async def _run(self) -> None:
        self._emit(ConnectedEvent("darts"))
        while True:
            self._emit(await self.pending.get())

    def dart(self, notation: str) -> None:
        self.pending.put_nowait(HitEvent(Bed.parse(notation)))

    def press(self, button: str) -> None:
        self.pending.put_nowait(ButtonEvent(button))


class Board:
    """A daemon on a :class:`DartSource`; :meth:`restart` stops it and runs
    another on the same journal."""

    def __init__(self, tmp_path: Path, broker: MosquittoBroker) -> None:
        self.tmp_path, self.broker = tmp_path, broker
        self.source = DartSource()
        self.running: Running | None = None

    async def start(self) -> None:
        self.source = DartSource()
        running = Running(self.tmp_path, self.broker)
        running.daemon = Daemon(running.config, source=self.source)
        await running.start()
        self.running = running

    async def stop(self) -> None:
        if self.running is not None:
            await self.running.stop()
            self.running.board.close()
            self.running = None


@pytest.fixture
async def board(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Board]:
    made = Board(tmp_path, mosquitto)
    await made.start()
    try:
        yield made
    finally:
        await made.stop()


def problems(name: str, payload: Any) -> list[str]:
    validator = Draft202012Validator(TOPICS[name].schema)
    return [error.message for error in validator.iter_errors(payload)]


def events(watcher: Watcher, kind: str) -> list[dict[str, Any]]:
    return [e for e in watcher.of("event") if isinstance(e, dict) and e.get("type") == kind]


async def ok(watcher: Watcher, payload: dict[str, Any]) -> dict[str, Any]:
    response = await watcher.command(dict(payload))
    assert response["ok"], response
    return response


async def refused(watcher: Watcher, payload: dict[str, Any]) -> str:
    response = await watcher.command(dict(payload))
    assert not response["ok"], response
    error: str = response["error"]
    return error


async def connected(watcher: Watcher) -> dict[str, Any]:
    return await watcher.state_where(lambda s: "lobby" in s and s["board"]["connected"])


async def finish(watcher: Watcher) -> dict[str, Any]:
    """Play the running 301 to the first player's win; its result."""
    seen = {r["result_id"] for r in watcher.of("result") if isinstance(r, dict)}
    for number, visit in enumerate([["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    result: dict[str, Any] = await watcher.wait_for(
        "result", lambda r: isinstance(r, dict) and r["result_id"] not in seen
    )
    return result


async def test_a_called_match_waits_in_the_lobby_and_a_dart_starts_it(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    await ok(watcher, CALL)
    state = await watcher.state_where(lambda s: "call" in s)
    assert problems("state", state) == []
    assert state["phase"] == "idle"
    call = state["call"]
    assert (call["call_id"], call["title"], call["game"]) == ("t1-m1", "Friday Cup, round 1", "x01")
    assert call["players"] == [{"name": "Ann", "player_id": 12}, {"name": "Bob"}]
    lobby = [(p["name"], p["player_id"]) for p in state["lobby"]["players"]]
    assert lobby == [("Ann", 12), ("Bob", None)]
    (called,) = events(watcher, "match_called")
    assert (called["call_id"], called["players"], called["title"]) == (
        "t1-m1",
        ["Ann", "Bob"],
        "Friday Cup, round 1",
    )
    assert problems("event", called) == []

    await ok(watcher, CALL)  # the same call again: nothing changes
    await asyncio.sleep(QUIET)
    assert len(events(watcher, "match_called")) == 1

    board.source.dart("T20")  # confirms: not scored
    state = await watcher.state_where(lambda s: s["phase"] == "throwing")
    assert "call" not in state
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert [p["score"] for p in state["players"]] == [301, 301]
    assert state["visit"] == []
    assert state["lobby"]["players"] == []

    await ok(watcher, CALL)  # its game runs: still the same call, no change
    result = await finish(watcher)
    assert result["call_id"] == "t1-m1"
    assert [(p["name"], p["player_id"]) for p in result["players"]] == [("Ann", 12), ("Bob", None)]
    assert problems("result", result) == []

    # Finished: the call is gone, and sending it again (a service that did
    # not see it start) does not call it a second time.
    state = await watcher.state_where(lambda s: s["phase"] == "finished")
    assert "call" not in state
    await ok(watcher, CALL)
    await asyncio.sleep(QUIET)
    assert "call" not in watcher.of("state")[-1]
    assert len(events(watcher, "match_called")) == 1


async def test_a_busy_board_refuses_a_call_and_next_starts_one(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    game = {"command": "new_game", "game": "x01", "options": OPTIONS, "players": ["Cy", "Di"]}
    await ok(watcher, game)
    await watcher.state_where(lambda s: s["phase"] == "throwing")
    error = await refused(watcher, CALL)
    assert error.startswith("busy: a game of")
    assert "in progress" in error and "t1-m1" in error
    assert "call" not in watcher.of("state")[-1]
    assert events(watcher, "match_called") == []

    await finish(watcher)
    await watcher.state_where(lambda s: s["phase"] == "finished")
    await ok(watcher, CALL)  # a finished game's board is free
    await watcher.state_where(lambda s: "call" in s)
    other = {**CALL, "call_id": "t1-m2"}
    assert (await refused(watcher, other)).startswith("busy: call t1-m1 waits")
    bad = {**CALL, "call_id": "t1-m3", "options": {"start": 7}}
    assert "t1-m3" in await refused(watcher, bad)  # its game would refuse it: refused now

    board.source.press("next")
    state = await watcher.state_where(lambda s: s["phase"] == "throwing")
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert "call" not in state


async def test_a_cancelled_call_empties_the_lobby_and_a_dart_then_starts_nothing(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    await ok(watcher, CALL)
    await watcher.state_where(lambda s: "call" in s)
    await ok(watcher, {"command": "cancel_call", "call_id": "nope"})  # not this board's: no change
    await ok(watcher, {"command": "cancel_call", "call_id": "t1-m1"})
    state = await watcher.state_where(lambda s: "call" not in s)
    assert state["lobby"]["players"] == []
    (cancelled,) = events(watcher, "call_cancelled")
    assert cancelled["call_id"] == "t1-m1"
    assert problems("event", cancelled) == []
    board.source.dart("T20")
    ignored = await watcher.wait_for("event", lambda e: e.get("type") == "hit")
    assert (ignored["scored"], ignored["reason"]) == (False, "no game")
    assert watcher.of("state")[-1]["phase"] == "idle"


async def test_a_restart_keeps_the_waiting_call_and_the_called_game_s_call_id(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    await ok(watcher, CALL)
    await watcher.state_where(lambda s: "call" in s)
    await board.stop()
    watcher.messages.clear()
    await board.start()
    state = await watcher.state_where(lambda s: "call" in s and s["board"]["connected"])
    assert state["call"]["call_id"] == "t1-m1"
    assert [p["name"] for p in state["lobby"]["players"]] == ["Ann", "Bob"]

    board.source.dart("S5")
    await watcher.state_where(lambda s: s["phase"] == "throwing")
    await ok(watcher, {"command": "dart", "segment": "T20"})
    await board.stop()
    watcher.messages.clear()
    await board.start()
    state = await watcher.state_where(lambda s: s["phase"] == "throwing" and s["visit"])
    assert "call" not in state
    await ok(watcher, {"command": "dart", "segment": "T20"})
    await ok(watcher, {"command": "dart", "segment": "T20"})
    for visit in (["S1"] * 3, ["T20", "T20", "S1"]):
        await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    result = await watcher.wait_for("result", lambda r: isinstance(r, dict))
    assert result["call_id"] == "t1-m1"
    assert [p["player_id"] for p in result["players"]] == [12, None]


async def test_a_called_match_is_played_in_legs_and_next_between_legs_is_the_match_s(
    board: Board, watcher: Watcher
) -> None:
    """A call with a format (first to 2 legs): the dart starts the match;
    between legs the board is busy (a call is refused) and NEXT starts the
    next leg, not a call; the one result carries the call and both legs."""
    await connected(watcher)
    await ok(watcher, {**CALL, "match": {"legs": 2}})
    state = await watcher.state_where(lambda s: "call" in s)
    assert state["call"]["match"] == {"legs": 2, "starts": "alternate"}
    board.source.dart("S5")
    state = await watcher.state_where(lambda s: (s.get("match") or {}).get("leg") == 1)
    assert state["match"]["format"]["legs"] == 2
    for number, visit in enumerate([["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    await watcher.state_where(lambda s: (s.get("match") or {}).get("leg_over") is True)
    error = await refused(watcher, {**CALL, "call_id": "t1-m9"})
    assert error.startswith("busy: a game of")
    await ok(watcher, {**CALL, "match": {"legs": 2}})  # its own call again: no change
    board.source.press("next")
    state = await watcher.state_where(lambda s: (s.get("match") or {}).get("leg") == 2)
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    for number, visit in enumerate([["S1"] * 3, ["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    result = await watcher.wait_for("result", lambda r: isinstance(r, dict))
    assert result["call_id"] == "t1-m1"
    assert result.get("legs_won") == [2, 0]
    assert len(events(watcher, "match_called")) == 1
