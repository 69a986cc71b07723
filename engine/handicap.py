"""Handicaps: a player's own X01 start, or Cricket spot marks before the first dart.

A :class:`Handicap` is a frozen value with a text form (``401``, ``20:3 19:1
bull:2``) that :meth:`Handicap.parse` reads back. A game that takes handicaps
has a ``handicaps`` option (not offered on a setup screen) holding one item
per player, comma-separated (``501,401``; ``-`` for a player without one), so
the journal, the game log's header, a replay, a match's legs and the
leaderboard's re-scoring all carry them with the other options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.game import Game

__all__ = [
    "HANDICAPS_OPTION",
    "NO_HANDICAP",
    "NO_HANDICAPS",
    "SPOT_TARGETS",
    "Handicap",
    "HandicapError",
    "cricket_spot_marks",
    "format_handicaps",
    "parse_handicaps",
    "takes_handicaps",
    "with_handicaps",
    "x01_starts",
]

HANDICAPS_OPTION = "handicaps"
"""The option of a game that takes handicaps (X01, Cricket)."""

NO_HANDICAPS = "none"
"""The ``handicaps`` option's default: nobody has one."""

NO_HANDICAP = "-"
"""One player's item in the ``handicaps`` option when they have none."""

SPOT_TARGETS = ("15", "16", "17", "18", "19", "20", "bull")
"""The targets spot marks are given on (the cricket family's keys)."""

_MAX_SPOT = 3
_MARKS_TO_CLOSE_ALL = 21
"""Seven targets of three marks: what a Cricket game takes to close."""
_SPOT_ORDER = ("bull", *SPOT_TARGETS[:-1])
"""Where suggested spot marks go first: the bull, then 15 up to 20."""
_LOWEST_START = 2


class HandicapError(EngineError):
    """A handicap that is not one (a start no game is played from, a mark
    on no cricket target) or that the game does not take."""


@dataclass(frozen=True, slots=True)
class Handicap:
    """One player's handicap: their X01 ``start`` (None: the game's) and their
    spot ``marks`` as (target, marks) pairs in :data:`SPOT_TARGETS` order."""

    start: int | None = None
    marks: tuple[tuple[str, int], ...] = ()

    @property
    def is_none(self) -> bool:
        """True for no handicap at all."""
        return self.start is None and not self.marks

    @property
    def marks_json(self) -> dict[str, int]:
        """The spot marks as JSON gives them: ``{"20": 3, "bull": 2}``."""
        return dict(self.marks)

    @classmethod
    def of(cls, start: int | None = None, marks: Mapping[str, int] | None = None) -> Handicap:
        """A handicap from a start and a ``{target: marks}`` mapping, checked:
        a :class:`HandicapError` quotes a target or a count that is not one."""
        if start is not None and (isinstance(start, bool) or not isinstance(start, int)):
            raise HandicapError(f"a start is a whole number of points, not {start!r}")
        spots: dict[str, int] = {}
        for raw_key, count in (marks or {}).items():
            key = str(raw_key).strip().lower()
            if key not in SPOT_TARGETS:
                raise HandicapError(
                    f"spot marks on {raw_key!r}: the targets are {', '.join(SPOT_TARGETS)}"
                )
            if isinstance(count, bool) or not isinstance(count, int):
                raise HandicapError(f"spot marks on {key}: {count!r} is not a whole number")
            if not 0 <= count <= _MAX_SPOT:
                raise HandicapError(f"spot marks on {key}: {count!r} is not 0 to {_MAX_SPOT}")
            if key in spots:
                raise HandicapError(f"spot marks on {key} are given twice")
            spots[key] = count
        ordered = tuple((key, spots[key]) for key in SPOT_TARGETS if spots.get(key))
        return cls(start, ordered)

    @classmethod
    def parse(cls, text: str) -> Handicap:
        """The handicap :meth:`__str__` wrote: ``401``, ``20:3 bull:2``, both,
        or ``-`` for none; anything else is a :class:`HandicapError` quoting it."""
        words = text.split()
        if words in ([], [NO_HANDICAP]):
            return cls()
        start: int | None = None
        marks: dict[str, int] = {}
        for word in words:
            key, colon, count = word.partition(":")
            if not colon and word.isdigit() and start is None:
                start = int(word)
            elif colon and count.isdigit() and key.lower() not in marks:
                marks[key.lower()] = int(count)
            else:
                raise HandicapError(
                    f"handicap {text!r}: {word!r} is neither a start (401) nor spot marks (20:3)"
                )
        return cls.of(start, marks)

    def __str__(self) -> str:
        words = [] if self.start is None else [str(self.start)]
        words += [f"{key}:{count}" for key, count in self.marks]
        return " ".join(words) or NO_HANDICAP


