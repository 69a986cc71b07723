"""``oche play --demo``: the whole pipeline in one command, with no board and no
screen: daemon, embedded broker, simulated board and an off-screen display."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygame
import pytest
from paho.mqtt.publish import single

from engine import new_game
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"


@pytest.mark.slow
def test_the_demo_plays_a_game_to_its_winner_and_saves_the_scoreboard(tmp_path: Path) -> None:
    shot = tmp_path / "demo.png"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    result = subprocess.run(
        [str(OCHE), "play", "--demo", "--screenshot", str(shot), "--size", "800x480"],
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


def play(tmp_path: Path, *sets: str) -> subprocess.CompletedProcess[str]:
    """``oche play`` on a simulated board, off-screen, with these ``--set`` values."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "OCHE_CONFIG", "JOURNAL_STREAM")
    }
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    argv = [str(OCHE), "play", "--screenshot", str(tmp_path / "shot.png"), "--size", "800x480"]
    argv += ["--set", "board.driver=simulated", "--set", "board.name=Mine"]
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
