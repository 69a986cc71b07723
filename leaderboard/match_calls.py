"""The queue of matches the service calls to the venue's boards, shared by
tournaments and leagues (docs/matches.md, "Called matches").

An owner (a tournament, a league) queues a match with :func:`queue_call` as
soon as its players are known; the service's caller
(:mod:`leaderboard.match_caller`) claims a free board for it and sends the
board ``call_match``; the players start it with a dart or NEXT, and its
result, carrying the ``call_id``, finishes the call when it is stored
(:func:`results_stored`, inside the ingest transaction) and runs the owner's
``on_finished`` (:func:`register_owner`) there, with the call's row locked:
a redelivered result, or a later revision of the same game, finds the call
finished already, so a bracket advances exactly once. The database decides
every step (a row lock, a conditional update, a partial unique index of the
board), never a timer, so several service instances on one PostgreSQL share
one queue."""

from __future__ import annotations

import importlib
import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from engine import MatchFormat, MatchFormatError, game_ids
from leaderboard.models import BoardClaim, MatchCall
from mqtt_contract import CallMatch, CancelCall
from mqtt_contract.json_types import PayloadError
from mqtt_contract.match_payload import (
    CALL_ID_PATTERN,
    CallPlayer,
    CallTeam,
    MatchPlay,
    call_problem,
)

__all__ = [
    "DONE_STATUSES",
    "LIVE_STATUSES",
    "OWNER_MODULES",
    "STATUSES",
    "CallError",
    "CallOutcome",
    "OnFinished",
    "away_boards",
    "board_id_of",
    "call_command",
    "cancel_call",
    "cancel_command",
    "claim_board",
    "held_boards",
    "in_call_order",
    "live_calls",
    "mark_called",
    "mark_playing",
    "outcome_of",
    "queue_call",
    "ready_calls",
    "register_owner",
    "release_call",
    "results_stored",
]

log = logging.getLogger(__name__)

STATUSES: Final = ("ready", "called", "playing", "finished", "walkover", "cancelled")
"""A call's statuses: ``ready`` (waiting for a free board), ``called`` (a board
claimed, ``call_match`` sent), ``playing`` (the board shows it started),
``finished`` (its result stored), ``walkover`` / ``cancelled`` (decided or
taken back without play)."""

LIVE_STATUSES: Final = ("called", "playing")
"""The statuses that hold a board: one call at most per board."""

DONE_STATUSES: Final = ("finished", "walkover", "cancelled")

OnFinished = Callable[[Session, MatchCall], None]
"""An owner's hook: runs in the transaction that stored the call's result,
the call's row locked and marked finished (its ``winner``, ``legs_won``,
``result_id`` set)."""

OWNER_MODULES: Final[Mapping[str, str]] = {
    "tournament": "leaderboard.tournaments",
    "league": "leaderboard.leagues",
}
"""The module that registers each owner kind's hook when imported: imported
on first need, so a process that never imported it still advances it."""

_OWNERS: dict[str, OnFinished] = {}
_CALL_ID = re.compile(CALL_ID_PATTERN)


class CallError(ValueError):
    """A call that cannot be queued or cancelled; the message says why."""


def register_owner(kind: str, on_finished: OnFinished) -> None:
    """Run ``on_finished`` for each finished call of owner ``kind``
    (``tournament``, ``league``); registering a kind again replaces its hook."""
    if not kind or len(kind) > 16:
        raise CallError(f"an owner kind is 1 to 16 characters, not {kind!r}")
    _OWNERS[kind] = on_finished


def _owner(kind: str) -> OnFinished | None:
    if kind not in _OWNERS and kind in OWNER_MODULES:
        try:
            importlib.import_module(OWNER_MODULES[kind])
        except ImportError:
            log.exception(
                "the %s module of owner kind %r cannot be imported", OWNER_MODULES[kind], kind
            )
    return _OWNERS.get(kind)


# ------------------------------------------------------------------ queueing


