"""Reads the contact matrix and the dedicated buttons with ``machine.Pin``.

Every row and column idles as an input with its pull-up. To scan a row, the
row is driven low (an output), the lines settle for ``settle_us``, every
column is read (a closed contact pulls its column low) and the row goes back
to being an input. Rows are scanned one at a time, so a stuck-low row cannot
short another row's output.

A scan writes the raw matrix into a ``bytearray`` made once (:attr:`raw`, one
byte a cell, 1 for closed) and allocates nothing.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Callable, Sequence
    from typing import Any

    from firmware_bridge.mcu.compat import sleep_us
else:  # on the board they are top-level modules
    from compat import sleep_us


def machine_pin() -> "Any":
    """``machine.Pin``, imported when first needed (so the tests can put a fake
    ``machine`` module in ``sys.modules`` first)."""
    import machine  # type: ignore[import-not-found]

    return machine.Pin


class MatrixScanner:
    """Scans a matrix of ``len(row_pins)`` rows by ``len(col_pins)`` columns.
    ``pin`` is the ``machine.Pin`` class (or a stand-in with the same
    interface); ``sleep_us`` waits the settle time. Cell ``(row, col)`` is
    ``raw[row * len(col_pins) + col]``."""

    def __init__(
        self,
        row_pins: "Sequence[Any]",
        col_pins: "Sequence[Any]",
        settle_us: int = 10,
        pin: "Any" = None,
        sleep: "Callable[[int], None] | None" = None,
    ) -> None:
        pin_class = pin if pin is not None else machine_pin()
        self._in = pin_class.IN
        self._out = pin_class.OUT
        self._pull_up = pin_class.PULL_UP
        self.rows = [pin_class(number, pin_class.IN, pin_class.PULL_UP) for number in row_pins]
        self.cols = [pin_class(number, pin_class.IN, pin_class.PULL_UP) for number in col_pins]
        self.settle_us = settle_us
        self._sleep_us = sleep if sleep is not None else sleep_us
        self.raw = bytearray(len(self.rows) * len(self.cols))
        """The raw matrix of the last scan: 1 for a closed cell."""

    def scan(self) -> int:
        """Read every cell into :attr:`raw`; returns how many are closed."""
        raw = self.raw
        cols = self.cols
        ncols = len(cols)
        settle_us = self.settle_us
        closed = 0
        cell = 0
        for r in range(len(self.rows)):
            row = self.rows[r]
            row.init(self._out, value=0)
            self._sleep_us(settle_us)
            for c in range(ncols):
                if cols[c].value():
                    raw[cell] = 0
                else:
                    raw[cell] = 1
                    closed += 1
                cell += 1
            row.init(self._in, self._pull_up)
        return closed

    def closed_cells(self) -> "set[tuple[int, int]]":
        """The closed cells of the last scan as ``(row, col)`` (allocates: for
        tests and tools, not the scan loop)."""
        ncols = len(self.cols)
        return {(cell // ncols, cell % ncols) for cell in range(len(self.raw)) if self.raw[cell]}


class ButtonReader:
    """Dedicated buttons outside the matrix: each pin an input with its pull-up,
    pressed when low (a button between the pin and ground)."""

    def __init__(self, pins: "Sequence[Any]", pin: "Any" = None) -> None:
        pin_class = pin if pin is not None else machine_pin()
        self.pins = [pin_class(number, pin_class.IN, pin_class.PULL_UP) for number in pins]
        self.raw = bytearray(len(self.pins))
        """The buttons of the last scan (0-based, in config order): 1 for pressed."""

    def scan(self) -> int:
        """Read every button into :attr:`raw`; returns how many are pressed."""
        raw = self.raw
        pins = self.pins
        pressed = 0
        for index in range(len(pins)):
            if pins[index].value():
                raw[index] = 0
            else:
                raw[index] = 1
                pressed += 1
        return pressed

    def pressed(self) -> "set[int]":
        """The pressed buttons of the last scan (allocates: for tests and tools)."""
        return {index for index in range(len(self.raw)) if self.raw[index]}
