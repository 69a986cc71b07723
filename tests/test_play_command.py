"""``oche play --demo``: the whole pipeline in one command, with no board and no
screen: daemon, embedded broker, simulated board and an off-screen display."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygame

OCHE = Path(sys.executable).parent / "oche"


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
