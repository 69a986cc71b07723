"""A DaSCR/dARts board through the real daemon: a recorded session replayed
line for line on a pseudo-terminal (hits, its button, a miss, takeouts, no-bed
noise, firmware text, junk), a real Mosquitto, a real journal. The game comes
out as the same darts thrown on a simulated board would give, and the host's
``1``/``2`` reach the board at the moments the recording has them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from drivers.simulated import SimulatedSource
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from firmware_bridge.daemon.game_session import SessionSetup
from firmware_bridge.daemon.journal import Journal
from tests.daemon.remote_pair import GUEST, HOST, Pair, start_match, thrower_board
from tests.daemon_harness import TIMEOUT, Running, Watcher
from tests.mosquitto_broker import MosquittoBroker
from tests.paths import REPO

RECORDING = REPO / "tests" / "drivers" / "recordings" / "dascr-session.txt"
DASCR = ('board.protocol="dascr"',)
GAME = {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]}

KEYS_SCRIPT = (
    "T20 T20 T20 button:next "
    "S20 S5 button:miss button:next "
    "T20 T17 DB button:next "
    "T20 T20 T20 button:next "
    "T20 T11 D14"
)
"""The recording's darts as a simulated board (the keyboard's equivalent)
throws them: its takeouts and the button are NEXT, its miss the MISS button."""


def recording() -> list[tuple[str, str]]:
    """The recorded session: (``<`` board line | ``>`` host write, text)."""
    steps = []
    for raw in RECORDING.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        direction, _, text = raw.partition(" ")
        assert direction in ("<", ">"), raw
        steps.append((direction, text))
    return steps


@pytest.fixture
async def dascr(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Running]:
    """The daemon reading a DaSCR board (``protocol = "dascr"``) on a pty."""
    async with Running(tmp_path, mosquitto, overrides=DASCR) as daemon:
        yield daemon


async def replay(running: Running) -> None:
    """Send the board's lines; at each host write, wait for it and check the
    host wrote exactly what the recording has so far, nothing else."""
    board, expected = running.board, b""
    for direction, text in recording():
        if direction == "<":
            await board.write(text.encode("ascii") + b"\r\n")
        else:
            expected += text.encode("ascii") + b"\n"
            assert await board.read_until(expected, timeout=TIMEOUT) == expected


def scores(state: dict[str, Any]) -> list[int]:
    return [player["score"] for player in state["players"]]


async def thrown_with_keys(tmp_path: Path, mosquitto: MosquittoBroker) -> tuple[Any, list[str]]:
    """The same game on a simulated board: its result and its journal's tokens."""
    config = parse_config(
        f"""
[board]
id = "keys"
driver = "simulated"
script = "{KEYS_SCRIPT}"

[mqtt]
url = "{mosquitto.url}"

[visit]
takeout_s = 0
coalesce_ms = 0

[journal]
path = "{tmp_path / "keys.sqlite3"}"
""",
        "keys.toml",
    )
    setup = SessionSetup("x01", {"start": 301}, ["Ann", "Bob"], None)
    daemon = Daemon(config, source=SimulatedSource(KEYS_SCRIPT), first_game=setup)
    async with Watcher(mosquitto.host, mosquitto.port, board="keys") as keys:
        task = asyncio.create_task(daemon.run())
        try:
            result = await keys.wait_for("result", lambda p: isinstance(p, dict))
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return result, tokens(tmp_path / "keys.sqlite3", "keys")


def tokens(path: Path, board: str) -> list[str]:
    journal = Journal(path)
    journal.open()
    try:
        game = journal.games.latest_game(board)
        assert game is not None
        return list(game.events)
    finally:
        journal.close()


