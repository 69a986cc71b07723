"""``/api/tournaments``: the bar tournaments the service runs (docs/matches.md,
"Tournaments"): the list, one tournament (its matches, byes and standings,
what ``oche tournament show --json`` prints), and the operator's two
changes behind the admin password: create one, and walk a match over.

The changes take JSON only: a browser cannot send that cross-site without
asking first (CORS), so the admin's HTTP Basic password cannot be ridden by
another site's form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, Field

from engine.match_format import MAX_LEGS, MAX_SETS
from leaderboard import tournaments
from leaderboard.database import Database
from leaderboard.roster import ROSTER_NAME_LENGTH
from leaderboard.tournament_formats import MAX_PLAYERS, Format
from leaderboard.tournaments import (
    MAX_BOARDS,
    MAX_TITLE,
    TournamentError,
    TournamentNotFoundError,
    TournamentSummary,
    TournamentView,
)
from leaderboard.web.admin import ADMIN_RESPONSES, AdminDep
from leaderboard.web.dependencies import (
    MAX_OFFSET,
    PLAIN_TEXT_PATTERN,
    Problem,
    SessionDep,
    VenuesDep,
)

__all__ = ["Created", "NewTournamentBody", "TournamentIdInPath", "WalkoverBody", "router"]

router = APIRouter(prefix="/api", tags=["tournaments"])

TournamentIdInPath = Annotated[int, Path(ge=1, le=MAX_OFFSET, description="The tournament's id.")]
MatchInPath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=16,
        pattern="^[A-Za-z0-9-]+$",
        description="The match's key in the bracket: R1-2, W2-1, L3-1, GF, GF2.",
    ),
]
Name = Annotated[
    str, Field(min_length=1, max_length=ROSTER_NAME_LENGTH, pattern=PLAIN_TEXT_PATTERN)
]
Board = Annotated[str, Field(min_length=1, max_length=200, pattern=PLAIN_TEXT_PATTERN)]
OptionValue = str | int | float | bool

_NOT_FOUND: dict[int | str, dict[str, object]] = {
    404: {"model": Problem, "description": "No tournament with that id."}
}
_REFUSED: dict[int | str, dict[str, object]] = {
    400: {"model": Problem, "description": "The change is refused: the detail says why."}
}


class NewTournamentBody(BaseModel):
    """A tournament to draw, as ``oche tournament create`` takes it."""

    format: Format
    game: str = Field(min_length=1, max_length=64, description="A game id (`oche games`).")
    options: dict[Annotated[str, Field(max_length=64)], OptionValue] = Field(
        default_factory=dict, max_length=32
    )
    legs: int = Field(ge=1, le=MAX_LEGS)
    sets: int | None = Field(default=None, ge=1, le=MAX_SETS)
    boards: list[Board] = Field(min_length=1, max_length=MAX_BOARDS, description="base/board")
    players: list[Name] = Field(min_length=2, max_length=MAX_PLAYERS)
    title: str | None = Field(default=None, max_length=MAX_TITLE, pattern=PLAIN_TEXT_PATTERN)


class Created(BaseModel):
    """The tournament made."""

    id: int


class WalkoverBody(BaseModel):
    """Who goes through the match without play."""

    winner: Name


@router.get("/tournaments", response_model=list[TournamentSummary])
def get_tournaments(
    session: SessionDep,
    running: Annotated[bool, Query(description="Only those still running.")] = False,
) -> list[TournamentSummary]:
    """The tournaments, newest first."""
    return tournaments.listing(session, running_only=running)


@router.get("/tournaments/{tournament_id}", response_model=TournamentView, responses=_NOT_FOUND)
def get_tournament(session: SessionDep, tournament_id: TournamentIdInPath) -> TournamentView:
    """One tournament: its matches (players, board, status, winner, legs), its
    byes and its standings (played, won, legs won and lost, points)."""
    try:
        return tournaments.show(session, tournament_id)
    except TournamentNotFoundError as error:
        raise HTTPException(404, str(error)) from None


@router.post(
    "/tournaments",
    response_model=Created,
    responses={**ADMIN_RESPONSES, **_REFUSED},
    tags=["admin"],
)
def post_tournament(
    _admin: AdminDep,
    request: Request,
    response: Response,
    venues: VenuesDep,
    body: NewTournamentBody,
) -> Created:
    """Draw a tournament and queue its first matches (the service calls them to
    its boards). Needs the admin password."""
    database: Database = request.app.state.database
    spec = tournaments.NewTournament(
        format=body.format.value,
        game=body.game,
        players=body.players,
        boards=body.boards,
        legs=body.legs,
        sets=body.sets,
        options=dict(body.options),
        title=body.title,
    )
    try:
        with database.write_session() as session:
            made = tournaments.create(session, spec, venues)
    except TournamentError as error:
        raise HTTPException(400, str(error)) from None
    response.headers["Location"] = f"/api/tournaments/{made}"
    return Created(id=made)


@router.post(
    "/tournaments/{tournament_id}/matches/{match}/walkover",
    response_model=TournamentView,
    responses={**ADMIN_RESPONSES, **_REFUSED, **_NOT_FOUND},
    tags=["admin"],
)
def post_walkover(
    _admin: AdminDep,
    request: Request,
    tournament_id: TournamentIdInPath,
    match: MatchInPath,
    body: WalkoverBody,
) -> TournamentView:
    """Decide a match without play (a no-show): ``winner`` goes through, the
    match's call is taken back from its board. Needs the admin password."""
    database: Database = request.app.state.database
    try:
        with database.write_session() as session:
            tournaments.walkover(session, tournament_id, match, body.winner)
        with database.session() as session:
            return tournaments.show(session, tournament_id)
    except TournamentNotFoundError as error:
        raise HTTPException(404, str(error)) from None
    except TournamentError as error:
        raise HTTPException(400, str(error)) from None
