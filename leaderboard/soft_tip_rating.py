"""The soft-tip rating: one number from 1 to 18 for a player's level, made as
DARTSLIVE's RATING is, from two figures: the points per round (three darts)
of their Count-Up games and the marks per round (MPR) of their Cricket
Count-Up games (docs/leaderboard.md, "The soft-tip rating")."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.games.count_up import CountUp
from engine.games.cricket_count_up import CricketCountUp
from leaderboard.models import PlayerTotal

__all__ = [
    "FLIGHTS",
    "RATING_TABLE",
    "SoftTipRating",
    "figure_rating",
    "player_soft_tip_rating",
    "soft_tip_rating",
]


@dataclass(frozen=True, slots=True)
class RatingStep:
    """One level of the table: the points per round and the MPR it starts at."""

    level: int
    points_per_round: float
    mpr: float


RATING_TABLE: tuple[RatingStep, ...] = (
    RatingStep(1, 0.0, 0.0),
    RatingStep(2, 40.0, 1.30),
    RatingStep(3, 45.0, 1.50),
    RatingStep(4, 50.0, 1.70),
    RatingStep(5, 55.0, 1.90),
    RatingStep(6, 60.0, 2.10),
    RatingStep(7, 65.0, 2.30),
    RatingStep(8, 70.0, 2.50),
    RatingStep(9, 75.0, 2.70),
    RatingStep(10, 80.0, 2.90),
    RatingStep(11, 85.0, 3.10),
    RatingStep(12, 90.0, 3.30),
    RatingStep(13, 95.0, 3.50),
    RatingStep(14, 102.0, 3.75),
    RatingStep(15, 109.0, 4.00),
    RatingStep(16, 116.0, 4.25),
    RatingStep(17, 123.0, 4.50),
    RatingStep(18, 130.0, 4.75),
)
"""DARTSLIVE's published table (dartslive.com/us/guide/rating): the figure
from which each level starts, for the 01 figure (points per round) and the
Cricket figure (MPR)."""

FLIGHTS: tuple[tuple[int, str], ...] = (
    (16, "SA"),
    (13, "AA"),
    (10, "A"),
    (8, "BB"),
    (6, "B"),
    (4, "CC"),
    (1, "C"),
)
"""The flight (class letters) from each level up, as DARTSLIVE groups them."""


@dataclass(frozen=True, slots=True)
class SoftTipRating:
    """A player's soft-tip rating, its flight and the figures it is made of
    (``None``: no games of that kind yet)."""

    rating: float
    flight: str
    points_per_round: float | None
    mpr: float | None


def figure_rating(value: float, starts: tuple[float, ...]) -> float:
    """The level (1.00-18.00) of one figure: the level whose start it has
    reached, plus how far it is towards the next level's start; 18 at most."""
    for index in range(len(starts) - 1, -1, -1):
        if value >= starts[index]:
            if index == len(starts) - 1:
                return float(index + 1)
            low, high = starts[index], starts[index + 1]
            return index + 1 + (value - low) / (high - low)
    return 1.0


def _flight(rating: float) -> str:
    return next(name for floor, name in FLIGHTS if int(rating) >= floor)


def soft_tip_rating(points_per_round: float | None, mpr: float | None) -> SoftTipRating | None:
    """The rating of these figures: the mean of each present figure's level
    (:func:`figure_rating`), two decimals; None without either figure."""
    parts = []
    if points_per_round is not None:
        starts = tuple(step.points_per_round for step in RATING_TABLE)
        parts.append(figure_rating(points_per_round, starts))
    if mpr is not None:
        parts.append(figure_rating(mpr, tuple(step.mpr for step in RATING_TABLE)))
    if not parts:
        return None
    rating = round(sum(parts) / len(parts), 2)
    return SoftTipRating(rating, _flight(rating), points_per_round, mpr)


def player_soft_tip_rating(session: Session, player_id: int) -> SoftTipRating | None:
    """``player_id``'s rating from their all-time Count-Up and Cricket
    Count-Up totals (points and marks per three darts)."""
    totals = PlayerTotal.__table__.c  # the figures' columns are made from leaderboard.figures
    rows = session.execute(
        select(totals.game, totals.points, totals.marks, totals.darts).where(
            totals.player_id == player_id, totals.game.in_((CountUp.id, CricketCountUp.id))
        )
    ).all()
    figures: dict[str, float] = {}
    for game, points, marks, darts in rows:
        if darts:
            top = points if game == CountUp.id else marks
            figures[game] = round(3 * (top or 0) / darts, 2)
    return soft_tip_rating(figures.get(CountUp.id), figures.get(CricketCountUp.id))