async def test_a_recorded_session_plays_as_the_same_darts_with_keys(
    tmp_path: Path, mosquitto: MosquittoBroker, dascr: Running, watcher: Watcher
) -> None:
    assert (dascr.config.board.baudrate, dascr.config.board.sensors) == (
        9600,
        ("button", "piezo", "ultrasonic"),
    )
    await watcher.state_where(lambda s: s["board"]["connected"])
    assert (await watcher.command(GAME))["ok"]
    await replay(dascr)
    final = await watcher.state_where(lambda s: s["phase"] == "finished")
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert scores(final) == [0, 96]
    assert result["winner_name"] == "Ann"

    # What the board's lines became.
    events = watcher.of("event")
    darts = [(e["player"], e["segment"], e["source"]) for e in events if e["type"] == "dart"]
    assert darts == [
        *[(0, "T20", "board")] * 3,
        (1, "S20", "board"),
        (1, "S5", "board"),
        (1, "M", "manual"),  # the piezo's miss, as the MISS button
        (0, "T20", "board"),
        (0, "T17", "board"),
        (0, "DB", "board"),
        *[(1, "T20", "board")] * 3,
        (0, "T20", "board"),
        (0, "T11", "board"),
        (0, "D14", "board"),
    ]
    await watcher.count("event", lambda e: e["type"] == "takeout_sensed", 5)
    events = watcher.of("event")
    sensed = [e["ended_visit"] for e in events if e["type"] == "takeout_sensed"]
    assert sensed == [True, False, True, True, False]
    assert [e["button"] for e in events if e["type"] == "button"] == ["miss", "next"]
    errors = [(e["kind"], e["message"]) for e in events if e["type"] == "error"]
    assert [kind for kind, _ in errors] == ["fields", "firmware-text", "garbage"]
    assert "'Error in Main Loop'" in errors[1][1]
    visits = [(e["player"], e["visit_over"]) for e in events if e["type"] == "visit_end"]
    assert visits == [(0, None), (1, None), (0, "bust"), (1, None), (0, "win")]

    # The same darts thrown with keys give the same game.
    await dascr.stop()
    keys_result, keys_tokens = await thrown_with_keys(tmp_path, mosquitto)
    assert tokens(tmp_path / "journal.sqlite3", "board1") == keys_tokens
    for key in ("players", "winner", "winner_name", "result", "log"):
        assert result[key] == keys_result[key], key


async def test_takeout_with_no_game_or_while_throwing_changes_nothing(
    dascr: Running, watcher: Watcher
) -> None:
    board = dascr.board
    await board.read_until(b"2\n")  # told to stop watching as it connects
    await watcher.state_where(lambda s: s["board"]["connected"])  # and the broker is there
    await board.write(b"u\r\n")
    await watcher.wait_for("event", lambda e: e["type"] == "takeout_sensed")
    assert (await watcher.command(GAME))["ok"]
    await board.write(b"320\r\nu\r\n")
    sensed = await watcher.count("event", lambda e: e["type"] == "takeout_sensed", 2)
    assert sensed == 2
    state = await watcher.state_where(lambda s: s["phase"] == "throwing" and s["visit"])
    assert scores(state) == [241, 301]
    assert state["visit"] == ["T20"]
    assert [e["ended_visit"] for e in watcher.of("event") if e["type"] == "takeout_sensed"] == [
        False,
        False,
    ]
    assert board.read_now() == b"2\n"  # never asked to watch


async def test_an_undo_in_the_takeout_stops_the_watch(dascr: Running, watcher: Watcher) -> None:
    board = dascr.board
    await board.read_until(b"2\n")
    await watcher.state_where(lambda s: s["board"]["connected"])  # and the broker is there
    assert (await watcher.command(GAME))["ok"]
    await board.write(b"320\r\n320\r\n320\r\n")
    assert await board.read_until(b"2\n1\n") == b"2\n1\n"
    assert (await watcher.command({"command": "undo"}))["ok"]  # throwing again: it must scan
    assert await board.read_until(b"2\n1\n2\n") == b"2\n1\n2\n"
    await board.write(b"120\r\n")
    assert await board.read_until(b"2\n1\n2\n1\n") == b"2\n1\n2\n1\n"
    assert (await watcher.command({"command": "next"}))["ok"]
    assert await board.read_until(b"2\n1\n2\n1\n2\n") == b"2\n1\n2\n1\n2\n"
    state = await watcher.state_where(
        lambda s: s["phase"] == "throwing" and s["current_player"] == 1
    )
    assert scores(state) == [161, 301]


async def test_the_takeout_timer_stops_the_watch(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto, overrides=(*DASCR, "visit.takeout_s=0.2")) as run:
        board = run.board
        await board.read_until(b"2\n")
        await watcher.state_where(lambda s: s["board"]["connected"])  # and the broker is there
        assert (await watcher.command(GAME))["ok"]
        await board.write(b"320\r\n320\r\n320\r\n")
        assert await board.read_until(b"2\n1\n") == b"2\n1\n"
        assert await board.read_until(b"2\n1\n2\n") == b"2\n1\n2\n"
        state = await watcher.state_where(
            lambda s: s["phase"] == "throwing" and s["current_player"] == 1
        )
        assert scores(state) == [121, 301]


