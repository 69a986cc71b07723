"""``oche display`` through the real executable where there is no screen: it
says so and exits 2 at once, instead of drawing off-screen for ever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.cli.display_command import prepare_pygame

OCHE = Path(sys.executable).parent / "oche"

NO_SCREEN = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SDL_AUDIODRIVER", "OCHE_CONFIG")


def no_screen_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NO_SCREEN}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


@pytest.mark.skipif(
    any(Path("/dev/dri").glob("card*")), reason="this machine may have a console screen"
)
def test_display_without_a_screen_exits_2_saying_so(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(OCHE), "display", "--mqtt", "mqtt://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,  # before the fix it ran until killed here
        env=no_screen_env(tmp_path),
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "oche display: there is no screen here (DISPLAY and WAYLAND_DISPLAY are unset): run it "
        "on the desktop, set SDL_VIDEODRIVER (kmsdrm for a console), or use --screenshot PATH\n"
    )
    assert result.stdout == ""


def test_a_screenshot_needs_no_screen_and_makes_no_alsa_noise(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [
            str(OCHE),
            "display",
            "--mqtt",
            "mqtt://127.0.0.1:9",
            "--wait",
            "0.2",
            "--screenshot",
            str(shot),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=no_screen_env(tmp_path),
        check=False,
    )
    assert result.returncode == 2  # no broker on port 9: no state to draw
    assert "no state on oche/board1/state" in result.stderr
    assert "ALSA" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(any(Path("/dev/snd").glob("pcmC*p")), reason="this machine has a sound device")
def test_without_a_sound_device_sdl_gets_its_dummy_audio_driver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    monkeypatch.delenv("PULSE_SERVER", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # no PulseAudio or PipeWire socket
    prepare_pygame(render_only=False)
    assert os.environ["SDL_AUDIODRIVER"] == "dummy"
    (tmp_path / "pipewire-0").touch()  # a sound server: SDL picks its own driver
    monkeypatch.delenv("SDL_AUDIODRIVER")
    prepare_pygame(render_only=False)
    assert "SDL_AUDIODRIVER" not in os.environ
