"""The firmware's setting checks, printed for comparing with the settings
table of docs/protocol.md (test_settings.py runs it under MicroPython and
CPython and derives what it must print from the table).

Arguments: one ``NAME:MINIMUM:MAXIMUM:C`` a setting (``C`` is 1 when a ``C``
frame may set it). For each setting it prints the default ``oche_config.py``
gets when it leaves the setting out, then for one below the minimum, the
minimum, the maximum and one above it: whether ``oche_config.py`` may hold
it, and the firmware's answer to a ``C`` frame carrying it (``applied``, or
the ``E`` frame it sent). Written for both interpreters, like
micropython_check.py.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import compat, frames, main
else:
    import compat
    import frames
    import main

ROWS = (1, 2)
COLS = (3, 4)


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2

    def __init__(self, number: int, mode: int = -1, pull: int = -1) -> None:
        self.number = number

    def init(self, mode: int = -1, pull: int = -1, value: "int | None" = None) -> None:
        pass

    def value(self, level: "int | None" = None) -> int:
        return 1


class Bare:
    """An ``oche_config`` that gives only the wiring."""

    row_pins = ROWS
    col_pins = COLS


def config_answer(name: str, value: int) -> str:
    try:
        main.Config(ROWS, COLS, **{name: value})
    except ValueError as error:
        return "refused" if name in str(error) else "refused without naming it: " + str(error)
    return "ok"


def frame_answer(name: str, value: int, host_may_set: bool) -> str:
    if value < 0:
        return "-"  # a frame cannot carry it
    sent = []
    firmware = main.Firmware(
        main.Config(ROWS, COLS), pin=Pin, write=sent.append, clock=compat.Clock()
    )
    before = getattr(firmware, name) if host_may_set else firmware.scanner.settle_us
    firmware.host_line(frames.encode(frames.CONFIGURE, 1, (name + "=" + str(value),))[:-1])
    now = getattr(firmware, name) if host_may_set else firmware.scanner.settle_us
    if sent:
        if now != before:
            return "refused but changed to " + str(now)
        return " ".join(line.decode().strip() for line in sent)
    return "applied" if now == value else "silently kept " + str(now)


for argument in sys.argv[1:]:
    name, low, high, settable = argument.split(":")
    low, high = int(low), int(high)
    print(name, "default", getattr(main.Config.from_module(Bare), name))
    for value in (low - 1, low, high, high + 1):
        print(
            name,
            value,
            "config",
            config_answer(name, value),
            "c",
            frame_answer(name, value, settable == "1"),
        )
