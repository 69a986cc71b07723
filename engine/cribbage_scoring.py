"""Domino cribbage scoring (seed 003): counting a hand with its starter, and
the points a tile scores when it is laid in the play. Pure functions of tile
values; the game (engine/games/domino_cribbage.py) and ``oche cribbage``
both score through here.

Counting: every combination of tiles summing to 15 scores 2, every pair of
equal values 2 (so three of a kind is 6 and four 12), every run of three or
more consecutive values 1 per tile, counted once per way of choosing its
tiles. That gives the seed's table: double run of three 8, double run of four
10, triple run 15, quadruple run 16. Dominoes have no suits, so there are no
flushes or nobs, and a crib counts exactly like a hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.tiles import HIGHEST_PIPS, Tile

__all__ = [
    "FIFTEEN",
    "PAIR_POINTS",
    "THIRTY_ONE",
    "HandCount",
    "PegScore",
    "count_hand",
    "count_points",
    "peg_score",
]

FIFTEEN = 15
THIRTY_ONE = 31
PAIR_POINTS = {2: 2, 3: 6, 4: 12}
"""Points for the last two, three or four tiles of the play having one value."""


@dataclass(frozen=True, slots=True)
class HandCount:
    """A counted hand: the scoring combinations themselves, and their points."""

    fifteens: tuple[tuple[Tile, ...], ...]
    pairs: tuple[tuple[Tile, Tile], ...]
    runs: tuple[tuple[Tile, ...], ...]

    @property
    def fifteen_points(self) -> int:
        return 2 * len(self.fifteens)

    @property
    def pair_points(self) -> int:
        return 2 * len(self.pairs)

    @property
    def run_points(self) -> int:
        return sum(len(run) for run in self.runs)

    @property
    def total(self) -> int:
        return self.fifteen_points + self.pair_points + self.run_points

    def as_json(self) -> dict[str, object]:
        """The breakdown as ``oche cribbage count`` prints it and the state shows it."""

        def notations(groups: Sequence[Sequence[Tile]]) -> list[list[str]]:
            return [[tile.notation for tile in group] for group in groups]

        return {
            "fifteens": {"points": self.fifteen_points, "combinations": notations(self.fifteens)},
            "pairs": {"points": self.pair_points, "combinations": notations(self.pairs)},
            "runs": {"points": self.run_points, "combinations": notations(self.runs)},
            "total": self.total,
        }


def count_hand(hand: Sequence[Tile], starter: Tile) -> HandCount:
    """Count ``hand`` (four tiles after the discard; any number works) with the starter."""
    tiles = sorted([*hand, starter])
    fifteens = tuple(
        combo
        for size in range(2, len(tiles) + 1)
        for combo in itertools.combinations(tiles, size)
        if sum(tile.value for tile in combo) == FIFTEEN
    )
    pairs = tuple((a, b) for a, b in itertools.combinations(tiles, 2) if a.value == b.value)
    return HandCount(fifteens, pairs, _runs(tiles))


def _runs(tiles: Sequence[Tile]) -> tuple[tuple[Tile, ...], ...]:
    """Every longest run, once per way of picking one tile of each value."""
    by_value: dict[int, list[Tile]] = {}
    for tile in tiles:
        by_value.setdefault(tile.value, []).append(tile)
    runs: list[tuple[Tile, ...]] = []
    values = sorted(by_value)
    start = 0
    for index in range(1, len(values) + 1):
        if index < len(values) and values[index] == values[index - 1] + 1:
            continue
        span = values[start:index]
        if len(span) >= 3:
            runs.extend(itertools.product(*(by_value[value] for value in span)))
        start = index
    return tuple(runs)


@lru_cache(maxsize=8192)
def _count_values(values: tuple[int, ...]) -> int:
    # Only values score, so any tile of the right value stands in for the real one.
    proxies = [Tile(max(0, value - HIGHEST_PIPS), min(value, HIGHEST_PIPS)) for value in values]
    return count_hand(proxies[:-1], proxies[-1]).total


def count_points(values: Sequence[int]) -> int:
    """The count of a hand given only its tile values (starter included): the
    same total as :func:`count_hand`, cached, for the computer's lookahead."""
    return _count_values(tuple(sorted(values)))


@dataclass(frozen=True, slots=True)
class PegScore:
    """What laying a tile scored in the play, as ``(reason, points)`` lines."""

    lines: tuple[tuple[str, int], ...]

    @property
    def points(self) -> int:
        return sum(points for _, points in self.lines)


_KIND_NAMES = {2: "pair", 3: "three of a kind", 4: "four of a kind"}


def peg_score(values: Sequence[int]) -> PegScore:
    """The points the last tile scores; ``values`` are the values laid since
    the count last started from zero, the new tile last."""
    lines: list[tuple[str, int]] = []
    total = sum(values)
    if total == FIFTEEN:
        lines.append(("fifteen", 2))
    if total == THIRTY_ONE:
        lines.append(("thirty-one", 2))
    same = 1
    while same < len(values) and values[-1 - same] == values[-1]:
        same += 1
    if same >= 2:
        lines.append((_KIND_NAMES[same], PAIR_POINTS[same]))
    for length in range(len(values), 2, -1):
        tail = values[-length:]
        if len(set(tail)) == length and max(tail) - min(tail) == length - 1:
            lines.append((f"run of {length}", length))
            break
    return PegScore(tuple(lines))
