"""The daemon's solving process's own start (``off_loop.SolveWorker``): kept
apart and light, so the process imports nothing of the daemon's to start.

:func:`initialize` lowers the process's priority and has it end itself once
the daemon that started it is gone (a ``kill -9`` leaves no orphan solving).
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["PARENT_CHECK_S", "initialize"]

PARENT_CHECK_S = 1.0
"""How often the solving process checks that its daemon is still there."""


def initialize(parent: int, nice: int) -> None:
    """Run first in the solving process: ``nice`` lower, and a watch that ends
    it once ``parent`` (the daemon's pid) is no longer its parent."""
    os.nice(nice)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """End this process once its parent is gone (reparented: another ppid)."""
    stop = threading.Event()
    while not stop.wait(PARENT_CHECK_S):
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # nothing owed: no one waits for us now
