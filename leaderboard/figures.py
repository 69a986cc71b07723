"""The leaderboard's statistics in one table, :data:`FIGURES`: each figure's
name, how the tables aggregate it and which games' rows show it. It makes the
replay's tally (:mod:`leaderboard.scoring`), the columns of ``result_players``
(a player's figures in one result) and ``player_totals`` (the kept totals) in
:mod:`leaderboard.models`, the totals and the period tables' sums
(:mod:`leaderboard.totals`) and the API's row models (:mod:`leaderboard.api_models`).
A new statistic is a line here and a migration adding its columns
(docs/leaderboard.md, "Where a game's and a statistic's knowledge lives")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.awards import Award
from engine.traits import Family

__all__ = [
    "AWARD_FIGURES",
    "FIGURES",
    "LINE_FIGURES",
    "TOTAL_FIGURES",
    "Aggregate",
    "Figure",
    "Ratio",
    "award_column",
    "row_figures",
]


class Aggregate(StrEnum):
    """How a figure adds up over a player's results."""

    SUM = "sum"
    """Added up (a count)."""
    MAX = "max"
    """The best is the highest (a best, None until there is one)."""
    MIN = "min"
    """The best is the lowest (a best, None until there is one)."""
    PER = "per"
    """A ratio of two sums, worked out for the row (:attr:`Figure.ratio`): not stored."""


@dataclass(frozen=True, slots=True)
class Ratio:
    """``top`` per ``bottom``, times ``scale`` (points per three darts: ``points``,
    ``darts``, 3); None when ``bottom`` is 0."""

    top: str
    bottom: str
    scale: float


@dataclass(frozen=True, slots=True)
class Figure:
    """One statistic of the leaderboard."""

    name: str
    """Its column in ``player_totals`` and its key in the API row."""
    aggregate: Aggregate
    family: Family | None = None
    """The games whose rows show it (``Game.family``); None: no family's
    figures show it (other figures are made of it, or, as ``legs_won`` and
    ``legs_lost``, every row has it beside ``played`` and ``won``)."""
    line: str | None = ""
    """Its column in ``result_players`` (a player's figure in one result): ""
    for :attr:`name`, None when a result stores none (a ratio, or a best of
    one result's ratio)."""
    ratio: Ratio | None = None
    """For :attr:`Aggregate.PER`, the ratio of the sums; for a best with no
    line, the ratio of one result's line figures it is the best of."""

    @property
    def column(self) -> str | None:
        """The ``result_players`` column, None when a result stores none."""
        return self.name if self.line == "" else self.line

    @property
    def value_type(self) -> type[int] | type[float]:
        """What its values are: a ratio (or a best of one) a float, else an int."""
        return float if self.ratio is not None else int

    @property
    def nullable(self) -> bool:
        """Whether it may have no value: a count is 0 until something counts,
        a best or a ratio None until there is one."""
        return self.aggregate is not Aggregate.SUM


_X01 = Family.COUNTDOWN
_MARKS = Family.MARKS
_POINTS = Family.POINTS
_SUM, _MAX, _MIN, _PER = Aggregate.SUM, Aggregate.MAX, Aggregate.MIN, Aggregate.PER


def award_column(award: Award | str) -> str:
    """The figure (and column) counting a player's ``award``s: ``ton-80`` is
    ``award_ton_80``, ``5-mark`` is ``award_5_mark``."""
    return "award_" + str(award).replace("-", "_")


AWARD_FIGURES: tuple[Figure, ...] = tuple(
    Figure(award_column(award), Aggregate.SUM) for award in Award
)
"""How many of each award (:class:`engine.awards.Award`) a player threw, as
the engine settles a visit's awards on the replay: no family's row shows
them, the player card, the records and the TV do."""

FIGURES: tuple[Figure, ...] = (
    Figure("points", _SUM),
    Figure("first9_points", _SUM),
    Figure("first9_darts", _SUM),
    Figure("checkouts", _SUM),
    Figure("checkout_darts", _SUM),
    Figure("three_dart_average", _PER, _X01, None, Ratio("points", "darts", 3)),
    Figure("first9_average", _PER, _X01, None, Ratio("first9_points", "first9_darts", 3)),
    Figure("checkout_percent", _PER, _X01, None, Ratio("checkouts", "checkout_darts", 100)),
    Figure("highest_checkout", _MAX, _X01),
    Figure("best_leg_darts", _MIN, _X01, "leg_darts"),
    Figure("count_100", _SUM, _X01),
    Figure("count_140", _SUM, _X01),
    Figure("count_180", _SUM, _X01),
    Figure("points_per_dart", _PER, _POINTS, None, Ratio("points", "darts", 1)),
    Figure("marks", _SUM),
    Figure("mpr", _PER, _MARKS, None, Ratio("marks", "darts", 3)),
    Figure("best_game_mpr", _MAX, _MARKS, None, Ratio("marks", "darts", 3)),
    Figure("count_5_marks", _SUM, _MARKS),
    Figure("count_7_marks", _SUM, _MARKS),
    Figure("count_9_marks", _SUM, _MARKS),
    Figure("legs_won", _SUM),
    Figure("legs_lost", _SUM),
    *AWARD_FIGURES,
)
"""Every statistic beside what each row has (played, won, darts, the highlight),
in the order the API rows give them. ``legs_won`` and ``legs_lost`` are a
match's legs (a single game is a match of one leg: its winner's side won one,
every other side lost one, a draw neither); every row gives them after ``won``."""

LINE_FIGURES: tuple[Figure, ...] = tuple(f for f in FIGURES if f.column is not None)
"""The figures a result stores for each player (``result_players``, ``PlayerLine.figures``)."""

TOTAL_FIGURES: tuple[Figure, ...] = tuple(f for f in FIGURES if f.aggregate is not Aggregate.PER)
"""The figures a player's kept totals hold (``player_totals``)."""


def row_figures(family: Family) -> tuple[Figure, ...]:
    """The figures the rows of a game of ``family`` add, in order."""
    return tuple(f for f in FIGURES if f.family is family)
