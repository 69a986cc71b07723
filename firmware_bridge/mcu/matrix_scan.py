"""Reads the contact matrix and the dedicated buttons with ``machine.Pin``.

Every row and column idles as an input with its pull-up. To scan a row, the
row is driven low (an output), the lines settle for ``settle_us``, every
column is read (a closed contact pulls its column low) and the row goes back
to being an input. Rows are scanned one at a time, so a stuck-low row cannot
short another row's output.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Callable, Collection, Sequence
    from typing import Any

    from firmware_bridge.mcu.compat import sleep_us
else:  # on the board they are top-level modules
    from compat import sleep_us

_NOTHING_CLOSED = ()


def machine_pin() -> "Any":
    """``machine.Pin``, imported when first needed (so the tests can put a fake
    ``machine`` module in ``sys.modules`` first)."""
    import machine  # type: ignore[import-not-found]

    return machine.Pin


class MatrixScanner:
    """Scans a matrix of ``len(row_pins)`` rows by ``len(col_pins)`` columns.
    ``pin`` is the ``machine.Pin`` class (or a stand-in with the same
    interface); ``sleep_us`` waits the settle time."""

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

    def scan(self) -> "Collection[tuple[int, int]]":
        """The closed cells, as a set of ``(row, col)``; when none is closed, an
        empty tuple (so an idle board allocates nothing)."""
        closed: set[tuple[int, int]] | None = None
        cols = self.cols
        ncols = len(cols)
        settle_us = self.settle_us
        for r in range(len(self.rows)):
            row = self.rows[r]
            row.init(self._out, value=0)
            self._sleep_us(settle_us)
            for c in range(ncols):
                if not cols[c].value():
                    if closed is None:
                        closed = set()
                    closed.add((r, c))
            row.init(self._in, self._pull_up)
        return _NOTHING_CLOSED if closed is None else closed


class ButtonReader:
    """Dedicated buttons outside the matrix: each pin an input with its pull-up,
    pressed when low (a button between the pin and ground)."""

    def __init__(self, pins: "Sequence[Any]", pin: "Any" = None) -> None:
        pin_class = pin if pin is not None else machine_pin()
        self.pins = [pin_class(number, pin_class.IN, pin_class.PULL_UP) for number in pins]

    def scan(self) -> "Collection[int]":
        """The numbers (0-based, in config order) of the pressed buttons."""
        pressed: set[int] | None = None
        pins = self.pins
        for index in range(len(pins)):
            if not pins[index].value():
                if pressed is None:
                    pressed = set()
                pressed.add(index)
        return _NOTHING_CLOSED if pressed is None else pressed
