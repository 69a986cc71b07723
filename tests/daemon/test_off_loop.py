"""The daemon's slow solves in a process of its own (``off_loop.SolveWorker``):
the worker is another process, a skill test's finished state and then its
report still arrive over a real Mosquitto, the worker stops with the daemon
(even mid-solve), and without a process the solves fall back to a thread;
a real ``oche run`` stopped by SIGTERM leaves no solving process behind."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import new_game
from engine.game_log import replay_log
from firmware_bridge.daemon import off_loop
from firmware_bridge.daemon.off_loop import SolveWorker
from firmware_bridge.daemon.solve_process import ONE_THREAD
from tests.daemon_harness import TIMEOUT, Running, Watcher, config_text, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"

COLD = 4 * TIMEOUT
"""How long a cold solve in a fresh process may take on a loaded machine."""


def alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (a zombie, ended but not reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def children() -> set[int]:
    """This process's live multiprocessing children."""
    return {child.pid for child in multiprocessing.active_children() if child.pid is not None}


async def gone(pid: int) -> bool:
    """Whether ``pid`` is gone within the deadline (polled, not slept on)."""
    async with asyncio.timeout(TIMEOUT):
        while alive(pid) or pid in children():
            await asyncio.sleep(0.02)
    return True


async def started(worker: SolveWorker) -> int:
    """The worker's process id once it answered (it starts with the first solve)."""
    async with asyncio.timeout(TIMEOUT):
        while worker.pid is None:
            await asyncio.sleep(0.02)
    return worker.pid


def reported(state: dict[str, Any]) -> bool:
    """The first player's report is in the state."""
    return state["players"][0]["skill"] is not None


def skill_test(target: str) -> dict[str, Any]:
    return {
        "command": "new_game",
        "game": "skill-test",
        "players": ["Ann"],
        "options": {"darts": 3, "target": target},
    }


async def test_the_worker_is_another_process_that_answers_and_raises() -> None:
    worker = SolveWorker()
    try:
        pid = await worker.call(os.getpid)
        assert pid == worker.pid and pid != os.getpid() and pid in children()
        assert await worker.call(os.nice, 0) >= off_loop.NICE  # its priority lowered
        threads = [await worker.call(os.getenv, name) for name in ONE_THREAD]
        assert threads == [os.environ.get(name, "1") for name in ONE_THREAD]  # numpy's math: one
        with pytest.raises(ValueError, match="invalid literal"):
            await worker.call(int, "twenty")  # the solve's own error, raised here
        assert await worker.call(divmod, 60, 7) == (8, 4)
    finally:
        await worker.close()
    assert await gone(pid)
    assert worker.pid is None


async def test_a_worker_process_that_dies_leaves_the_solves_to_a_thread(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = SolveWorker()
    try:
        pid = await worker.call(os.getpid)
        os.kill(pid, signal.SIGKILL)
        with caplog.at_level(logging.WARNING, logger=off_loop.__name__):
            assert await worker.call(os.getpid) == os.getpid()  # answered, in a thread
        assert "the solving process stopped" in caplog.text
    finally:
        await worker.close()
    assert await gone(pid)


@pytest.mark.slow  # a cold skill report in a fresh process: seconds
async def test_a_report_solved_in_the_worker_process_arrives_after_the_finished_state(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    worker = SolveWorker()
    async with Running(tmp_path, mosquitto, solve_worker=worker) as running:
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert (await watcher.command(skill_test("D11")))["ok"] is True  # hits no other test's
        await throw(running.board, "D11", "S11", "S8")
        done = await watcher.state_where(lambda s: s.get("finished") is True)
        final = await watcher.state_where(reported, COLD)  # a fresh process: numpy and all
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict), COLD)
        pid = worker.pid
        assert pid is not None and pid != os.getpid() and pid in children()
    assert await gone(pid)  # stopped with the daemon
    assert done["players"][0]["skill"] is None  # the cold report was not waited for
    expected = replay_log(
        new_game("skill-test", ["Ann"], {"darts": 3, "target": "D11"}), "D11 S11 S8\n"
    ).state()
    assert final["players"][0]["skill"] == expected["players"][0]["skill"]
    assert result["players"][0]["stats"] == expected["players"][0]["stats"]


@pytest.mark.slow  # a cold skill report, as above
async def test_a_daemon_stopped_mid_solve_leaves_no_worker_and_records_the_result_on_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    worker = SolveWorker()
    async with Running(tmp_path, mosquitto, solve_worker=worker) as running:
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert (await watcher.command(skill_test("D13")))["ok"] is True
        await throw(running.board, "D13", "S13", "S4")
        done = await watcher.state_where(lambda s: s.get("finished") is True)
        pid = await started(worker)  # solving the cold report now: seconds
        assert done["players"][0]["skill"] is None
    assert await gone(pid)  # ended, not waited for
    assert not watcher.of("result")
    async with Running(tmp_path, mosquitto):  # the won game's finish is journaled now
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    expected = replay_log(
        new_game("skill-test", ["Ann"], {"darts": 3, "target": "D13"}), "D13 S13 S4\n"
    ).state()
    assert result["players"][0]["stats"] == expected["players"][0]["stats"]


@pytest.mark.slow  # a skill report, in a thread
async def test_without_a_process_the_report_is_solved_in_a_thread_with_a_warning(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def no_process() -> Any:
        raise OSError("no processes here")

    monkeypatch.setattr(off_loop, "_start_process", no_process)
    worker = SolveWorker()
    with caplog.at_level(logging.WARNING, logger=off_loop.__name__):
        async with Running(tmp_path, mosquitto, solve_worker=worker) as running:
            await watcher.state_where(lambda s: s["board"]["connected"])
            assert (await watcher.command(skill_test("D17")))["ok"] is True
            await throw(running.board, "D17", "S17", "S3")
            final = await watcher.state_where(reported, COLD)
    assert worker.pid is None
    assert "no process for slow solves" in caplog.text and "no processes here" in caplog.text
    expected = replay_log(
        new_game("skill-test", ["Ann"], {"darts": 3, "target": "D17"}), "D17 S17 S3\n"
    ).state()
    assert final["players"][0]["skill"] == expected["players"][0]["skill"]


def child_pids(pid: int) -> set[int]:
    """The live solving processes among process ``pid``'s children (Linux's
    /proc; multiprocessing's resource tracker, a child too, left out)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return {child for child in found if b"spawn_main" in _cmdline(child)}


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


@pytest.mark.slow  # a real `oche run` and a skill report, cold
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
async def test_oche_run_stopped_or_killed_leaves_no_solving_process(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, stop: signal.Signals
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("OCHE_CONFIG", "JOURNAL_STREAM")}
    daemon = subprocess.Popen(
        [str(OCHE), "run", "--config", str(config)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        target = "D19" if stop == signal.SIGTERM else "D3"  # hits no other test's
        assert (await watcher.command(skill_test(target)))["ok"] is True
        await throw(board, target, "S19", "S7")
        await watcher.state_where(lambda s: s.get("finished") is True)
        async with asyncio.timeout(TIMEOUT):  # the solving process starts with the report
            while not child_pids(daemon.pid):
                await asyncio.sleep(0.02)
        [worker] = child_pids(daemon.pid)  # one, the daemon's child
        daemon.send_signal(stop)
        code = daemon.wait(TIMEOUT)
        assert code == (0 if stop == signal.SIGTERM else -stop), daemon.stderr
    finally:
        if daemon.poll() is None:
            daemon.kill()
        board.close()
    assert await gone(worker)  # stopped with the daemon, or by itself once it was killed
