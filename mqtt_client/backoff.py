"""How long to wait before the next attempt: ``start`` seconds, doubling per
failure up to ``cap``, each wait scaled by a random factor in ``1 +- jitter``,
back to ``start`` after a success. Pure: no I/O, no clock, and it imports
nothing but :mod:`random` (whose ``uniform`` a test replaces), so the board
drivers use it for their serial and USB reconnects as the MQTT clients do."""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["Backoff"]


class Backoff:
    """Reconnect delays; :meth:`next_delay` after each failure, :meth:`reset` after a success.

    ``uniform(a, b)`` draws the jitter factor (:func:`random.uniform` unless a
    test passes its own); with ``jitter`` 0 it is never called."""

    def __init__(
        self,
        start: float,
        cap: float,
        jitter: float = 0.0,
        *,
        uniform: Callable[[float, float], float] = random.uniform,
    ) -> None:
        if not 0 < start <= cap:
            raise ValueError(f"a backoff needs 0 < start <= cap, got {start} and {cap}")
        if not 0 <= jitter < 1:
            raise ValueError(f"jitter is a fraction from 0 to below 1, got {jitter}")
        self.start = start
        self.cap = cap
        self.jitter = jitter
        self._uniform = uniform
        self._failures = 0

    @property
    def failures(self) -> int:
        """Delays handed out since the last :meth:`reset`."""
        return self._failures

    def nominal(self) -> float:
        """The next delay before its jitter: ``start * 2**failures``, at most ``cap``."""
        # Capped in the exponent too: 2.0**failures overflows after 1,023 failures.
        return min(self.cap, self.start * 2.0 ** min(self._failures, 64))

    def next_delay(self) -> float:
        """The seconds to wait before the next attempt; the one after it is longer."""
        delay = self.nominal()
        self._failures += 1
        if self.jitter == 0:
            return delay
        return delay * self._uniform(1 - self.jitter, 1 + self.jitter)

    def reset(self) -> None:
        """A success: the next delay is ``start`` again."""
        self._failures = 0
