"""``oche play --demo``: the whole pipeline in one command, with no board and no
screen: daemon, embedded broker, simulated board and an off-screen display."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pygame
import pytest
from paho.mqtt.publish import single

from engine import new_game
from firmware_bridge.cli.play_command import with_lobby_page
from firmware_bridge.daemon.config import parse_config
from tests.mosquitto_broker import MosquittoBroker, free_port

OCHE = Path(sys.executable).parent / "oche"


@pytest.mark.slow
def test_the_demo_plays_a_game_to_its_winner_and_saves_the_scoreboard(tmp_path: Path) -> None:
    """Even with a coin-operated board's config: the demo is free play."""
    shot = tmp_path / "demo.png"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    argv = [str(OCHE), "play", "--demo", "--no-web", "--screenshot", str(shot), "--size", "800x480"]
    result = subprocess.run(
        [*argv, "--set", "credits.mode=coin"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Winner: Ann (checkout)" in result.stdout
    image = pygame.image.load(str(shot))
    assert image.get_size() == (800, 480)
    # The demo's journal is thrown away: the user's own journal is untouched.
    assert not (tmp_path / "state" / "oche").exists()


def test_play_with_a_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "oche.toml"
    config.write_text('[visit]\ncoalesce_ms = "soon"\n', "utf-8")
    result = subprocess.run(
        [str(OCHE), "play", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "visit.coalesce_ms" in result.stderr


def intruder_state() -> dict[str, Any]:
    """A state another daemon left retained on the broker for board1."""
    game = new_game("x01", ["Intruder"], {"start": 301})
    board = {"id": "board1", "name": "Not mine", "connected": True, "status": "connected"}
    return {**game.state(), "phase": "throwing", "board": {**board, "stuck_cells": []}}


def retain_intruder(mosquitto: MosquittoBroker) -> None:
    payload = json.dumps(intruder_state())
    single(
        "oche/board1/state",
        payload,
        qos=1,
        retain=True,
        hostname=mosquitto.host,
        port=mosquitto.port,
    )


def play_environment(tmp_path: Path, config: str | None) -> dict[str, str]:
    """No screen, and ``config`` as the only config file (none: no config at all)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "OCHE_CONFIG", "JOURNAL_STREAM")
    }
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    if config is not None:
        (tmp_path / "config" / "oche").mkdir(parents=True, exist_ok=True)
        (tmp_path / "config" / "oche" / "oche.toml").write_text(config, "utf-8")
    return env


def play(tmp_path: Path, *sets: str) -> subprocess.CompletedProcess[str]:
    """``oche play`` on a simulated board, off-screen, with these ``--set`` values."""
    env = play_environment(tmp_path, None)
    argv = [str(OCHE), "play", "--no-web", "--screenshot", str(tmp_path / "shot.png")]
    argv += ["--size", "800x480", "--set", "board.driver=simulated", "--set", "board.name=Mine"]
    for value in sets:
        argv += ["--set", value]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)


def test_play_moves_its_broker_off_a_taken_port_and_shows_only_its_own_state(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    retain_intruder(mosquitto)
    result = play(tmp_path, f"mqtt.embedded_port={mosquitto.port}")
    assert result.returncode == 0, result.stderr
    moved = re.search(
        rf"^oche: INFO \S+: port {mosquitto.port} is taken \(another MQTT broker\?\): "
        r"the embedded broker uses port (\d+) instead$",
        result.stderr,
        re.M,
    )
    assert moved is not None, result.stderr
    assert f"MQTT broker: mqtt://127.0.0.1:{moved.group(1)} (embedded)" in result.stderr
    assert "Traceback" not in result.stderr
    # Its own daemon has no game yet: no scoreboard is printed, the Intruder's least of all.
    assert result.stdout.splitlines() == [
        f"No screen here: the scoreboard was saved to {tmp_path / 'shot.png'}"
    ]


def test_play_on_a_shared_broker_shows_its_daemons_state_not_a_retained_one(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    retain_intruder(mosquitto)
    result = play(tmp_path, f"mqtt.url={mosquitto.url}")
    assert result.returncode == 0, result.stderr
    assert "Intruder" not in result.stdout
    assert result.stdout.startswith("No screen here")


def lines_of(process: subprocess.Popen[str]) -> queue.Queue[str]:
    """The process's stdout lines as they come (read on a thread)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return json.loads(response.read())


async def test_headless_play_without_the_demo_runs_the_board_until_interrupted(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """No screen, no --demo, no --screenshot: the board is served (its daemon
    takes commands) until Ctrl-C, and no demo screenshot is written."""
    from tests.daemon_harness import Watcher

    argv = [str(OCHE), "play", "--no-web", "--set", "board.driver=simulated"]
    argv += ["--set", f"mqtt.url={mosquitto.url}"]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=play_environment(tmp_path, None),
        cwd=tmp_path,
    )
    try:
        lines = lines_of(process)
        said = lines.get(timeout=60)
        assert said.startswith("No screen here: the board runs without a scoreboard"), said
        assert "until Ctrl-C" in said
        async with Watcher(mosquitto.host, mosquitto.port) as watcher:
            response = await watcher.command(
                {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
            )
            assert response["ok"], response
            await watcher.state_where(lambda s: s.get("game") == "x01")
        assert process.poll() is None  # still serving the board
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        stderr = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in stderr, stderr
    assert list(tmp_path.glob("*.png")) == []


async def test_play_serves_the_board_page_by_default_and_prints_each_pairing_code(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """No --leaderboard: the web pages are served all the same (here on a free
    port, not 8080), and the terminal shows the board page, the pairing code
    the board publishes and a QR code, then the new code once a phone paired."""
    from tests.daemon_harness import Watcher

    port = free_port()
    argv = [str(OCHE), "play", "--http", f"127.0.0.1:{port}", "--set", "board.driver=simulated"]
    argv += ["--set", f"mqtt.url={mosquitto.url}"]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=play_environment(tmp_path, None),
        cwd=tmp_path,
    )

    def next_code(lines: queue.Queue[str], shown: list[str]) -> str:
        while True:
            line = lines.get(timeout=90)
            shown.append(line)
            if line.startswith("Pairing code: "):
                return line.removeprefix("Pairing code: ").split(" (")[0].replace(" ", "")

    try:
        lines, shown = lines_of(process), list[str]()
        code = next_code(lines, shown)
        page = f"http://127.0.0.1:{port}/boards/board1"
        assert f"Board page: {page} (a phone on this network opens it)\n" in shown
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
        async with Watcher(mosquitto.host, mosquitto.port) as watcher:
            pairing = await watcher.wait_for("pairing", lambda p: isinstance(p, dict))
            assert pairing["code"] == code, "the terminal shows the board's own code"
            assert pairing["url"] == f"{page}#pair={code}"
            qr = [lines.get(timeout=30) for _ in range(3)]
            assert all(set(line.strip()) <= set("█▀▄ ") and line.strip() for line in qr), qr
            device = {"id": "phone-test-01", "name": "Test phone"}
            paired = await watcher.command({"command": "pair", "code": code, "device": device})
            assert paired["ok"], paired
            assert next_code(lines, shown) != code, "a new code is shown once one is used"
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        stderr = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in stderr, stderr
    assert code not in stderr, "the code is shown on the terminal, never logged"


def test_play_no_web_serves_no_pages_and_shows_no_code(tmp_path: Path) -> None:
    result = play(tmp_path)  # play() passes --no-web
    assert result.returncode == 0, result.stderr
    assert "Board page" not in result.stdout and "Pairing code" not in result.stdout
    assert "leaderboard" not in result.stderr.lower(), result.stderr
    both = subprocess.run(
        [str(OCHE), "play", "--no-web", "--http", "127.0.0.1:8089"],
        capture_output=True,
        text=True,
        timeout=60,
        env=play_environment(tmp_path, None),
        check=False,
    )
    assert both.returncode == 2
    assert "--no-web turns the web pages off" in both.stderr


def test_play_on_a_taken_web_port_warns_and_plays_on(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Not asked for with --leaderboard, the web is no reason to stop: a
    taken port is a warning naming it, and the board plays."""
    env = play_environment(tmp_path, None)
    argv = [str(OCHE), "play", "--http", f"127.0.0.1:{mosquitto.port}"]
    argv += ["--screenshot", str(tmp_path / "shot.png"), "--set", "board.driver=simulated"]
    argv += ["--set", f"mqtt.url={mosquitto.url}"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert f"no board page: port {mosquitto.port} on 127.0.0.1 is taken" in result.stderr
    assert "--no-web turns this off" in result.stderr
    assert "Board page" not in result.stdout
    assert (tmp_path / "shot.png").exists()
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_play_leaderboard_stores_the_demo_game_and_serves_its_table(tmp_path: Path) -> None:
    """``oche play --demo --leaderboard`` without a screen: the demo game is
    played, stored by the leaderboard service running in the same process, and
    its table is served over real HTTP until the command is stopped."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("OCHE_CONFIG", None)
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    argv = [str(OCHE), "play", "--demo", "--leaderboard", "--http", f"127.0.0.1:{port}"]
    argv += ["--screenshot", str(tmp_path / "shot.png"), "--size", "800x480"]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path
    )
    try:
        lines, shown = lines_of(process), list[str]()
        while not shown or not shown[-1].startswith("Leaderboard: "):
            shown.append(lines.get(timeout=120))
        assert "Winner: Ann (checkout)\n" in shown
        assert shown[-1] == f"Leaderboard: http://127.0.0.1:{port}/ (Ctrl-C stops it)\n"
        table = f"http://127.0.0.1:{port}/api/leaderboard?game=x01&period=all"
        deadline = time.monotonic() + 30
        rows = get_json(table)
        while len(rows) < 2 and time.monotonic() < deadline:  # the result is on its way
            time.sleep(0.2)
            rows = get_json(table)
        assert [(r["rank"], r["player"], r["played"], r["won"]) for r in rows] == [
            (1, "Ann", 1, 1),
            (2, "Bob", 1, 0),
        ]
        assert rows[0]["highest_checkout"] == 98  # T20 D19, from the demo's log
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        stderr = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in stderr, stderr
    # The demo's games went to a throwaway database: the user's is untouched.
    assert not (tmp_path / "state" / "oche").exists()


def test_play_leaderboard_on_a_taken_http_port_exits_2_saying_so(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """The HTTP port is the broker's here: the leaderboard cannot listen, and
    the command says so and how to pick another."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("OCHE_CONFIG", None)
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    argv = [str(OCHE), "play", "--leaderboard", "--http", f"127.0.0.1:{mosquitto.port}"]
    argv += ["--screenshot", str(tmp_path / "shot.png"), "--set", "board.driver=simulated"]
    argv += ["--set", f"mqtt.url={mosquitto.url}"]
    taken = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert taken.returncode == 2, taken.stderr
    assert f"cannot listen on 127.0.0.1:{mosquitto.port}: something else does" in taken.stderr
    assert "--http HOST:PORT picks another" in taken.stderr
    assert "Traceback" not in taken.stderr


def test_play_leaderboard_with_a_database_it_cannot_use_exits_2_naming_it(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("OCHE_CONFIG", None)
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    argv = [str(OCHE), "play", "--leaderboard", "--http", f"127.0.0.1:{free_port()}"]
    argv += ["--screenshot", str(tmp_path / "shot.png"), "--set", "board.driver=simulated"]
    argv += ["--set", "leaderboard.db=mysql://bar/results"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("oche play: ") and "leaderboard.db" in last and "mysql" in last, last
    assert "Traceback" not in result.stderr and not (tmp_path / "shot.png").exists()


# ------------------------------------------------------------- --join HOST


def join(tmp_path: Path, *argv: str, config: str | None = None) -> subprocess.CompletedProcess[str]:
    """``oche play ARGV`` off-screen on a simulated board, with ``config`` as
    the only config file (none: no config at all)."""
    env = play_environment(tmp_path, config)
    command = [str(OCHE), "play", "--no-web", "--screenshot", str(tmp_path / "shot.png")]
    command += ["--size", "800x480", "--set", "board.driver=simulated", *argv]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=env, check=False
    )


def test_join_adds_the_host_to_the_allowed_hosts_for_this_run(tmp_path: Path) -> None:
    """The override goes through the config's own checks, keeps what the
    file allows, and adds nothing a pattern there already allows."""
    from firmware_bridge.cli.play_command import join_overrides
    from firmware_bridge.daemon.config import parse_config

    text = '[mqtt]\nurl = "mqtt://broker.example.org"\n[remote]\nallow = ["league/*"]\n'
    config = parse_config(text, "oche.toml")
    overrides = join_overrides("pub1", config, ["board.name=Home"])
    joined = parse_config(text, "oche.toml", overrides)
    assert joined.remote.allow == ("league/*", "oche/pub1")
    assert joined.board.name == "Home"
    other_base = parse_config(text, "oche.toml", join_overrides("home/darts/pub1", config, []))
    assert other_base.remote.allow == ("league/*", "home/darts/pub1")
    assert join_overrides("league/pub7", config, []) == []  # league/* allows it already


async def test_join_plays_a_whole_match_as_the_guest_of_a_real_host(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """``oche play --join board1`` (off-screen, as board home2) and a real host
    daemon board1 on one broker: the host invites home2, Cy's darts entered
    at home2 (its dart commands, as a dead segment would be) score at the
    host, and once the match is over the guest saves its screenshot and
    prints the scoreboard it mirrored."""
    import asyncio

    from tests.daemon_harness import Running, Watcher

    (tmp_path / "host").mkdir()
    host = Running(tmp_path / "host", mosquitto)
    env = play_environment(tmp_path, '[remote]\nallow = ["league/*"]\n')
    await host.start()
    guest = await asyncio.create_subprocess_exec(
        str(OCHE), "play", "--no-web", "--join", "board1",
        "--screenshot", str(tmp_path / "shot.png"), "--size", "800x480",
        "--set", "board.driver=simulated", "--set", "board.id=home2",
        "--set", f"mqtt.url={mosquitto.url}",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        async with (
            Watcher(mosquitto.host, mosquitto.port, "board1") as at_host,
            Watcher(mosquitto.host, mosquitto.port, "home2") as at_guest,
        ):
            await at_guest.state_where(lambda s: s["board"]["connected"], timeout=30)
            response = await at_host.command(
                {
                    "command": "new_game",
                    "game": "x01",
                    "options": {"start": 301},
                    "players": [{"name": "Cy", "board": "home2"}],
                }
            )
            assert response["ok"], response
            await at_guest.state_where(lambda s: s["phase"] == "throwing" and "remote" in s)
            for command in ("T20", "T20", "T20", "next", "T20", "T19", "D2"):
                order = {"command": "next"} if command == "next" else {"command": "dart"}
                if command != "next":
                    order["segment"] = command
                assert (await at_guest.command(order))["ok"]
            final = await at_host.state_where(lambda s: s["phase"] == "finished")
            assert final["players"][0]["score"] == 0
        out, err = await asyncio.wait_for(guest.communicate(), 60)
    finally:
        if guest.returncode is None:
            guest.kill()
            await guest.wait()
        await host.stop()
        host.board.close()
    stderr = err.decode()
    assert guest.returncode == 0, stderr
    assert "a guest of board1's remote matches: [remote] allow = league/*, oche/board1" in stderr
    assert "Traceback" not in stderr
    assert "x01" in out.decode() and "Cy" in out.decode()
    assert (tmp_path / "shot.png").exists()


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("pub*", "bad board 'pub*': must be letters, digits, '_' and '-' only, not '*'"),
        ("league/", "bad board 'league/': must not be empty"),
        ("pub 1", "not ' '"),
        ("board1", "names this board itself (oche/board1)"),
    ],
)
def test_join_with_a_host_that_is_not_one_other_board_is_a_usage_error(
    tmp_path: Path, host: str, why: str
) -> None:
    result = join(tmp_path, "--join", host, "--set", "mqtt.url=mqtt://127.0.0.1:1")
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"oche play: --join {host!r}") and why in last, last
    assert "Traceback" not in result.stderr and not (tmp_path / "shot.png").exists()


def test_join_without_a_shared_broker_is_a_usage_error(tmp_path: Path) -> None:
    """No mqtt.url: the embedded broker, which the host cannot reach."""
    result = join(tmp_path, "--join", "league/pub1")
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("oche play: --join 'league/pub1': the host must reach the same MQTT")
    assert "mqtt.url is empty" in last and "mqtts://broker.example.org:8883" in last
    assert "Traceback" not in result.stderr and not (tmp_path / "shot.png").exists()


def test_join_with_demo_is_refused(tmp_path: Path) -> None:
    result = join(tmp_path, "--join", "pub1", "--demo", "--set", "mqtt.url=mqtt://127.0.0.1:1")
    assert result.returncode == 2, result.stderr
    assert "oche play: --join plays this board in a host's remote match; --demo" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "shot.png").exists()


def test_play_help_documents_join() -> None:
    result = subprocess.run(
        [str(OCHE), "play", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0
    assert "--join HOST" in result.stdout and "[remote] allow" in result.stdout


def test_play_leaderboard_makes_its_pages_the_lobbys_join_page() -> None:
    """With --leaderboard, the lobby's join code opens the in-process service's
    page; a configured [lobby] web_url stays; a wildcard host is this machine's name."""
    config = parse_config("", "test.toml")
    assert with_lobby_page(config, "127.0.0.1:8080").lobby.web_url == "http://127.0.0.1:8080"
    assert with_lobby_page(config, "[::1]:9000").lobby.web_url == "http://[::1]:9000"
    wildcard = with_lobby_page(config, "0.0.0.0:8080").lobby.web_url
    assert wildcard == f"http://{socket.gethostname()}:8080"
    own = parse_config('[lobby]\nweb_url = "http://pub.local:8080"', "test.toml")
    assert with_lobby_page(own, "127.0.0.1:8080").lobby.web_url == "http://pub.local:8080"
