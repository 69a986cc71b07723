"""A stand-in for MicroPython's ``machine`` module wired to a simulated
contact matrix, and a simulated clock and host for the firmware.

:class:`SimulatedBoard` models the electrics the firmware relies on: every pin
is an input or an output; an input reads high through its pull-up unless a
closed contact joins it to a row pin that is driven low (or, for a button pin,
the button is pressed); an input with neither pull-up nor a low path floats,
and reading it fails the test. Every pin operation is logged in order.
"""

from __future__ import annotations

import types
from typing import Any

from tests.firmware.mcu import compat

IN = 0
OUT = 1
PULL_UP = 1


class FloatingPinError(AssertionError):
    """A pin was read while nothing defines its level."""


class SimulatedClock:
    """Microsecond ticks that only move when the firmware sleeps or a test
    advances them; they wrap at ``period`` (default: this interpreter's
    :data:`compat.TICKS_PERIOD`) with MicroPython's arithmetic, so any port's
    period can be tried."""

    def __init__(self, start_us: int = 0, period: int = compat.TICKS_PERIOD) -> None:
        self.us = start_us
        self.ticks = compat.Ticks(period)

    def ticks_ms(self) -> int:
        return int(self.ticks.wrap(self.us // 1000))

    def ticks_us(self) -> int:
        return int(self.ticks.wrap(self.us))

    def ticks_diff(self, end: int, start: int) -> int:
        return int(self.ticks.diff(end, start))

    def ticks_add(self, ticks: int, delta: int) -> int:
        return int(self.ticks.add(ticks, delta))

    def sleep_us(self, us: int) -> None:
        if us > 0:
            self.us += us

    def advance_ms(self, ms: int) -> None:
        self.us += ms * 1000


class SimulatedHost:
    """The host end of the serial line: what the test sends waits here until
    the firmware reads it."""

    def __init__(self) -> None:
        self.pending = b""

    def send(self, data: bytes) -> None:
        self.pending += data

    def read(self) -> bytes:
        data, self.pending = self.pending, b""
        return data


class SimulatedBoard:
    """A matrix whose contact (row, col) joins GPIO ``row_pins[row]`` to GPIO
    ``col_pins[col]``, and buttons between ``button_pins[i]`` and ground.

    Close contacts by setting :attr:`closed` (cells) and :attr:`pressed`
    (button numbers); pull pins low from outside (a coin mechanism's output)
    by putting their numbers in :attr:`low`. :attr:`machine` is a ``machine`` module whose ``Pin``
    drives this board; :attr:`log` records ``("init", pin, mode, pull,
    value)``, ``("read", pin, level)`` and ``("sleep", us)`` (when the clock
    given to the firmware is :attr:`clock`). ``read_cost_us`` advances the
    clock on every read, to make scans slow.
    """

    def __init__(
        self,
        row_pins: tuple[int, ...],
        col_pins: tuple[int, ...],
        button_pins: tuple[int, ...] = (),
        clock: SimulatedClock | None = None,
    ) -> None:
        self.row_pins = row_pins
        self.col_pins = col_pins
        self.button_pins = button_pins
        self.clock = clock or SimulatedClock()
        self.closed: set[tuple[int, int]] = set()
        self.pressed: set[int] = set()
        self.low: set[int] = set()
        self.log: list[tuple[Any, ...]] = []
        self.mode: dict[int, int] = {}
        self.pull: dict[int, int | None] = {}
        self.out: dict[int, int] = {}
        self.read_cost_us = 0
        self.machine = self._machine_module()
        self.Pin: Any = self.machine.Pin

    # ------------------------------------------------------------ electrics

    def level(self, pin: int) -> int:
        """What reading ``pin`` gives now."""
        if self.mode.get(pin) == OUT:
            return self.out.get(pin, 0)
        if pin in self.button_pins and self.button_pins.index(pin) in self.pressed:
            return 0
        if pin in self.low:
            return 0
        if pin in self.col_pins:
            col = self.col_pins.index(pin)
            for row, row_pin in enumerate(self.row_pins):
                driven_low = self.mode.get(row_pin) == OUT and self.out.get(row_pin) == 0
                if driven_low and (row, col) in self.closed:
                    return 0
        if self.pull.get(pin) != PULL_UP:
            raise FloatingPinError(f"pin {pin} read while floating")
        return 1

    def driven_rows(self) -> list[int]:
        return [pin for pin in self.row_pins if self.mode.get(pin) == OUT]

    def sleep_us(self, us: int) -> None:
        self.log.append(("sleep", us))
        self.clock.sleep_us(us)

    # ------------------------------------------------------------ machine

    def _machine_module(self) -> types.ModuleType:
        board = self

        class Pin:
            """``machine.Pin``: ``Pin(id, mode, pull)``, ``init``, ``value``."""

            IN = IN
            OUT = OUT
            PULL_UP = PULL_UP

            def __init__(self, pin_id: int, mode: int = -1, pull: int | None = -1) -> None:
                self.id = pin_id
                self.init(mode, pull)

            def init(
                self, mode: int = -1, pull: int | None = -1, *, value: int | None = None
            ) -> None:
                board.log.append(("init", self.id, mode, pull, value))
                if value is not None:
                    board.out[self.id] = value
                if mode != -1:
                    board.mode[self.id] = mode
                if pull != -1:
                    board.pull[self.id] = pull
                if board.len_driven() > 1:
                    raise AssertionError(f"two rows driven at once: {board.driven_rows()}")

            def value(self, level: int | None = None) -> int | None:
                if level is not None:
                    board.out[self.id] = level
                    board.log.append(("write", self.id, level))
                    return None
                result = board.level(self.id)
                board.log.append(("read", self.id, result))
                board.clock.sleep_us(board.read_cost_us)
                return result

        module = types.ModuleType("machine")
        module.Pin = Pin  # type: ignore[attr-defined]
        return module

    def len_driven(self) -> int:
        return len(self.driven_rows())