def parse_handicaps(text: str, players: int) -> tuple[Handicap, ...]:
    """Each player's handicap from the ``handicaps`` option: ``none``, or one
    item per player, comma-separated; a :class:`HandicapError` says what is wrong."""
    if text.strip().lower() in (NO_HANDICAPS, ""):
        return (Handicap(),) * players
    items = text.split(",")
    if len(items) != players:
        raise HandicapError(
            f"option 'handicaps': {text!r} has {len(items)} items; give one per player "
            f"({players}), {NO_HANDICAP} for a player without one"
        )
    return tuple(Handicap.parse(item) for item in items)


def format_handicaps(handicaps: Sequence[Handicap]) -> str:
    """The ``handicaps`` option's text for these players' handicaps (``none``
    when nobody has one): what :func:`parse_handicaps` reads back."""
    if all(handicap.is_none for handicap in handicaps):
        return NO_HANDICAPS
    return ",".join(str(handicap) for handicap in handicaps)


def takes_handicaps(game: type[Game]) -> bool:
    """Whether ``game`` has the ``handicaps`` option (X01, Cricket)."""
    return any(option.name == HANDICAPS_OPTION for option in game.options_spec)


def with_handicaps(
    game: type[Game], options: Mapping[str, object], handicaps: Sequence[Handicap]
) -> dict[str, object]:
    """``options`` with the players' ``handicaps`` as ``game``'s ``handicaps``
    option (the game checks them when it starts); unchanged when nobody has
    one. A game without the option refuses them, naming the games that take them."""
    if all(handicap.is_none for handicap in handicaps):
        return dict(options)
    if not takes_handicaps(game):
        raise HandicapError(
            f"{game.name} takes no handicaps: a start is for X01, spot marks are for Cricket"
        )
    given = {str(name).strip().lower(): value for name, value in options.items()}
    text = format_handicaps(handicaps)
    if given.get(HANDICAPS_OPTION, NO_HANDICAPS) not in (NO_HANDICAPS, text):
        raise HandicapError(
            f"the players' handicaps ({text!r}) and the option 'handicaps' "
            f"({given[HANDICAPS_OPTION]!r}) disagree: give them once"
        )
    return {**given, HANDICAPS_OPTION: text}


def x01_starts(averages: Sequence[float], start: int) -> tuple[int, ...]:
    """Suggested starts: a leg from ``start`` takes about ``3 * start / average``
    darts, so each player starts from ``start * average / best`` (at least 2)
    and expects the strongest's darts; a player without an average (0) keeps ``start``."""
    best = max(averages, default=0.0)
    if best <= 0:
        return tuple(start for _ in averages)
    return tuple(
        max(_LOWEST_START, round(start * average / best)) if average > 0 else start
        for average in averages
    )


def cricket_spot_marks(mprs: Sequence[float]) -> tuple[Handicap, ...]:
    """Suggested spot marks: closing takes 21 marks, about ``21 / mpr`` rounds,
    so a player gets ``21 * (1 - mpr / best)`` marks (at most 20), the bull
    first, then 15 upward, three to a target; the strongest gets none."""
    best = max(mprs, default=0.0)
    handicaps = []
    for mpr in mprs:
        given = 0 if best <= 0 or mpr <= 0 else round(_MARKS_TO_CLOSE_ALL * (1 - mpr / best))
        given = min(given, _MARKS_TO_CLOSE_ALL - 1)
        marks: dict[str, int] = {}
        for target in _SPOT_ORDER:
            if given <= 0:
                break
            marks[target] = min(_MAX_SPOT, given)
            given -= marks[target]
        handicaps.append(Handicap.of(marks=marks))
    return tuple(handicaps)
