"""A board that cannot be read says why, at the default log level and in the
state's ``board.problem``: a missing serial port (a real ``oche run``, a pty
that is not there yet), a DaSCR board's lines while the protocol is ``oche``
and the bytes of a board read at the wrong speed (the real pty and daemon).
Each is one WARNING and one ``error`` event, never one per line or retry."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_harness import TIMEOUT, Running, Watcher, config_text
from tests.drivers.pty_board import FakeBoard
from tests.drivers.test_board_diagnosis import DASCR_ONLY, DASCR_STREAM
from tests.drivers.uart import misread
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
MISSING = "cannot open: No such file or directory: is the board plugged in?"
WRONG_PROTOCOL = (
    "this looks like a DaSCR or dARts board (it sent '320'), not the oche protocol: "
    'set board.protocol = "dascr" (9600 baud)'
)


@contextmanager
def oche_run(config: Path, stderr: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """``oche run --config CONFIG ARGS`` until the block ends, then SIGTERM:
    it must exit 0. Its stderr (the log) goes to the file ``stderr``."""
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            [str(OCHE), *args, "run", "--config", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr.read_text("utf-8")


async def log_lines(path: Path, predicate: Callable[[str], bool], at_least: int) -> list[str]:
    """Wait until the log file has ``at_least`` lines matching ``predicate``."""

    async def look() -> list[str]:
        while True:
            lines = [line for line in path.read_text("utf-8").splitlines() if predicate(line)]
            if len(lines) >= at_least:
                return lines
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(look(), TIMEOUT * 2)


def board_of(state: dict[str, Any]) -> dict[str, Any]:
    board: dict[str, Any] = state["board"]
    return board


async def test_a_missing_port_is_one_warning_and_the_state_says_why(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board", plugged=False)
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    log = tmp_path / "stderr.txt"
    source = "oche: {} drivers.serial_source: serial " + str(board.link)
    warning = f"{source.format('WARNING')}: {MISSING} (retrying until it opens)"
    try:
        # --log-level debug shows the retries; only the first is a WARNING.
        with oche_run(config, log, "--log-level", "debug"):
            state = await watcher.state_where(lambda s: board_of(s).get("problem") is not None)
            assert board_of(state)["connected"] is False
            assert board_of(state)["status"] == "disconnected"
            assert board_of(state)["problem"] == f"{board.link}: {MISSING}"
            await log_lines(log, lambda line: MISSING in line and " DEBUG " in line, 3)
            warnings = await log_lines(log, lambda line: " WARNING " in line, 1)
            assert warnings == [warning]
            board.plug()
            state = await watcher.state_where(lambda s: board_of(s)["connected"])
            assert board_of(state)["problem"] is None
            await log_lines(log, lambda line: line == f"{source.format('INFO')}: connected", 1)
    finally:
        board.close()
    text = log.read_text("utf-8")
    assert [line for line in text.splitlines() if " WARNING " in line] == [warning]
    assert "Traceback" not in text
    # No board_disconnected event per retry (the one of the first attempt may
    # come before the daemon reaches the broker: the state says it then).
    gone = [e for e in watcher.of("event") if e.get("type") == "board_disconnected"]
    assert [e["reason"] for e in gone] in ([], [MISSING])


async def test_the_missing_port_is_said_at_the_default_log_level(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    config = tmp_path / "oche.toml"
    port = tmp_path / "no-board-here"
    config.write_text(config_text(tmp_path, mosquitto.url, port), "utf-8")
    log = tmp_path / "stderr.txt"
    with oche_run(config, log):
        await watcher.state_where(lambda s: board_of(s).get("problem") == f"{port}: {MISSING}")
        [line] = await log_lines(log, lambda line: MISSING in line, 1)
    assert line.startswith(f"oche: WARNING drivers.serial_source: serial {port}: ")


@pytest.fixture
async def oche_board(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Running]:
    """The daemon reading a board left on the default protocol (``oche``)."""
    async with Running(tmp_path, mosquitto) as running:
        yield running


async def problem_then_read(
    running: Running, watcher: Watcher, caplog: pytest.LogCaptureFixture, data: bytes
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """Send ``data``, wait for the diagnosis in the state, send ``data``
    again and then a good frame (after a line end): the board's state with
    the diagnosis, the ``error`` events until the frame was read (which ends
    the problem) and the WARNING lines."""
    caplog.set_level("WARNING")
    await watcher.state_where(lambda s: board_of(s)["connected"])
    board = running.board
    await board.write(data)
    state = await watcher.state_where(lambda s: board_of(s).get("problem") is not None)
    assert board_of(state)["connected"] is True and board_of(state)["status"] == "connected"
    await board.write(data + b"\n" + board.button(0))  # NEXT: the board speaks oche after all
    await watcher.wait_for("event", lambda e: e.get("type") == "button")
    await watcher.state_where(lambda s: board_of(s).get("problem") is None)
    errors = [e for e in watcher.of("event") if e.get("type") == "error"]
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    return board_of(state), errors, warnings


async def test_a_dascr_board_on_the_oche_protocol_is_named_once(
    oche_board: Running, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    board, errors, warnings = await problem_then_read(oche_board, watcher, caplog, DASCR_ONLY)
    assert board["problem"] == WRONG_PROTOCOL
    assert [(e["kind"], e["message"]) for e in errors] == [("wrong-protocol", WRONG_PROTOCOL)]
    assert warnings == [f"board wrong-protocol: {WRONG_PROTOCOL}"]


async def test_a_board_read_at_the_wrong_speed_is_named_once(
    oche_board: Running, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    junk = misread(DASCR_STREAM)
    board, errors, warnings = await problem_then_read(oche_board, watcher, caplog, junk)
    problem = board["problem"]
    assert problem.startswith("garbled bytes ('\\x00") and "DaSCR and dARts boards" in problem
    assert "9600 baud" in problem and 'board.protocol = "dascr"' in problem
    assert [(e["kind"], e["message"]) for e in errors] == [("wrong-speed", problem)]
    assert warnings == [f"board wrong-speed: {problem}"]
