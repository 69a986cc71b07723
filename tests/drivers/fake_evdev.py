"""Keyboard-wedge card readers at python-evdev's API boundary, for a machine
with no /dev/input and no /dev/uinput.

:class:`FakeInputDevices` stands in for ``/dev/input``: the test plugs and
unplugs readers, denies a path or grabs it elsewhere, and its :meth:`open`
is what :class:`~drivers.card_wedge.KeyboardWedgeReader` calls instead of
``evdev.InputDevice``. A :class:`FakeInputDevice` yields real
``evdev.InputEvent`` objects from ``async_read_loop``, as the kernel
delivers them for a reader typing a card: ``MSC_SCAN``, the key down and up,
``SYN_REPORT`` after each, shift around letters. :func:`read_evtest` reads
the same from a recording in evtest's format.
"""

from __future__ import annotations

import asyncio
import errno
import re
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from evdev import InputEvent, ecodes

__all__ = ["FakeInputDevice", "FakeInputDevices", "read_evtest", "typed_events"]

_KEY_OF = {
    **{str(digit): f"KEY_{digit}" for digit in range(10)},
    **{letter: f"KEY_{letter}" for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    "\n": "KEY_ENTER",
    ":": "KEY_SEMICOLON",
    " ": "KEY_SPACE",
    "-": "KEY_MINUS",
}

_EVTEST_LINE = re.compile(
    r"Event: time (\d+)\.(\d+), type \d+ \((\w+)\), code \d+ \((\w+)\), value (-?\w+)"
)


def _event(at_us: int, kind: int, code: int, value: int) -> InputEvent:
    return InputEvent(at_us // 1_000_000, at_us % 1_000_000, kind, code, value)


def typed_events(text: str, start_s: float = 1_700_000_000.0, key_ms: int = 8) -> list[InputEvent]:
    """The events a wedge reader's keyboard sends typing ``text`` (``\\n``:
    Enter), one key every ``key_ms`` from ``start_s``."""
    events: list[InputEvent] = []
    at = int(start_s * 1_000_000)
    for character in text:
        name = _KEY_OF[character.upper()]
        code = ecodes.ecodes[name]
        shifted = character.isupper() or character == ":"
        if shifted:
            events.append(_event(at, ecodes.EV_KEY, ecodes.KEY_LEFTSHIFT, 1))
            events.append(_event(at, ecodes.EV_SYN, ecodes.SYN_REPORT, 0))
        for value in (1, 0):
            events.append(_event(at, ecodes.EV_MSC, ecodes.MSC_SCAN, 0x70000 + code))
            events.append(_event(at, ecodes.EV_KEY, code, value))
            events.append(_event(at, ecodes.EV_SYN, ecodes.SYN_REPORT, 0))
            at += key_ms * 500
        if shifted:
            events.append(_event(at, ecodes.EV_KEY, ecodes.KEY_LEFTSHIFT, 0))
            events.append(_event(at, ecodes.EV_SYN, ecodes.SYN_REPORT, 0))
    return events


def read_evtest(path: Path) -> list[InputEvent]:
    """The events of an evtest recording (its ``Event: time ...`` lines)."""
    events = []
    for line in path.read_text("utf-8").splitlines():
        match = _EVTEST_LINE.match(line.strip())
        if match is None:
            continue
        seconds, micros, kind, code, value = match.groups()
        kind_code = ecodes.ecodes[kind]
        code_number = ecodes.ecodes[code]
        number = int(value, 16) if kind == "EV_MSC" else int(value)
        events.append(InputEvent(int(seconds), int(micros), kind_code, code_number, number))
    return events


class FakeInputDevice:
    """One plugged-in reader: what ``evdev.InputDevice`` offers the reader."""

    def __init__(self, path: str, name: str) -> None:
        self.path = path
        self.name = name
        self.grabbed = False
        self.closed = False
        self._events: asyncio.Queue[InputEvent | None] = asyncio.Queue()

    def grab(self) -> None:
        self.grabbed = True

    def ungrab(self) -> None:
        self.grabbed = False

    def close(self) -> None:
        self.closed = True

    def feed(self, events: Iterable[InputEvent]) -> None:
        """The kernel delivers ``events`` to the reader's file."""
        for event in events:
            self._events.put_nowait(event)

    def type(self, text: str) -> None:
        """The reader types ``text`` (a card's number and ``\\n``)."""
        self.feed(typed_events(text))

    def unplug(self) -> None:
        self._events.put_nowait(None)

    async def async_read_loop(self) -> AsyncIterator[InputEvent]:
        while True:
            event = await self._events.get()
            if event is None:
                raise OSError(errno.ENODEV, "No such device")
            yield event


class FakeInputDevices:
    """The ``/dev/input`` a test controls; :meth:`open` is the reader's opener."""

    def __init__(self) -> None:
        self.plugged: dict[str, FakeInputDevice] = {}
        self.denied: set[str] = set()
        self.grabbed_elsewhere: set[str] = set()
        self.opened: list[FakeInputDevice] = []
        self.attempts = 0
        """How often the reader tried to open a device."""

    def plug(self, path: str, name: str = "SYC ID&IC USB Reader") -> FakeInputDevice:
        device = FakeInputDevice(path, name)
        self.plugged[path] = device
        return device

    def unplug(self, path: str) -> None:
        self.plugged.pop(path).unplug()

    def open(self, path: str) -> FakeInputDevice:
        self.attempts += 1
        if path in self.denied:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        device = self.plugged.get(path)
        if device is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if path in self.grabbed_elsewhere:
            device.grab = _busy  # type: ignore[method-assign]
        self.opened.append(device)
        return device


def _busy() -> None:
    raise OSError(errno.EBUSY, "Device or resource busy")
