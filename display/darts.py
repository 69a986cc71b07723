"""Darts as the daemon's state and events name them, read with the engine's
``Bed.parse``: the display has no notation parser of its own.

The state comes over the wire, so a dart may be anything: :func:`bed_of`
gives ``None`` for what the engine cannot read (catching
:class:`engine.NotationError`), and every scene shows such a dart as it is,
worth nothing, instead of failing.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import Bed, NotationError
from engine.x01_rules import as_scored

__all__ = ["bed_of", "total_points"]


def bed_of(dart: object) -> Bed | None:
    """The bed ``dart`` names (``"T20"``, ``"sb"``, ``"M"``), or ``None`` when
    it is not a string the engine reads as a dart."""
    if not isinstance(dart, str):
        return None
    try:
        return Bed.parse(dart)
    except NotationError:
        return None


def total_points(darts: Iterable[object], bull: object = "split") -> int:
    """The face value of ``darts`` together (``Bed.points``), the outer bull
    50 under the ``fat`` bull (the ``bull`` option of X01 and Count-Up); a
    dart the engine cannot read counts nothing."""
    rule = str(bull)
    return sum(as_scored(bed, rule).points for bed in map(bed_of, darts) if bed is not None)
