"""Per-cell eager debounce with stuck-cell masking, as a pure step.

A press is debounced the way QMK's per-key eager scheme (``sym_eager_pk``)
does it: a cell is reported on the **first** scan that sees it closed, and
then that cell alone is locked for ``debounce_ms``: its bounces are ignored,
every other cell goes on being reported at once. If the cell is seen open when
its lock ends, it is armed again at once: a new hit needs the cell to be seen
open after its lock and then closed again.

A cell still closed when its lock ends is *held* (a button kept down, a dart
tip resting on the contact). A held cell counts as released only once it has
been seen open for ``debounce_ms`` without a break (a deferred release), so
release bounce and the chatter of a resting dart when the board shakes cannot
look like new hits. A cell held ``stuck_ms`` after its hit is reported once
as stuck and masked (no hits) until that release, which is reported.

:meth:`Debouncer.step` takes the clock as an argument (``now_ms``, ticks that
may wrap, compared only with the ``ticks_diff`` the debouncer is given, so any
ticks period works), so the tests replay time tables at any scan rate. Cells
are numbered ``0 .. cells-1`` (``row * cols + col`` for the matrix). The raw
matrix of the last scan (:attr:`Debouncer.raw`, one byte a cell, as the
scanner wrote it) and the debounced state (:meth:`Debouncer.debounced`,
:meth:`Debouncer.stuck`) are kept apart.

A scan in which nothing changes state allocates nothing (no garbage for the
collector to pause for): the state lives in arrays made once, and only a scan
with reports builds the list of them.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Callable, Sequence

    from firmware_bridge.mcu.compat import ticks_diff
else:  # on the board they are top-level modules
    from compat import ticks_diff

# Report kinds: names of what happened, not the wire protocol's letters
# (frames.py alone maps them to those). Short strings are interned on
# MicroPython, so reporting and comparing them allocates nothing.
HIT = "hit"
"""Report kind: the cell closed (a hit, or a press of a button)."""
STUCK = "stuck"
"""Report kind: the cell has been closed ``stuck_ms``; masked from now on."""
RELEASED = "released"
"""Report kind: the stuck cell has been open for ``debounce_ms``; armed again."""
KINDS = (HIT, STUCK, RELEASED)
"""Every kind :meth:`Debouncer.step` reports."""

# A cell's state (Debouncer._state).
_OPEN = 0  # open and armed: the next closed scan is a hit
_PRESSED = 1  # hit reported, locked for debounce_ms from the hit
_HELD = 2  # still closed when its lock ended: the release is deferred
_STUCK = 3  # held stuck_ms after its hit: masked, the release is reported
_CLOSED = -1  # Debouncer._opened of a cell not seen open since it closed

_NO_REPORTS = ()
_ticks_diff = ticks_diff  # the default, under a name the parameter does not hide


class Debouncer:
    """Debounces ``cells`` cells, numbered from 0 (matrix cells, or the
    dedicated buttons). ``ticks_diff`` compares two ``now_ms`` ticks
    (default: the board's, :func:`compat.ticks_diff`)."""

    def __init__(
        self,
        cells: int,
        debounce_ms: int = 40,
        stuck_ms: int = 2000,
        ticks_diff: "Callable[[int, int], int] | None" = None,
    ) -> None:
        self.size = cells
        self.debounce_ms = debounce_ms
        self.stuck_ms = stuck_ms
        self.ticks_diff = ticks_diff if ticks_diff is not None else _ticks_diff
        self.raw: bytearray | bytes = bytearray(cells)
        """The raw matrix of the last scan, exactly as scanned (1: closed)."""
        self._state = bytearray(cells)
        self._hit = [0] * cells  # tick of the hit
        self._opened = [_CLOSED] * cells  # tick first seen open since (held, stuck)
        self._active = 0  # cells not open and armed

    def step(
        self, now_ms: int, raw: "bytearray | bytes", closed: int = -1
    ) -> "Sequence[tuple[str, int]]":
        """Take one scan (``raw``: one byte a cell, non-zero for closed, at
        ``now_ms``; ``closed``: how many are closed, -1 if not counted) and
        return its reports, ``(kind, cell)`` in cell order, kind one of
        :data:`HIT`, :data:`STUCK`, :data:`RELEASED`. The result may be
        shared: do not change it."""
        self.raw = raw
        if closed == 0 and not self._active:
            return _NO_REPORTS
        # Cells left to visit: each closed or active one counts once for each.
        todo = self._active + closed if closed >= 0 else 2 * self.size
        diff = self.ticks_diff
        debounce_ms = self.debounce_ms
        state = self._state
        hit = self._hit
        opened = self._opened
        reports: Sequence[tuple[str, int]] = _NO_REPORTS
        for cell in range(self.size):
            if todo <= 0:
                break
            now_closed = raw[cell]
            was = state[cell]
            if not was:
                if not now_closed:
                    continue
                todo -= 1
                state[cell] = was = _PRESSED
                hit[cell] = now_ms
                opened[cell] = _CLOSED
                self._active += 1
                reports = _report(reports, HIT, cell)
            else:
                todo -= 2 if now_closed else 1
            if was == _PRESSED:
                if diff(now_ms, hit[cell]) < debounce_ms:
                    continue  # locked: bounces of this cell are ignored
                if not now_closed:
                    state[cell] = _OPEN  # seen open after its lock: armed again
                    self._active -= 1
                    continue
                state[cell] = was = _HELD
            if now_closed:
                opened[cell] = _CLOSED
                if was == _HELD and diff(now_ms, hit[cell]) >= self.stuck_ms:
                    state[cell] = _STUCK
                    reports = _report(reports, STUCK, cell)
            elif opened[cell] == _CLOSED:
                opened[cell] = now_ms  # opened: released if it stays open
            elif diff(now_ms, opened[cell]) >= debounce_ms:
                state[cell] = _OPEN  # open for a whole lock: released and armed
                self._active -= 1
                if was == _STUCK:
                    reports = _report(reports, RELEASED, cell)
        return reports

    def debounced(self) -> "set[int]":
        """The cells whose debounced state is closed (stuck ones included)."""
        return {cell for cell in range(self.size) if self._state[cell]}

    def stuck(self) -> "set[int]":
        """The cells masked as stuck."""
        return {cell for cell in range(self.size) if self._state[cell] == _STUCK}

    def locked(self, now_ms: int) -> "set[int]":
        """The cells whose changes are ignored at ``now_ms``."""
        return {
            cell
            for cell in range(self.size)
            if self._state[cell] == _PRESSED
            and self.ticks_diff(now_ms, self._hit[cell]) < self.debounce_ms
        }

    def reset(self) -> None:
        """Forget every cell (all open and armed)."""
        for cell in range(self.size):
            self._state[cell] = _OPEN
        self._active = 0
        self.raw = bytearray(self.size)


def _report(
    reports: "Sequence[tuple[str, int]]", kind: str, cell: int
) -> "Sequence[tuple[str, int]]":
    """``reports`` with ``(kind, cell)`` added: a list is made only for the first."""
    if reports is _NO_REPORTS:
        return [(kind, cell)]
    reports.append((kind, cell))  # type: ignore[attr-defined]
    return reports
