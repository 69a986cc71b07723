"""The daemon's solving process's own start (``off_loop.SolveWorker``): kept
apart and light, so the process imports nothing of the daemon's to start.

:func:`initialize` lowers the process's priority and has it end itself once
the daemon that started it is gone (a ``kill -9`` leaves no orphan solving).
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["ONE_THREAD", "PARENT_CHECK_S", "initialize"]

PARENT_CHECK_S = 1.0
"""How often the solving process checks that its daemon is still there."""

ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""numpy's math libraries, held to one thread each in the solving process:
one solve at a time gains nothing from more, and on a busy 2-core board
their threads fighting the daemon's made a plan's solve about ten times
slower (benchmarks/calibrate_bots.py measured it)."""


def initialize(parent: int, nice: int) -> None:
    """Run first in the solving process: ``nice`` lower, and a watch that ends
    it once ``parent`` (the daemon's pid) is no longer its parent; numpy,
    not imported yet, will use one thread (unless the environment says)."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")
    os.nice(nice)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """End this process once its parent is gone (reparented: another ppid)."""
    stop = threading.Event()
    while not stop.wait(PARENT_CHECK_S):
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # nothing owed: no one waits for us now
