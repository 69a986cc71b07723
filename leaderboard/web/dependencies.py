"""What every router takes from the app: a database session per request (run
in the threadpool with the plain ``def`` endpoints), the live hub and the venues."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request
from sqlalchemy.orm import Session

from engine import game_ids
from leaderboard.api_models import Period
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.venues import VenueMap

__all__ = [
    "GameDep",
    "HubDep",
    "PeriodQuery",
    "SessionDep",
    "VenueQuery",
    "VenuesDep",
    "database_session",
    "known_game",
    "live_hub",
    "venue_map",
]


def database_session(request: Request) -> Iterator[Session]:
    """One session of the app's :class:`Database`, closed after the response."""
    database: Database = request.app.state.database
    with database.session() as session:
        yield session


def live_hub(request: Request) -> LiveHub:
    """The app's :class:`LiveHub` (boards' states, the SSE fan-out)."""
    hub: LiveHub = request.app.state.hub
    return hub


def venue_map(request: Request) -> VenueMap:
    """The app's board -> venue map."""
    venues: VenueMap = request.app.state.venues
    return venues


SessionDep = Annotated[Session, Depends(database_session)]
HubDep = Annotated[LiveHub, Depends(live_hub)]
VenuesDep = Annotated[VenueMap, Depends(venue_map)]


def known_game(
    game: Annotated[str, Query(description="A game id, e.g. x01, cricket (see `oche games`).")],
) -> str:
    """The ``game`` query parameter, refused with 422 naming the known ids."""
    if game not in game_ids():
        known = ", ".join(game_ids())
        raise HTTPException(422, f"unknown game {game!r}; the games are: {known}")
    return game


GameDep = Annotated[str, Depends(known_game)]

PeriodQuery = Annotated[
    Period, Query(description="day (the venue's local day), week, month or all.")
]
VenueQuery = Annotated[str | None, Query(description="Only this venue.")]