def _players(players: Sequence[CallPlayer | Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for index, player in enumerate(players):
        try:
            read = player if isinstance(player, CallPlayer) else CallPlayer.from_json(dict(player))
        except PayloadError as error:
            raise CallError(f"player {index}: {error}") from None
        row: dict[str, Any] = {"name": read.name, "player_id": read.player_id}
        if read.board is not None:
            row["board"] = read.board
        rows.append(row)
    return rows


def _teams(teams: Sequence[CallTeam | Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    if teams is None:
        return None
    rows: list[dict[str, Any]] = []
    for index, team in enumerate(teams):
        try:
            read = team if isinstance(team, CallTeam) else CallTeam.from_json(dict(team))
        except PayloadError as error:
            raise CallError(f"team {index}: {error}") from None
        rows.append({"name": read.name, "players": list(read.players)})
    return rows


def away_boards(call: MatchCall) -> list[str]:
    """The boards a remote call's players throw at besides the called one,
    as given (``board`` or ``base/board``); empty for a call at one board."""
    return list(dict.fromkeys(str(p["board"]) for p in call.players if p.get("board")))


def _format(
    match_format: MatchFormat | MatchPlay | Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    if match_format is None:
        return None
    if isinstance(match_format, MatchFormat):
        encoded: dict[str, Any] = MatchPlay.of(match_format).to_json()
        return encoded
    try:
        play = (
            match_format
            if isinstance(match_format, MatchPlay)
            else MatchPlay.from_json(dict(match_format))
        )
        play.format()
    except (PayloadError, MatchFormatError) as error:
        raise CallError(f"the match format: {error}") from None
    checked: dict[str, Any] = play.to_json()
    return checked


def board_id_of(board: str) -> str:
    """The board id of a call's board: ``base/board`` or a bare board id."""
    return board.rpartition("/")[2]


def queue_call(
    session: Session,
    *,
    owner_kind: str,
    owner_id: int,
    title: str | None,
    game: str,
    options: Mapping[str, Any] | None,
    match_format: MatchFormat | MatchPlay | Mapping[str, Any] | None,
    players: Sequence[CallPlayer | Mapping[str, Any]],
    boards: Sequence[str],
    teams: Sequence[CallTeam | Mapping[str, Any]] | None = None,
    call_id: str | None = None,
    now: float | None = None,
) -> MatchCall:
    """Queue a match to be called to one of ``boards`` (``ready``), checked
    as the board will check its ``call_match``; a :class:`CallError` says what
    is wrong and nothing is queued. ``teams`` (side order, players by name)
    makes it a team game; a player with a ``board`` throws there (a remote
    match the called board hosts; the caller needs that board free too).
    The new row (added to ``session``)."""
    if not owner_kind or len(owner_kind) > 16:
        raise CallError(f"an owner kind is 1 to 16 characters, not {owner_kind!r}")
    if game not in game_ids():
        raise CallError(f"unknown game {game!r}; games: {', '.join(sorted(game_ids()))}")
    if not boards:
        raise CallError("a call needs at least one board to be played on")
    for board in boards:
        if not board or not re.fullmatch(r"[A-Za-z0-9_-]+", board_id_of(board)):
            raise CallError(f"{board!r} is not a board (base/board or a board id)")
    if call_id is None:
        call_id = f"{owner_kind}-{owner_id}-{secrets.token_hex(5)}"
    if not _CALL_ID.match(call_id):
        raise CallError(f"{call_id!r} is not a call id (letters, digits, . _ : -, at most 64)")
    row = MatchCall(
        call_id=call_id,
        owner_kind=owner_kind,
        owner_id=owner_id,
        title=title,
        game=game,
        options=dict(options or {}),
        match_format=_format(match_format),
        players=_players(players),
        teams=_teams(teams),
        boards=list(dict.fromkeys(boards)),
        board=None,
        status="ready",
        created_at=time.time() if now is None else now,
    )
    try:
        command = call_command(row)
    except (PayloadError, ValueError) as error:
        raise CallError(f"the call: {error}") from None
    problem = call_problem(command.players, command.teams)
    if problem is not None:
        raise CallError(f"the call: {problem}")
    for away in away_boards(row):
        if not re.fullmatch(r"[A-Za-z0-9_-]+", board_id_of(away)):
            raise CallError(f"{away!r} is not a board (base/board or a board id)")
        if board_id_of(away) in {board_id_of(board) for board in row.boards}:
            raise CallError(f"the away board {away!r} is one of the boards it is called to")
    session.add(row)
    session.flush()
    return row


def call_command(call: MatchCall) -> CallMatch:
    """The ``call_match`` command of ``call`` (a ``ValueError`` when the
    contract refuses it: e.g. one player, a title too long)."""
    document: dict[str, Any] = {
        "command": "call_match",
        "call_id": call.call_id,
        "game": call.game,
        "players": call.players,
    }
    if call.title:
        document["title"] = call.title
    if call.options:
        document["options"] = call.options
    if call.match_format is not None:
        document["match"] = call.match_format
    if call.teams:
        document["teams"] = call.teams
    return CallMatch.from_json(document)


def cancel_command(call_id: str) -> CancelCall:
    """The ``cancel_call`` command of ``call_id``."""
    return CancelCall.from_json({"command": "cancel_call", "call_id": call_id})


def _locked(session: Session, call_id: str) -> MatchCall | None:
    return session.execute(
        select(MatchCall).where(MatchCall.call_id == call_id).with_for_update()
    ).scalar_one_or_none()


def cancel_call(
    session: Session,
    call_id: str,
    *,
    why: Literal["walkover", "cancelled"] = "walkover",
    now: float | None = None,
) -> None:
    """Decide a call without play (``walkover``, the default) or take it back
    (``cancelled``). A board it was called to is told (``cancel_call``) by the
    caller as soon as it shows the call waiting; a match already started
    plays on, and its result no longer advances the owner. A
    :class:`CallError` for a call unknown or over already."""
    call = _locked(session, call_id)
    if call is None:
        raise CallError(f"no call {call_id!r}")
    if call.status in DONE_STATUSES:
        raise CallError(f"call {call_id!r} is {call.status} already")
    call.status = why
    call.finished_at = time.time() if now is None else now


# ------------------------------------------------------------------ results


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What a stored result says of its call: who won (a side) and the legs."""

    call_id: str
    result_id: str
    winner: int | None
    legs_won: list[int]
    finished_at: float
    players: tuple[tuple[str, int | None], ...] = ()
    """The result's players (name, roster id) when its sides are players
    (no teams): to put its sides in the call's order."""


def _key(name: str) -> str:
    return "".join(name.split()).casefold()


def in_call_order(call: MatchCall, outcome: CallOutcome) -> tuple[int | None, list[int]]:
    """The outcome's winner and legs in the call's side order: the result's
    players matched to the call's by roster id, else by name (a board may
    seat them in another order); as the result has them when they do not match."""
    wanted = [(str(p.get("name", "")), p.get("player_id")) for p in call.players]
    if not outcome.players or len(outcome.players) != len(wanted):
        return outcome.winner, outcome.legs_won
    order: list[int] = []
    for name, player_id in outcome.players:
        found = next(
            (
                index
                for index, (call_name, call_id) in enumerate(wanted)
                if (player_id is not None and player_id == call_id)
                or (_key(name) == _key(call_name))
            ),
            None,
        )
        if found is None or found in order:
            return outcome.winner, outcome.legs_won
        order.append(found)
    legs = [0] * len(wanted)
    if len(outcome.legs_won) == len(order):
        for index, won in enumerate(outcome.legs_won):
            legs[order[index]] = won
    winner = order[outcome.winner] if outcome.winner is not None else None
    return winner, legs


def _side_count(document: Mapping[str, Any]) -> int:
    teams = document.get("teams")
    if isinstance(teams, list) and teams:
        return len(teams)
    players = document.get("players")
    return len(players) if isinstance(players, list) else 0


def outcome_of(
    document: Mapping[str, Any], winner_player: int | None, finished_at: float
) -> CallOutcome | None:
    """The call outcome of a result document (None: it carries no call)."""
    call_id, result_id = document.get("call_id"), document.get("result_id")
    if not isinstance(call_id, str) or not isinstance(result_id, str):
        return None
    side: int | None = winner_player
    teams = document.get("teams")
    if winner_player is not None and isinstance(teams, list) and teams:
        side = next(
            (
                index
                for index, team in enumerate(teams)
                if isinstance(team, Mapping) and winner_player in (team.get("players") or ())
            ),
            None,
        )
    legs = document.get("legs_won")
    if isinstance(legs, list) and all(isinstance(n, int) for n in legs):
        legs_won = list(legs)
    else:  # a single game: a one-leg match
        legs_won = [1 if index == side else 0 for index in range(_side_count(document))]
    players: tuple[tuple[str, int | None], ...] = ()
    listed = document.get("players")
    if not (isinstance(teams, list) and teams) and isinstance(listed, list):
        players = tuple(
            (
                str(p.get("name", "")),
                p.get("player_id") if type(p.get("player_id")) is int else None,
            )
            for p in listed
            if isinstance(p, Mapping)
        )
    return CallOutcome(call_id, result_id, side, legs_won, finished_at, players)


def results_stored(session: Session, outcomes: Sequence[CallOutcome]) -> None:
    """Finish the calls of results just stored (the ingest transaction): each
    call's row locked, and only a call not over yet is finished and its
    owner's ``on_finished`` run, so a result stored again, or a later
    revision of its game, changes nothing. A call unknown here is logged."""
    for outcome in sorted(outcomes, key=lambda o: o.call_id):  # one lock order
        call = _locked(session, outcome.call_id)
        if call is None:
            log.info(
                "result %s names call %s, which is not queued here",
                outcome.result_id,
                outcome.call_id,
            )
            continue
        if call.status in DONE_STATUSES:
            continue
        hook = _owner(call.owner_kind)
        if hook is None:
            log.error("call %s: owner kind %r has no hook", call.call_id, call.owner_kind)
        savepoint = session.begin_nested()
        try:
            call.status = "finished"
            call.result_id = outcome.result_id
            call.winner, call.legs_won = in_call_order(call, outcome)
            call.finished_at = outcome.finished_at
            session.flush()
            if hook is not None:
                hook(session, call)
            savepoint.commit()
        except Exception:  # the owner's fault: the result is stored all the same
            savepoint.rollback()
            log.exception(
                "call %s: its owner's on_finished failed; the call is left as it was", call.call_id
            )


# ------------------------------------------------------------------ the caller's steps


def ready_calls(session: Session) -> list[MatchCall]:
    """The calls waiting for a board, oldest first."""
    return list(
        session.execute(
            select(MatchCall)
            .where(MatchCall.status == "ready")
            .order_by(MatchCall.created_at, MatchCall.call_id)
        ).scalars()
    )


def live_calls(session: Session) -> list[MatchCall]:
    """The calls holding a board (called or playing)."""
    return list(
        session.execute(select(MatchCall).where(MatchCall.status.in_(LIVE_STATUSES))).scalars()
    )


def claim_board(session: Session, call_id: str, board: str, now: float) -> bool:
    """Claim ``board`` for the ready call ``call_id`` (and a remote call's
    away boards): True when this transaction got them (commit it before
    sending ``call_match``). The update's condition (still ready: the row
    lock makes a second instance wait, then find it called), the board's
    partial unique index and ``board_claims``' primary key (one live call a
    board, home or away: a second instance's claim of a board for another
    call raises ``IntegrityError`` at commit or flush) decide between
    service instances."""
    claimed = session.execute(
        update(MatchCall)
        .where(MatchCall.call_id == call_id, MatchCall.status == "ready")
        .values(status="called", board=board, called_at=now)
    )
    if not getattr(claimed, "rowcount", 0):
        return False
    call = session.get(MatchCall, call_id)
    held = [board, *(away_boards(call) if call is not None else ())]
    live = select(MatchCall.call_id).where(MatchCall.status.in_(LIVE_STATUSES))
    session.execute(delete(BoardClaim).where(BoardClaim.call_id == call_id))  # its last claim
    for board_id in dict.fromkeys(map(board_id_of, held)):
        session.execute(  # a claim whose call is over (released, finished, ...) is stale
            delete(BoardClaim).where(BoardClaim.board == board_id, BoardClaim.call_id.not_in(live))
        )
        session.add(BoardClaim(board=board_id, call_id=call_id))
    session.flush()
    return True


def held_boards(session: Session) -> set[str]:
    """The board ids the live calls hold: each one's board and a remote
    call's away boards."""
    held: set[str] = set()
    for call in live_calls(session):
        held.update(map(board_id_of, [call.board or "", *away_boards(call)]))
    held.discard("")
    return held


def release_call(session: Session, call_id: str, board: str) -> bool:
    """A board refused the call (busy): back to ready, for another board."""
    released = session.execute(
        update(MatchCall)
        .where(
            MatchCall.call_id == call_id,
            MatchCall.board == board,
            MatchCall.status.in_(LIVE_STATUSES),
        )
        .values(status="ready", board=None, called_at=None)
    )
    return bool(getattr(released, "rowcount", 0))


def mark_called(session: Session, call_id: str) -> bool:
    """The board shows the call waiting again (its game was ended unplayed)."""
    marked = session.execute(
        update(MatchCall)
        .where(MatchCall.call_id == call_id, MatchCall.status == "playing")
        .values(status="called")
    )
    return bool(getattr(marked, "rowcount", 0))


def mark_playing(session: Session, call_id: str) -> bool:
    """The board shows the called match started: ``playing``."""
    marked = session.execute(
        update(MatchCall)
        .where(MatchCall.call_id == call_id, MatchCall.status == "called")
        .values(status="playing")
    )
    return bool(getattr(marked, "rowcount", 0))
