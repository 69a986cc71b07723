"""``GET /api/leagues`` and ``GET /api/leagues/{league}``: the leagues, and
one league's teams, fixtures with their games, and standings
(docs/matches.md, "Leagues"): what ``oche league show --json`` prints and
the league's page renders."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path
from pydantic import AfterValidator

from leaderboard import leagues
from leaderboard.leagues import LeagueSummary, LeagueView
from leaderboard.web.dependencies import PlainTextSchema, SessionDep, plain_text

__all__ = ["LeagueInPath", "router"]

router = APIRouter(prefix="/api", tags=["leagues"])

LeagueInPath = Annotated[
    str,
    AfterValidator(plain_text),
    Path(
        description="The league's id, or its name (any case).",
        max_length=200,
        json_schema_extra=PlainTextSchema,
    ),
]
"""A league in the path: its id or name, plain text."""

NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such league."}}


@router.get("/leagues", response_model=list[LeagueSummary])
def get_leagues(session: SessionDep) -> list[LeagueSummary]:
    """Every league, newest first, with how many teams and fixtures it has."""
    return leagues.league_list(session)


@router.get("/leagues/{league}", response_model=LeagueView, responses=NOT_FOUND)
def get_league(session: SessionDep, league: LeagueInPath) -> LeagueView:
    """The league: its points rules, format, teams, fixtures (each game's
    players, status, winner and legs) and standings."""
    try:
        return leagues.league_view(session, league)
    except leagues.LeagueError as error:
        raise HTTPException(404, str(error)) from None
