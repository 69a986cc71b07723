"""Building the FastAPI app. The constructor does no I/O: the database is
migrated and the MQTT side started by :mod:`leaderboard.service`. Every answer
carries the security headers (:mod:`leaderboard.web.security_headers`); there
is no ``/docs`` or ``/redoc`` (their pages load scripts from a CDN), only the
OpenAPI document at ``/openapi.json``."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from leaderboard.command_relay import CommandRelay
from leaderboard.database import Database
from leaderboard.live_hub import (
    DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_CLIENT,
    LiveHub,
    StreamSlots,
)
from leaderboard.log_throttle import ThrottledLog
from leaderboard.pairings import BoardPairings
from leaderboard.venues import VenueMap
from leaderboard.web import (
    api_boards,
    api_games,
    api_join,
    api_leaderboard,
    api_leagues,
    api_live,
    api_players,
    api_records,
    api_rejected,
    api_results,
    api_tournaments,
    app_shell,
    board_page,
    join_page,
    league_pages,
    pages,
    tournament_pages,
)
from leaderboard.web.admin import AdminGuard
from leaderboard.web.api_join import CardLinker
from leaderboard.web.join_checks import BadCodeLimit
from leaderboard.web.security_headers import SecurityHeaders

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
"""The pages' CSS and JavaScript, served at ``/static/`` (no CDN: bars have poor internet)."""


def create_app(
    database: Database,
    hub: LiveHub,
    venues: VenueMap,
    *,
    admin_password_hash: str = "",
    max_live_streams: int = DEFAULT_MAX_STREAMS,
    max_live_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT,
    relay: CommandRelay | None = None,
    card_linker: CardLinker | None = None,
    pairings: BoardPairings | None = None,
) -> FastAPI:
    """The app: ``/api/...``, ``/`` (the bar's TV), ``/players/{name}``,
    ``/join/{board}`` (a phone joins a lobby through ``relay``; without one
    the join answers 503; ``card_linker`` stores a card the board linked), a
    board's own API ``/api/boards/{board}/...`` (pairing and control through
    ``relay``; ``pairings`` the devices each board lists, fed by the MQTT
    side: without it none is known and the database alone decides), and
    the admin views behind ``admin_password_hash`` (refused without one).
    A bad hash or stream limit is a ``ValueError`` saying which."""
    app = FastAPI(
        title="Oche leaderboard",
        summary="Rankings, statistics and records of every board's finished games, "
        "re-scored from their logs; live boards over Server-Sent Events.",
        version="1",
        docs_url=None,
        redoc_url=None,
    )
    app.state.database = database
    app.state.hub = hub
    app.state.venues = venues
    app.state.admin = AdminGuard(admin_password_hash)
    app.state.live_slots = StreamSlots(max_live_streams, max_live_streams_per_client)
    app.state.live_refusals = ThrottledLog(logging.getLogger(api_live.__name__))
    app.state.relay = relay
    app.state.card_linker = card_linker
    app.state.join_limit = BadCodeLimit()
    app.state.pair_limit = BadCodeLimit()
    app.state.pairings = pairings if pairings is not None else BoardPairings(database)
    for module in (
        api_leaderboard,
        api_players,
        api_results,
        api_records,
        api_rejected,
        api_live,
        api_join,
        api_boards,
        api_games,
        api_tournaments,
        api_leagues,
        pages,
        league_pages,
        join_page,
        board_page,
        tournament_pages,
        app_shell,
    ):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_exception_handler(DBAPIError, _database_unavailable)
    app.add_exception_handler(StarletteHTTPException, _allow_every_method)
    app.add_middleware(SecurityHeaders)
    return app


async def _database_unavailable(request: Request, error: Exception) -> JSONResponse:
    """The database is away (restarting, unreachable): a 503 saying so, not a 500;
    the next request tries again with a fresh connection."""
    text = str(getattr(error, "orig", None) or error).strip()
    reason = text.splitlines()[0] if text else type(error).__name__
    log.warning("%s %s: the database is unavailable: %s", request.method, request.url.path, reason)
    return JSONResponse(
        {"detail": f"the database is unavailable, try again shortly: {reason}"},
        status_code=503,
        headers={"Retry-After": "5"},
    )


def _documented_methods(app: FastAPI, path: str) -> list[str]:
    """The methods the OpenAPI document gives the path template ``path`` matches."""
    for template, operations in app.openapi()["paths"].items():
        parts = [
            "[^/]+" if part.startswith("{") and part.endswith("}") else re.escape(part)
            for part in template.split("/")
        ]
        if re.fullmatch("/".join(parts), path):
            return sorted(method.upper() for method in operations)
    return []


async def _allow_every_method(request: Request, error: Exception) -> Response:
    """A 405's ``Allow`` names every method the path takes: Starlette names
    only the first route's (``GET /api/boards/{board}/pairing``, not its
    ``DELETE``). Any other HTTP error is FastAPI's own answer."""
    assert isinstance(error, StarletteHTTPException)
    if error.status_code == 405:
        methods = _documented_methods(request.app, request.url.path)
        if methods:
            headers = {**(error.headers or {}), "Allow": ", ".join(methods)}
            error = StarletteHTTPException(405, error.detail, headers=headers)
    return await http_exception_handler(request, error)
