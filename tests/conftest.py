"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.daemon_harness import Running, Watcher
from tests.mosquitto_broker import MosquittoBroker


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[MosquittoBroker]:
    """A fresh Mosquitto on a free loopback port, stopped after the test."""
    broker = MosquittoBroker(tmp_path / "mosquitto")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
async def running(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Running]:
    """The daemon in this process on a fake pty board, talking to ``mosquitto``."""
    daemon = Running(tmp_path, mosquitto)
    await daemon.start()
    try:
        yield daemon
    finally:
        await daemon.stop()
        daemon.board.close()


@pytest.fixture
async def watcher(mosquitto: MosquittoBroker) -> AsyncIterator[Watcher]:
    """An MQTT client recording everything under ``oche/board1/#``."""
    async with Watcher(mosquitto.host, mosquitto.port) as watching:
        yield watching
