"""The events a game is a function of: darts (beds), visit ends, undos and bounce-outs.

A game's state is a deterministic fold over a list of these. Each has a
one-token notation so logs and journals can store them as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.beds import MISS, Bed
from engine.errors import NotationError

__all__ = [
    "BOUNCE",
    "END_VISIT",
    "UNDO",
    "Bounce",
    "EndVisit",
    "Event",
    "Undo",
    "as_thrown",
    "parse_event",
]


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


@dataclass(frozen=True, slots=True)
class Bounce:
    """The last dart bounced out (the board's BOUNCE OUT button): it stays
    thrown but scores nothing, as a miss would, and counts as a bounce-out.
    Unlike an undo it stays in the effective log, right after its dart."""

    def __str__(self) -> str:
        return "BOUNCE"


END_VISIT = EndVisit()
UNDO = Undo()
BOUNCE = Bounce()

Event = Bed | EndVisit | Undo | Bounce
"""A dart is the bed it hit; the other events are the three singletons above."""

_WORDS: dict[str, Event] = {"NEXT": END_VISIT, "UNDO": UNDO, "BOUNCE": BOUNCE}


def as_thrown(events: Iterable[Event]) -> list[Event]:
    """``events`` with each bounced dart as the miss it counts as and the
    ``BOUNCE`` after it dropped: the darts as they scored, for a walk that
    counts points and darts (the leaderboard's statistics)."""
    thrown: list[Event] = []
    for event in events:
        if isinstance(event, Bounce) and thrown and isinstance(thrown[-1], Bed):
            thrown[-1] = MISS
        else:
            thrown.append(event)
    return thrown


def parse_event(token: str) -> Event:
    """Read one event token: dart notation, ``NEXT``, ``UNDO`` or ``BOUNCE`` (any case)."""
    word = _WORDS.get(token.strip().upper()) if token.isascii() else None
    if word is not None:
        return word
    try:
        return Bed.parse(token)
    except NotationError:
        raise NotationError(
            "not an event: expected a dart (S1-S20, D1-D20, T1-T20, SB, DB, M), "
            "NEXT, UNDO or BOUNCE",
            token=token,
        ) from None
