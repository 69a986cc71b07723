"""The events a game is a function of: darts (beds), visit ends, undos and bounce-outs.

A game's state is a deterministic fold over a list of these. Each has a
one-token notation so logs and journals can store them as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.beds import MISS, Bed
from engine.errors import NotationError

__all__ = [
    "BOUNCE",
    "END_VISIT",
    "UNDO",
    "Bounce",
    "Correct",
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


@dataclass(frozen=True, slots=True)
class Correct:
    """Dart ``dart`` (1 to 3) of the visit on the board really hit ``bed``: a
    misread dart replaced, the visit re-scored as if thrown right. Its token
    is ``CORRECT2=T19``; the effective log holds the corrected dart instead."""

    dart: int
    bed: Bed

    def __post_init__(self) -> None:
        if isinstance(self.dart, bool) or not 1 <= self.dart <= _DARTS:
            raise ValueError(
                f"a correction names dart 1 to {_DARTS} of the visit, not {self.dart!r}"
            )

    def __str__(self) -> str:
        return f"CORRECT{self.dart}={self.bed.notation}"


_DARTS = 3
"""The darts of a visit a correction may name (``game.DARTS_PER_VISIT``)."""

_CORRECT_TOKEN = re.compile(r"CORRECT([1-3])=(\S+)")

END_VISIT = EndVisit()
UNDO = Undo()
BOUNCE = Bounce()

Event = Bed | EndVisit | Undo | Bounce | Correct
"""A dart is the bed it hit; a correction names a dart and its bed; the other
events are the three singletons above."""

_WORDS: dict[str, Event] = {"NEXT": END_VISIT, "UNDO": UNDO, "BOUNCE": BOUNCE}


def as_thrown(events: Iterable[Event]) -> list[Event]:
    """``events`` with each bounced dart as the miss it counts as and the
    ``BOUNCE`` after it dropped: the darts as they scored, for a walk that
    counts points and darts (the leaderboard's statistics). Walk an effective
    log (:attr:`Game.events`): a correction is in it as the corrected dart."""
    thrown: list[Event] = []
    for event in events:
        if isinstance(event, Bounce) and thrown and isinstance(thrown[-1], Bed):
            thrown[-1] = MISS
        else:
            thrown.append(event)
    return thrown


def parse_event(token: str) -> Event:
    """Read one event token: dart notation, ``NEXT``, ``UNDO``, ``BOUNCE`` or a
    correction ``CORRECT2=T19`` (any case)."""
    word = _WORDS.get(token.strip().upper()) if token.isascii() else None
    if word is not None:
        return word
    correction = _CORRECT_TOKEN.fullmatch(token.strip().upper()) if token.isascii() else None
    if correction is not None:
        try:
            return Correct(int(correction[1]), Bed.parse(correction[2]))
        except NotationError as error:
            raise NotationError(f"a correction's bed: {error.reason}", token=token) from None
    try:
        return Bed.parse(token)
    except NotationError:
        raise NotationError(
            "not an event: expected a dart (S1-S20, D1-D20, T1-T20, SB, DB, M), "
            "NEXT, UNDO, BOUNCE or a correction (CORRECT1-CORRECT3=bed, e.g. CORRECT2=T19)",
            token=token,
        ) from None
