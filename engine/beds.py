"""Beds of a dartboard as tiny frozen values with a round-trip notation.

A bed is where one dart lands: ``S1``-``S20``, ``D1``-``D20``, ``T1``-``T20``,
``SB`` (outer bull, 25), ``DB`` (inner bull, 50) or ``M`` (a miss, 0).
``Bed.parse`` reads any case; ``str(bed)`` gives the canonical upper case.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import NotationError

__all__ = [
    "ALL_BEDS",
    "BULL",
    "DB",
    "MISS",
    "NUMBERS",
    "RING_PREFIX",
    "SB",
    "Bed",
]

BULL = 25
"""The number a bull bed carries (outer bull scores it once, inner bull twice)."""

NUMBERS = tuple(range(1, 21))
"""The twenty numbered sectors."""

RING_PREFIX = {1: "S", 2: "D", 3: "T"}
"""The letter of each ring (multiplier) in a numbered bed's notation."""


@dataclass(frozen=True, slots=True)
class Bed:
    """One bed of the board: a ``number`` (1-20, 25 for the bull, 0 for a miss)
    and a ``multiplier`` (1 single, 2 double, 3 triple; 0 for a miss).

    The inner bull is the double of 25, so ``DB`` counts as a double wherever
    a rule asks for one.
    """

    number: int
    multiplier: int

    def __post_init__(self) -> None:
        if self.number == 0 and self.multiplier == 0:
            return
        if self.number in NUMBERS and self.multiplier in (1, 2, 3):
            return
        if self.number == BULL and self.multiplier in (1, 2):
            return
        raise NotationError(
            f"no bed has number {self.number} and multiplier {self.multiplier}",
            token=f"{self.number}x{self.multiplier}",
        )

    @classmethod
    def parse(cls, text: str) -> Bed:
        """Read a bed from its notation, in any case (``t20``, ``SB``, ``m``)."""
        bed = _BY_NOTATION.get(text.strip().upper()) if text.isascii() else None
        if bed is None:
            raise NotationError(
                "not a dart: expected S1-S20, D1-D20, T1-T20, SB, DB or M", token=text
            )
        return bed

    @property
    def notation(self) -> str:
        """The canonical upper-case notation, the inverse of :meth:`parse`."""
        if self.number == 0:
            return "M"
        if self.number == BULL:
            return "SB" if self.multiplier == 1 else "DB"
        return f"{RING_PREFIX[self.multiplier]}{self.number}"

    def __str__(self) -> str:
        return self.notation

    @property
    def points(self) -> int:
        """Face value times the ring: T20 is 60, SB 25, DB 50, a miss 0."""
        return self.number * self.multiplier

    @property
    def is_miss(self) -> bool:
        return self.number == 0

    @property
    def is_bull(self) -> bool:
        return self.number == BULL

    @property
    def is_double(self) -> bool:
        """True for D1-D20 and the inner bull."""
        return self.multiplier == 2

    @property
    def is_triple(self) -> bool:
        return self.multiplier == 3


MISS = Bed(0, 0)
SB = Bed(BULL, 1)
DB = Bed(BULL, 2)

ALL_BEDS: tuple[Bed, ...] = (
    *(Bed(n, m) for m in (1, 2, 3) for n in NUMBERS),
    SB,
    DB,
    MISS,
)
"""Every bed once: 60 numbered beds, the two bulls and the miss."""

_BY_NOTATION: dict[str, Bed] = {bed.notation: bed for bed in ALL_BEDS}
"""Each bed by its notation (what :meth:`Bed.parse` looks up)."""
