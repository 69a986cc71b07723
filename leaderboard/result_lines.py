"""The after-game lines of a stored result (``{base}/{board}/result/lines``,
:class:`mqtt_contract.lobby_payload.ResultLines`): each player's average
measure this game (the game's own average, X01's three-dart average or
Cricket's marks per round; else its highlight), their average in this game
this month at the venue, their rating's move (the rebuilt ratings' ordinal
before and after this result) and a personal best in words when one fell
(the average, or X01's highest checkout, above every earlier game's)."""

from __future__ import annotations

import time

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session

from engine import game_class
from leaderboard.models import Rating, Result, Venue
from leaderboard.models import ResultPlayer as PlayerFigures
from leaderboard.queries import period_bounds
from leaderboard.ratings import DEFAULT_ORDINAL
from mqtt_contract.lobby_payload import PlayerLine, ResultLines

__all__ = ["LINE_NAME_LENGTH", "result_lines"]

LINE_NAME_LENGTH = 64
"""The longest name a line carries (the contract's); a longer one is cut."""


def _earlier(result: Result) -> ColumnElement[bool]:
    """Rows of games finished before ``result`` (ties broken by result id)."""
    return or_(
        PlayerFigures.finished_at < result.finished_at,
        and_(PlayerFigures.finished_at == result.finished_at, Result.result_id < result.result_id),
    )


def _rating_change(session: Session, result: Result, player: int) -> float | None:
    """The player's ordinal after this result less the one before (a first
    game starts from a new player's); None when this result rated nobody."""
    after = session.execute(
        select(Rating.ordinal).where(Rating.result_pk == result.id, Rating.player_id == player)
    ).scalar_one_or_none()
    if after is None:
        return None
    before = session.execute(
        select(Rating.ordinal)
        .where(
            Rating.player_id == player,
            Rating.game == result.game,
            or_(
                Rating.at < result.finished_at,
                and_(Rating.at == result.finished_at, Rating.result_id < result.result_id),
            ),
        )
        .order_by(Rating.at.desc(), Rating.result_id.desc())
        .limit(1)
    ).scalar_one_or_none()
    return round(after - (DEFAULT_ORDINAL if before is None else before), 2)


def _personal_best(
    session: Session, result: Result, line: PlayerFigures, average: float | None
) -> str | None:
    """A best this game set, in words, when the player has earlier games in it."""
    earlier = (
        select(PlayerFigures)
        .join(Result, Result.id == PlayerFigures.result_pk)
        .where(
            PlayerFigures.player_id == line.player_id,
            PlayerFigures.game == result.game,
            _earlier(result),
        )
        .subquery()
    )
    trait = game_class(result.game).average
    if trait is not None and average is not None:
        figure = getattr(earlier.c, trait.figure)
        best = session.execute(
            select(func.count(), func.max(figure * 3.0 / earlier.c.darts)).where(
                earlier.c.darts > 0
            )
        ).one()
        if best[0] and best[1] is not None and average > round(float(best[1]), 2):
            return f"personal best {trait.label}: {average:.2f}"
    checkout: int | None = line.figure_value("highest_checkout")
    if checkout is not None:
        best_checkout = session.execute(
            select(func.count(), func.max(earlier.c.highest_checkout))
        ).one()
        if best_checkout[0] and checkout > (best_checkout[1] or 0):
            return f"personal best checkout: {checkout}"
    return None


def _measure(game: str, figures: int, darts: int, highlight: float | None) -> float | None:
    """The game's average of ``figures`` over ``darts`` (per three), else the highlight."""
    if game_class(game).average is None:
        return highlight
    return round(figures * 3 / darts, 2) if darts else None


def _month_average(session: Session, result: Result, player: int) -> float | None:
    """The player's average in the game this month (the venue's month), this game included."""
    trait = game_class(result.game).average
    timezone = session.execute(
        select(Venue.timezone).where(Venue.id == result.venue_id)
    ).scalar_one_or_none()
    bounds = period_bounds("month", timezone or "UTC", result.finished_at)
    if trait is None or bounds is None:
        return None
    figure = getattr(PlayerFigures, trait.figure)
    total, darts = session.execute(
        select(func.sum(figure), func.sum(PlayerFigures.darts)).where(
            PlayerFigures.player_id == player,
            PlayerFigures.game == result.game,
            PlayerFigures.finished_at >= bounds[0],
            PlayerFigures.finished_at < bounds[1],
        )
    ).one()
    return round(int(total) * 3 / int(darts), 2) if darts else None


def result_lines(session: Session, result_id: str, now: float | None = None) -> ResultLines | None:
    """The lines of the stored result ``result_id``; None when it is not
    stored (or counts no more). Blocking (database)."""
    result = session.execute(
        select(Result).where(Result.result_id == result_id)
    ).scalar_one_or_none()
    if result is None:
        return None
    trait = game_class(result.game).average
    rows = session.execute(
        select(PlayerFigures)
        .where(PlayerFigures.result_pk == result.id)
        .order_by(PlayerFigures.seat)
    ).scalars()
    lines = []
    for row in rows:
        figures = int(getattr(row, trait.figure)) if trait is not None else 0
        average = _measure(result.game, figures, row.darts, row.highlight)
        player = row.player_id
        lines.append(
            PlayerLine(
                seat=row.seat,
                name=row.name[:LINE_NAME_LENGTH] or "?",
                player_id=player,
                average=average,
                month_average=None if player is None else _month_average(session, result, player),
                rating_change=None if player is None else _rating_change(session, result, player),
                personal_best=(
                    None if player is None else _personal_best(session, result, row, average)
                ),
            )
        )
    return ResultLines(
        result_id=result.result_id,
        game=result.game,
        at=time.time() if now is None else now,
        players=tuple(lines),
    )
