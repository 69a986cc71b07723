"""``oche run`` through the real executable: the README's no-board example,
``--game``, the embedded broker on IPv6 loopback or on a taken port, and the
log lines (levels, journald priorities)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import aiomqtt
import pytest

from tests.daemon_harness import TIMEOUT, Watcher
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO

OCHE = Path(sys.executable).parent / "oche"
README = REPO / "README.md"

DAEMON_INFO = "oche: INFO firmware_bridge.daemon.board_daemon: "
"""How the daemon's INFO lines begin."""


def oche_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user with no config file and a journal in ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if k not in ("OCHE_CONFIG", "JOURNAL_STREAM")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


def run_oche(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), *args], capture_output=True, text=True, timeout=60, env=oche_env(tmp_path)
    )


@contextmanager
def daemon(
    tmp_path: Path, argv: Sequence[str], logs: list[str] | None = None
) -> Iterator[subprocess.Popen[str]]:
    """``argv`` (an ``oche run`` command) running until the block ends, then
    SIGTERM; its stderr is appended to ``logs``."""
    process = subprocess.Popen(
        argv, env=oche_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
        if logs is not None:
            logs.append(err)
        assert process.returncode == 0, err


def not_logs(stderr: str) -> list[str]:
    """The lines of ``stderr`` that are not INFO log lines."""
    return [line for line in stderr.splitlines() if not line.startswith("oche: INFO ")]


# ----------------------------------------------------- the README's example


def readme_no_board_example() -> list[str]:
    """The README's ``oche run`` line for trying the daemon without a board."""
    text = README.read_text("utf-8").replace("\\\n", " ")  # join continued lines
    lines = [line for line in text.splitlines() if "board.script=" in line]
    assert len(lines) == 1, lines
    argv = shlex.split(lines[0], comments=True)
    assert argv[:2] == [".venv/bin/oche", "run"], argv
    return [str(OCHE), *argv[1:]]


@pytest.mark.slow
async def test_the_readmes_no_board_example_scores_its_darts(tmp_path: Path) -> None:
    port = free_port()  # the example's own broker, not on the machine's 1883
    argv = [*readme_no_board_example(), "--set", f"mqtt.embedded_port={port}"]
    with daemon(tmp_path, argv) as process:
        async with Watcher("127.0.0.1", port) as watcher:
            state = await watcher.state_where(lambda s: bool(s.get("game")))
            assert state["game"] == "x01"
            assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
            # Ann's T20 T20 T20 scored, then NEXT: Bob to throw.
            state = await watcher.state_where(lambda s: s["players"][0]["score"] == 501 - 180)
            state = await watcher.state_where(lambda s: s.get("current_player") == 1)
            assert process.poll() is None


async def test_start_up_logs_one_info_line_per_component(tmp_path: Path) -> None:
    port = free_port()
    argv = [str(OCHE), "run", "--set", "board.driver=simulated"]
    argv += ["--set", f"mqtt.embedded_port={port}", "--set", "homeassistant.enabled=true"]
    process = subprocess.Popen(
        argv, env=oche_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        async with Watcher("127.0.0.1", port) as watcher:
            await watcher.state_where(lambda s: True)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    journal = tmp_path / "state" / "oche" / "journal.sqlite3"
    for line in (
        "oche: INFO firmware_bridge.daemon.board_daemon: board board1: simulated driver",
        f"oche: INFO firmware_bridge.daemon.board_daemon: journal: {journal}",
        "oche: INFO firmware_bridge.daemon.board_daemon: Home Assistant discovery: on",
        f"{DAEMON_INFO}MQTT broker: mqtt://127.0.0.1:{port} (embedded)",
    ):
        assert err.splitlines().count(line) == 1, err
    assert "Traceback" not in err


def test_a_bad_game_exits_2_before_the_daemon_starts(tmp_path: Path) -> None:
    result = run_oche(
        tmp_path, "run", "--game", "x01", "-o", "start=7", "--set", "board.driver=simulated"
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "oche run: option 'start': '7' is not one of 301, 401, 501, 601, 701, 901, 1001"
    ]
    assert not (tmp_path / "state" / "oche").exists()  # no journal was opened


def test_a_name_over_the_limit_exits_2_before_the_daemon_starts(tmp_path: Path) -> None:
    """``-p`` takes the name rule the daemon's new_game and the leaderboard
    take: no game with a name its result would be refused for is journaled."""
    name = "Bartholomew Fitzgerald Jr"  # 25 characters
    result = run_oche(
        tmp_path, "run", "--game", "x01", "-p", "Ann", "-p", name, "--set", "board.driver=simulated"
    )
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines() == [
        "oche run: player name 'Bartholomew Fitzgerald J…' is 25 characters long; the limit is 24"
    ]
    assert not (tmp_path / "state" / "oche").exists()  # no journal was opened


def test_a_journal_that_is_another_programs_database_exits_2_and_is_left_alone(
    tmp_path: Path,
) -> None:
    other = tmp_path / "notes.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    before = other.read_bytes()
    result = run_oche(
        tmp_path, "run", "--set", "board.driver=simulated", "--set", f"journal.path={other}"
    )
    assert result.returncode == 2, result.stderr
    assert not_logs(result.stderr) == [
        f"oche run: journal {other}: not an Oche journal: a SQLite database of something else"
    ]
    assert other.read_bytes() == before and list(tmp_path.glob("notes.sqlite3.*")) == []


def test_players_without_a_game_exit_2(tmp_path: Path) -> None:
    result = run_oche(tmp_path, "run", "-p", "Ann", "--set", "board.driver=simulated")
    assert (result.returncode, result.stderr) == (
        2,
        "oche run: --player and --option need --game\n",
    )


# ------------------------------------------------------- the embedded broker


async def test_the_embedded_broker_on_ipv6_loopback_serves_the_state(tmp_path: Path) -> None:
    port = free_port()
    argv = [str(OCHE), "run", "--game", "cricket", "-p", "Ann", "--set", "board.driver=simulated"]
    argv += ["--set", "mqtt.embedded_host=::1", "--set", f"mqtt.embedded_port={port}"]
    with daemon(tmp_path, argv):
        async with Watcher("::1", port) as watcher:
            state = await watcher.state_where(lambda s: s.get("game") == "cricket")
            assert [p["name"] for p in state["players"]] == ["Ann"]


def test_run_on_a_taken_port_exits_2_with_one_line_and_the_way_out(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    port = mosquitto.port
    result = run_oche(
        tmp_path, "run", "--set", "board.driver=simulated", "--set", f"mqtt.embedded_port={port}"
    )
    assert result.returncode == 2, result.stderr
    assert not_logs(result.stderr) == [
        f"oche run: cannot start the embedded MQTT broker: 127.0.0.1:{port} is already in use "
        f"(another MQTT broker?): use that broker with --set mqtt.url=mqtt://127.0.0.1:{port}, "
        "or give the embedded one another port with --set mqtt.embedded_port=PORT"
    ]


# ------------------------------------------------------------------ logging


def taken_port_run(tmp_path: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``oche ARGS run`` on a taken port: it logs its start-up lines, then fails."""
    return run_oche(
        tmp_path, *args, "--set", "board.driver=simulated", "--set", f"mqtt.embedded_port={port}"
    )


def test_log_lines_name_their_level(tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    result = taken_port_run(tmp_path, mosquitto.port, "run")
    logs = [line for line in result.stderr.splitlines() if line.startswith("oche: ")]
    assert logs and all(
        re.match(r"oche: (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+: ", x) for x in logs
    )


@pytest.mark.parametrize(
    ("args", "config", "info_shown"),
    [
        (["run"], "", True),  # the default level is info
        (["run"], 'level = "warning"', False),
        (["--log-level", "info", "run"], 'level = "WARNING"', True),  # the option wins
        (["run", "--log-level", "error"], "", False),  # after the command too
        (["--log-level", "DEBUG", "run"], 'level = "error"', True),
    ],
)
def test_the_log_level_comes_from_the_option_else_the_config(
    tmp_path: Path, mosquitto: MosquittoBroker, args: list[str], config: str, info_shown: bool
) -> None:
    path = tmp_path / "oche.toml"
    path.write_text(f"[log]\n{config}\n", "utf-8")
    result = taken_port_run(tmp_path, mosquitto.port, *args, "--config", str(path))
    assert result.returncode == 2
    assert (
        "oche: INFO firmware_bridge.daemon.board_daemon: board board1" in result.stderr
    ) is info_shown
    assert not_logs(result.stderr)[-1].startswith("oche run: cannot start the embedded MQTT broker")


def test_a_bad_log_level_option_exits_2_naming_it(tmp_path: Path) -> None:
    result = run_oche(tmp_path, "--log-level", "loud", "run")
    assert result.returncode == 2
    assert (
        "argument --log-level: 'loud' is not a log level; use one of debug, info" in result.stderr
    )


def test_a_bad_log_level_in_the_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "oche.toml"
    path.write_text('[log]\nlevel = "warn"\n', "utf-8")
    result = run_oche(tmp_path, "run", "--config", str(path))
    assert result.returncode == 2
    assert result.stderr == (
        f'oche run: {path}: log.level: "warn" is not a log level (did you mean "warning"?); '
        "use one of debug, info, warning, error, critical\n"
    )


def journal_run(tmp_path: Path, stream: str, *args: str) -> str:
    """A failing ``oche run ARGS`` whose stderr is a file; with ``stream`` the
    file's ``device:inode``, the file is what systemd's journal is to oche."""
    err = tmp_path / "stderr.txt"
    with err.open("w", encoding="utf-8") as handle:
        status = os.fstat(handle.fileno())
        env = oche_env(tmp_path)
        env["JOURNAL_STREAM"] = stream.format(dev=status.st_dev, ino=status.st_ino)
        result = subprocess.run(
            [str(OCHE), "run", "--set", "board.driver=simulated", *args],
            stdout=subprocess.DEVNULL,
            stderr=handle,
            env=env,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    return err.read_text("utf-8")


def test_under_journald_each_line_carries_its_priority(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    text = journal_run(tmp_path, "{dev}:{ino}", "--set", f"mqtt.embedded_port={mosquitto.port}")
    lines = text.splitlines()
    assert (
        "<6>oche: INFO firmware_bridge.daemon.board_daemon: board board1: simulated driver" in lines
    )
    assert lines[-1].startswith("<3>oche run: cannot start the embedded MQTT broker")
    assert all(re.match(r"<[2-7]>", line) for line in lines), lines


def test_under_journald_every_line_of_an_error_is_an_error(tmp_path: Path) -> None:
    text = journal_run(
        tmp_path, "{dev}:{ino}", "--set", "visit.takeout_s=-1", "--set", "log.level=x"
    )
    assert text.splitlines() == [
        "<3>oche run: defaults: visit.takeout_s: must be at least 0, not -1 (from --set)",
        '<3>defaults: log.level: "x" is not a log level; '
        "use one of debug, info, warning, error, critical (from --set)",
    ]


def test_a_journal_stream_that_is_not_stderr_adds_no_priorities(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    # JOURNAL_STREAM names another file: a shell in between redirected stderr.
    text = journal_run(tmp_path, "{dev}:1", "--set", f"mqtt.embedded_port={mosquitto.port}")
    assert "<" not in text
    assert text.splitlines()[-1].startswith("oche run: cannot start the embedded MQTT broker")


# ------------------------------------------------------------- a coin board


async def operator_command(watcher: Watcher, payload: dict[str, object]) -> dict[str, object]:
    """Send an operator command on the board's ``operator/cmd`` and wait for its answer."""
    command_id = f"op-{len(watcher.messages)}"
    async with aiomqtt.Client(watcher.host, watcher.port) as client:
        body = json.dumps({**payload, "id": command_id})
        await client.publish("oche/board1/operator/cmd", body, qos=1)
    response: dict[str, object] = await watcher.wait_for(
        "operator/cmd/response", lambda p: isinstance(p, dict) and p.get("id") == command_id
    )
    return response


async def test_run_game_on_a_coin_board_is_priced_like_new_game(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """``oche run --game`` takes the price check every start takes: without
    the credits the daemon runs idle and says why (log and an ``error``
    event, new_game's words); with them the game starts and spends its price,
    which the books show."""
    coin = ["--set", "credits.mode=coin", "--set", "credits.price=2"]
    argv = [
        str(OCHE),
        "run",
        "--set",
        "board.driver=simulated",
        "--set",
        f"mqtt.url={mosquitto.url}",
    ]
    argv += [*coin, "--game", "x01", "-p", "Ann", "-p", "Bob"]
    shortfall = "2 players x 2 credits = 4 credits; 0 held: insert 4 more"
    async with Watcher(mosquitto.host, mosquitto.port) as watcher:
        logs: list[str] = []
        with daemon(tmp_path, argv, logs):
            state = await watcher.state_where(lambda s: s["board"]["connected"])
            assert state["game"] is None and state["phase"] == "idle"
            error = await watcher.wait_for("event", lambda e: e.get("type") == "error")
            assert error["kind"] == "refused" and shortfall in error["message"], error
            added = await operator_command(watcher, {"command": "add_credits", "count": 5})
            assert added["ok"], added
            await watcher.state_where(lambda s: s["credits"]["credits"] == 5)
        assert f"x01 for Ann, Bob not started: {shortfall}" in logs[0], logs
        watcher.messages.clear()
        with daemon(tmp_path, argv):
            state = await watcher.state_where(lambda s: s.get("game") == "x01")
            assert state["credits"]["credits"] == 1  # 5 held, 4 spent on the game
    books = run_oche(tmp_path, "books", "--json")
    assert books.returncode == 0, books.stderr
    security = json.loads(books.stdout)["security"]
    assert security["credits_spent"] == 4 and security["games_played"] == 1
