"""The events a game is a function of: darts (beds), visit ends and undos.

A game's state is a deterministic fold over a list of these. Each has a
one-token notation so logs and journals can store them as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.beds import Bed
from engine.errors import NotationError

__all__ = ["END_VISIT", "UNDO", "EndVisit", "Event", "Undo", "parse_event"]


@dataclass(frozen=True, slots=True)
class EndVisit:
    """The thrower's visit ends before its third dart (player change, NEXT)."""

    def __str__(self) -> str:
        return "NEXT"


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last dart, reopening its visit if that had ended."""

    def __str__(self) -> str:
        return "UNDO"


END_VISIT = EndVisit()
UNDO = Undo()

Event = Bed | EndVisit | Undo
"""A dart is the bed it hit; the other events are the two singletons above."""

_WORDS: dict[str, Event] = {"NEXT": END_VISIT, "UNDO": UNDO}


def parse_event(token: str) -> Event:
    """Read one event token: dart notation, ``NEXT`` or ``UNDO`` (any case)."""
    word = _WORDS.get(token.strip().upper()) if token.isascii() else None
    if word is not None:
        return word
    try:
        return Bed.parse(token)
    except NotationError:
        raise NotationError(
            "not an event: expected a dart (S1-S20, D1-D20, T1-T20, SB, DB, M), NEXT or UNDO",
            token=token,
        ) from None