async def test_a_board_without_the_sensor_is_never_told_to_watch(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    overrides = (*DASCR, 'board.sensors=["button", "piezo"]')
    async with Running(tmp_path, mosquitto, overrides=overrides) as run:
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert (await watcher.command(GAME))["ok"]
        await run.board.write(b"320\r\n320\r\n320\r\nu\r\n")
        await watcher.wait_for("event", lambda e: e["type"] == "takeout_sensed")
        state = await watcher.state_where(lambda s: s["phase"] == "throwing")
        assert state["current_player"] == 1  # the sensor's line still ended the takeout
        await run.board.write(b"b\r\n")
        await watcher.wait_for("event", lambda e: e["type"] == "button")
        assert run.board.read_now() == b""


async def test_a_computer_players_visit_is_not_watched(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    bot = "\n[bot]\ndart_interval_s = 0.01\ntakeout_s = 30\n"
    async with Running(tmp_path, mosquitto, overrides=DASCR, extra=bot) as run:
        board = run.board
        await board.read_until(b"2\n")
        await watcher.state_where(lambda s: s["board"]["connected"])  # and the broker is there
        game = {**GAME, "players": ["Ann", {"name": "Robo", "cpu": 5}]}
        assert (await watcher.command(game))["ok"]
        await board.write(b"320\r\n320\r\n320\r\n")
        assert await board.read_until(b"2\n1\n") == b"2\n1\n"
        await board.write(b"u\r\n")  # Ann's takeout: Robo's visit starts, the board scans
        assert await board.read_until(b"2\n1\n2\n") == b"2\n1\n2\n"
        # Robo's three darts and its takeout (30 s): nothing to take out here.
        await watcher.state_where(lambda s: s["phase"] == "takeout" and s["current_player"] == 0)
        await board.write(b"u\r\n")
        await watcher.count("event", lambda e: e["type"] == "takeout_sensed", 2)
        sensed = [e["ended_visit"] for e in watcher.of("event") if e["type"] == "takeout_sensed"]
        assert sensed == [True, False]
        state = await watcher.state_where(lambda s: True)
        assert state["phase"] == "takeout"  # the sensor does not cut the robot's pause short
        assert board.read_now() == b"2\n1\n2\n"


async def test_in_a_remote_match_each_board_watches_its_own_takeout(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    host_at, guest_at = f"oche/{HOST}", f"oche/{GUEST}"
    (tmp_path / HOST).mkdir()
    (tmp_path / GUEST).mkdir()
    host = Running(tmp_path / HOST, mosquitto, overrides=DASCR, board=HOST)
    allow = f'[remote]\nallow = ["{HOST}"]\n'
    guest = Running(tmp_path / GUEST, mosquitto, overrides=DASCR, board=GUEST, extra=allow)
    async with (
        Watcher(mosquitto.host, mosquitto.port, HOST) as host_watch,
        Watcher(mosquitto.host, mosquitto.port, GUEST) as guest_watch,
        host,
        guest,
    ):
        await host.board.read_until(b"2\n")
        await guest.board.read_until(b"2\n")
        pair = Pair(host, guest, host_watch, guest_watch)
        await start_match(pair)
        # Ann's visit at the host: the host's board watches, the guest's does not.
        await host.board.write(b"320\r\n320\r\n320\r\n")
        assert await host.board.read_until(b"2\n1\n") == b"2\n1\n"
        await host.board.write(b"u\r\n")
        assert await host.board.read_until(b"2\n1\n2\n") == b"2\n1\n2\n"
        await host_watch.state_where(lambda s: thrower_board(s) == guest_at)
        await guest_watch.state_where(lambda s: thrower_board(s) == guest_at)
        # Cy's visit at the guest: its own takeout is watched there, not at the host.
        await guest.board.write(b"120\r\n120\r\n120\r\n")
        assert await guest.board.read_until(b"2\n1\n") == b"2\n1\n"
        await host_watch.state_where(lambda s: s["phase"] == "takeout")
        await host.board.write(b"u\r\n")  # someone at the host's board: not its takeout
        sensed = await host_watch.wait_for(
            "event", lambda e: e["type"] == "takeout_sensed" and not e["ended_visit"]
        )
        assert sensed["ended_visit"] is False
        await guest.board.write(b"u\r\n")  # Cy pulls his darts: NEXT goes to the host
        ended = await guest_watch.wait_for("event", lambda e: e["type"] == "takeout_sensed")
        assert ended["ended_visit"] is True
        assert await guest.board.read_until(b"2\n1\n2\n") == b"2\n1\n2\n"
        state = await host_watch.state_where(
            lambda s: s["phase"] == "throwing" and thrower_board(s) == host_at
        )
        assert scores(state) == [121, 241]
        assert host.board.read_now() == b"2\n1\n2\n"
