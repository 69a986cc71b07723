"""What the clients need to know of a game beyond its rules, kept on the game
class (``Game.highlight``, ``Game.average``, ``Game.family``, ...) so no code
outside the engine names a game id: the leaderboard's highlight and average,
the kind of figures its rows carry, the display's attract screen and caller."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "MARKS_PER_ROUND",
    "THREE_DART_AVERAGE",
    "Average",
    "AwardFigure",
    "Family",
    "Highlight",
    "Measure",
]


class Family(StrEnum):
    """The kind of figures a game's players are counted by, beside everyone's
    (played, won, darts, the highlight): which leaderboard figures it has."""

    COUNTDOWN = "countdown"
    """X01's: points, averages, checkouts, tons."""
    MARKS = "marks"
    """The Cricket family's: marks, marks per round, 5-, 7- and 9-mark visits."""
    POINTS = "points"
    """Count-Up's: points and points per dart."""
    PLAIN = "plain"
    """None of their own: the highlight alone."""


class AwardFigure(StrEnum):
    """The visit figure a game's awards count beside the darts' beds
    (``Game.award_figure``, docs/awards.md): the tons need a points game, the
    5- to 9-mark visits a marks game."""

    POINTS = "points"
    """The visit's points: Low Ton, High Ton, Ton 80 (X01, Count-Up)."""
    MARKS = "marks"
    """The visit's marks: 5- to 9-mark visits (the Cricket family)."""
    BEDS = "beds"
    """Neither: only the beds' awards (Hat Trick, Three in the Black, Three in a Bed)."""
    NONE = "none"
    """No awards at all (a game played by picking)."""


class Measure(StrEnum):
    """What a game's highlight counts in one finished game (docs/leaderboard.md,
    "Statistics"): a statistic of the engine's own, or a figure of the replay."""

    STAT = "stat"
    """The player's own statistic in the final state (``Highlight.stat``)."""
    HIGHEST_CHECKOUT = "highest-checkout"
    """The score checked out (X01)."""
    BEST_VISIT_MARKS = "best-visit-marks"
    """The most marks in one visit."""
    BEST_VISIT_POINTS = "best-visit-points"
    """The most the game scored in one visit (its own points: runs, fives)."""
    BEST_VISIT_TOTAL = "best-visit-total"
    """The most a visit's live darts added up to on the board."""
    DARTS_TO_WIN = "darts-to-win"
    """The darts the winning side threw (nobody else has one)."""


@dataclass(frozen=True, slots=True)
class Highlight:
    """A game's own highlight: what it is called, what it counts and whether
    more is better (the leaderboard keeps the best, the records show it)."""

    label: str
    measure: Measure
    stat: str | None = None
    """For :attr:`Measure.STAT`: the key of the player's ``stats`` in the state."""
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if (self.measure is Measure.STAT) != (self.stat is not None):
            raise ValueError("a highlight names a stat exactly when it measures one")


@dataclass(frozen=True, slots=True)
class Average:
    """A game's average: one of its figures per three darts (the card's chart,
    the attract screen's column)."""

    figure: str
    """The figure counted per three darts: ``points`` or ``marks``."""
    label: str
    """In words: ``3-dart average``."""
    short_label: str
    """Where room is short (a table's column): ``3-dart avg``."""


THREE_DART_AVERAGE = Average("points", "3-dart average", "3-dart avg")
"""X01's average: points per three darts."""

MARKS_PER_ROUND = Average("marks", "marks per round", "MPR")
"""The Cricket family's average: marks per three darts (MPR)."""
