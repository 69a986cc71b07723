"""Whether the board's clock tells the date: a result's times are dates only then.

A Raspberry Pi has no battery-backed clock: it boots at 1970 (or at the
systemd build date, or at the time ``fake-hwclock`` or timesyncd saved at the
last shutdown) and is right only once NTP has answered. A result finished
before that carries times that are not dates, so the daemon says so
(``clock_synced: false`` in the result and the state's ``board``) and a
leaderboard dates the game by its arrival (docs/mqtt.md).

The rule (:func:`clock_synced`):

1. A time before :data:`CLOCK_FLOOR` (2026-01-01, before this version was
   released) or after the contract's bound (2100) is certainly not a date.
2. Otherwise, where an NTP client runs on this machine (systemd-timesyncd,
   chrony or ntpd: their runtime files under ``/run``), the kernel's own word
   decides: ``adjtimex`` (read only, through :mod:`ctypes`: no subprocess)
   says whether the clock is synchronised (``STA_UNSYNC``). Where a sandbox
   hides ``adjtimex`` (systemd's ``ProtectClock=yes`` answers EPERM),
   timesyncd's ``/run/systemd/timesync/synchronized`` does.
3. Without an NTP client nothing will ever mark the clock synchronised, so
   the kernel's flag says nothing: a container or a virtual machine whose
   clock the host keeps right says "unsynchronised" forever. The clock is
   then taken as it is, and only rule 1 applies.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mqtt_contract import LATEST_TIMESTAMP

__all__ = [
    "CLOCK_FLOOR",
    "NTP_CLIENT_MARKERS",
    "clock_synced",
    "kernel_synchronised",
    "ntp_synchronised",
]

CLOCK_FLOOR = 1_767_225_600.0
"""2026-01-01 00:00 UTC: a clock before it is certainly not set (this version
was released after it)."""

NTP_CLIENT_MARKERS = ("systemd/timesync", "chrony", "ntpd.pid")
"""What an NTP client leaves under ``/run`` while it runs: systemd-timesyncd's
runtime directory, chronyd's, ntpd's pid file."""

_TIMESYNCD_SYNCHRONIZED = "systemd/timesync/synchronized"
"""Touched by systemd-timesyncd once it has synchronised the clock (systemd 239+)."""

_STA_UNSYNC = 0x0040
_TIME_ERROR = 5


class _Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


class _Timex(ctypes.Structure):
    """Linux's ``struct timex`` (``man 2 adjtimex``), with room to spare."""

    _fields_ = [
        ("modes", ctypes.c_uint),
        ("offset", ctypes.c_long),
        ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long),
        ("status", ctypes.c_int),
        ("constant", ctypes.c_long),
        ("precision", ctypes.c_long),
        ("tolerance", ctypes.c_long),
        ("time", _Timeval),
        ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long),
        ("jitter", ctypes.c_long),
        ("shift", ctypes.c_int),
        ("stabil", ctypes.c_long),
        ("jitcnt", ctypes.c_long),
        ("calcnt", ctypes.c_long),
        ("errcnt", ctypes.c_long),
        ("stbcnt", ctypes.c_long),
        ("tai", ctypes.c_int),
        ("spare", ctypes.c_int * 64),
    ]


def _adjtimex() -> Callable[[Any], int] | None:
    """The C library's ``adjtimex`` (it takes a pointer to a :class:`_Timex`), or
    ``None`` where there is none."""
    try:
        function = ctypes.CDLL(None, use_errno=True).adjtimex
    except (AttributeError, OSError):  # not Linux
        return None
    function.argtypes = [ctypes.POINTER(_Timex)]
    function.restype = ctypes.c_int
    return function


_ADJTIMEX = _adjtimex()


def kernel_synchronised() -> bool | None:
    """The kernel's word: True when it says its clock is synchronised, False
    when not (``STA_UNSYNC``), ``None`` when it cannot be asked (not Linux, or
    a sandbox refusing ``adjtimex`` even read only)."""
    if _ADJTIMEX is None:
        return None
    timex = _Timex()  # modes 0: read only, no privilege needed
    state = _ADJTIMEX(ctypes.pointer(timex))
    if state == -1:
        return None
    return state != _TIME_ERROR and not timex.status & _STA_UNSYNC


_RUN = Path("/run")

_ASKED_EVERY_S = 1.0
"""How long :func:`ntp_synchronised`'s answer for this machine is kept: the
daemon asks with every state it builds (every dart), and the answer is a few
file checks and a system call that change once a boot."""

_asked: tuple[float, bool | None] | None = None
"""When this machine's answer was last worked out (``time.monotonic()``), and what it was."""


def ntp_synchronised(
    run: Path = _RUN, kernel: Callable[[], bool | None] = kernel_synchronised
) -> bool | None:
    """Whether this machine's NTP client has synchronised the clock; ``None``
    when no NTP client runs here (nothing would ever say so) or none can
    tell. ``run`` is where the clients keep their runtime files. This
    machine's answer (the defaults) is worked out at most once a second."""
    global _asked
    if run is not _RUN or kernel is not kernel_synchronised:
        return _ntp_answer(run, kernel)
    now = time.monotonic()
    if _asked is None or not 0 <= now - _asked[0] < _ASKED_EVERY_S:
        _asked = (now, _ntp_answer(run, kernel))
    return _asked[1]


def _ntp_answer(run: Path, kernel: Callable[[], bool | None]) -> bool | None:
    """:func:`ntp_synchronised`, worked out now."""
    if not any(os.path.exists(os.path.join(run, marker)) for marker in NTP_CLIENT_MARKERS):
        return None
    said = kernel()
    if said is not None:
        return said
    if os.path.isdir(run / "systemd" / "timesync"):
        return os.path.exists(run / _TIMESYNCD_SYNCHRONIZED)
    return None


def clock_synced(now: float) -> bool:
    """Whether ``now``, read from this machine's clock, is a date (the rule
    in the module docstring)."""
    if not CLOCK_FLOOR <= now < LATEST_TIMESTAMP:
        return False
    return ntp_synchronised() is not False
