"""Fixtures shared by the whole suite."""

from __future__ import annotations

import logging
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
    async with Running(tmp_path, mosquitto) as daemon:
        yield daemon


@pytest.fixture
async def watcher(mosquitto: MosquittoBroker) -> AsyncIterator[Watcher]:
    """An MQTT client recording everything under ``oche/board1/#``."""
    async with Watcher(mosquitto.host, mosquitto.port) as watching:
        yield watching


@pytest.fixture(autouse=True)
def root_logging() -> Iterator[None]:
    """The root logger's handlers and level as they were before the test:
    ``oche``'s ``main()``, run in-process by CLI tests, sets up logging for
    the whole process, which must not leak into the next test."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
