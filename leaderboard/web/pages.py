"""The HTML pages: ``/`` (the bar's TV), ``/players/{name}`` (a player's card),
``/results/{result_id}`` and ``/admin/rejected``, plus the TV's fragments its
script re-fetches when ``/api/live`` says something changed. Every page
renders what the API returns (the same query functions and models), escaped."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment
from markupsafe import Markup
from sqlalchemy.orm import Session

from engine import game_class, game_ids
from leaderboard import queries, tournaments
from leaderboard.api_models import AveragePoint, LiveBoard, ResultSummary, Row
from leaderboard.live_hub import LiveHub
from leaderboard.web.admin import AdminDep
from leaderboard.web.board_views import board_card_html
from leaderboard.web.charts import line_chart
from leaderboard.web.dates import utc_text
from leaderboard.web.dependencies import (
    HubDep,
    NameInPath,
    ResultIdInPath,
    SessionDep,
    VenueQuery,
)
from leaderboard.web.jinja_setup import templates_environment
from mqtt_contract import cpu_label
from mqtt_contract.award_words import award_title

__all__ = ["TEMPLATES", "board_columns", "router"]

TV_TABLE_ROWS = 10
"""The TV shows each game's top ten."""


def game_name(game: str) -> str:
    """The game's display name (``X01``, ``Cricket``), or the id when unknown."""
    return game_class(game).name if game in game_ids() else game


def when(at: float | None) -> str:
    """Unix seconds as ``2026-12-01 18:03 UTC``; a dash for none, "date
    unknown" for a time that is no date."""
    if at is None:
        return "-"
    return utc_text(at, "%Y-%m-%d %H:%M UTC")


def player_label(name: str, cpu_level: int | None) -> str:
    """How a page names a player: ``Robo (CPU 5)`` for a computer player (as
    the board's screen does), the name for a person."""
    return cpu_label(name, cpu_level)


def player_labels(result: ResultSummary) -> list[str]:
    """A result's players as :func:`player_label` names them, in seat order."""
    levels = result.cpu_levels or [None] * len(result.players)
    return [player_label(name, level) for name, level in zip(result.players, levels, strict=True)]


def number(value: float | None, digits: int = 1) -> str:
    """A figure for a table: rounded, a dash for none."""
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def _environment() -> Environment:
    environment = templates_environment()
    environment.filters["game_name"] = game_name
    environment.filters["when"] = when
    environment.filters["number"] = number
    environment.filters["player_label"] = player_label
    environment.filters["player_labels"] = player_labels
    environment.filters["award_title"] = award_title
    return environment


TEMPLATES = Jinja2Templates(env=_environment())

router = APIRouter(include_in_schema=False)


def _today_tables(session: Session, venue: str | None) -> list[tuple[str, list[Row]]]:
    """Each game played today (in the venue), with its top rows."""
    tables = []
    for game in game_ids():
        rows = queries.leaderboard(session, game, "day", venue, limit=TV_TABLE_ROWS)
        if rows:
            tables.append((game, rows))
    return tables


def _rankings(session: Session, venue: str | None) -> dict[str, Any]:
    """What the TV's table, record and tournament slides show: today's tables
    and records, and the running tournaments' brackets."""
    shown = tournaments.on_tv(session, venue)
    return {
        "tables": _today_tables(session, venue),
        "records": queries.records(session, "day", venue),
        "tv_tournaments": shown,
        "tv_columns": {view.id: tournaments.tv_columns(view) for view in shown},
    }


def _boards(hub: LiveHub, venue: str | None) -> list[LiveBoard]:
    """The boards the TV shows: the venue's, or every one."""
    return [board for board in hub.boards() if venue is None or board.venue == venue]


def board_columns(count: int) -> int:
    """The columns of the TV's boards grid for ``count`` boards: a square-ish
    grid, wider than tall on a TV (4 boards 2 by 2, 12 boards 4 by 3), at most 6."""
    return min(6, max(1, math.ceil(math.sqrt(count))))


