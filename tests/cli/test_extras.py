"""The optional extras (pyproject.toml): a command whose extra is missing says
which to install, and the headless daemon imports no extra at all.

A ``sitecustomize`` on ``PYTHONPATH`` stands in for an install without an
extra: it sets ``sys.modules[name] = None`` for each module in
``$OCHE_TEST_BLOCK``, so importing it fails as if it were not installed, and
at exit writes the extras' modules that were loaded to ``$OCHE_TEST_LOADED``.
The commands run through the real ``oche`` console script."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.cli.command_support import EXTRAS
from tests.daemon_harness import TIMEOUT, Watcher, config_text, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker, free_port

OCHE = Path(sys.executable).parent / "oche"

SITECUSTOMIZE = f"""\
import atexit
import os
import sys

for _name in os.environ.get("OCHE_TEST_BLOCK", "").split():
    sys.modules[_name] = None


def _loaded():
    extras = {sorted(EXTRAS)!r}
    names = {{name.partition(".")[0] for name, module in sys.modules.items() if module}}
    with open(os.environ["OCHE_TEST_LOADED"], "w") as out:
        out.write(" ".join(sorted(names & set(extras))))


if os.environ.get("OCHE_TEST_LOADED"):
    atexit.register(_loaded)
"""


def environment(tmp_path: Path, block: str = "", loaded: Path | None = None) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, "utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "OCHE_TEST_BLOCK": block,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
    }
    env.pop("OCHE_CONFIG", None)
    if loaded is not None:
        env["OCHE_TEST_LOADED"] = str(loaded)
    return env


def test_the_blocker_works(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import pygame"],
        env=environment(tmp_path, "pygame"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "import of pygame halted" in result.stderr


@pytest.mark.parametrize(
    ("command", "block", "extra", "module"),
    [
        pytest.param("display --screenshot s.png", "pygame", "display", "pygame", id="display"),
        pytest.param("play --demo --screenshot s.png", "pygame", "display", "pygame",
                     id="play-display"),
        pytest.param("play --demo --screenshot s.png", "amqtt", "broker", "amqtt",
                     id="play-broker"),
        pytest.param("play --demo --leaderboard --screenshot s.png", "sqlalchemy", "leaderboard",
                     "sqlalchemy", id="play-leaderboard"),
        pytest.param("run --set board.driver=simulated --set mqtt.embedded_port={port}", "amqtt",
                     "broker", "amqtt", id="run-broker"),
        pytest.param("monitor --driver usb --vid 2e8a --pid 000a", "libusb_package usb", "usb",
                     "libusb_package", id="monitor-usb"),
        pytest.param("monitor --driver granboard", "bleak", "ble", "bleak", id="monitor-granboard"),
        pytest.param("calibrate --driver granboard", "bleak", "ble", "bleak",
                     id="calibrate-granboard"),
        pytest.param("cards monitor --reader evdev:/dev/input/event0", "evdev", "cards", "evdev",
                     id="cards-monitor-evdev"),
        pytest.param("run --set board.driver=simulated --set mqtt.embedded_port={port} "
                     "--set cards.reader=pcsc", "smartcard", "cards", "smartcard",
                     id="run-cards-pcsc"),
    ],
)  # fmt: skip
def test_a_missing_extra_names_what_to_install(
    tmp_path: Path, command: str, block: str, extra: str, module: str
) -> None:
    args = command.format(port=free_port()).split()
    result = subprocess.run(
        [str(OCHE), *args],
        env=environment(tmp_path, block),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    # The embedded broker has another way out: a broker of one's own.
    other_broker = (
        ", or use an MQTT broker of your own: --set mqtt.url=mqtt://HOST:1883 "
        "(or [mqtt] url in the config)"
        if extra == "broker"
        else ""
    )
    assert result.stderr == (
        f"oche {args[0]}: this needs {module}, which is not installed: "
        f"pip install 'oche[{extra}]'{other_broker}\n"
    )
    assert not (tmp_path / "s.png").exists()


async def test_the_headless_daemon_imports_no_extra(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """``oche run`` with an external broker and a serial board: no pygame, numpy,
    amqtt, pyusb or mpremote, so a Pi needs none of the extras."""
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    loaded = tmp_path / "loaded.txt"
    daemon = subprocess.Popen(
        [str(OCHE), "run", "--config", str(config)],
        env=environment(tmp_path, loaded=loaded),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]})
        await throw(board, "T20")
        await watcher.state_where(lambda s: s.get("visit") == ["T20"])
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(TIMEOUT) == 0, daemon.stderr.read() if daemon.stderr else ""
    finally:
        if daemon.poll() is None:
            daemon.kill()
        board.close()
    assert loaded.read_text("utf-8") == ""
