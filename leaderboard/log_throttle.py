"""A warning that may repeat thousands of times a second (a refused live
stream, a full file-descriptor table) logged at most once a minute, with how
many times it happened since: a flood of clients never floods the log."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["THROTTLE_SECONDS", "ThrottledLog"]

THROTTLE_SECONDS = 60.0
"""At most one line of each throttled warning this often."""


class ThrottledLog:
    """``warn(text)`` logs ``text`` the first time, then at most once every
    ``every`` seconds (on ``clock``), saying how many were left out since the
    last line. No traceback is ever attached."""

    def __init__(
        self,
        logger: logging.Logger,
        every: float = THROTTLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._every = every
        self._clock = clock
        self._next_at: float | None = None
        self.left_out = 0
        """Warnings not logged since the last line."""

    def warn(self, text: str) -> bool:
        """Log ``text`` unless a line was logged less than ``every`` seconds
        ago (then count it); whether it was logged."""
        now = self._clock()
        if self._next_at is not None and now < self._next_at:
            self.left_out += 1
            return False
        if self.left_out:
            text = f"{text} ({self.left_out} more since the last such line)"
        self._logger.warning("%s", text)
        self._next_at = now + self._every
        self.left_out = 0
        return True
