"""``GET /api/results/{result_id}``: one stored result with its visits broken down."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from leaderboard import queries
from leaderboard.api_models import ResultDetail
from leaderboard.web.dependencies import ResultIdInPath, SessionDep

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["results"])

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "description": "No stored result with that id that counts (the detail says when a "
        "later revision of its game replaced it)."
    }
}


@router.get("/results/{result_id}", response_model=ResultDetail, responses=NOT_FOUND)
def get_result(session: SessionDep, result_id: ResultIdInPath) -> ResultDetail:
    """The result as replayed from its log: players, winner and every visit."""
    try:
        return queries.result_detail(session, result_id)
    except queries.ResultNotFoundError as error:
        raise HTTPException(404, str(error)) from None