def _boards_slide(hub: LiveHub, venue: str | None) -> dict[str, Any]:
    """What the boards slide shows: each live board's card and the grid's columns."""
    boards = _boards(hub, venue)
    return {
        "boards": boards,
        "board_cards": [board_card_html(board) for board in boards],
        "board_columns": board_columns(len(boards)),
    }


@router.get("/", response_class=HTMLResponse)
def tv_page(
    request: Request,
    session: SessionDep,
    hub: HubDep,
    venue: VenueQuery = None,
    rotate: Annotated[float, Query(ge=0, le=3600)] = 12.0,
    slide: Annotated[str, Query(max_length=80)] = "",
) -> HTMLResponse:
    """The bar's TV: live boards, today's tables and records, rotating; live.
    ``rotate`` is the seconds per slide (0 holds one), ``slide`` the one to
    start on (``boards``, ``records``, ``table-x01``, ...)."""
    context: dict[str, Any] = {
        "venue": venue,
        "rotate": rotate,
        "slide": slide,
        **_boards_slide(hub, venue),
        **_rankings(session, venue),
        "recent": queries.recent_results(session, 1, venue),
        "game_names": {game: game_name(game) for game in game_ids()},
    }
    return TEMPLATES.TemplateResponse(request, "tv.html", context)


@router.get("/tv/rankings", response_class=HTMLResponse)
def tv_rankings(request: Request, session: SessionDep, venue: VenueQuery = None) -> HTMLResponse:
    """The TV's table and record slides, re-fetched after each new result."""
    return TEMPLATES.TemplateResponse(request, "tv_rankings.html", _rankings(session, venue))


@router.get("/tv/boards", response_class=HTMLResponse)
def tv_boards(request: Request, hub: HubDep, venue: VenueQuery = None) -> HTMLResponse:
    """The TV's live-boards slide, re-fetched when a board's state changes."""
    return TEMPLATES.TemplateResponse(request, "tv_boards.html", _boards_slide(hub, venue))


def _charts(points: list[AveragePoint]) -> list[tuple[str, Markup]]:
    """One SVG line chart per game: its average (X01's three-dart average,
    Cricket's marks per round) or its highlight."""
    by_game: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for point in points:
        by_game[point.game].append((point.at, point.value))
    charts = []
    for game, series in sorted(by_game.items()):
        average = game_class(game).average
        measure = "highlight" if average is None else average.label
        svg = line_chart(series, title=f"{game_name(game)}: {measure}", y_label=measure)
        charts.append((game, Markup(svg)))  # line_chart escapes every label
    return charts


def _not_found(request: Request, what: str) -> HTMLResponse:
    return TEMPLATES.TemplateResponse(request, "not_found.html", {"what": what}, 404)


@router.get("/players/{name:path}", response_class=HTMLResponse)
def player_page(
    request: Request, session: SessionDep, name: NameInPath, venue: VenueQuery = None
) -> HTMLResponse:
    """A player's card: rating and figures per game, averages over time, recent games."""
    try:
        card = queries.player_card(session, name, venue)
    except queries.PlayerNotFoundError:
        return _not_found(request, f"No player named {name!r}.")
    context = {"card": card, "charts": _charts(card.average_history)}
    return TEMPLATES.TemplateResponse(request, "player.html", context)


@router.get("/results/{result_id}", response_class=HTMLResponse)
def result_page(request: Request, session: SessionDep, result_id: ResultIdInPath) -> HTMLResponse:
    """One result: its players and every visit, as replayed from the log."""
    try:
        detail = queries.result_detail(session, result_id)
    except queries.ResultNotFoundError:
        return _not_found(request, f"No result with id {result_id!r}.")
    names = [player_label(player.name, player.cpu_level) for player in detail.result_players]
    return TEMPLATES.TemplateResponse(request, "result.html", {"result": detail, "names": names})


@router.get("/admin/rejected", response_class=HTMLResponse)
def rejected_page(
    _admin: AdminDep,
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> HTMLResponse:
    """The refused results and why, newest first (an admin view: the browser
    asks for the admin password)."""
    entries = queries.rejected(session, limit)
    page = TEMPLATES.TemplateResponse(request, "rejected.html", {"entries": entries})
    page.headers["Cache-Control"] = "no-store"
    return page
