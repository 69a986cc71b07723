"""Time tables for the coin filter (firmware_bridge/mcu/coins.py), QMK style,
and their replay: shared by test_coins.py (CPython) and micropython_coins.py
(the real MicroPython), so written for both interpreters (annotations only,
no typing at run time, no ``*`` inside list displays: MicroPython has none).

Each case: ``(name, inputs, expected)``. ``inputs`` is ``(time_ms, active
inputs from then on)``; ``expected`` the pulses counted, ``(time_ms,
input)`` (inputs from 0). Every time is even, so every scan rate here has a
scan at each of them and a pulse is due at exactly its time. The filter's
settings are the defaults: ``min_ms`` 10, ``max_ms`` 150, ``gap_ms`` 20.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SCAN_RATES = (500, 1000, 2000, 4000)
MIN_MS = 10
MAX_MS = 150
GAP_MS = 20


def flicker(
    start: int, until: int, active: "tuple[int, ...]"
) -> "list[tuple[int, tuple[int, ...]]]":
    """``active``, idle, ``active``, ... every 2 ms from ``start`` to ``until``."""
    return [(t, active if (t - start) % 4 == 0 else ()) for t in range(start, until, 2)]


def pulses(start: int, count: int, width: int, gap: int) -> "list[tuple[int, tuple[int, ...]]]":
    """``count`` pulses on input 0, ``width`` ms each, ``gap`` ms apart."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for n in range(count):
        begin = start + n * (width + gap)
        out.append((begin, (0,)))
        out.append((begin + width, ()))
    return out


CASES: "tuple[tuple[str, list[tuple[int, tuple[int, ...]]], list[tuple[int, int]]], ...]" = (
    ("a clean 50 ms pulse", [(100, (0,)), (150, ())], [(170, 0)]),
    ("a 20 ms pulse (a fast mechanism)", [(100, (0,)), (120, ())], [(140, 0)]),
    ("a 100 ms pulse (a slow mechanism)", [(100, (0,)), (200, ())], [(220, 0)]),
    ("a glitch shorter than the minimum counts nothing", [(100, (0,)), (104, ())], []),
    ("just under the minimum counts nothing", [(100, (0,)), (108, ())], []),
    ("exactly the minimum counts", [(100, (0,)), (110, ())], [(130, 0)]),
    ("exactly the maximum counts", [(100, (0,)), (250, ())], [(270, 0)]),
    ("just over the maximum counts nothing", [(100, (0,)), (252, ())], []),
    (
        "bounce at both edges is one pulse",
        flicker(100, 108, (0,)) + [(108, (0,)), (150, ()), (152, (0,)), (154, ())],  # noqa: RUF005
        [(174, 0)],
    ),
    (
        "two pulses exactly the gap apart count twice",
        [(100, (0,)), (150, ()), (170, (0,)), (220, ())],
        [(170, 0), (240, 0)],
    ),
    (
        "two pulses closer than the gap are one",
        [(100, (0,)), (150, ()), (168, (0,)), (200, ())],
        [(220, 0)],
    ),
    (
        "a break shorter than the gap joins two pulses into one too long",
        [(100, (0,)), (180, ()), (190, (0,)), (280, ())],
        [],
    ),
    (
        "a five-pulse coin: 50 ms on, 50 ms off",
        pulses(100, 5, 50, 50),
        [(170, 0), (270, 0), (370, 0), (470, 0), (570, 0)],
    ),
    ("a 30 ms train: 30 on, 30 off", pulses(100, 3, 30, 30), [(150, 0), (210, 0), (270, 0)]),
    ("a line active at the start is no pulse", [(0, (0,)), (60, ())], []),
    (
        "a line active at the start, then a real pulse",
        [(0, (0,)), (60, ()), (200, (0,)), (250, ())],
        [(270, 0)],
    ),
    ("a pulse before the line rested the gap is no pulse", [(0, ()), (10, (0,)), (60, ())], []),
    (
        "a jammed line counts nothing, then counts again once it rests",
        [(100, (0,)), (1000, ()), (1100, (0,)), (1150, ())],
        [(1170, 0)],
    ),
    (
        "two inputs at once",
        [(100, (0, 1)), (150, (1,)), (180, ())],
        [(170, 0), (200, 1)],
    ),
    (
        "one input's pulse, the other's glitch",
        [(100, (0, 1)), (102, (0,)), (140, ())],
        [(160, 0)],
    ),
)


def replay(
    step: "Callable[[int, bytearray], Any]",
    inputs: "list[tuple[int, tuple[int, ...]]]",
    hz: int,
    end_ms: int,
    add: "Callable[[int, int], int]",
    start_ms: int = 0,
    active_low: bool = True,
) -> "list[tuple[float, int]]":
    """Scan ``inputs`` at ``hz`` through ``step`` (a :class:`CoinFilter`'s)
    until ``end_ms``; ``now_ms`` is the board's millisecond tick (``start_ms``
    added with ``add``, wrapping like the board's). The pulses carry the
    scan's exact time."""
    changes = sorted(inputs, key=lambda change: change[0])
    got = []
    raw = bytearray(2)
    active: tuple[int, ...] = ()
    index = 0
    for scan in range(end_ms * hz // 1000 + 1):
        t = scan * 1000 / hz
        while index < len(changes) and changes[index][0] <= t:
            active = changes[index][1]
            index += 1
        for line in range(2):
            low = (line in active) == active_low
            raw[line] = 1 if low else 0
        for line in step(add(start_ms, int(t)), raw):
            got.append((t, line))
    return got


def end_of(inputs: "list[tuple[int, tuple[int, ...]]]", expected: "list[tuple[int, int]]") -> int:
    """When a replay of a case may stop: well after its last change or pulse."""
    times = [t for t, _ in inputs] + [t for t, _ in expected]
    return max(times) + 300
