"""Run a command under the system-call sandbox of a systemd unit, without systemd.

``python -m tests.unit_sandbox UNIT -- COMMAND...`` reads the unit's
``SystemCallFilter=``, ``SystemCallErrorNumber=``, ``RestrictAddressFamilies=``,
``CapabilityBoundingSet=`` and ``UMask=``, applies them to itself the way
systemd applies them to a service (the system-call sets expanded by
``systemd-analyze syscall-filter``, the filter loaded with libseccomp, the
capabilities dropped from the bounding set) and then executes COMMAND. The
tests use it to run the real ``oche`` executable as the unit would, on a
machine where systemd is not PID 1.

What it leaves out: the mount, device and /proc restrictions, which need
systemd's namespaces and cgroups. Needs Linux, libseccomp and
``systemd-analyze``; run it as root for the capability bounding set.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

__all__ = ["available", "main", "parse_unit", "syscall_set", "unit_settings"]

_ACT_ALLOW = 0x7FFF0000
_CMP_EQ = 4
_PR_CAPBSET_DROP = 24


def _act_errno(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = (  # struct scmp_arg_cmp
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def _libseccomp() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("seccomp")
    return ctypes.CDLL(name, use_errno=True) if name else None


def available() -> str | None:
    """Why this machine cannot run the sandbox, or None when it can."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if shutil.which("systemd-analyze") is None:
        return "no systemd-analyze"
    if _libseccomp() is None:
        return "no libseccomp"
    return None


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """systemd's unit syntax: [Section] headers, Key=Value lines (a key may
    repeat), # and ; comments."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        assert current is not None, f"line {number} is outside any section: {raw}"
        assert "=" in line and not raw.endswith("\\"), f"line {number} is not Key=Value: {raw}"
        key, value = line.split("=", 1)
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", key.strip()), f"line {number}: bad key {key!r}"
        current.append((key.strip(), value.strip()))
    return sections


def unit_settings(unit: Path) -> dict[str, list[str]]:
    """The ``[Service]`` settings of ``unit``: key -> every value given, in order."""
    settings: dict[str, list[str]] = {}
    for key, value in parse_unit(unit.read_text("utf-8")).get("Service", []):
        settings.setdefault(key, []).append(value)
    return settings


def syscall_set(name: str, seen: set[str] | None = None) -> set[str]:
    """The system calls of ``@name`` (or the one call ``name``), groups expanded."""
    if not name.startswith("@"):
        return {name}
    seen = set() if seen is None else seen
    if name in seen:
        return set()
    seen.add(name)
    listing = subprocess.run(
        ["systemd-analyze", "syscall-filter", name],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    calls: set[str] = set()
    for line in listing.splitlines()[1:]:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        calls |= syscall_set(entry, seen)
    return calls


def _allowed_calls(filters: list[str]) -> set[str] | None:
    """systemd's reading of the SystemCallFilter= lines: the first line, if not
    ``~``, is the allow list; later ``~`` lines take calls out of it."""
    allowed: set[str] | None = None
    for value in filters:
        negate = value.startswith("~")
        names = set().union(*(syscall_set(n) for n in value.lstrip("~").split()))
        if allowed is None:
            if negate:
                raise SystemExit("unit_sandbox: only allow-list filters are supported")
            allowed = names
        elif negate:
            allowed -= names
        else:
            allowed |= names
    return allowed


def _load_filter(settings: dict[str, list[str]]) -> None:
    lib = _libseccomp()
    assert lib is not None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_load.argtypes = (ctypes.c_void_p,)
    error = settings.get("SystemCallErrorNumber", ["EPERM"])[-1]
    allowed = _allowed_calls(settings.get("SystemCallFilter", [])) or set()
    families = " ".join(settings.get("RestrictAddressFamilies", [])).split()
    context = lib.seccomp_init(_act_errno(getattr(errno, error)))
    if not context:
        raise SystemExit("unit_sandbox: seccomp_init failed")

    def allow(call: str, conditions: list[_ArgCmp]) -> None:
        number = lib.seccomp_syscall_resolve_name(call.encode())
        if number < 0:
            return  # not a system call of this architecture
        array = (_ArgCmp * max(1, len(conditions)))(*conditions)
        if lib.seccomp_rule_add_array(context, _ACT_ALLOW, number, len(conditions), array):
            raise SystemExit(f"unit_sandbox: cannot allow {call}")

    for call in sorted(allowed - {"socket"} if families else allowed):
        allow(call, [])
    if families and "socket" in allowed:
        for family in families:
            allow("socket", [_ArgCmp(0, _CMP_EQ, int(getattr(socket, family)), 0)])
    if lib.seccomp_load(context):
        raise SystemExit("unit_sandbox: seccomp_load failed")


def _drop_capabilities(settings: dict[str, list[str]]) -> None:
    if settings.get("CapabilityBoundingSet", ["x"])[-1] != "":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text().strip())
    for capability in range(last + 1):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) and os.geteuid() == 0:
            raise SystemExit(f"unit_sandbox: cannot drop capability {capability}")


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[1] != "--":
        raise SystemExit("usage: python -m tests.unit_sandbox UNIT -- COMMAND...")
    settings = unit_settings(Path(argv[0]))
    for umask in settings.get("UMask", [])[-1:]:
        os.umask(int(umask, 8))
    _drop_capabilities(settings)
    _load_filter(settings)  # also sets no_new_privs, as NoNewPrivileges=yes does
    command = argv[2:]
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
