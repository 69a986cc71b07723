"""The matrix map: which bed or button each cell of a board's contact matrix is.

A TOML file (pinned format, docs/protocol.md):

    [board]
    name = "Bar board 1"
    rows = 8
    cols = 10

    [cells]
    "0,0" = "S20"          # dart notation
    "0,1" = "S20"          # two cells may be the same bed (inner and outer single)
    "7,9" = "button:next"  # or a button

    [buttons]              # optional: names of dedicated buttons (B frames)
    0 = "next"

The firmware reports cells, never scores, so one firmware serves every board.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from drivers.errors import DriverError
from drivers.protocol import MAX_BUTTON, MAX_CELL
from engine import Bed, NotationError

__all__ = ["ButtonCell", "MapError", "MatrixMap", "dump_map", "load_map", "parse_map"]

_CELL_KEY = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*$")
_BUTTON_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class MapError(DriverError):
    """A matrix map that cannot be used; names the file, line and key."""


@dataclass(frozen=True, slots=True)
class ButtonCell:
    """A matrix cell wired to a board button instead of a bed."""

    name: str

    def __str__(self) -> str:
        return f"button:{self.name}"


@dataclass(frozen=True)
class MatrixMap:
    """A board's matrix size and what each mapped cell (row, col) is."""

    name: str
    rows: int
    cols: int
    cells: Mapping[tuple[int, int], Bed | ButtonCell] = field(default_factory=dict)
    buttons: Mapping[int, str] = field(default_factory=dict)

    def lookup(self, row: int, col: int) -> Bed | ButtonCell | None:
        return self.cells.get((row, col))

    def in_range(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    def button_name(self, index: int) -> str:
        """The name of dedicated button ``index`` (``button-N`` if unnamed)."""
        return self.buttons.get(index, f"button-{index}")


def _where(origin: str, text: str, key: str) -> str:
    """``origin, line N`` for the line that defines ``key`` (a TOML key, bare or
    quoted, or a ``[section]`` header)."""
    if key.startswith("["):
        pattern = re.compile(r"^\s*" + re.escape(key))
    else:
        pattern = re.compile(r'^\s*"?' + re.escape(key.strip('"')) + r'"?\s*=')
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return f"{origin}, line {number}"
    return origin


def _parse_target(value: object, where: str, key: str) -> Bed | ButtonCell:
    if not isinstance(value, str):
        raise MapError(f"{where}: cell {key!r}: {value!r} is not dart notation or button:NAME")
    if value.strip().lower().startswith("button:"):
        name = value.strip()[len("button:") :].strip().lower()
        if not _BUTTON_NAME.match(name):
            raise MapError(f"{where}: cell {key!r}: {value!r} is not a valid button name")
        return ButtonCell(name)
    try:
        return Bed.parse(value)
    except NotationError as error:
        raise MapError(f"{where}: cell {key!r}: {error}") from None


def _positive(board: Mapping[str, Any], key: str, where: str) -> int:
    value = board.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_CELL + 1:
        raise MapError(f"{where}: [board] {key} must be a whole number from 1 to {MAX_CELL + 1}")
    return value


def parse_map(text: str, origin: str = "<map>") -> MatrixMap:
    """A :class:`MatrixMap` from TOML text; every problem names ``origin`` and the line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise MapError(f"{origin}: not valid TOML: {error}") from None
    unknown = sorted(set(data) - {"board", "cells", "buttons"})
    if unknown:
        where = _where(origin, text, f"[{unknown[0]}")
        raise MapError(f"{where}: unknown section {unknown[0]!r}")
    board = data.get("board")
    if not isinstance(board, dict):
        raise MapError(f"{origin}: the [board] section (name, rows, cols) is missing")
    board_where = _where(origin, text, "[board]")
    name = board.get("name", "")
    if not isinstance(name, str):
        raise MapError(f"{board_where}: [board] name must be text")
    rows = _positive(board, "rows", board_where)
    cols = _positive(board, "cols", board_where)
    cells_table = data.get("cells", {})
    if not isinstance(cells_table, dict):
        raise MapError(f"{origin}: [cells] must be a table")
    cells: dict[tuple[int, int], Bed | ButtonCell] = {}
    for key, value in cells_table.items():
        where = _where(origin, text, key)
        match = _CELL_KEY.match(key)
        if not match:
            raise MapError(f'{where}: cell key {key!r} is not "row,col"')
        cell = (int(match[1]), int(match[2]))
        if not (cell[0] < rows and cell[1] < cols):
            raise MapError(f"{where}: cell {key!r} is outside the {rows}x{cols} matrix")
        if cell in cells:
            raise MapError(f"{where}: cell {key!r} is mapped twice")
        cells[cell] = _parse_target(value, where, key)
    buttons_table = data.get("buttons", {})
    if not isinstance(buttons_table, dict):
        raise MapError(f"{origin}: [buttons] must be a table")
    buttons: dict[int, str] = {}
    for key, value in buttons_table.items():
        where = _where(origin, text, key)
        if not key.isdigit() or int(key) > MAX_BUTTON:
            raise MapError(f"{where}: button {key!r} is not a number from 0 to {MAX_BUTTON}")
        if not isinstance(value, str) or not _BUTTON_NAME.match(value.strip().lower()):
            raise MapError(f"{where}: button {key!r}: {value!r} is not a valid button name")
        buttons[int(key)] = value.strip().lower()
    return MatrixMap(name, rows, cols, cells, buttons)


def load_map(path: str | os.PathLike[str]) -> MatrixMap:
    """Read and check a matrix map file."""
    try:
        text = Path(path).read_text("utf-8")
    except OSError as error:
        raise MapError(f"{path}: cannot read the matrix map: {error.strerror}") from None
    except UnicodeDecodeError:
        raise MapError(f"{path}: the matrix map is not UTF-8 text") from None
    return parse_map(text, str(path))


def dump_map(matrix: MatrixMap, path: str | os.PathLike[str]) -> None:
    """Write ``matrix`` as TOML atomically (a reader sees the old file or the new
    one), keeping an existing file's permissions (a new file gets the umask's).
    tomli-w writes the strings, so any board name (control characters too)
    reads back as it was."""
    document: dict[str, Any] = {
        "board": {"name": matrix.name, "rows": matrix.rows, "cols": matrix.cols},
        "cells": {
            f"{row},{col}": str(target) for (row, col), target in sorted(matrix.cells.items())
        },
    }
    if matrix.buttons:
        document["buttons"] = {str(index): name for index, name in sorted(matrix.buttons.items())}
    target_path = Path(path)
    try:
        mode = target_path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(dir=target_path.parent, prefix=f".{target_path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(tomli_w.dumps(document))
            out.flush()
            os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        os.replace(temporary, target_path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(target_path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
