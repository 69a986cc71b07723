"""``GET /api/players/{name}``: a player's card (statistics and rating per
game, averages over time, recent results)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query

from leaderboard import queries
from leaderboard.api_models import PlayerCard
from leaderboard.web.dependencies import (
    NameInPath,
    OptionalPlainText,
    PlainTextSchema,
    SessionDep,
)

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["players"])

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "No player of that name (in that venue)."}
}


@router.get("/players/{name:path}", response_model=PlayerCard, responses=NOT_FOUND)
def get_player(
    session: SessionDep,
    name: NameInPath,
    venue: Annotated[
        str | None,
        OptionalPlainText,
        Query(description="The player's venue.", json_schema_extra=PlainTextSchema),
    ] = None,
) -> PlayerCard:
    """The player's card; case and surrounding spaces of ``name`` don't matter."""
    try:
        return queries.player_card(session, name, venue)
    except queries.PlayerNotFoundError:
        where = f" in venue {venue!r}" if venue is not None else ""
        raise HTTPException(404, f"no player named {name!r}{where}") from None
