"""``GET /api/leaderboard``: one game's table for a period (and venue), the
same rows as ``oche leaderboard show --json``, a page at a time (``limit``,
``offset``): a league's whole table is thousands of rows."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query

from leaderboard import queries
from leaderboard.api_models import Row
from leaderboard.handicaps import NoFiguresError, handicap_report
from leaderboard.web.dependencies import (
    MAX_OFFSET,
    GameDep,
    PeriodQuery,
    SessionDep,
    VenueQuery,
)

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rankings"])

NO_FIGURES: dict[int | str, dict[str, Any]] = {
    404: {"description": "A player has no figures for the game, or the game takes no handicaps."}
}

DEFAULT_LIMIT = queries.DEFAULT_TABLE_LIMIT
MAX_LIMIT = queries.MAX_TABLE_LIMIT


@router.get("/leaderboard", response_model=list[Row])
def get_leaderboard(
    session: SessionDep,
    game: GameDep,
    period: PeriodQuery = "all",
    venue: VenueQuery = None,
    limit: Annotated[
        int, Query(ge=1, le=MAX_LIMIT, description="At most this many rows, from `offset`.")
    ] = DEFAULT_LIMIT,
    offset: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_OFFSET,
            description="Rows skipped first: offset 100 starts at rank 101.",
        ),
    ] = 0,
) -> list[Row]:
    """The game's table, ordered by rank (the rating's conservative ordinal),
    ``limit`` rows from ``offset``; ranks are the whole table's."""
    return queries.leaderboard(session, game, period, venue, limit=limit, offset=offset)


@router.get("/handicap", responses=NO_FIGURES)
def get_handicap(
    session: SessionDep,
    game: GameDep,
    player: Annotated[
        list[str],
        Query(min_length=2, max_length=8, description="The players, two or more, by name."),
    ],
    start: Annotated[
        int, Query(ge=2, le=1001, description="X01: the strongest player's start.")
    ] = 501,
) -> dict[str, Any]:
    """Fair handicaps for ``player`` in ``game`` from their all-time figures,
    as ``oche leaderboard handicap --json`` prints them (docs/leaderboard.md,
    Handicaps): a phone or board page sends the ``new_game`` it gives."""
    rows = [row.model_dump(mode="json") for row in queries.leaderboard(session, game, "all")]
    try:
        return handicap_report(game, rows, player, start)
    except NoFiguresError as error:
        raise HTTPException(404, str(error)) from None
