"""Building the FastAPI app. The constructor does no I/O: the database is
migrated and the MQTT side started by :mod:`leaderboard.service`."""

from __future__ import annotations

from fastapi import FastAPI

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.venues import VenueMap

__all__ = ["create_app"]


def create_app(database: Database, hub: LiveHub, venues: VenueMap) -> FastAPI:
    """The app: ``/api/...``, ``/`` (the bar's TV), ``/players/{name}``."""
    raise NotImplementedError
