"""Joining a board's lobby from a phone (docs/players.md): ``GET
/api/boards/{board}/join-options?code=...`` (what the join page offers: the venue's
players, whether a card waits to be linked) and ``POST
/api/boards/{board}/join`` (the join itself, relayed to the board as a
``join`` command with the code, answered once the board answered). Both
check the code against the board's last retained state
(:mod:`leaderboard.web.join_checks`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Annotated, Any, Self

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, model_validator
from pydantic.json_schema import SkipJsonSchema

from engine.lineup import MAX_NAME_LENGTH, check_name
from leaderboard.command_relay import BoardSilentError, CommandRelay, RelayOfflineError
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.phone_roster import RosterChoice, add_player, venue_players
from leaderboard.venues import VenueMap
from leaderboard.web.dependencies import HubDep, Problem, VenuesDep
from leaderboard.web.join_checks import BadCodeLimit, JoinRefusedError, checked_board

__all__ = [
    "CardLinker",
    "JoinOptions",
    "JoinPlayer",
    "JoinRequest",
    "Joined",
    "RosterName",
    "join_options",
    "refusal_response",
    "router",
]

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["join"])

CardLinker = Callable[[int, str], None]
"""Stores a card (its keyed hash) for a roster player (id): the roster's
``add_card``. Blocking (database)."""


class RosterName(BaseModel):
    """A venue player the join page offers to pick."""

    id: int
    name: str


class JoinOptions(BaseModel):
    """What a phone with a board's current code may join as."""

    board: str
    venue: str
    players: list[RosterName]
    card_waiting: bool = Field(
        description="A card the roster does not know was tapped on the board lately: "
        "the join may link it (link_card)."
    )


NAME_PATTERN = (
    "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f]"
    "[^\\u0000-\\u001f\\u007f-\\u009f]*$"
)
"""A name a board takes, for the OpenAPI document: not blank, no control character."""


def _board_name(name: str | None) -> str | None:
    """``name`` stripped, when a board can take it (:func:`engine.lineup.check_name`)."""
    return None if name is None else check_name(name, "your name")


class JoinPlayer(BaseModel):
    """Who joins: a venue player by ``id``, or a ``name`` (a new name becomes a roster player)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"oneOf": [{"required": ["id"]}, {"required": ["name"]}]},
    )
    id: Annotated[int, Field(ge=1, le=2**31 - 1)] | SkipJsonSchema[None] = None
    name: (
        Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NAME_LENGTH,
                json_schema_extra={"pattern": NAME_PATTERN},
            ),
            AfterValidator(_board_name),
        ]
        | SkipJsonSchema[None]
    ) = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        if (self.id is None) == (self.name is None):
            raise ValueError('a player has exactly one of "id" and "name"')
        return self


class JoinRequest(BaseModel):
    """``POST /api/boards/{board}/join``'s body."""

    model_config = ConfigDict(extra="forbid")
    code: str = Field(max_length=16, description="The board's join code (its QR code's link).")
    player: JoinPlayer
    link_card: StrictBool = Field(
        default=False, description="Link the card last tapped on the board and not known."
    )


class Joined(BaseModel):
    """A join the board took."""

    board: str
    player: RosterName
    new_player: bool = Field(description="True when the name was added to the venue's roster.")
    card_linked: bool = Field(description="True when the tapped card is now this player's.")


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def refusal_response(refused: JoinRefusedError) -> JSONResponse:
    """A refusal as the API answers it: ``{"detail"}``, with ``Retry-After`` on a 429."""
    headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
    return JSONResponse({"detail": refused.detail}, status_code=refused.status, headers=headers)


async def join_options(
    request: Request, hub: LiveHub, venues: VenueMap, board: str, code: str
) -> JoinOptions:
    """The options for ``board`` with ``code``; a JoinRefusedError. The code
    is checked on the loop (the hub and the limit are the loop's), the
    venue's players read in a worker thread."""
    limit: BadCodeLimit = request.app.state.join_limit
    _, lobby = checked_board(hub, limit, _client(request), board, code)
    database: Database = request.app.state.database
    venue = venues.venue_of(board)
    choices = await asyncio.to_thread(venue_players, database, venue)
    players = [RosterName(id=choice.id, name=choice.name) for choice in choices]
    return JoinOptions(
        board=board, venue=venue, players=players, card_waiting=lobby.get("card_waiting") is True
    )


