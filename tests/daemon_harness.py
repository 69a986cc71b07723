"""What the daemon tests share: a board map covering every bed, a fake board
on a pseudo-terminal, a config for a private broker, and an MQTT watcher."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import aiomqtt

from drivers.matrix_map import MatrixMap, dump_map
from engine import ALL_BEDS, MISS, Bed
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from firmware_bridge.daemon.off_loop import SolveWorker
from tests.drivers.pty_board import FakeBoard

COLS = 12
BEDS = [bed for bed in ALL_BEDS if bed != MISS]
BUTTONS = {0: "next", 1: "undo", 2: "miss", 3: "bounce"}
TIMEOUT = 30.0
"""How long a test waits for something that must happen: generous, so a busy
2-core machine (the whole suite in parallel) still passes; a test that passes
never waits it out."""
QUIET = 0.5
"""How long a test watches for something that must NOT happen (a doubled
dart, a message not sent): a short bounded look, never a wait for an event."""
OCHE = Path(sys.executable).parent / "oche"


def cell_of(notation: str) -> tuple[int, int]:
    """The matrix cell the test map gives a bed."""
    index = BEDS.index(Bed.parse(notation))
    return divmod(index, COLS)


def write_board_map(path: Path) -> Path:
    cells = {divmod(i, COLS): bed for i, bed in enumerate(BEDS)}
    rows = (len(BEDS) + COLS - 1) // COLS
    dump_map(MatrixMap("test board", rows, COLS, cells, BUTTONS), path)
    return path


def config_text(
    tmp_path: Path,
    broker_url: str,
    port: Path,
    *,
    board: str = "board1",
    takeout_s: float = 0.0,
    extra: str = "",
) -> str:
    map_path = write_board_map(tmp_path / "board-map.toml")
    return f"""
[board]
id = "{board}"
name = "Test board"
driver = "serial"
port = "{port}"
map = "{map_path}"

[mqtt]
url = "{broker_url}"

[visit]
takeout_s = {takeout_s}
coalesce_ms = 0

