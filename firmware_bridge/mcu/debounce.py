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
may wrap, compared with ``ticks_diff``), so the tests replay time tables at any
scan rate. The raw matrix of the last scan (:attr:`Debouncer.raw`) and the
debounced state (:meth:`Debouncer.debounced`, :meth:`Debouncer.stuck`) are
kept apart.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Collection, Sequence
    from typing import Any

    from firmware_bridge.mcu.compat import ticks_diff
else:  # on the board they are top-level modules
    from compat import ticks_diff

HIT = "H"
"""Report kind: the cell closed (a hit, or a press of a button)."""
STUCK = "S"
"""Report kind: the cell has been closed ``stuck_ms``; masked from now on."""
RELEASED = "R"
"""Report kind: the stuck cell has been open for ``debounce_ms``; armed again."""

# A cell's entry in Debouncer._cells: [state, tick of the hit, tick it was
# first seen open since (held and stuck cells), or -1 while closed]. A cell
# without an entry is open and armed.
_PRESSED = 0  # hit reported, locked for debounce_ms from the hit
_HELD = 1  # still closed when its lock ended: the release is deferred
_STUCK = 2  # held stuck_ms after its hit: masked, the release is reported
_CLOSED = -1

_NO_REPORTS = ()


def _cell_of(report: "tuple[str, Any]") -> "Any":
    return report[1]


class Debouncer:
    """Debounces a set of cells (any hashable, sortable keys: ``(row, col)``
    tuples for the matrix, button numbers for dedicated buttons)."""

    def __init__(self, debounce_ms: int = 40, stuck_ms: int = 2000) -> None:
        self.debounce_ms = debounce_ms
        self.stuck_ms = stuck_ms
        self.raw: Collection[Any] = ()
        """The closed cells of the last scan, exactly as scanned."""
        self._cells: dict[Any, list[int]] = {}

    def step(self, now_ms: int, closed_cells: "Collection[Any]") -> "Sequence[tuple[str, Any]]":
        """Take one scan (``closed_cells``: the raw closed cells at ``now_ms``)
        and return its reports, ``(kind, cell)`` sorted by cell, kind one of
        :data:`HIT`, :data:`STUCK`, :data:`RELEASED`. The result may be shared:
        do not change it."""
        self.raw = closed_cells
        cells = self._cells
        if not cells and not closed_cells:
            return _NO_REPORTS
        reports: list[tuple[str, Any]] = []
        for cell in closed_cells:
            if cell not in cells:
                cells[cell] = [_PRESSED, now_ms, _CLOSED]
                reports.append((HIT, cell))
        debounce_ms = self.debounce_ms
        for cell in list(cells):
            entry = cells[cell]
            state = entry[0]
            closed = cell in closed_cells
            if state == _PRESSED:
                if ticks_diff(now_ms, entry[1]) < debounce_ms:
                    continue  # locked: bounces of this cell are ignored
                if not closed:
                    del cells[cell]  # seen open after its lock: armed again
                    continue
                entry[0] = state = _HELD
            if closed:
                entry[2] = _CLOSED
                if state == _HELD and ticks_diff(now_ms, entry[1]) >= self.stuck_ms:
                    entry[0] = _STUCK
                    reports.append((STUCK, cell))
            elif entry[2] == _CLOSED:
                entry[2] = now_ms  # opened: released if it stays open
            elif ticks_diff(now_ms, entry[2]) >= debounce_ms:
                del cells[cell]  # open for a whole lock: released and armed
                if state == _STUCK:
                    reports.append((RELEASED, cell))
        if len(reports) > 1:
            reports.sort(key=_cell_of)
        return reports

    def debounced(self) -> "set[Any]":
        """The cells whose debounced state is closed (stuck ones included)."""
        return set(self._cells)

    def stuck(self) -> "set[Any]":
        """The cells masked as stuck."""
        return {cell for cell, entry in self._cells.items() if entry[0] == _STUCK}

    def locked(self, now_ms: int) -> "set[Any]":
        """The cells whose changes are ignored at ``now_ms``."""
        return {
            cell
            for cell, entry in self._cells.items()
            if entry[0] == _PRESSED and ticks_diff(now_ms, entry[1]) < self.debounce_ms
        }

    def reset(self) -> None:
        """Forget every cell (all open and armed)."""
        self._cells = {}
        self.raw = ()
