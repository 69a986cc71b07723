"""Time functions of MicroPython, with CPython stand-ins.

On the board ``time`` has ``ticks_ms``, ``ticks_us``, ``ticks_diff``,
``ticks_add`` and ``sleep_us``; under CPython (the tests, a desktop run) the
same names are built from ``time.monotonic_ns`` with the same wrapping
arithmetic, so code that is right here is right on the board.
Ticks wrap at :data:`TICKS_PERIOD`: compare them only with :func:`ticks_diff`.
"""

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

TICKS_PERIOD = 1 << 30
"""Ticks wrap here (MicroPython's ``TICKS_PERIOD`` on the rp2 and esp32 ports)."""
_TICKS_MAX = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD // 2


def _ticks_ms() -> int:
    return (time.monotonic_ns() // 1_000_000) & _TICKS_MAX


def _ticks_us() -> int:
    return (time.monotonic_ns() // 1_000) & _TICKS_MAX


def _ticks_diff(end: int, start: int) -> int:
    return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF


def _ticks_add(ticks: int, delta: int) -> int:
    return (ticks + delta) & _TICKS_MAX


def _sleep_us(us: int) -> None:
    if us > 0:
        time.sleep(us / 1_000_000)


ticks_ms: "Callable[[], int]" = getattr(time, "ticks_ms", _ticks_ms)
ticks_us: "Callable[[], int]" = getattr(time, "ticks_us", _ticks_us)
ticks_diff: "Callable[[int, int], int]" = getattr(time, "ticks_diff", _ticks_diff)
"""``end - start`` in ticks, right across a wrap (signed, within half a period)."""
ticks_add: "Callable[[int, int], int]" = getattr(time, "ticks_add", _ticks_add)
sleep_us: "Callable[[int], None]" = getattr(time, "sleep_us", _sleep_us)


class Clock:
    """The board's clock. The firmware takes any object with these methods, so
    tests can pass a simulated one."""

    def ticks_ms(self) -> int:
        return ticks_ms()

    def ticks_us(self) -> int:
        return ticks_us()

    def ticks_diff(self, end: int, start: int) -> int:
        return ticks_diff(end, start)

    def ticks_add(self, ticks: int, delta: int) -> int:
        return ticks_add(ticks, delta)

    def sleep_us(self, us: int) -> None:
        if us > 0:
            sleep_us(us)
