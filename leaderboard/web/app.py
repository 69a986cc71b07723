"""Building the FastAPI app. The constructor does no I/O: the database is
migrated and the MQTT side started by :mod:`leaderboard.service`."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.venues import VenueMap
from leaderboard.web import (
    api_leaderboard,
    api_live,
    api_players,
    api_records,
    api_rejected,
    api_results,
    pages,
)

__all__ = ["STATIC_DIR", "create_app"]

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
"""The pages' CSS and JavaScript, served at ``/static/`` (no CDN: bars have poor internet)."""


def create_app(database: Database, hub: LiveHub, venues: VenueMap) -> FastAPI:
    """The app: ``/api/...``, ``/`` (the bar's TV), ``/players/{name}``."""
    app = FastAPI(
        title="Oche leaderboard",
        summary="Rankings, statistics and records of every board's finished games, "
        "re-scored from their logs; live boards over Server-Sent Events.",
        version="1",
    )
    app.state.database = database
    app.state.hub = hub
    app.state.venues = venues
    for module in (
        api_leaderboard,
        api_players,
        api_results,
        api_records,
        api_rejected,
        api_live,
        pages,
    ):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
