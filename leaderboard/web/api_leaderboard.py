"""``GET /api/leaderboard``: one game's table for a period (and venue), the
same rows as ``oche leaderboard show --json``."""

from __future__ import annotations

from fastapi import APIRouter

from leaderboard import queries
from leaderboard.api_models import Row
from leaderboard.web.dependencies import GameDep, PeriodQuery, SessionDep, VenueQuery

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rankings"])


@router.get("/leaderboard", response_model=list[Row])
def get_leaderboard(
    session: SessionDep,
    game: GameDep,
    period: PeriodQuery = "all",
    venue: VenueQuery = None,
) -> list[Row]:
    """The game's table, ordered by rank (the rating's conservative ordinal)."""
    return queries.leaderboard(session, game, period, venue)
