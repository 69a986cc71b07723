"""Waiting in the leaderboard's synchronous tests: poll a condition until it
holds, with a deadline generous enough for a busy 2-core machine, and fail
naming what never happened."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["DEADLINE", "eventually"]

T = TypeVar("T")

DEADLINE = 30.0
"""Seconds a test waits for something that should happen at once."""


def eventually(condition: Callable[[], T], what: str, timeout: float = DEADLINE) -> T:
    """``condition()`` once it is truthy; an AssertionError naming ``what``
    after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} ({timeout:g} s)")
        time.sleep(0.05)
