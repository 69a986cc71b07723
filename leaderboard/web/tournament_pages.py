"""The tournaments' HTML pages: ``/tournaments`` (the list),
``/tournaments/{id}`` (the bracket and the standings, reloading itself while
the tournament runs), and the operator's ``/admin/tournaments`` (the create
form) and ``/admin/tournaments/{id}`` (walkover buttons), behind the admin
password. Each renders what ``/api/tournaments`` returns; the admin pages'
``static/tournaments.js`` posts to that API."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from engine import game_ids
from leaderboard import tournaments
from leaderboard.tournament_formats import Format
from leaderboard.tournaments import TournamentNotFoundError
from leaderboard.web.admin import AdminDep
from leaderboard.web.api_tournaments import TournamentIdInPath
from leaderboard.web.dependencies import HubDep, SessionDep
from leaderboard.web.pages import TEMPLATES, game_name

__all__ = ["RELOAD_SECONDS", "router"]

router = APIRouter(include_in_schema=False)

RELOAD_SECONDS = 20
"""A running tournament's page reloads itself this often."""


def _page(request: Request, template: str, context: dict[str, object]) -> HTMLResponse:
    page = TEMPLATES.TemplateResponse(request, template, context)
    page.headers["Cache-Control"] = "no-store"
    return page


def _not_found(request: Request, tournament_id: int) -> HTMLResponse:
    what = {"what": f"No tournament {tournament_id}."}
    return TEMPLATES.TemplateResponse(request, "not_found.html", what, 404)


@router.get("/tournaments", response_class=HTMLResponse)
def tournaments_page(request: Request, session: SessionDep) -> HTMLResponse:
    """Every tournament, newest first."""
    return _page(request, "tournaments.html", {"found": tournaments.listing(session)})


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
def tournament_page(
    request: Request, session: SessionDep, tournament_id: TournamentIdInPath
) -> HTMLResponse:
    """One tournament: its bracket (or a round robin's rounds) and its standings."""
    try:
        view = tournaments.show(session, tournament_id)
    except TournamentNotFoundError:
        return _not_found(request, tournament_id)
    context = {
        "t": view,
        "columns": tournaments.bracket_columns(view),
        "reload": RELOAD_SECONDS if view.status == "running" else None,
        "admin": False,
    }
    return _page(request, "tournament.html", context)


@router.get("/admin/tournaments", response_class=HTMLResponse)
def admin_tournaments_page(
    _admin: AdminDep, request: Request, session: SessionDep, hub: HubDep
) -> HTMLResponse:
    """The operator's form to draw a tournament, and the tournaments so far."""
    context = {
        "found": tournaments.listing(session),
        "formats": [f.value for f in Format],
        "games": [(game, game_name(game)) for game in game_ids()],
        "boards": [board.board for board in hub.boards()],
    }
    return _page(request, "admin_tournaments.html", context)


@router.get("/admin/tournaments/{tournament_id}", response_class=HTMLResponse)
def admin_tournament_page(
    _admin: AdminDep, request: Request, session: SessionDep, tournament_id: TournamentIdInPath
) -> HTMLResponse:
    """One tournament for the operator: the page, with a walkover button per
    player of each match not decided yet."""
    try:
        view = tournaments.show(session, tournament_id)
    except TournamentNotFoundError:
        return _not_found(request, tournament_id)
    context = {
        "t": view,
        "columns": tournaments.bracket_columns(view),
        "reload": None,
        "admin": True,
    }
    return _page(request, "tournament.html", context)
