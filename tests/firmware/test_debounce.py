"""The debounce step against time tables, QMK style: each case is a list of
``(time_ms, closed cells from then on)`` inputs and the reports expected as
``(time_ms, kind, cell)``. Every table is replayed at several scan rates with
the same expectations; a report is due at the first scan at or after its time.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.firmware.mcu import compat, debounce

Cell = tuple[int, int]
Inputs = Sequence[tuple[int, Iterable[Cell]]]
Expected = list[tuple[int, str, Cell]]

A: Cell = (0, 0)
B: Cell = (0, 1)
C: Cell = (3, 7)
SCAN_RATES = (500, 1000, 2000, 4000)
H, S, R = debounce.HIT, debounce.STUCK, debounce.RELEASED


def flicker(start: int, until: int, cells: Iterable[Cell]) -> list[tuple[int, set[Cell]]]:
    """Closed, open, closed, ... every millisecond from ``start`` to ``until``."""
    return [(t, set(cells) if (t - start) % 2 == 0 else set()) for t in range(start, until)]


CASES: dict[str, tuple[Inputs, Expected]] = {
    "a clean hit": (
        [(10, {A}), (15, set())],
        [(10, H, A)],
    ),
    "a bouncy hit: 5 ms of flicker is one hit": (
        [*flicker(10, 15, {A}), (15, {A}), (18, set())],
        [(10, H, A)],
    ),
    "a bouncy release inside the lock is no hit": (
        [(10, {A}), *flicker(14, 20, set()), (20, set())],
        [(10, H, A)],
    ),
    "two hits 30 ms apart with 40 ms debounce: one": (
        [(0, {A}), (5, set()), (30, {A}), (35, set())],
        [(0, H, A)],
    ),
    "the second contact still closed when the lock ends: one": (
        [(0, {A}), (5, set()), (30, {A}), (46, set())],
        [(0, H, A)],
    ),
    "two hits 60 ms apart: two": (
        [(0, {A}), (5, set()), (60, {A}), (65, set())],
        [(0, H, A), (60, H, A)],
    ),
    "a hit just after the lock: two": (
        [(0, {A}), (5, set()), (42, {A}), (47, set())],
        [(0, H, A), (42, H, A)],
    ),
    "two different cells 1 ms apart: both": (
        [(0, {A}), (1, {A, B}), (5, {B}), (6, set())],
        [(0, H, A), (1, H, B)],
    ),
    "another cell during a lock is reported at once": (
        [(0, {A}), (2, set()), (20, {C}), (22, set()), (24, {A}), (26, set())],
        [(0, H, A), (20, H, C)],
    ),
    "two cells in the same scan": (
        [(8, {A, C}), (12, set())],
        [(8, H, A), (8, H, C)],
    ),
    "a held button with release bounce is one press": (
        [(0, {A}), (500, set()), *flicker(501, 508, {A}), (508, set())],
        [(0, H, A)],
    ),
    "a held button pressed again once its release has settled": (
        [(0, {A}), (500, set()), (560, {A}), (570, set())],
        [(0, H, A), (560, H, A)],
    ),
    "a held contact that chatters is one hit": (
        [(0, {A}), (300, set()), (301, {A}), (600, set()), (630, {A}), (900, set())],
        [(0, H, A)],
    ),
    "stuck: one S, no hits while stuck, R on release, then a new hit": (
        [
            (0, {A}),
            *flicker(2200, 2210, {A}),  # contact noise while stuck
            (2210, {A}),
            (2500, {A, B}),  # another cell still works
            (2505, {A}),
            (3000, set()),  # released, with bounce
            (3002, {A}),
            (3004, set()),
            (3006, {A}),
            (3008, set()),
            (3100, {A}),
            (3105, set()),
        ],
        [(0, H, A), (2000, S, A), (2500, H, B), (3048, R, A), (3100, H, A)],
    ),
    "a stuck cell stays masked until it opens": (
        [(0, {A}), (9000, set())],
        [(0, H, A), (2000, S, A), (9040, R, A)],
    ),
    "a short opening does not restart the stuck time": (
        [(0, {A}), (1000, set()), (1020, {A})],
        [(0, H, A), (2000, S, A)],
    ),
    "open just before the stuck limit is not stuck": (
        [(0, {A}), (1998, set())],
        [(0, H, A)],
    ),
}


def first_scan_at_or_after(time_ms: float, hz: int) -> float:
    return math.ceil(time_ms * hz / 1000) * 1000 / hz


class Grid:
    """A debouncer over a ``rows`` x ``cols`` matrix, stepped with sets of
    ``(row, col)`` cells as the scanner would fill its raw matrix, with the
    ticks arithmetic of ``period``."""

    def __init__(
        self,
        debounce_ms: int = 40,
        stuck_ms: int = 2000,
        rows: int = 4,
        cols: int = 8,
        period: int = compat.TICKS_PERIOD,
    ) -> None:
        self.cols = cols
        self.ticks = compat.Ticks(period)
        self.debouncer = debounce.Debouncer(rows * cols, debounce_ms, stuck_ms, self.ticks.diff)

    def cell(self, index: int) -> Cell:
        return (index // self.cols, index % self.cols)

    def cells(self, indices: Iterable[int]) -> set[Cell]:
        return {self.cell(index) for index in indices}

    def step(self, now_ms: int, closed: Iterable[Cell]) -> list[tuple[str, Cell]]:
        raw = bytearray(self.debouncer.size)
        for row, col in closed:
            raw[row * self.cols + col] = 1
        reports = self.debouncer.step(now_ms, raw, sum(raw))
        return [(kind, self.cell(index)) for kind, index in reports]


def replay(
    inputs: Inputs,
    hz: int,
    grid: Grid,
    end_ms: int | None = None,
    start_ms: int = 0,
) -> list[tuple[float, str, Cell]]:
    """Scan ``inputs`` at ``hz``; ``now_ms`` is the board's millisecond tick
    (``start_ms`` added, wrapping like the board's). Reports carry the scan's
    exact time."""
    changes = sorted(((t, frozenset(cells)) for t, cells in inputs), key=lambda c: c[0])
    last = end_ms if end_ms is not None else changes[-1][0] + 200
    reports: list[tuple[float, str, Cell]] = []
    raw: frozenset[Cell] = frozenset()
    index = 0
    for scan in range(last * hz // 1000 + 1):
        t = scan * 1000 / hz
        while index < len(changes) and changes[index][0] <= t:
            raw = changes[index][1]
            index += 1
        now_ms = grid.ticks.add(start_ms, int(t))
        for kind, cell in grid.step(now_ms, raw):
            reports.append((t, kind, cell))
    return reports


@pytest.mark.parametrize("hz", SCAN_RATES)
@pytest.mark.parametrize("case", CASES)
def test_time_table(case: str, hz: int) -> None:
    inputs, expected = CASES[case]
    end = max(t for t, _ in [*inputs, *((t, k) for t, k, _ in expected)]) + 200
    got = replay(inputs, hz, Grid(debounce_ms=40, stuck_ms=2000), end_ms=end)
    assert got == [(first_scan_at_or_after(t, hz), kind, cell) for t, kind, cell in expected]


PERIODS = (1 << 16, 1 << 30, 1 << 62)
"""Ticks periods to replay across: a short one, the rp2/esp32 ports', the 64-bit unix port's."""


@pytest.mark.parametrize("period", PERIODS)
@pytest.mark.parametrize("case", CASES)
def test_time_table_across_the_tick_wrap(case: str, period: int) -> None:
    """The same reports when the millisecond ticks wrap in the middle, for any period."""
    inputs, expected = CASES[case]
    start = period - 1000
    end = max(t for t, _ in [*inputs, *((t, k) for t, k, _ in expected)]) + 200
    got = replay(inputs, 1000, Grid(40, 2000, period=period), end_ms=end, start_ms=start)
    assert got == [(float(t), kind, cell) for t, kind, cell in expected]


def test_the_native_ticks_period_is_found() -> None:
    # CPython has no time.ticks_add: the stand-ins wrap as the rp2 and esp32 ports do.
    assert compat.TICKS_PERIOD == 1 << 30
    assert compat.ticks_add(0, -1) == compat.TICKS_PERIOD - 1
    assert compat.ticks_diff(0, compat.TICKS_PERIOD - 1) == 1


@pytest.mark.parametrize("period", PERIODS)
def test_ticks_arithmetic_is_micropythons_for_any_period(period: int) -> None:
    ticks = compat.Ticks(period)
    top = period - 1
    assert ticks.add(top, 1) == 0
    assert ticks.add(0, -1) == top
    assert ticks.diff(0, top) == 1
    assert ticks.diff(top, 0) == -1
    assert ticks.diff(period // 2 - 1, 0) == period // 2 - 1
    assert ticks.diff(period // 2, 0) == -(period // 2)  # the far half counts as behind
    assert ticks.diff(ticks.add(5, 1000), 5) == 1000


@pytest.mark.parametrize("period", [0, 3, 1000, (1 << 30) + 1])
def test_a_ticks_period_must_be_a_power_of_two(period: int) -> None:
    with pytest.raises(ValueError, match="power of two"):
        compat.Ticks(period)


def test_a_longer_debounce_merges_hits_60_ms_apart() -> None:
    inputs = [(0, {A}), (5, set()), (60, {A}), (65, set())]
    assert replay(inputs, 1000, Grid(debounce_ms=80)) == [(0.0, H, A)]


def test_the_raw_matrix_and_the_debounced_state_are_kept_apart() -> None:
    grid = Grid(40, 2000)
    d = grid.debouncer
    grid.step(0, {A})
    grid.step(3, set())  # bounced open inside the lock
    assert not any(d.raw)
    assert grid.cells(d.debounced()) == {A}
    assert grid.cells(d.locked(3)) == {A}
    grid.step(40, set())
    assert d.debounced() == set()
    assert d.locked(40) == set()


def test_stuck_cells_are_listed_until_released() -> None:
    grid = Grid(40, 2000)
    grid.step(0, {A})
    assert grid.step(2000, {A}) == [(S, A)]
    assert grid.cells(grid.debouncer.stuck()) == {A}
    assert grid.step(2100, set()) == []
    assert grid.cells(grid.debouncer.stuck()) == {A}
    assert grid.step(2140, set()) == [(R, A)]
    assert grid.debouncer.stuck() == set()


def test_a_scan_without_reports_returns_the_shared_empty_result() -> None:
    d = debounce.Debouncer(4)
    idle = bytearray(4)
    assert d.step(0, idle, 0) is d.step(1, idle, 0)
    assert not d.step(2, idle, 0)
    held = bytearray(b"\x00\x01\x00\x00")
    assert d.step(3, held, 1) == [(H, 1)]
    assert d.step(4, held, 1) is d.step(5, held) is d.step(6, idle, 0)  # nothing new


def test_reports_are_in_cell_order() -> None:
    d = debounce.Debouncer(4)
    assert d.step(0, bytearray(b"\x01\x00\x01\x01"), 3) == [(H, 0), (H, 2), (H, 3)]


def test_an_uncounted_scan_is_read_whole() -> None:
    d = debounce.Debouncer(3)
    assert d.step(0, bytearray(b"\x00\x00\x01")) == [(H, 2)]


def test_reset_forgets_every_cell() -> None:
    grid = Grid()
    grid.step(0, {A})
    grid.debouncer.reset()
    assert grid.debouncer.debounced() == set()
    assert grid.step(1, {A}) == [(H, A)]


segments = st.lists(st.tuples(st.integers(1, 40), st.booleans()), min_size=1, max_size=80)


@settings(max_examples=300, deadline=None)
@given(
    segments=segments,
    hz=st.sampled_from(SCAN_RATES),
    debounce_ms=st.integers(1, 100),
    stuck_ms=st.integers(250, 3000),
)
def test_flicker_never_reports_more_hits_than_lock_windows(
    segments: list[tuple[int, bool]], hz: int, debounce_ms: int, stuck_ms: int
) -> None:
    inputs: list[tuple[int, set[Cell]]] = []
    t = 0
    for length, closed in segments:
        inputs.append((t, {A} if closed else set()))
        t += length
    inputs.append((t, set()))
    end = t + debounce_ms + 2
    grid = Grid(debounce_ms, stuck_ms, rows=1, cols=1)
    d = grid.debouncer
    reports = replay(inputs, hz, grid, end_ms=end)
    hits = [time for time, kind, _ in reports if kind == H]
    # Hits on one cell are at least a lock apart, so there are no more of them
    # than lock windows fit in the flicker.
    assert all(b - a >= debounce_ms - 1 for a, b in itertools.pairwise(hits))
    assert len(hits) <= t // debounce_ms + 1
    # No more hits than times the contact closed, and none while stuck.
    closings = sum(
        1
        for (_, before), (_, now) in itertools.pairwise([(0, False), *segments])
        if now and not before
    )
    assert len(hits) <= closings
    stuck = False
    for _, kind, _ in reports:
        assert not (stuck and kind == H)
        if kind == S:
            assert not stuck
            stuck = True
        elif kind == R:
            assert stuck
            stuck = False
    # Open longer than a lock at the end: every cell is open and armed again.
    assert not stuck
    assert d.debounced() == set()
