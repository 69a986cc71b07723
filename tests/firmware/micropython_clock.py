"""The simulated board clock the MicroPython test scripts share (micropython_check,
micropython_alloc): microseconds that the scripts advance, read through a Pico's
or an ESP32's 2**30 ticks, which wrap ``wrap_after_ms`` into the run.

Written for MicroPython and CPython alike (annotations only, no typing at run
time); test_micropython.py puts this folder on the module path beside the firmware.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import compat
else:
    import compat

BOARD = compat.Ticks(1 << 30)
"""The ticks of a Pico or an ESP32, simulated."""


class Clock:
    """Simulated microseconds with the board's ticks."""

    def __init__(self, wrap_after_ms: int) -> None:
        self.us = (BOARD.period - wrap_after_ms) * 1000

    def ticks_ms(self) -> int:
        return BOARD.wrap(self.us // 1000)

    def ticks_us(self) -> int:
        return BOARD.wrap(self.us)

    def ticks_diff(self, end: int, start: int) -> int:
        return BOARD.diff(end, start)

    def ticks_add(self, ticks: int, delta: int) -> int:
        return BOARD.add(ticks, delta)

    def sleep_us(self, us: int) -> None:
        if us > 0:
            self.us += us
