"""Time functions of MicroPython, with CPython stand-ins.

On the board ``time`` has ``ticks_ms``, ``ticks_us``, ``ticks_diff``,
``ticks_add`` and ``sleep_us``; under CPython (the tests, a desktop run) the
same names are built from ``time.monotonic_ns`` with the same wrapping
arithmetic (:class:`Ticks`), so code that is right here is right on the board.

Ticks wrap at :data:`TICKS_PERIOD`, which differs between ports (2**30 on the
rp2 and esp32 ports, 2**62 on the 64-bit unix port): compare and advance them
only with :func:`ticks_diff` and :func:`ticks_add`, never with ``<`` or ``+``,
and the code is right for any period.
"""

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _native_period() -> int:
    add = getattr(time, "ticks_add", None)
    if add is None:
        return 1 << 30
    return int(add(0, -1)) + 1  # MicroPython: ticks_add(0, -1) is the largest tick


TICKS_PERIOD = _native_period()
"""Ticks wrap here: this port's period on the board, 2**30 under CPython."""


class Ticks:
    """MicroPython's ticks arithmetic for a ticks ``period`` (a power of two):
    :meth:`diff` is ``end - start`` as a signed number within half a period,
    right across a wrap; :meth:`add` moves a tick by ``delta`` (either sign)."""

    def __init__(self, period: int) -> None:
        if period < 4 or period & (period - 1):
            raise ValueError("a ticks period is a power of two, not " + str(period))
        self.period = period
        self._max = period - 1
        self._half = period // 2

    def wrap(self, value: int) -> int:
        """``value`` as a tick (``0 <= tick < period``)."""
        return value & self._max

    def diff(self, end: int, start: int) -> int:
        return ((end - start + self._half) & self._max) - self._half

    def add(self, ticks: int, delta: int) -> int:
        return (ticks + delta) & self._max


_STAND_IN = Ticks(TICKS_PERIOD)


def _ticks_ms() -> int:
    return _STAND_IN.wrap(time.monotonic_ns() // 1_000_000)


def _ticks_us() -> int:
    return _STAND_IN.wrap(time.monotonic_ns() // 1_000)


def _sleep_us(us: int) -> None:
    if us > 0:
        time.sleep(us / 1_000_000)


ticks_ms: "Callable[[], int]" = getattr(time, "ticks_ms", _ticks_ms)
ticks_us: "Callable[[], int]" = getattr(time, "ticks_us", _ticks_us)
ticks_diff: "Callable[[int, int], int]" = getattr(time, "ticks_diff", _STAND_IN.diff)
"""``end - start`` in ticks, right across a wrap (signed, within half a period)."""
ticks_add: "Callable[[int, int], int]" = getattr(time, "ticks_add", _STAND_IN.add)
sleep_us: "Callable[[int], None]" = getattr(time, "sleep_us", _sleep_us)


class Clock:
    """The board's clock. The firmware takes any object with these five
    callables, so tests can pass a simulated one. They are the module's
    functions themselves (instance attributes, not methods), so a call on the
    board costs no extra Python frame."""

    def __init__(self) -> None:
        self.ticks_ms = ticks_ms
        self.ticks_us = ticks_us
        self.ticks_diff = ticks_diff
        self.ticks_add = ticks_add
        self.sleep_us = sleep_us
