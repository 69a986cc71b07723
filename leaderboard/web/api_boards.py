"""One board's API (docs/leaderboard.md, "Controlling a board"): reading is
open on the venue's network (``GET /api/boards/{board}``, its live stream
``/api/boards/{board}/live``); controlling needs pairing. ``POST
/api/boards/{board}/pair`` relays the code a user typed from the board's
display as a ``pair`` command and, once the board took it, mints a bearer
token for that board alone (:mod:`leaderboard.pairings` keeps its SHA-256).
With the token, ``POST /api/boards/{board}/command`` relays any ``cmd``
payload (``next``, ``correct``, ``new_game`` ...) and answers once the board
did; ``/pairing`` says what a token is or forgets it, ``/roster`` lists the
venue's players for the set-up form. A request without a token the board
still lists is refused (401, or 403 for another board's or an unpaired
device's) before anything is sent to the board."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from leaderboard.api_models import CommandTaken, DeviceInfo, LiveBoard, Paired, PairingStatus
from leaderboard.command_relay import BoardSilentError, CommandRelay, RelayOfflineError
from leaderboard.database import Database
from leaderboard.pairings import (
    BoardPairings,
    Pairing,
    add_pairing,
    forget_token,
    new_device_id,
    pairing_of,
)
from leaderboard.phone_roster import venue_players
from leaderboard.web.api_join import NAME_PATTERN, RosterName
from leaderboard.web.api_live import open_stream
from leaderboard.web.dependencies import HubDep, Problem, StreamSlotsDep, VenuesDep
from leaderboard.web.join_checks import BadCodeLimit, JoinRefusedError
from mqtt_contract import COMMANDS, CommandError, Pair, board_id_problem, parse_command
from mqtt_contract.pairing_payload import PAIRING_CODE_PATTERN

__all__ = [
    "MAX_TOKEN_LENGTH",
    "BoardRoster",
    "PairRequest",
    "PairingDep",
    "board_pairing",
    "router",
]

router = APIRouter(prefix="/api", tags=["boards"])

MAX_TOKEN_LENGTH = 128
"""A longer bearer token is none the service minted: refused unread."""

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="board token",
    description="The token POST /api/boards/{board}/pair answered: controls that board only.",
)


class PairRequest(BaseModel):
    """``POST /api/boards/{board}/pair``'s body."""

    model_config = ConfigDict(extra="forbid")
    code: str = Field(
        pattern=PAIRING_CODE_PATTERN,
        description="The pairing code the board's display shows (six digits).",
    )
    name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="What to call this browser on the board's list of paired devices.",
            json_schema_extra={"pattern": NAME_PATTERN},
        ),
        AfterValidator(lambda name: _device_name(name)),
    ]


def _device_name(name: str) -> str:
    """``name`` stripped; a ValueError for a blank one or a control character."""
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        raise ValueError("a device name has no control characters")
    clean = name.strip()
    if not clean:
        raise ValueError("a device name is not blank")
    return clean


