"""The daemon end to end: a board on a pseudo-terminal, a real Mosquitto, a
real SQLite journal. Games from new_game to result, takeout, and faults:
kill -9, a broker outage, unplugging the board, floods of bad commands."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from drivers.protocol import Released, Stuck
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from firmware_bridge.daemon.game_commands import COMMAND_NAMES, GAME_BUTTONS
from firmware_bridge.daemon.game_session import SessionSetup
from firmware_bridge.daemon.journal import Journal
from firmware_bridge.daemon.mqtt_link import MqttLink, to_json
from mqtt_contract import COMMANDS, TOPICS, CallMatch, CancelCall, Pair
from mqtt_contract.lobby_commands import LOBBY_COMMANDS
from tests.daemon_harness import (
    TIMEOUT,
    Running,
    Watcher,
    cell_of,
    config_text,
    press,
    throw,
    until,
)
from tests.drivers.pty_board import FakeBoard
from tests.drivers.pty_firmware import FirmwareOnPty
from tests.mosquitto_broker import MosquittoBroker, free_port

OCHE = Path(sys.executable).parent / "oche"


async def connected(watcher: Watcher) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])


def scores(state: dict[str, Any]) -> list[int]:
    return [player["score"] for player in state["players"]]


async def test_a_full_game_from_new_game_to_result(running: Running, watcher: Watcher) -> None:
    await watcher.wait_for("availability", lambda p: p == "online")
    await connected(watcher)
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]}
    )
    assert response["ok"] is True, response
    board = running.board
    await throw(board, "T20", "T20", "T20")
    await watcher.state_where(lambda s: s.get("phase") == "takeout")
    await press(board, 0)  # NEXT
    await throw(board, "S1", "S1", "S1")
    await press(board, 0)
    await throw(board, "T20", "T11", "D14")  # 121 checkout
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert result["game"] == "x01"
    assert result["winner_name"] == "Ann"
    assert [p["name"] for p in result["players"]] == ["Ann", "Bob"]
    assert result["log"].splitlines() == ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"]
    state = await watcher.state_where(lambda s: s.get("finished") is True)
    assert scores(state) == [0, 298]
    assert state["phase"] == "finished"
    kinds = [event["type"] for event in watcher.of("event")]
    for kind in (
        "game_started",
        "dart",
        "visit_end",
        "takeout",
        "player_change",
        "winner",
        "game_over",
    ):
        assert kind in kinds
    for name in ("state", "event", "result", "cmd/response", "availability"):
        validator = Draft202012Validator(TOPICS[name].schema)
        for payload in watcher.of(name):
            assert not list(validator.iter_errors(payload)), (name, payload)


async def test_contacts_during_takeout_are_never_scored(running: Running, watcher: Watcher) -> None:
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]})
    await throw(running.board, "S20", "S20", "S20")
    await watcher.state_where(lambda s: s.get("phase") == "takeout")
    await throw(running.board, "T20", "T19", "DB")  # pulling darts out
    await watcher.wait_for("event", lambda e: e.get("type") == "hit" and e.get("segment") == "DB")
    await press(running.board, 0)
    state = await watcher.state_where(lambda s: s.get("phase") == "throwing")
    assert scores(state) == [441, 501]
    assert state["current_player"] == 1


async def test_commands_next_miss_undo_and_manual_dart(running: Running, watcher: Watcher) -> None:
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "cricket", "players": ["Ann", "Bob"]})
    assert (await watcher.command({"command": "dart", "segment": "T20"}))["ok"]
    assert (await watcher.command({"command": "miss"}))["ok"]
    assert (await watcher.command({"command": "undo"}))["ok"]
    state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
    assert state["players"][0]["marks"]["20"] == 3
    assert (await watcher.command({"command": "next"}))["ok"]
    state = await watcher.state_where(lambda s: s.get("current_player") == 1)
    assert state["last_visit"]["darts"] == ["T20", "M", "M"]
    bad = await watcher.command({"command": "dart", "segment": "T21"})
    assert bad["ok"] is False and "T21" in bad["error"]


@pytest.mark.slow
async def test_malformed_commands_are_answered_and_change_nothing(
    running: Running, watcher: Watcher
) -> None:
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
    await watcher.command({"command": "dart", "segment": "S20"})
    before = await watcher.state_where(lambda s: s.get("visit") == ["S20"])
    bad: list[dict[str, Any]] = [
        {"command": "launch"},
        {"command": "dart"},
        {"command": "dart", "segment": 20},
        {"command": "new_game", "game": "darts-golf", "players": ["A"]},
        {"command": "new_game", "game": "x01", "players": []},
        {"command": "new_game", "game": "x01", "players": ["A"], "options": {"start": 7}},
        {"command": "next", "extra": 1},
    ]
    count = 0
    refused = lambda r: r.get("ok") is False  # noqa: E731
    for _ in range(30):  # 2,100 commands, 70 at a time as a busy client would send them
        for _ in range(10):
            for payload in bad:
                await watcher.send_raw(json.dumps({**payload, "id": f"bad-{count}"}).encode())
                count += 1
        await watcher.count("cmd/response", refused, count)
    for raw in (b"{not json", b"\xff\xfe", b"[1, 2]"):
        await watcher.send_raw(raw)
    await watcher.send_raw(json.dumps({"command": "miss", "pad": "x" * 70_000}).encode())
    errors = await watcher.count("cmd/response", refused, count + 4)
    assert errors == count + 4
    answered = {r.get("id") for r in watcher.of("cmd/response") if r.get("ok") is False}
    assert {f"bad-{n}" for n in range(count)} <= answered
    assert all(r.get("error") for r in watcher.of("cmd/response") if r.get("ok") is False)
    await watcher.command({"command": "dart", "segment": "S1"})  # a good one still works
    after = await watcher.state_where(lambda s: s.get("visit") == ["S20", "S1"])
    assert scores(after) == [scores(before)[0] - 1]


async def test_hostile_commands_get_one_line_answers_and_change_nothing(
    running: Running, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
    await watcher.command({"command": "dart", "segment": "S20"})
    hostile = [
        b"[" * 1000 + b"]" * 1000,
        b'{"command": "reboot", "id": "\\ud800"}',
        b'{"command": "new_game", "game": "x01", "players": ["\\ud800"]}',
        json.dumps({"command": "new_game", "game": "x01", "players": ["A" * 5000]}).encode(),
        json.dumps({"command": "new_game", "game": "x01", "players": ["Ann\u001b[2J"]}).encode(),
    ]
    for payload in hostile:
        await watcher.send_raw(payload)
    refused = lambda r: r.get("ok") is False  # noqa: E731
    await watcher.count("cmd/response", refused, len(hostile))
    errors = [r["error"] for r in watcher.of("cmd/response") if refused(r)]
    assert errors[0] == "command is nested too deeply; the limit is 16 levels"
    assert all("lone surrogate" in error for error in errors[1:3])
    assert "5000 characters long; the limit is 24" in errors[3]
    assert "control character (U+001B)" in errors[4]
    state = await watcher.state_where(lambda s: s.get("visit") == ["S20"])
    assert [p["name"] for p in state["players"]] == ["Ann"]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    # A whole number written as JSON's 301.0 is the option 301.
    started = await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 301.0}, "players": ["Bob"]}
    )
    assert started["ok"], started
    state = await watcher.state_where(lambda s: s.get("players", [{}])[0].get("name") == "Bob")
    assert (state["options"]["start"], scores(state)) == (301, [301])


DAEMON_CLASSES = (
    "Daemon.",
    "MqttLink.",
    "BoardGame.",
    "BoardInput.",
    "GameCommands.",
    "Publisher.",
    "CoinOp.",
    "OperatorCommands.",
    "HomeAssistantDiscovery.",
    "BotPlayers.",
    "TakeoutWatch.",
    "RemoteHost.",
    "HostChannel.",
    "Invitations.",
    "ActionIntake.",
    "TurnRules.",
    "StateBlock.",
    "RemoteGuest.",
    "MatchMembership.",
    "ActionOutbox.",
    "HostMirror.",
)
"""The classes of the daemon's core and extensions, as a task's coroutine names them."""


def darts_thrown(state: dict[str, Any]) -> int:
    return sum(player["stats"]["darts"] for player in state.get("players") or [])


async def test_a_burst_of_dart_commands_publishes_every_state_in_order_without_a_task_per_message(
    running: Running, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    """States and events go to paho as they are made, fire-and-forget at QoS 1:
    a dart starts no task of the daemon's (none per message waiting for its
    PUBACK), nothing warns of piled-up publishes, and the states come in order."""
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "cricket", "players": ["Ann", "Bob"]})
    created: list[str] = []

    def counting_factory(
        loop: asyncio.AbstractEventLoop, coro: Any, context: Any = None
    ) -> asyncio.Task[Any]:
        created.append(getattr(coro, "__qualname__", repr(coro)))
        return asyncio.Task(coro, loop=loop, context=context)

    loop = asyncio.get_running_loop()
    caplog.set_level(logging.WARNING)
    loop.set_task_factory(counting_factory)
    try:
        commands = 0
        for n in range(1, 51):  # single 1s: cricket never ends
            await watcher.send_raw(json.dumps({"command": "dart", "segment": "S1"}).encode())
            commands += 1
            if n % 3 == 0:
                await watcher.send_raw(b'{"command": "next"}')
                commands += 1
        await watcher.count("cmd/response", lambda p: p.get("ok") is True, at_least=commands + 1)
        await watcher.state_where(lambda s: darts_thrown(s) == 50 and s["phase"] == "throwing")
    finally:
        loop.set_task_factory(None)
    ours = [name for name in created if name.startswith(DAEMON_CLASSES)]
    assert ours == [], f"{len(ours)} daemon tasks for {commands} commands: {sorted(set(ours))}"
    counts = [darts_thrown(state) for state in watcher.of("state") if state.get("game")]
    assert counts == sorted(counts) and counts[-1] == 50
    assert len([e for e in watcher.of("event") if e.get("type") == "dart"]) == 50
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [w for w in warnings if "pending" in w], warnings


def test_a_result_is_encoded_once_in_the_form_it_is_published(tmp_path: Path) -> None:
    """The outbox keeps the result as the text the link publishes (compact, the
    names as written), so delivering it encodes nothing again."""
    config = parse_config(
        config_text(tmp_path, "mqtt://127.0.0.1:9", tmp_path / "tty"), "result.toml"
    )
    daemon = Daemon(config)
    daemon.game.started_at = 0.0
    session = daemon.game.new_session(SessionSetup("x01", {}, ["Zoë", "Bob"]))
    payload = daemon.game.finish_record(session, 1.0).payload
    assert payload == to_json(json.loads(payload))
    assert '"Zoë"' in payload


@pytest.mark.slow
async def test_broker_outage_reconnects_republishes_and_delivers_queued_results(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A result is not retained: the watcher (retrying every 0.2 s) must be back
    # before the daemon, whose first retry is 3 s after the loss, not 0.5 s
    # +- 25 %, which could fall just after the broker's restart and beat it.
    monkeypatch.setattr(MqttLink, "BACKOFF_START", 3.0)
    monkeypatch.setattr(MqttLink, "BACKOFF_JITTER", 0.0)
    await connected(watcher)
    await watcher.command(
        {
            "command": "new_game",
            "game": "x01",
            "options": {"start": 301, "out": "straight"},
            "players": ["Ann"],
        }
    )
    await throw(running.board, "T20", "T20", "T20")
    await watcher.state_where(lambda s: s.get("phase") == "takeout")
    mosquitto.stop()
    link = running.daemon.link
    assert link is not None
    await until(lambda: not link.connected)  # the daemon knows the broker is gone
    await press(running.board, 0)
    await throw(running.board, "T20", "T20", "T20")  # 301 - 360: bust... use the rest
    await press(running.board, 0)
    await throw(running.board, "T20", "T20", "S1")  # 121 - 121 = 0: straight out
    # The game is won and its result queued while the broker is still down.
    with Journal(running.config.journal.resolved_path()) as journal:
        await until(lambda: len(journal.outbox.pending_results()) == 1)
        finished = journal.games.latest_game("board1")
    assert finished is not None and finished.status == "finished"
    mosquitto.start()
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict), timeout=40)
    assert result["winner_name"] == "Ann"
    state = await watcher.state_where(lambda s: s.get("finished") is True)
    assert state["players"][0]["score"] == 0
    assert "online" in watcher.of("availability")


async def test_unplug_and_replug_the_board_mid_game(running: Running, watcher: Watcher) -> None:
    await connected(watcher)
    await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
    await throw(running.board, "S20")
    await watcher.state_where(lambda s: s.get("visit") == ["S20"])
    running.board.unplug()
    await watcher.state_where(lambda s: not s["board"]["connected"])
    await watcher.wait_for("event", lambda e: e.get("type") == "board_disconnected")
    running.board.plug()
    await watcher.state_where(lambda s: s["board"]["connected"])
    await throw(running.board, "S19")
    state = await watcher.state_where(lambda s: s.get("visit") == ["S20", "S19"])
    assert scores(state) == [501 - 39]


async def test_the_board_is_sent_its_firmware_settings_at_every_connect(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    """``[board.firmware]`` goes to the board's real firmware when the daemon
    starts and again after a replug (a power-cycled board), in one log line
    each time, while the game goes on."""
    caplog.set_level(logging.INFO, "drivers.serial_source")
    extra = "[board.firmware]\ndebounce_ms = 30\nscan_hz = 2000\n"
    running = Running(tmp_path, mosquitto, extra=extra)
    took = "the board took its firmware settings: debounce_ms=30, scan_hz=2000"

    async def told(times: int) -> None:
        while sum(took in record.getMessage() for record in caplog.records) < times:
            await asyncio.sleep(0.02)

    async with FirmwareOnPty(running.board) as device:
        await running.start()
        try:
            await connected(watcher)
            await asyncio.wait_for(told(1), TIMEOUT)
            assert (device.firmware.debounce_ms, device.firmware.scan_hz) == (30, 2000)
            await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
            await throw(running.board, "T20")
            running.board.unplug()
            await watcher.state_where(lambda s: not s["board"]["connected"])
            running.board.plug()
            device.restart()  # power-cycled: its oche_config.py defaults again
            await asyncio.wait_for(told(2), TIMEOUT)
            assert (device.firmware.debounce_ms, device.firmware.scan_hz) == (30, 2000)
            await throw(running.board, "S19")
            state = await watcher.state_where(lambda s: s.get("visit") == ["T20", "S19"])
            assert scores(state) == [501 - 79]
        finally:
            await running.stop()
            running.board.close()


async def test_kill_9_mid_visit_then_restart_gives_the_same_state(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(OCHE), "run", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    first = start()
    try:
        await connected(watcher)
        await watcher.command({"command": "new_game", "game": "cricket", "players": ["Ann", "Bob"]})
        await throw(board, "T20", "S19", "S19")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(board, 0)
        await throw(board, "D18")
        before = await watcher.state_where(lambda s: s.get("visit") == ["D18"])
        os.kill(first.pid, signal.SIGKILL)
        first.wait(TIMEOUT)
        await watcher.wait_for("availability", lambda p: p == "offline")
    finally:
        if first.poll() is None:
            first.kill()
    watcher.messages.clear()
    second = start()
    try:
        # Messages were cleared after the first daemon's last will, so every
        # state now is the new daemon's; wait until it has the board open too
        # (a frame written before the port opens is lost, as on a real board).
        after = await watcher.state_where(
            lambda s: s.get("game") == "cricket" and s["board"]["connected"]
        )
        assert {k: v for k, v in after.items() if k != "board"} == {
            k: v for k, v in before.items() if k != "board"
        }
        await throw(board, "S18")
        state = await watcher.state_where(lambda s: s.get("visit") == ["D18", "S18"])
        assert state["players"][1]["marks"]["18"] == 3
        second.send_signal(signal.SIGTERM)
        assert second.wait(TIMEOUT) == 0, second.stderr.read() if second.stderr else ""
        await watcher.wait_for("availability", lambda p: p == "offline")
    finally:
        if second.poll() is None:
            second.kill()
        board.close()


async def test_sigterm_right_after_a_burst_of_commands_shuts_down_without_a_traceback(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    try:
        for _attempt in range(3):
            watcher.messages.clear()
            daemon = subprocess.Popen(
                [str(OCHE), "run", "--config", str(config)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                await watcher.wait_for("availability", lambda p: p == "online")
                await watcher.send_raw(b'{"command": "new_game", "game": "x01", "players": ["A"]}')
                for _ in range(20):
                    await watcher.send_raw(b'{"command": "dart", "segment": "S1"}')
                daemon.send_signal(signal.SIGTERM)
                _, err = daemon.communicate(timeout=TIMEOUT)
            finally:
                if daemon.poll() is None:
                    daemon.kill()
            assert daemon.returncode == 0, err
            assert "Traceback" not in err and "exception" not in err.lower(), err
    finally:
        board.close()


async def test_a_bad_config_exits_2_naming_every_problem(tmp_path: Path) -> None:
    config = tmp_path / "oche.toml"
    config.write_text('[board]\ndriver = "telepathy"\n[visit]\ntakeout_s = -1\n', "utf-8")
    result = subprocess.run(
        [str(OCHE), "run", "--config", str(config)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "board.driver" in result.stderr and "visit.takeout_s" in result.stderr


async def test_without_a_broker_url_the_daemon_runs_its_own_on_loopback(tmp_path: Path) -> None:
    port = free_port()
    board = FakeBoard(tmp_path / "oche-board")
    text = config_text(tmp_path, "", board.link).replace(
        'url = ""', f'url = ""\nembedded_port = {port}'
    )
    daemon = Daemon(parse_config(text, "home.toml"))
    task = asyncio.create_task(daemon.run())
    try:
        async with Watcher("127.0.0.1", port) as watcher:  # it retries until the broker is up
            await connected(watcher)
            assert (
                await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
            )["ok"]
            await throw(board, "T20")
            state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
            assert scores(state) == [441]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        board.close()


async def test_home_assistant_discovery_is_published_when_enabled(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    text = config_text(
        tmp_path, mosquitto.url, board.link, extra="[homeassistant]\nenabled = true\n"
    )
    daemon = Daemon(parse_config(text, "ha.toml"))
    configs: dict[str, dict[str, Any]] = {}
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe("homeassistant/#", qos=1)
        task = asyncio.create_task(daemon.run())
        try:

            async def collect() -> None:
                async for message in client.messages:
                    configs[str(message.topic)] = json.loads(bytes(message.payload))  # type: ignore[arg-type]
                    if any(t.endswith("/current_player/config") for t in configs):
                        return

            await asyncio.wait_for(collect(), TIMEOUT)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            board.close()
    unique_ids = {config["unique_id"] for config in configs.values()}
    assert "oche_board1_current_player" in unique_ids
    for config in configs.values():
        assert config["state_topic"] == "oche/board1/state"
        assert config["availability_topic"] == "oche/board1/availability"


async def test_a_stuck_cell_is_shown_and_cleared(running: Running, watcher: Watcher) -> None:
    await connected(watcher)
    board = running.board
    await board.write(board.frame(Stuck(board.next_seq(), *cell_of("S20"))))
    state = await watcher.state_where(lambda s: s["board"]["status"] == "stuck")
    assert state["board"]["stuck_cells"] == [list(cell_of("S20"))]
    await watcher.wait_for("event", lambda e: e.get("type") == "stuck")
    await board.write(board.frame(Released(board.next_seq(), *cell_of("S20"))))
    await watcher.state_where(lambda s: s["board"]["status"] == "connected")


async def test_the_takeout_timer_passes_the_turn_without_next(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto, takeout_s=0.3)
    await daemon.start()
    try:
        await connected(watcher)
        await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]})
        await throw(daemon.board, "S1", "S1", "S1")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        state = await watcher.state_where(lambda s: s.get("phase") == "throwing")
        assert state["current_player"] == 1
    finally:
        await daemon.stop()
        daemon.board.close()


async def test_a_first_game_starts_before_any_dart_unless_a_journaled_game_resumes(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = parse_config(config_text(tmp_path, mosquitto.url, board.link), "test.toml")

    async def start(first_game: SessionSetup) -> asyncio.Task[None]:
        return asyncio.create_task(Daemon(config, first_game=first_game).run())

    async def stop(task: asyncio.Task[None]) -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    task = await start(SessionSetup("x01", {"start": 301}, ("Ann", "Bob")))
    try:
        state = await watcher.state_where(lambda s: s["board"]["connected"])
        assert state["game"] == "x01" and scores(state) == [301, 301]
        await throw(board, "T20")
        await watcher.state_where(lambda s: s.get("visit") == ["T20"])
    finally:
        await stop(task)
    watcher.messages.clear()
    # The x01 game is unfinished in the journal: it resumes, the cricket one does not start.
    task = await start(SessionSetup("cricket", {}, ("Cy", "Di")))
    try:
        state = await watcher.state_where(lambda s: s["board"]["connected"])
        assert state["game"] == "x01" and scores(state) == [241, 301]
    finally:
        await stop(task)
        board.close()


async def test_new_game_takes_the_documented_player_object(
    running: Running, watcher: Watcher
) -> None:
    """docs/remote.md's form: {"name": "Ann"} is the player "Ann" at this board."""
    await connected(watcher)
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "players": [{"name": "Ann"}, "Bob"]}
    )
    assert response["ok"], response
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert [player["name"] for player in state["players"]] == ["Ann", "Bob"]
    assert "remote" not in state and all("cpu" not in p for p in state["players"])


