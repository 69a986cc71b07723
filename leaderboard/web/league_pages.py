"""``/leagues`` and ``/leagues/{league}``: the leagues, and a league's page
(its standings, then each fixture with its games), rendering what
``/api/leagues`` returns, escaped; it fits a phone (the tables stack)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from leaderboard import leagues
from leaderboard.web.api_leagues import LeagueInPath
from leaderboard.web.dependencies import SessionDep
from leaderboard.web.pages import TEMPLATES

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/leagues", response_class=HTMLResponse)
def leagues_page(request: Request, session: SessionDep) -> HTMLResponse:
    """Every league, each linking to its page."""
    context = {"leagues": leagues.league_list(session)}
    return TEMPLATES.TemplateResponse(request, "leagues.html", context)


@router.get("/leagues/{league}", response_class=HTMLResponse)
def league_page(request: Request, session: SessionDep, league: LeagueInPath) -> HTMLResponse:
    """A league's standings and fixtures with their games."""
    try:
        view = leagues.league_view(session, league)
    except leagues.LeagueError:
        context = {"what": f"No league {league!r}."}
        return TEMPLATES.TemplateResponse(request, "not_found.html", context, 404)
    return TEMPLATES.TemplateResponse(request, "league.html", {"league": view})
