"""Card taps through the daemon's input: the card reader runs beside the
board (a keyboard-wedge reader through a fake device at evdev's boundary,
and ``card:UID`` in a simulated board's script), each tap is offered on the
bus as a ``BoardInputReceived`` (the lobby's claim), the reader's connection
is not the board's, a reader that fails stops nothing, and the UID reaches
no log line and no MQTT message."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from drivers.board_events import CardTapped
from drivers.card_wedge import KeyboardWedgeReader
from drivers.simulated import SimulatedSource
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from mqtt_client.backoff import Backoff
from tests.daemon_harness import Watcher, config_text, throw, until
from tests.drivers.fake_evdev import FakeInputDevices
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

READER = "/dev/input/by-id/usb-Card_Reader-event-kbd"
UID = "0012345678"
SECRET_UID = "04A21B3F2A5C80"


class Claims:
    """Every card tap offered on the bus, taken before the lobby sees it."""

    def __init__(self, daemon: Daemon) -> None:
        self.taps: list[CardTapped] = []
        daemon.bus.subscribe(core_events.BoardInputReceived, self.received, order=-2)

    def received(self, offered: core_events.BoardInputReceived) -> bool | None:
        if isinstance(offered.event, CardTapped):
            self.taps.append(offered.event)
            return True
        return None


def no_uid_anywhere(caplog: pytest.LogCaptureFixture, watcher: Watcher, *uids: str) -> None:
    logged = "\n".join(record.getMessage() for record in caplog.records)
    published = "\n".join(json.dumps(payload) for _, payload in watcher.messages)
    for uid in uids:
        assert uid not in logged, logged
        assert uid not in published


async def test_a_tap_on_the_reader_reaches_the_bus_and_no_log(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    board = FakeBoard(tmp_path / "oche-board")
    config = parse_config(config_text(tmp_path, mosquitto.url, board.link), "test.toml")
    devices = FakeInputDevices()
    device = devices.plug(READER)
    reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=Backoff(0.01, 0.05))
    daemon = Daemon(config, card_reader=reader)
    claims = Claims(daemon)
    task = asyncio.create_task(daemon.run())
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await until(lambda: device.grabbed)
        device.type(f"{UID}\n")
        await until(lambda: claims.taps == [CardTapped(UID)])
        # The reader going away is the reader's, not the board's.
        devices.unplug(READER)
        await until(lambda: "went away" in caplog.text)
        await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
        await throw(board, "T20")
        state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
        assert state["board"]["connected"] and state["board"]["problem"] is None
        back = devices.plug(READER)
        await until(lambda: back.grabbed)
        states = len(watcher.of("state"))
        back.type(f"{SECRET_UID}\n")
        await until(lambda: claims.taps[-1:] == [CardTapped(SECRET_UID)])
        await until(lambda: len(watcher.of("state")) > states)  # the state after the tap
        assert watcher.of("state")[-1]["visit"] == ["T20"]  # a tap is never scored
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        board.close()
    assert not back.grabbed  # released as the daemon stops
    no_uid_anywhere(caplog, watcher, UID, SECRET_UID)


async def test_an_unclaimed_tap_and_a_failing_reader_stop_nothing(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The lobby refuses a tap (no card secret) and the reader cannot be
    opened: the simulated board's own card:UID is logged masked, never
    scored, and the board plays on."""
    caplog.set_level(logging.DEBUG)
    config = parse_config(config_text(tmp_path, mosquitto.url, tmp_path / "unused"), "test.toml")
    devices = FakeInputDevices()
    devices.plug(READER)
    devices.denied.add(READER)
    reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=Backoff(0.01, 0.05))
    source = SimulatedSource(f"card:{SECRET_UID} T20", hold_open=True)
    daemon = Daemon(config, source=source, card_reader=reader)
    task = asyncio.create_task(daemon.run())
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await until(lambda: "[cards] secret is not set: no card joins" in caplog.text)
        await until(lambda: "no permission to read" in caplog.text)
        await until(lambda: devices.attempts >= 3)  # still trying, the board unaffected
        state = await watcher.state_where(lambda s: s["board"]["connected"])
        assert state["board"]["problem"] is None
        assert not task.done()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert "\u2022\u2022\u2022\u20225C80" in caplog.text  # the masked form is what is logged
    no_uid_anywhere(caplog, watcher, SECRET_UID)


async def test_the_configured_reader_runs_beside_the_board(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``[cards] reader`` alone: the daemon opens it (real evdev, a reader
    not plugged in) and says why it cannot read it, and the board plays on."""
    missing = tmp_path / "by-id" / "usb-Card_Reader-event-kbd"
    board = FakeBoard(tmp_path / "oche-board")
    extra = f'[cards]\nreader = "evdev:{missing}"\n'
    config = parse_config(
        config_text(tmp_path, mosquitto.url, board.link, extra=extra), "test.toml"
    )
    daemon = Daemon(config)
    task = asyncio.create_task(daemon.run())
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await until(lambda: f"{missing} does not exist: is the reader plugged in?" in caplog.text)
        await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann"]})
        await throw(board, "T20")
        state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
        assert state["board"]["problem"] is None
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        board.close()
