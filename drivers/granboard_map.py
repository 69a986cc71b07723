"""The GranBoard's Bluetooth LE notifications and the beds they stand for.

A GranBoard sends one ASCII notification per event, ended by ``@``. A hit is
``ROW.COL@`` (``3.4@``): the two numbers are a cell of the board's own sensor
matrix (rows 0-11, columns 0-6), not a score, so a fixed table turns each cell
into a bed (:data:`CELLS`). ``BTN@`` is the board's button (:data:`BUTTONS`).

The table was read from public sources that agree cell for cell: the
community web scorers built on the "gran-app" mapping and an independent
ESP32 GranBoard client (see docs/drivers.md, "GranBoard"). Every number has
four cells: inner single, triple, outer single and double; the outer bull is
``8.0`` and the inner bull ``4.0``: 82 cells in all, 62 distinct beds.

A board whose model differs is corrected by a matrix map (``[board] map``,
written by ``oche calibrate --driver granboard``): each cell it names
overrides the table (:func:`table_with`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from drivers.matrix_map import ButtonCell, MatrixMap
from engine import DB, SB, Bed

__all__ = [
    "BUTTONS",
    "CELLS",
    "COLS",
    "ROWS",
    "Notification",
    "parse_notification",
    "table_with",
]

ROWS = 12
"""Rows of the GranBoard's sensor matrix (the first number of a hit)."""
COLS = 7
"""Columns of the GranBoard's sensor matrix (the second number of a hit)."""

_NUMBERS: dict[int, tuple[str, str, str, str]] = {
    # number: (inner single, triple, outer single, double)
    1: ("2.3", "2.4", "2.5", "2.6"),
    2: ("9.1", "9.0", "9.2", "8.2"),
    3: ("7.1", "7.0", "7.2", "8.4"),
    4: ("0.1", "0.3", "0.5", "0.6"),
    5: ("5.1", "5.2", "5.4", "4.6"),
    6: ("1.0", "1.1", "1.3", "4.4"),
    7: ("11.1", "11.2", "11.4", "8.6"),
    8: ("6.2", "6.4", "6.5", "6.6"),
    9: ("9.3", "9.4", "9.5", "9.6"),
    10: ("2.0", "2.1", "2.2", "4.3"),
    11: ("7.3", "7.4", "7.5", "7.6"),
    12: ("5.0", "5.3", "5.5", "5.6"),
    13: ("0.0", "0.2", "0.4", "4.5"),
    14: ("10.3", "10.4", "10.5", "10.6"),
    15: ("3.0", "3.1", "3.2", "4.2"),
    16: ("11.0", "11.3", "11.5", "11.6"),
    17: ("10.1", "10.0", "10.2", "8.3"),
    18: ("1.2", "1.4", "1.5", "1.6"),
    19: ("6.1", "6.0", "6.3", "8.5"),
    20: ("3.3", "3.4", "3.5", "3.6"),
}


def _cell(text: str) -> tuple[int, int]:
    row, _, col = text.partition(".")
    return int(row), int(col)


def _build_cells() -> dict[tuple[int, int], Bed]:
    cells: dict[tuple[int, int], Bed] = {}
    for number, (inner, triple, outer, double) in _NUMBERS.items():
        for text, ring in ((inner, 1), (triple, 3), (outer, 1), (double, 2)):
            cells[_cell(text)] = Bed(number, ring)
    cells[_cell("8.0")] = SB
    cells[_cell("4.0")] = DB
    return cells


CELLS: Mapping[tuple[int, int], Bed] = _build_cells()
"""Every hit cell ``(row, col)`` of a GranBoard and its bed: 82 cells."""

BUTTONS: Mapping[str, str] = {"BTN": "next", "OUT": "miss"}
"""Notifications that are not hits, by their text before ``@``: the board's
button (``BTN@``) is NEXT; ``OUT@`` (a dart outside the scoring area, named
by one source only) is MISS, as a DaSCR board's piezo is."""

_HIT = re.compile(rb"^(\d{1,2})\.(\d{1,2})@$")
_WORD = re.compile(rb"^([A-Z]{2,8})@$")


@dataclass(frozen=True, slots=True)
class Notification:
    """One notification, parsed: a hit cell, a word (``BTN``) or neither."""

    raw: bytes
    cell: tuple[int, int] | None = None
    word: str | None = None


def parse_notification(data: bytes) -> Notification:
    """Split ``data`` into a cell (``3.4@``) or a word (``BTN@``); trailing NUL
    padding and line ends are ignored. Anything else has neither."""
    text = bytes(data).rstrip(b"\x00\r\n ")
    if (match := _HIT.match(text)) is not None:
        return Notification(bytes(data), cell=(int(match[1]), int(match[2])))
    if (match := _WORD.match(text)) is not None:
        return Notification(bytes(data), word=match[1].decode("ascii"))
    return Notification(bytes(data))


def table_with(overrides: MatrixMap | None) -> dict[tuple[int, int], Bed | ButtonCell]:
    """The built-in table with every cell a matrix map names put over it."""
    table: dict[tuple[int, int], Bed | ButtonCell] = dict(CELLS)
    if overrides is not None:
        table.update(overrides.cells)
    return table
