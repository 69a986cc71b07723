"""What every router takes from the app: a database session per request (run
in the threadpool with the plain ``def`` endpoints), the live hub, the live
streams' slots and the venues; and the checked parameters every router shares
(a game id; a name, venue or result id without control characters), refused
with a 422 in FastAPI's documented error shape before any database call."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Path, Query, Request
from pydantic import AfterValidator, BaseModel
from sqlalchemy.orm import Session

from engine import game_ids
from leaderboard.api_models import Period
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub, StreamSlots
from leaderboard.venues import VenueMap

__all__ = [
    "MAX_OFFSET",
    "PLAIN_TEXT_PATTERN",
    "GameDep",
    "HubDep",
    "NameInPath",
    "OptionalPlainText",
    "PeriodQuery",
    "PlainTextSchema",
    "Problem",
    "ResultIdInPath",
    "SessionDep",
    "StreamSlotsDep",
    "VenueQuery",
    "VenuesDep",
    "database_session",
    "known_game",
    "live_hub",
    "plain_text",
    "stream_slots",
    "venue_map",
]

MAX_OFFSET = 2**31 - 1
"""The largest ``offset`` any endpoint takes: both databases take it (SQLite
and PostgreSQL refuse a number past 64 bits, which would be a 5xx)."""


class Problem(BaseModel):
    """A refusal other than a 422: what was wrong, in one sentence."""

    detail: str


def database_session(request: Request) -> Iterator[Session]:
    """One session of the app's :class:`Database`, closed after the response."""
    database: Database = request.app.state.database
    with database.session() as session:
        yield session


async def live_hub(request: Request) -> LiveHub:
    """The app's :class:`LiveHub` (boards' states, the SSE fan-out); ``async``
    like the other two below, so the live stream never waits for the threadpool."""
    hub: LiveHub = request.app.state.hub
    return hub


async def stream_slots(request: Request) -> StreamSlots:
    """The app's :class:`StreamSlots`: how many live streams may be open."""
    slots: StreamSlots = request.app.state.live_slots
    return slots


async def venue_map(request: Request) -> VenueMap:
    """The app's board -> venue map."""
    venues: VenueMap = request.app.state.venues
    return venues


SessionDep = Annotated[Session, Depends(database_session)]
HubDep = Annotated[LiveHub, Depends(live_hub)]
StreamSlotsDep = Annotated[StreamSlots, Depends(stream_slots)]
VenuesDep = Annotated[VenueMap, Depends(venue_map)]


PLAIN_TEXT_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"
""":func:`plain_text`'s rule for the OpenAPI document: no control character."""
_PLAIN = {"pattern": PLAIN_TEXT_PATTERN}


def plain_text(value: str) -> str:
    """``value`` unless it holds a control character (a NUL, a newline ...),
    which no name, venue or result id has and PostgreSQL cannot even compare."""
    for character in value:
        if unicodedata.category(character) in ("Cc", "Cs"):
            raise ValueError(f"must not contain control characters, found {character!r}")
    return value


def _plain_or_none(value: str | None) -> str | None:
    return None if value is None else plain_text(value)


def known_game(game: str) -> str:
    """``game`` when it is a game id; a ValueError naming the known ids."""
    if game not in game_ids():
        raise ValueError(f"unknown game {game!r}; the games are: {', '.join(game_ids())}")
    return game


GameDep = Annotated[
    str,
    AfterValidator(known_game),
    Query(
        description="A game id, e.g. x01, cricket (see `oche games`).",
        json_schema_extra={"enum": list(game_ids())},
    ),
]

PeriodQuery = Annotated[
    Period, Query(description="day (the venue's local day), week, month or all.")
]
VenueQuery = Annotated[
    str | None,
    AfterValidator(_plain_or_none),
    Query(description="Only this venue.", json_schema_extra=_PLAIN),
]
PlainTextSchema = _PLAIN
"""The ``json_schema_extra`` of a parameter checked by :func:`plain_text`."""
OptionalPlainText = AfterValidator(_plain_or_none)
"""The check of an optional text parameter with a description of its own."""
NameInPath = Annotated[
    str,
    AfterValidator(plain_text),
    Path(description="The player's name (any case).", json_schema_extra=_PLAIN),
]
ResultIdInPath = Annotated[
    str,
    AfterValidator(plain_text),
    Path(description="The result's `result_id`.", json_schema_extra=_PLAIN),
]
