"""A share of one core for a process, as a Raspberry Pi-class budget for the
benchmarks: the daemon limited to a quarter of one core.

Three ways, the first this machine allows (``CpuLimit.best`` picks it, and
:attr:`CpuLimit.how` says which the figures were taken with):

- **cgroup v2**: a child group of the unified hierarchy with ``cpu.max`` set
  to ``quota period`` (what ``systemd-run -p CPUQuota=25%`` writes);
- **cgroup v1**: a child of the ``cpu`` controller's hierarchy with
  ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us``;
- **duty cycle**: a thread that watches the process's CPU time every
  ``period`` and stops it (``SIGSTOP``) for the rest of the period once it
  used its share, then lets it go on (``SIGCONT``). Coarser (it sees the CPU
  in clock ticks), but it needs no privileges.

The period is 10 ms (the kernel's least quota is 1 ms): a quarter of a core
is then 2.5 ms of every 10 ms, so a process is held back within a dart, as a
slower CPU would hold it, and not for 75 ms once every 100 ms.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["PERIOD_US", "CpuLimit"]

PERIOD_US = 10_000
"""The period each limit is counted over, in microseconds."""

_V2 = Path("/sys/fs/cgroup")
_V1 = Path("/sys/fs/cgroup/cpu")


class CpuLimit:
    """``fraction`` of one core for each process :meth:`add` is given; :meth:`close` ends it."""

    def __init__(self, fraction: float, how: str, group: Path | None) -> None:
        self.fraction = fraction
        self.how = how
        """Which way the limit is kept, in words (for the benchmark's table)."""
        self._group = group
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @classmethod
    def best(cls, fraction: float, name: str) -> CpuLimit:
        """The first way this machine allows (see the module docstring);
        ``name`` names the cgroup (made under the root, removed by :meth:`close`)."""
        quota = max(1_000, round(fraction * PERIOD_US))
        shown = f"{quota / 1000:g} ms of every {PERIOD_US / 1000:g} ms"
        with contextlib.suppress(OSError):
            if "cpu" in (_V2 / "cgroup.controllers").read_text().split():
                (_V2 / "cgroup.subtree_control").write_text("+cpu")
                group = _V2 / name
                group.mkdir(exist_ok=True)
                (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
                return cls(fraction, f"cgroup v2 cpu.max ({shown})", group)
        with contextlib.suppress(OSError):
            if (_V1 / "cpu.cfs_quota_us").exists():
                group = _V1 / name
                group.mkdir(exist_ok=True)
                (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (group / "cpu.cfs_quota_us").write_text(str(quota))
                return cls(fraction, f"cgroup v1 cpu.cfs_quota_us ({shown})", group)
        return cls(fraction, f"SIGSTOP/SIGCONT duty cycle ({shown}, in clock ticks)", None)

    def add(self, pid: int) -> None:
        """Limit ``pid`` (and every thread it has or starts) from now on."""
        if self._group is not None:
            (self._group / "cgroup.procs").write_text(str(pid))
            return
        thread = threading.Thread(target=self._duty_cycle, args=(pid,), daemon=True)
        thread.start()
        self._threads.append(thread)

    @contextlib.contextmanager
    def confining(self) -> Iterator[None]:
        """This process limited while inside (the floor's samples, measured
        under the same budget as the daemon); a no-op for the duty cycle,
        which cannot stop the process that runs it."""
        if self._group is None:
            yield
            return
        home = _own_group(self._group.parent)
        (self._group / "cgroup.procs").write_text(str(os.getpid()))
        try:
            yield
        finally:
            (home / "cgroup.procs").write_text(str(os.getpid()))

    def close(self) -> None:
        """Stop limiting; the cgroup is removed once its processes left it."""
        self._stop.set()
        for thread in self._threads:
            thread.join(1.0)
        if self._group is not None:
            with contextlib.suppress(OSError):
                self._group.rmdir()

    def _duty_cycle(self, pid: int) -> None:
        """A token bucket of one period's share: each period adds the share
        and takes what the process used; below zero, the process is stopped
        until the share it overspent has come back."""
        period = PERIOD_US / 1_000_000
        share = self.fraction * period
        tick = os.sysconf("SC_CLK_TCK")
        stat = Path(f"/proc/{pid}/stat")
        budget = share
        last: float | None = None
        while not self._stop.is_set():
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                return  # the process is gone
            used = (int(fields[11]) + int(fields[12])) / tick
            budget = min(share, budget + share - (used - (used if last is None else last)))
            last = used
            if budget < 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
                    time.sleep(-budget / self.fraction)
                    os.kill(pid, signal.SIGCONT)
                budget = 0.0
            time.sleep(period)


def _own_group(root: Path) -> Path:
    """The cgroup this process is in, under the hierarchy at ``root``."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, where = line.split(":", 2)
        if (root == _V2 and controllers == "") or "cpu" in controllers.split(","):
            return root / where.lstrip("/")
    return root
