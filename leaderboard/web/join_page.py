"""``/join/{board}?code=...``: the page a phone opens from the board's QR
code (docs/players.md). It renders what ``GET /api/boards/{board}/join-options``
returns (the same :func:`~leaderboard.web.api_join.join_options`): the
venue's players to pick (a search box filters a long list), a field for a
new name, the "link the card I just tapped" box while a card waits, and a
Join button; ``static/join.js`` posts the join to the API and says how it
went. A code that is not the board's current one gets a refusal page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from leaderboard.web.api_join import join_options
from leaderboard.web.dependencies import HubDep, VenuesDep
from leaderboard.web.join_checks import JoinRefusedError
from leaderboard.web.pages import TEMPLATES

__all__ = ["SEARCH_FROM", "router"]

router = APIRouter(include_in_schema=False)

SEARCH_FROM = 8
"""A roster this long or longer gets a search box above it."""


@router.get("/join/{board}", response_class=HTMLResponse)
async def join_page(
    request: Request,
    hub: HubDep,
    venues: VenuesDep,
    board: str,
    code: Annotated[str, Query(max_length=16)] = "",
) -> HTMLResponse:
    """Pick your name (or type a new one) and join ``board``'s next game."""
    try:
        options = await join_options(request, hub, venues, board, code)
    except JoinRefusedError as refused:
        page = TEMPLATES.TemplateResponse(
            request, "join_refused.html", {"detail": refused.detail}, refused.status
        )
        if refused.retry_after:
            page.headers["Retry-After"] = str(refused.retry_after)
    else:
        context = {"options": options, "code": code.strip().upper(), "search": SEARCH_FROM}
        page = TEMPLATES.TemplateResponse(request, "join.html", context)
    page.headers["Cache-Control"] = "no-store"
    return page
