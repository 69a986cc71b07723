"""Building the FastAPI app. The constructor does no I/O: the database is
migrated and the MQTT side started by :mod:`leaderboard.service`. Every answer
carries the security headers (:mod:`leaderboard.web.security_headers`); there
is no ``/docs`` or ``/redoc`` (their pages load scripts from a CDN), only the
OpenAPI document at ``/openapi.json``."""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError

from leaderboard.command_relay import CommandRelay
from leaderboard.database import Database
from leaderboard.live_hub import (
    DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_CLIENT,
    LiveHub,
    StreamSlots,
)
from leaderboard.log_throttle import ThrottledLog
from leaderboard.venues import VenueMap
from leaderboard.web import (
    api_join,
    api_leaderboard,
    api_live,
    api_players,
    api_records,
    api_rejected,
    api_results,
    app_shell,
    join_page,
    pages,
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
) -> FastAPI:
    """The app: ``/api/...``, ``/`` (the bar's TV), ``/players/{name}``,
    ``/join/{board}`` (a phone joins a lobby through ``relay``; without one
    the join answers 503; ``card_linker`` stores a card the board linked), and
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
    for module in (
        api_leaderboard,
        api_players,
        api_results,
        api_records,
        api_rejected,
        api_live,
        api_join,
        pages,
        join_page,
        app_shell,
    ):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_exception_handler(DBAPIError, _database_unavailable)
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
