"""``GET /api/rejected``: the results the service refused, newest first, with
the reason and the raw payload (an admin view: behind the admin password,
:mod:`leaderboard.web.admin`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from leaderboard import queries
from leaderboard.api_models import RejectedEntry
from leaderboard.web.admin import ADMIN_RESPONSES, AdminDep
from leaderboard.web.dependencies import SessionDep

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["admin"])


@router.get("/rejected", response_model=list[RejectedEntry], responses=ADMIN_RESPONSES)
def get_rejected(
    _admin: AdminDep,
    response: Response,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many, newest first.")] = (
        100
    ),
) -> list[RejectedEntry]:
    """Results not counted: refused (not JSON, not the schema, too big, or a
    log that does not give what the result claims; ``status`` rejected) or
    failed (re-scoring raised, a fault of this service; ``status`` failed,
    tried again by ``oche leaderboard rescore``). Needs the admin password."""
    response.headers["Cache-Control"] = "no-store"
    return queries.rejected(session, limit)