async def test_a_journaled_game_the_name_rule_refuses_does_not_stop_the_board(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    """An older Oche journaled games with names over 24 characters (``oche run
    -p``); this one refuses such a name, so that game cannot be rebuilt: the
    board starts without it, saying why, and the next new_game replaces it."""
    from firmware_bridge.daemon.journal import Journal

    journal = Journal(tmp_path / "journal.sqlite3")
    journal.open()
    journal.games.start_game("x01", {}, ["Ann", "Bartholomew Fitzgerald Jr"], None, "board1", 1.0)
    journal.close()
    with caplog.at_level(logging.ERROR, "firmware_bridge.daemon.board_daemon"):
        async with Running(tmp_path, mosquitto):
            state = await watcher.state_where(lambda s: s["board"]["connected"])
            assert state["game"] is None
            response = await watcher.command(
                {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
            )
            assert response["ok"], response
            await watcher.state_where(lambda s: s.get("game") == "x01")
    assert "journal game 1 cannot be resumed: player name" in caplog.text


async def test_domino_cribbage_on_the_board_picks_tiles_and_refuses_bad_moves(
    running: Running, watcher: Watcher
) -> None:
    await connected(watcher)
    unseeded = await watcher.command(
        {"command": "new_game", "game": "domino-cribbage", "players": ["Ann", "Cpu"]}
    )
    assert unseeded["ok"] is True, unseeded
    state = await watcher.state_where(lambda s: s.get("game") == "domino-cribbage")
    assert isinstance(state["options"]["seed"], int)  # the daemon dealt from a fresh seed
    # Seed 11: the computer discards at once; Ann's tiles 1 and 2 (0-0, 0-1) go
    # to her crib, the starter is 0-2 and the computer leads 2-2.
    response = await watcher.command(
        {
            "command": "new_game",
            "game": "domino-cribbage",
            "players": ["Ann", "Cpu"],
            "options": {"seed": 11, "computer": "second"},
        }
    )
    assert response["ok"] is True, response
    board = running.board
    await throw(board, "S1", "T1")  # any ring picks: tile 1, then tile 1 again
    state = await watcher.state_where(lambda s: s.get("stage") == "play")
    assert state["phase"] == "throwing"  # no takeout in a game played by picking
    assert state["starter"] == "0-2" and state["count"] == 4
    assert state["players"][0]["hand"] == ["1-3", "1-4", "1-5", "4-5"]

    await press(board, 0)  # NEXT: Go, but every tile fits
    refused = await watcher.wait_for("event", lambda e: e.get("kind") == "refused")
    assert "no Go" in refused["message"]
    await throw(board, "S20")  # there is no tile 20
    ignored = await watcher.wait_for("event", lambda e: e.get("type") == "hit")
    assert ignored["scored"] is False and "1-4" in ignored["reason"]
    miss = await watcher.command({"command": "miss"})
    assert miss["ok"] is False and "no misses" in miss["error"]
    assert (await watcher.state_where(lambda s: True))["count"] == 4  # nothing changed

    await throw(board, "D1")  # 1-3 on the computer's 2-2: a pair of fours
    points = await watcher.wait_for("event", lambda e: e.get("type") == "points")
    assert points == {**points, "player": 0, "points": 2, "reason": "pair"}
    state = await watcher.state_where(lambda s: s["players"][0]["score"] == 2)
    assert state["played"][:2] == [
        {"player": 1, "tile": "2-2", "count": 4, "points": 0},
        {"player": 0, "tile": "1-3", "count": 8, "points": 2},
    ]


def test_every_command_has_one_handler_and_the_game_buttons_are_commands() -> None:
    # The lobby's commands are its extension's (CommandReceived), so is the
    # pairing's ``pair`` and so are the match calls' ``call_match`` and
    # ``cancel_call``; the rest the core's.
    extensions = {*LOBBY_COMMANDS, Pair.command, CallMatch.command, CancelCall.command}
    assert set(COMMAND_NAMES) | extensions == set(COMMANDS)
    assert not set(COMMAND_NAMES) & extensions
    assert set(GAME_BUTTONS) <= set(COMMANDS)