class BoardRoster(BaseModel):
    """The venue's players a paired device may put in a game on ``board``."""

    board: str
    venue: str
    players: list[RosterName]


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _problem(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


_UNKNOWN_BOARD: dict[int | str, dict[str, Any]] = {
    404: {"description": "The service has not heard of this board.", "model": Problem}
}
_NEEDS_TOKEN: dict[int | str, dict[str, Any]] = {
    401: {
        "description": "No token, or one the service does not know (never paired, "
        "forgotten, or unpaired on the board): pair this device.",
        "model": Problem,
    },
    403: {
        "description": "A token of another board, or of a device the board unpaired.",
        "model": Problem,
    },
}
_RELAY_DOWN: dict[int | str, dict[str, Any]] = {
    503: {
        "description": "The service is not connected to the broker, or the board did not "
        "answer within 5 s.",
        "model": Problem,
    }
}


async def board_pairing(
    request: Request,
    board: str,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Pairing:
    """The pairing the request's bearer token is, when it may control ``board``;
    else an HTTPException: 401 no or an unknown token, 403 another board's or
    a device the board no longer lists (its token deleted then)."""
    unpaired = HTTPException(
        401,
        "This device is not paired with the board: pair it with the code the board shows",
        headers={"WWW-Authenticate": "Bearer"},
    )
    token = credentials.credentials if credentials is not None else ""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise unpaired
    database: Database = request.app.state.database
    pairing = await asyncio.to_thread(pairing_of, database, token)
    if pairing is None:
        raise unpaired
    if pairing.board != board:
        raise HTTPException(403, f"This device is paired with another board, not {board}")
    pairings: BoardPairings = request.app.state.pairings
    if pairings.listed(board, pairing.device_id) is False:
        await asyncio.to_thread(forget_token, database, token)
        raise HTTPException(403, f"Board {board} unpaired this device: pair it again")
    return pairing


PairingDep = Annotated[Pairing, Depends(board_pairing)]


@router.get("/boards/{board}", response_model=LiveBoard, responses=_UNKNOWN_BOARD)
async def get_board(hub: HubDep, board: str) -> LiveBoard | JSONResponse:
    """One board, with its last state and availability."""
    known = hub.board(board)
    if known is None:
        return _problem(404, f"There is no board {board!r} here")
    return known


@router.get(
    "/boards/{board}/live",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "An endless text/event-stream of this board alone: first a `state` "
            "message (a LiveBoard), then `event: state|availability` (a LiveBoard) and "
            '`event: event` (`{"board", "venue", "event"}`: the board\'s event payload) '
            "as they happen; a comment every 15 s.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **_UNKNOWN_BOARD,
        503: {
            "description": "Too many streams are open (in all, or from this client address): "
            "try again after `Retry-After` seconds.",
            "model": Problem,
        },
    },
)
async def get_board_live(
    request: Request, hub: HubDep, slots: StreamSlotsDep, board: str
) -> Response:
    """Server-Sent Events for one board's page."""
    if hub.board(board) is None:
        return _problem(404, f"There is no board {board!r} here")
    return open_stream(request, hub, slots, board=board)


@router.post(
    "/boards/{board}/pair",
    response_model=Paired,
    responses={
        **_UNKNOWN_BOARD,
        400: {"description": "The body is not JSON.", "model": Problem},
        403: {"description": "The board refused the code (its reason).", "model": Problem},
        429: {"description": "Too many wrong codes from this address: wait.", "model": Problem},
        **_RELAY_DOWN,
    },
)
async def post_pair(
    request: Request, hub: HubDep, board: str, body: PairRequest
) -> Paired | JSONResponse:
    """Pair this browser with ``board``: the code is relayed to the board as
    ``pair`` with a device id minted here; once the board took it, a token
    for this board alone."""
    limit: BadCodeLimit = request.app.state.pair_limit
    client = _client(request)
    try:
        limit.check(client)
    except JoinRefusedError as refused:
        headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
        return _problem(429, refused.detail, headers)
    if board_id_problem(board) is not None or hub.board(board) is None:
        limit.bad(client)
        return _problem(404, f"There is no board {board!r} here")
    relay: CommandRelay | None = request.app.state.relay
    if relay is None or not relay.connected:
        return _problem(503, "The service cannot reach the boards now", {"Retry-After": "5"})
    device = DeviceInfo(id=new_device_id(), name=body.name)
    command = {"command": "pair", "code": body.code, "device": device.model_dump()}
    try:
        answer = await relay.send(board, command)
    except (RelayOfflineError, BoardSilentError) as error:
        return _problem(503, str(error), {"Retry-After": "5"})
    if answer.get("ok") is not True:
        limit.bad(client)
        return _problem(403, str(answer.get("error") or "The board refused the code"))
    database: Database = request.app.state.database
    token = await asyncio.to_thread(add_pairing, database, board, device.id, device.name)
    pairings: BoardPairings = request.app.state.pairings
    pairings.paired(board, device.id)
    return Paired(token=token, board=board, device=device)


@router.get("/boards/{board}/pairing", response_model=PairingStatus, responses=_NEEDS_TOKEN)
async def get_pairing(board: str, pairing: PairingDep) -> PairingStatus:
    """What this browser's token is: the board it controls and its device."""
    return PairingStatus(
        paired=True,
        board=pairing.board,
        device=DeviceInfo(id=pairing.device_id, name=pairing.device_name),
        paired_at=pairing.created_at,
    )


@router.delete(
    "/boards/{board}/pairing",
    status_code=204,
    response_class=Response,
    responses=_NEEDS_TOKEN,
)
async def delete_pairing(
    request: Request,
    board: str,
    pairing: PairingDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Response:
    """Forget this browser's token (the board's list is the operator's to change)."""
    assert credentials is not None  # board_pairing took it
    database: Database = request.app.state.database
    await asyncio.to_thread(forget_token, database, credentials.credentials)
    return Response(status_code=204)


_CONTROL_COMMANDS = [name for name in COMMANDS if name != Pair.command]

_COMMAND_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "A command exactly as on the board's `cmd` topic "
                    "(docs/mqtt.md): `command` and its arguments; an `id` is the service's.",
                    "required": ["command"],
                    "properties": {"command": {"type": "string", "enum": _CONTROL_COMMANDS}},
                    "additionalProperties": True,
                }
            }
        },
    }
}


