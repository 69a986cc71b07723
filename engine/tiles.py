"""Domino tiles as tiny frozen values with a round-trip notation.

A tile of the double-six set is written ``a-b`` with 0 <= a, b <= 6, in
either order (``5-2`` is ``2-5``); ``str(tile)`` gives the canonical form,
low end first. Its value in domino cribbage is its pip total (0-12).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.errors import NotationError

__all__ = ["DOUBLE_SIX", "HIGHEST_PIPS", "Tile", "parse_tiles"]

HIGHEST_PIPS = 6
"""The highest end of the double-six set."""

_NOTATION = re.compile(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*")


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """One domino: its ``low`` and ``high`` ends (``low <= high``)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high <= HIGHEST_PIPS):
            raise NotationError(
                f"no such tile in the double-six set (ends 0-{HIGHEST_PIPS})",
                token=f"{self.low}-{self.high}",
            )

    @classmethod
    def parse(cls, text: str) -> Tile:
        """``"2-5"``, ``"5-2"`` or ``" 5 - 2 "``; anything else raises
        :class:`~engine.errors.NotationError` quoting ``text``."""
        match = _NOTATION.fullmatch(text)
        if match is None:
            raise NotationError("a tile is written a-b, e.g. 2-5", token=text)
        a, b = int(match[1]), int(match[2])
        if max(a, b) > HIGHEST_PIPS:
            raise NotationError(f"tile ends run from 0 to {HIGHEST_PIPS}", token=text)
        return cls(min(a, b), max(a, b))

    @property
    def notation(self) -> str:
        return f"{self.low}-{self.high}"

    @property
    def value(self) -> int:
        """The pip total, which is all cribbage counts."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def __str__(self) -> str:
        return self.notation


DOUBLE_SIX: tuple[Tile, ...] = tuple(
    Tile(low, high) for low in range(HIGHEST_PIPS + 1) for high in range(low, HIGHEST_PIPS + 1)
)
"""The 28 tiles of a double-six set, in a fixed order (the unshuffled stock)."""


def parse_tiles(texts: Iterable[str]) -> tuple[Tile, ...]:
    """Parse several tiles; the same tile twice is an error naming it."""
    tiles: list[Tile] = []
    for text in texts:
        tile = Tile.parse(text)
        if tile in tiles:
            raise NotationError(f"tile {tile} appears twice: a set has one of each", token=text)
        tiles.append(tile)
    return tuple(tiles)
