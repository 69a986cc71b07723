"""``GET /api/leaderboard``: one game's table for a period (and venue), the
same rows as ``oche leaderboard show --json``, a page at a time (``limit``,
``offset``): a league's whole table is thousands of rows."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from leaderboard import queries
from leaderboard.api_models import Row
from leaderboard.web.dependencies import (
    MAX_OFFSET,
    GameDep,
    PeriodQuery,
    SessionDep,
    VenueQuery,
)

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rankings"])

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