_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: {"description": "The code is not the board's current one.", "model": Problem},
    404: {
        "description": "The service has not heard of this board (or the venue of this player).",
        "model": Problem,
    },
    429: {"description": "Too many bad codes from this address: wait.", "model": Problem},
}


@router.get("/boards/{board}/join-options", response_model=JoinOptions, responses=_REFUSALS)
async def get_join(
    request: Request,
    hub: HubDep,
    venues: VenuesDep,
    board: str,
    code: Annotated[str, Query(max_length=16, description="The board's join code.")],
) -> JoinOptions | JSONResponse:
    """Whom a phone holding ``board``'s join code may join as."""
    try:
        return await join_options(request, hub, venues, board, code)
    except JoinRefusedError as refused:
        return refusal_response(refused)


def _player(
    database: Database, venue: str, venues: VenueMap, wanted: JoinPlayer
) -> tuple[RosterChoice, bool]:
    """The roster player ``wanted`` names (made for a new name); a LookupError
    for an id the venue has not, a ValueError for a name it cannot take."""
    known = venue_players(database, venue)
    if wanted.id is not None:
        found = next((p for p in known if p.id == wanted.id), None)
        if found is None:
            raise LookupError(f"There is no player {wanted.id} at {venue}")
        return found, False
    assert wanted.name is not None  # checked by check_name already
    return add_player(database, wanted.name, venue, venues)


@router.post(
    "/boards/{board}/join",
    response_model=Joined,
    responses={
        **_REFUSALS,
        400: {"description": "The body is not JSON.", "model": Problem},
        409: {"description": "The board refused the join (its reason).", "model": Problem},
        503: {"description": "The service is not connected to the broker.", "model": Problem},
        504: {"description": "The board did not answer within 5 s.", "model": Problem},
    },
)
async def post_join(
    request: Request, hub: HubDep, venues: VenuesDep, board: str, body: JoinRequest
) -> Joined | JSONResponse:
    """Join ``board``'s lobby: checked against its current code, relayed as
    ``join`` (with the code), answered once the board took it or said why not."""
    try:
        _, lobby = checked_board(
            hub, request.app.state.join_limit, _client(request), board, body.code
        )
    except JoinRefusedError as refused:
        return refusal_response(refused)
    relay: CommandRelay | None = request.app.state.relay
    if relay is None or not relay.connected:
        return JSONResponse({"detail": "The service cannot reach the boards now"}, 503)
    database: Database = request.app.state.database
    venue = venues.venue_of(board)
    try:
        player, made = await asyncio.to_thread(_player, database, venue, venues, body.player)
    except LookupError as missing:
        return JSONResponse({"detail": str(missing)}, 404)
    except ValueError as error:  # FastAPI's own 422 shape, as for a bad body
        problem = {"type": "value_error", "loc": ("body", "player"), "msg": str(error)}
        raise RequestValidationError([{**problem, "input": body.player.model_dump()}]) from None
    # By name, never by id: the board's copy of the roster may not have a
    # player made (or renamed) a moment ago, and a name it does not know
    # still joins (a guest whose games ingest counts for this player by name).
    ref = {"name": player.name}
    command: dict[str, Any] = {"command": "join", "player": ref, "code": lobby["join_code"]}
    if body.link_card:
        command["link_card"] = True
    try:
        response = await relay.send(board, command)
    except RelayOfflineError as error:
        return JSONResponse({"detail": str(error)}, 503)
    except BoardSilentError as error:
        return JSONResponse({"detail": str(error)}, 504)
    if response.get("ok") is not True:
        return JSONResponse({"detail": str(response.get("error") or "refused")}, 409)
    linked = await _link_card(request, player, response.get("card"))
    return Joined(
        board=board,
        player=RosterName(id=player.id, name=player.name),
        new_player=made,
        card_linked=linked,
    )


async def _link_card(request: Request, player: RosterChoice, card: object) -> bool:
    """The card the board linked (its hash) stored for ``player``, when it said one."""
    if not isinstance(card, str):
        return False
    linker: CardLinker | None = request.app.state.card_linker
    if linker is None:
        log.warning("a card linked on a board was not stored: this service keeps no cards")
        return False
    await asyncio.to_thread(linker, player.id, card)
    return True