def _body_error(message: str, document: object) -> RequestValidationError:
    """FastAPI's own 422 for a body that is no command the board takes."""
    problem = {"type": "value_error", "loc": ("body",), "msg": message, "input": document}
    return RequestValidationError([problem])


@router.post(
    "/boards/{board}/command",
    response_model=CommandTaken,
    openapi_extra=_COMMAND_BODY,
    responses={
        400: {"description": "A `pair` command: pair with /pair instead.", "model": Problem},
        **_NEEDS_TOKEN,
        409: {"description": "The board refused the command (its reason).", "model": Problem},
        **_RELAY_DOWN,
    },
)
async def post_command(
    request: Request, board: str, pairing: PairingDep
) -> CommandTaken | JSONResponse:
    """Send ``board`` a command as its ``cmd`` topic takes it, answered once
    the board took it or said why not."""
    raw = await request.body()
    try:
        command = parse_command(raw, f"the board's operator menu, not {request.url.path}")
    except CommandError as error:
        try:
            document: object = json.loads(raw)
        except ValueError:
            document = raw.decode("utf-8", "replace")
        raise _body_error(str(error), document) from None
    if isinstance(command, Pair):
        return _problem(400, f"Pair a device with POST /api/boards/{board}/pair")
    relay: CommandRelay | None = request.app.state.relay
    if relay is None or not relay.connected:
        return _problem(503, "The service cannot reach the boards now", {"Retry-After": "5"})
    sent: dict[str, Any] = json.loads(raw)  # a JSON object: parse_command read it
    sent.pop("id", None)  # the relay's own id matches the board's answer
    try:
        answer = await relay.send(board, sent)
    except (RelayOfflineError, BoardSilentError) as error:
        return _problem(503, str(error), {"Retry-After": "5"})
    if answer.get("ok") is not True:
        return _problem(409, str(answer.get("error") or "The board refused the command"))
    return CommandTaken(ok=True)


@router.get("/boards/{board}/roster", response_model=BoardRoster, responses=_NEEDS_TOKEN)
async def get_roster(
    request: Request, venues: VenuesDep, board: str, pairing: PairingDep
) -> BoardRoster:
    """The venue's players, for a paired device's set-up form (names of players
    without a game yet too: so behind the token, as the join page's are behind its code)."""
    database: Database = request.app.state.database
    venue = venues.venue_of(board)
    choices = await asyncio.to_thread(venue_players, database, venue)
    players = [RosterName(id=choice.id, name=choice.name) for choice in choices]
    return BoardRoster(board=board, venue=venue, players=players)
