"""The real board firmware at the far end of a :class:`FakeBoard`'s pty.

``firmware_bridge/mcu/main.py`` runs under CPython as the firmware tests run
it (``tests/firmware/mcu.py``, a simulated matrix and clock): what the host
writes to the port goes to the firmware's own host-line handling
(``Firmware.feed_host``: ``?`` and ``C`` frames), and the frames it answers
with go back on the pty. So a serial source is tested against the firmware's
real answers (a hello, ``E`` 1-3, or silence for a setting taken) without a
board. The matrix is not scanned: :meth:`FirmwareOnPty.hit` sends a dart's
``H`` frame as the firmware reports one, numbered in the firmware's own count
(a frame the FakeBoard builds has a count of its own, which the host sees as
lost frames when it falls between the firmware's).

With ``coin_inputs`` (1 or 2) the firmware has coin mechanisms on
:data:`COIN_PINS`: :meth:`FirmwareOnPty.coin` gives a pulse on one, which the
firmware's own filter counts and reports in a real ``P`` frame (and every
hello, the answer to the ``?`` a host sends when it connects, is followed by
a ``P`` frame per input with its running count).
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Any

from tests.drivers.pty_board import FakeBoard
from tests.firmware.fake_machine import SimulatedBoard, SimulatedClock
from tests.firmware.mcu import main

__all__ = ["COIN_PINS", "COL_PINS", "ROW_PINS", "FirmwareOnPty"]

ROW_PINS = tuple(range(8))
COL_PINS = tuple(range(8, 18))
"""An 8x10 matrix, as the serial tests' map."""
COIN_PINS = (20, 21)
"""The coin mechanisms' lines: coin input 1, then 2."""
PULSE_MS = 50
"""How long :meth:`FirmwareOnPty.coin` holds a line low: a mid-range coin pulse."""
REST_MS = 40
"""How long it lets the line rest after a pulse (more than the firmware's gap)."""


class FirmwareOnPty:
    """The firmware answering the host on ``board``, while entered (``async with``).

    ``firmware`` is the running :class:`main.Firmware`; :meth:`restart` puts
    a new one in its place (a board power-cycled: its settings are the
    defaults again, its coin counts 0 under a new boot id) and sends its boot
    hello. ``coin_inputs`` coin mechanisms (0-2) are wired to :data:`COIN_PINS`."""

    def __init__(self, board: FakeBoard, coin_inputs: int = 0) -> None:
        if not 0 <= coin_inputs <= len(COIN_PINS):
            raise ValueError(f"coin_inputs is 0 to {len(COIN_PINS)}, not {coin_inputs}")
        self.board = board
        self.coin_pins = COIN_PINS[:coin_inputs]
        self.matrix: SimulatedBoard | None = None
        self._out = bytearray()
        self.firmware: Any = None
        self._task: asyncio.Task[None] | None = None
        self.restart()

    def restart(self) -> None:
        clock = SimulatedClock()
        self.matrix = matrix = SimulatedBoard(ROW_PINS, COL_PINS, clock=clock)
        config = main.Config(ROW_PINS, COL_PINS, coin_pins=self.coin_pins)
        self.firmware = main.Firmware(config, matrix.Pin, None, self._out.extend, clock)
        self.firmware.boot()
        self._run_ms(REST_MS)  # the coin lines rest: the firmware counts from now

    @property
    def boot_id(self) -> str:
        """The running firmware's boot id, as its ``P`` frames carry it."""
        return str(self.firmware.boot_id)

    def counts(self) -> list[int]:
        """The running firmware's coin counts, input 1 first."""
        return list(self.firmware.coins.counts)

    def coin(self, coin_input: int = 1, pulses: int = 1) -> None:
        """``pulses`` coin pulses on coin input ``coin_input`` (1 or 2): the
        line is held low :data:`PULSE_MS`, then rests :data:`REST_MS`, while
        the firmware scans it (in simulated time, at once). Each pulse's ``P``
        frame goes out on the pty with the next write, or when the board is
        plugged in again."""
        if not 1 <= coin_input <= len(self.coin_pins):
            raise ValueError(f"this board has coin inputs 1 to {len(self.coin_pins)}")
        assert self.matrix is not None
        pin = self.coin_pins[coin_input - 1]
        for _ in range(pulses):
            self.matrix.low.add(pin)
            self._run_ms(PULSE_MS)
            self.matrix.low.discard(pin)
            self._run_ms(REST_MS)

    def hit(self, row: int, col: int) -> None:
        """A dart in the matrix cell (``row``, ``col``): its ``H`` frame, in
        the firmware's own sequence, goes out in order with its answers."""
        self.firmware.send(main.frames.HIT, (row, col))

    def _run_ms(self, ms: int) -> None:
        """Scan once a simulated millisecond for ``ms``."""
        for _ in range(ms):
            self.firmware.clock.advance_ms(1)
            self.firmware.tick()

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
