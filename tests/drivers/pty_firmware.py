"""The real board firmware at the far end of a :class:`FakeBoard`'s pty.

``firmware_bridge/mcu/main.py`` runs under CPython as the firmware tests run
it (``tests/firmware/mcu.py``, a simulated matrix and clock): what the host
writes to the port goes to the firmware's own host-line handling
(``Firmware.feed_host``: ``?`` and ``C`` frames), and the frames it answers
with go back on the pty. So a serial source is tested against the firmware's
real answers (a hello, ``E`` 1-3, or silence for a setting taken) without a
board. The matrix is not scanned: darts are the FakeBoard's to write.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Any

from tests.drivers.pty_board import FakeBoard
from tests.firmware.fake_machine import SimulatedBoard, SimulatedClock
from tests.firmware.mcu import main

__all__ = ["COL_PINS", "ROW_PINS", "FirmwareOnPty"]

ROW_PINS = tuple(range(8))
COL_PINS = tuple(range(8, 18))
"""An 8x10 matrix, as the serial tests' map."""


class FirmwareOnPty:
    """The firmware answering the host on ``board``, while entered (``async with``).

    ``firmware`` is the running :class:`main.Firmware`; :meth:`restart` puts
    a new one in its place (a board power-cycled: its settings are the
    defaults again) and sends its boot hello."""

    def __init__(self, board: FakeBoard) -> None:
        self.board = board
        self._out = bytearray()
        self.firmware: Any = None
        self._task: asyncio.Task[None] | None = None
        self.restart()

    def restart(self) -> None:
        clock = SimulatedClock()
        matrix = SimulatedBoard(ROW_PINS, COL_PINS, clock=clock)
        config = main.Config(ROW_PINS, COL_PINS)
        self.firmware = main.Firmware(config, matrix.Pin, None, self._out.extend, clock)
        self.firmware.boot()

    async def _serve(self) -> None:
        read = 0
        while True:
            await asyncio.sleep(0.005)
            if not self.board.plugged:
                read = 0
                continue
            received = self.board.read_now()
            if len(received) < read:  # a new pty: it starts empty
                read = 0
            if len(received) > read:
                self.firmware.feed_host(received[read:])
                read = len(received)
            if self._out:
                data = bytes(self._out)
                self._out.clear()
                await self.board.write(data)

    async def __aenter__(self) -> FirmwareOnPty:
        self._task = asyncio.create_task(self._serve())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
