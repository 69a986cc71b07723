"""The display end to end: a real Mosquitto, the daemon in this process with
a fake board on a pseudo-terminal, and the display's MQTT feed and
``--screenshot`` path. The screenshots must show what the daemon published.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygame
import pytest

from display.app import EXIT_NO_STATE, render_state
from display.layout import Layout
from display.scenes import X01Scene
from display.state_feed import StateFeed
from firmware_bridge import display_command
from tests.daemon_harness import Running, Watcher, throw
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
SIZE = (1024, 576)


def display_args(*argv: str) -> argparse.Namespace:
    """``oche display ARGV`` parsed by the command's own parser."""
    parser = argparse.ArgumentParser(prog="oche")
    commands = parser.add_subparsers(dest="command", required=True)
    display_command.add_parser(commands)
    return parser.parse_args(["display", *argv])


async def screenshot(broker: MosquittoBroker, path: Path, *extra: str) -> int:
    args = display_args(
        "--mqtt", broker.url, "--board", "board1", "--base", "oche",
        "--size", f"{SIZE[0]}x{SIZE[1]}", "--screenshot", str(path), "--wait", "5", *extra,
    )  # fmt: skip
    # The display blocks while it waits; the daemon keeps running on this loop.
    status: int = await asyncio.to_thread(args.run, args)
    return status


def card_pixels(path: Path, state: dict[str, Any], index: int) -> bytes:
    image = pygame.image.load(str(path))
    layout = Layout(*SIZE)
    scene = X01Scene()
    card = scene.card_rects(layout, scene.regions(layout)["main"], len(state["players"]))[index]
    return pygame.image.tobytes(image.subsurface(card), "RGB")


async def test_screenshot_shows_the_daemons_state(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 501}, "players": ["Ann", "Bob"]}
    )
    assert response["ok"], response
    fresh = await watcher.state_where(lambda s: s.get("game") == "x01")
    before = tmp_path / "before.png"
    assert await screenshot(mosquitto, before) == 0

    await throw(running.board, "T20", "T20")
    state = await watcher.state_where(lambda s: s.get("visit") == ["T20", "T20"])
    assert state["players"][0]["score"] == 381
    after = tmp_path / "shots" / "after.png"  # the folder is made
    assert await screenshot(mosquitto, after) == 0

    for path in (before, after):
        assert path.exists()
        assert pygame.image.load(str(path)).get_size() == SIZE
    # Ann's card changed (501 -> 381), Bob's did not.
    assert card_pixels(before, fresh, 0) != card_pixels(after, state, 0)
    assert card_pixels(before, fresh, 1) == card_pixels(after, state, 1)
    # The screenshot is exactly the daemon's latest state, rendered.
    expected = render_state(state, SIZE, "online")
    shot = pygame.image.load(str(after))
    assert pygame.image.tobytes(shot, "RGB") == pygame.image.tobytes(expected, "RGB")


async def test_screenshot_without_a_state_exits_2(
    mosquitto: MosquittoBroker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "none.png"
    args = display_args(
        "--mqtt", mosquitto.url, "--board", "nobody", "--screenshot", str(path), "--wait", "0.5"
    )
    status = await asyncio.to_thread(args.run, args)
    assert status == EXIT_NO_STATE == 2
    assert not path.exists()
    err = capsys.readouterr().err
    assert "no state on oche/nobody/state" in err
    assert "oche run" in err


async def test_feed_sends_commands_follows_availability_and_reconnects(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    await watcher.command({"command": "new_game", "game": "cricket", "players": ["Ann", "Bob"]})
    feed = StateFeed(mosquitto.url, "board1", "oche")  # no I/O yet
    assert feed.state is None and not feed.connected
    with feed:
        state = await asyncio.to_thread(feed.wait_for_state, 5.0)
        assert state is not None and state["game"] == "cricket"
        assert feed.availability == "online"
        serial = feed.state_serial
        # n/u/m keys send next/undo/miss: here the feed's send_command directly
        assert (await asyncio.wrap_future(feed.send_command({"command": "miss"}))) is True
        await watcher.state_where(lambda s: s.get("visit") == ["M"])
        state = await asyncio.to_thread(feed.wait_for_state, 5.0, serial)
        assert state is not None
        for _ in range(50):
            if (feed.state or {}).get("visit") == ["M"]:
                break
            await asyncio.sleep(0.05)
        assert (feed.state or {}).get("visit") == ["M"]
        kinds = [event.get("type") for event in feed.events()]
        assert "dart" in kinds
        assert feed.events() == []  # drained

        # The broker goes away and comes back: the feed reconnects by itself.
        mosquitto.stop()
        for _ in range(100):
            if not feed.connected:
                break
            await asyncio.sleep(0.05)
        assert not feed.connected
        mosquitto.start()
        for _ in range(200):
            if feed.connected:
                break
            await asyncio.sleep(0.05)
        assert feed.connected

        # The daemon stops: availability goes offline, the last state stays.
        await running.stop()
        for _ in range(100):
            if feed.availability == "offline":
                break
            await asyncio.sleep(0.05)
        assert feed.availability == "offline"
        assert feed.state is not None and feed.state["game"] == "cricket"
    assert not feed.connected
    done = feed.send_command({"command": "next"})
    assert done.result(1) is False  # closed: nothing is sent


def test_oche_display_console_script(mosquitto: MosquittoBroker, tmp_path: Path) -> None:
    """Through the installed ``oche`` script, once cli.py registers the command."""
    from firmware_bridge import cli

    help_text = subprocess.run(
        [sys.executable, "-c", "from firmware_bridge.cli import main; main(['--help'])"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    if " display" not in help_text or not OCHE.exists():
        pytest.skip("oche display is not registered in firmware_bridge/cli.py yet")
    assert cli is not None
    result = subprocess.run(
        [str(OCHE), "display", "--mqtt", mosquitto.url, "--board", "ghost", "--screenshot",
         str(tmp_path / "x.png"), "--wait", "0.3"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "no state" in result.stderr
