"""How many bytes the firmware's steady-state scan allocates, under MicroPython
(test_micropython.py runs it; ``gc`` has no ``mem_alloc`` under CPython).

For each situation the firmware is warmed up, then the heap in use is
measured around many scans with the collector off: a scan that allocates
leaves garbage, which on a Pico means collector pauses in the scan loop.
Prints ``alloc NAME BYTES SCANS`` per situation; if one allocated, the scans
are run again with the heap locked so the MemoryError's traceback shows where.
"""

import gc

import micropython

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import main
    from tests.firmware.micropython_clock import Clock
else:
    import main
    from micropython_clock import Clock

ROWS = (1, 2, 3, 4, 5, 6, 7, 8)
COLS = (10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
BUTTONS = (20, 21)
COINS = (22, 26)
JOINS: "dict[int, int]" = {}
"""Column pin -> the row pin a closed contact joins it to."""
PRESSED: "dict[int, bool]" = {}
"""The pressed button pins."""


class Pin:
    """A pin whose level allocates nothing to find: a column reads low while
    the row joined to it by a closed contact is driven; a button pin while
    pressed."""

    IN = 0
    OUT = 1
    PULL_UP = 2
    driven = -1

    def __init__(self, number: int, mode: int = -1, pull: int = -1) -> None:
        self.number = number

    def init(self, mode: int = -1, pull: int = -1, value: "int | None" = None) -> None:
        Pin.driven = self.number if mode == Pin.OUT else -1

    def value(self, level: "int | None" = None) -> int:
        if PRESSED.get(self.number, False):
            return 0
        return 0 if JOINS.get(self.number, -2) == Pin.driven else 1


class Host:
    """No host input: reading returns the same empty bytes."""

    def read(self) -> bytes:
        return b""


sent = [0]


def count(line: bytes) -> None:
    sent[0] += 1


def firmware_with(joins: "dict[int, int]", pressed: "dict[int, bool]") -> "main.Firmware":
    global JOINS, PRESSED
    JOINS = joins
    PRESSED = pressed
    config = main.Config(ROWS, COLS, BUTTONS, stuck_ms=600000, coin_pins=COINS)
    firmware = main.Firmware(
        config, pin=Pin, host=Host(), write=count, clock=Clock(wrap_after_ms=50)
    )
    firmware.boot()
    firmware.loop(100)  # warm up: the hit (and its frame) is sent here
    return firmware


SCANS = 500  # 0.5 s at 1 kHz: no heartbeat falls in it (the first is at 1 s)
SITUATIONS = (
    ("idle", {}, {}),
    ("one-cell-held", {COLS[3]: ROWS[5]}, {}),
    ("two-cells-held", {COLS[0]: ROWS[0], COLS[9]: ROWS[7]}, {}),
    ("one-button-held", {}, {BUTTONS[1]: True}),
    ("one-coin-line-held", {}, {COINS[0]: True}),
)

for name, joins, pressed in SITUATIONS:
    firmware = firmware_with(joins, pressed)
    before_sent = sent[0]
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    firmware.loop(SCANS)
    after = gc.mem_alloc()
    gc.enable()
    print("alloc", name, after - before, SCANS, "frames", sent[0] - before_sent)
    if after != before:
        firmware = firmware_with(joins, pressed)
        micropython.heap_lock()
        try:
            firmware.loop(SCANS)
        finally:
            micropython.heap_unlock()