[journal]
path = "{tmp_path / "journal.sqlite3"}"
{extra}
"""


async def until(condition: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Wait until ``condition`` holds (checked every 20 ms), at most ``timeout`` s."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


class Watcher:
    """An MQTT client that records every message under ``oche/<board>/#``."""

    def __init__(self, host: str, port: int, board: str = "board1") -> None:
        self.host, self.port, self.board = host, port, board
        self.messages: list[tuple[str, Any]] = []
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: aiomqtt.Client | None = None
        self.ready = asyncio.Event()

    async def __aenter__(self) -> Watcher:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.ready.wait(), TIMEOUT)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            try:
                nodelay = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
                async with aiomqtt.Client(self.host, self.port, socket_options=nodelay) as client:
                    self._client = client
                    await client.subscribe(f"oche/{self.board}/#", qos=1)
                    self.ready.set()
                    async for message in client.messages:
                        raw = message.payload
                        text = (
                            raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
                        )
                        try:
                            payload: Any = json.loads(text)
                        except (ValueError, RecursionError):  # hostile commands are seen too
                            payload = text
                        self.messages.append((str(message.topic), payload))
                        self._changed.set()
            except aiomqtt.MqttError:
                self._client = None
                await asyncio.sleep(0.2)

    async def command(self, payload: dict[str, Any], timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send a command and wait for its response (matched by id)."""
        assert self._client is not None
        command_id = payload.setdefault("id", f"t{len(self.messages)}-{id(payload)}")
        await self._client.publish(f"oche/{self.board}/cmd", json.dumps(payload), qos=1)
        response: dict[str, Any] = await self.wait_for(
            "cmd/response", lambda p: isinstance(p, dict) and p.get("id") == command_id, timeout
        )
        return response

    async def operator_command(
        self, payload: dict[str, Any], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """Send an operator command (``operator/cmd``) and wait for its response (by id)."""
        assert self._client is not None
        command_id = payload.setdefault("id", f"op{len(self.messages)}-{id(payload)}")
        topic = f"oche/{self.board}/operator/cmd"
        await self._client.publish(topic, json.dumps(payload), qos=1)
        response: dict[str, Any] = await self.wait_for(
            "operator/cmd/response",
            lambda p: isinstance(p, dict) and p.get("id") == command_id,
            timeout,
        )
        return response

    async def count(self, name: str, predicate: Callable[[Any], bool], at_least: int) -> int:
        """Wait until at least ``at_least`` messages on ``name`` match ``predicate``."""

        async def look() -> int:
            while True:
                found = sum(1 for payload in self.of(name) if predicate(payload))
                if found >= at_least:
                    return found
                self._changed.clear()
                await asyncio.sleep(0.05)

        return await asyncio.wait_for(look(), TIMEOUT * 3)

    async def send_raw(self, payload: bytes) -> None:
        assert self._client is not None
        await self._client.publish(f"oche/{self.board}/cmd", payload, qos=1)

    def of(self, name: str) -> list[Any]:
        topic = f"oche/{self.board}/{name}"
        return [payload for t, payload in self.messages if t == topic]

    async def wait_for(
        self, name: str, predicate: Callable[[Any], bool], timeout: float = TIMEOUT
    ) -> Any:
        topic = f"oche/{self.board}/{name}"

        async def look() -> Any:
            seen = 0
            while True:
                fresh, seen = self.messages[seen:], len(self.messages)
                for message_topic, payload in fresh:
                    if message_topic == topic and predicate(payload):
                        return payload
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(look(), timeout)

    async def state_where(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """Wait until the latest state satisfies ``predicate``."""

        async def look() -> dict[str, Any]:
            while True:
                states = self.of("state")
                if states and predicate(states[-1]):
                    return states[-1]  # type: ignore[no-any-return]
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(look(), timeout)


class HasUrl(Protocol):
    """Where a daemon's config points: a broker, or a proxy in front of one."""

    @property
    def url(self) -> str: ...


class Running:
    """A daemon running in this process, reading a fake board on a pty;
    ``overrides`` are ``--set`` style (``board.protocol="dascr"``);
    ``solve_worker``: where its slow solves run: by default a thread, so the
    engine's caches stay warm from one test to the next (a process of its
    own, the daemon's default, starts cold: tests/daemon/test_off_loop.py)."""

    def __init__(
        self,
        tmp_path: Path,
        broker: HasUrl,
        overrides: Sequence[str] = (),
        solve_worker: SolveWorker | None = None,
        **options: Any,
    ) -> None:
        self.board = FakeBoard(tmp_path / "oche-board")
        self.config = parse_config(
            config_text(tmp_path, broker.url, self.board.link, **options), "test.toml", overrides
        )
        worker = solve_worker or SolveWorker(process=False)
        self.daemon = Daemon(self.config, solve_worker=worker)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self.daemon.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
            self.task = None

    async def __aenter__(self) -> Running:
        """Started; stopped and its board closed when the block ends."""
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
        self.board.close()


async def throw(board: FakeBoard, *darts: str) -> None:
    """Darts on the fake board, a little apart as real darts are."""
    for dart in darts:
        await board.write(board.hit(*cell_of(dart)))
        await asyncio.sleep(0.02)


async def press(board: FakeBoard, button: int) -> None:
    await board.write(board.button(button))


async def win_x01(watcher: Watcher, players: Sequence[str] = ("Ann",)) -> None:
    """A new 301 game (straight out) that the first player wins in their
    second visit, by ``dart`` and ``next`` commands: T20 T20 T20, then T20
    T20 S1 (every other player throws S1 S1 S1 between)."""
    await watcher.state_where(lambda s: "board" in s)  # the daemon is connected

    async def command(payload: dict[str, Any]) -> None:
        response = await watcher.command(payload)
        assert response["ok"], response

    options = {"start": 301, "out": "straight"}
    await command({"command": "new_game", "game": "x01", "options": options, "players": players})
    visits = [["T20"] * 3, *[["S1"] * 3 for _ in players[1:]], ["T20", "T20", "S1"]]
    for number, visit in enumerate(visits):
        if number:
            await command({"command": "next"})
        for segment in visit:
            await command({"command": "dart", "segment": segment})


class OcheRun:
    """``oche run --config CONFIG`` as a real process, its stderr kept:
    started on entering the block (or by :meth:`start`), stopped by SIGTERM
    when it ends (or by :meth:`stop`, which returns what it logged)."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.process: subprocess.Popen[str] | None = None
        self.returncode: int | None = None
        self.stderr = ""
        """What the last process logged, once it has stopped."""

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("OCHE_CONFIG", "JOURNAL_STREAM")}
        self.process = subprocess.Popen(
            [str(OCHE), "run", "--config", str(self.config)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> str:
        """SIGTERM (SIGKILL if it does not stop in time); its stderr."""
        process, self.process = self.process, None
        if process is None:
            return self.stderr
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            _, self.stderr = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            _, self.stderr = process.communicate()
        self.returncode = process.returncode
        return self.stderr

    def clean_errors(self) -> list[str]:
        """After :meth:`stop`: it exited 0 with no traceback (asserted); the
        ERROR lines it logged."""
        assert self.returncode == 0, self.stderr
        assert "Traceback" not in self.stderr, self.stderr
        return [line for line in self.stderr.splitlines() if " ERROR " in line]

    def __enter__(self) -> OcheRun:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
