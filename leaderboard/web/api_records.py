"""``GET /api/records``: the period's highest checkout, best leg, most 180s and
each game's highlight."""

from __future__ import annotations

from fastapi import APIRouter

from leaderboard import queries
from leaderboard.api_models import Records
from leaderboard.web.dependencies import PeriodQuery, SessionDep, VenueQuery

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rankings"])


@router.get("/records", response_model=Records)
def get_records(
    session: SessionDep,
    period: PeriodQuery = "day",
    venue: VenueQuery = None,
) -> Records:
    """The records set in the period (in the venue)."""
    return queries.records(session, period, venue)
