"""Storing results: a payload in, exactly one row out. Every path (MQTT ingest,
``oche leaderboard import``) goes through :func:`ingest`, which re-scores the
result from its log, dedupes on ``result_id`` with a unique constraint and
keeps what it refuses as a rejected result with its reason."""

from __future__ import annotations

import hashlib
import json
import logging
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy import insert as sa_insert
from sqlalchemy.orm import Session

from leaderboard.api_models import ResultSummary
from leaderboard.database import Database, upsert
from leaderboard.models import NAME_LENGTH, Player, Rejected, Result, ResultPlayer, Venue
from leaderboard.ratings import rate_from
from leaderboard.scoring import RejectedResultError, ScoredResult, score_result
from leaderboard.totals import add_lines
from leaderboard.venues import VenueMap

__all__ = [
    "MAX_RESULT_BYTES",
    "REJECTED_PAYLOAD_CHARS",
    "IngestOutcome",
    "ingest",
    "lock_family",
    "player_key",
    "upsert",
    "venue_id",
]

log = logging.getLogger(__name__)

MAX_RESULT_BYTES = 1 << 20
"""A result payload over this many bytes is rejected unread."""

REJECTED_PAYLOAD_CHARS = 4096
"""How much of a rejected payload is kept, for the admin view."""


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """What became of one payload. ``summary`` is set for a new result."""

    status: Literal["imported", "duplicate", "rejected"]
    result_id: str | None
    reason: str | None = None
    summary: ResultSummary | None = None


def player_key(name: str) -> str:
    """The name a player is known by within a venue: case and surrounding spaces ignored."""
    return name.strip().casefold()


def lock_family(session: Session, game: str) -> None:
    """Serialize writers of one game family's ratings (PostgreSQL: an advisory
    lock until commit; SQLite's writers are serialized by ``BEGIN IMMEDIATE``)."""
    if session.get_bind().dialect.name == "postgresql":
        key = zlib.crc32(f"oche-leaderboard-family:{game}".encode())
        session.execute(select(func.pg_advisory_xact_lock(key)))


def _text_problem(what: str, value: str) -> str | None:
    if "\x00" in value:
        return f"{what} contains a NUL character"
    if len(value) > NAME_LENGTH:
        return f"{what} is {len(value)} characters long, over {NAME_LENGTH}"
    return None


def _checked(scored: ScoredResult) -> None:
    """What the database cannot hold, or the ranking cannot tell apart, is refused."""
    problems = [
        _text_problem("result_id", scored.result_id),
        _text_problem("board", scored.board),
        _text_problem("game", scored.game),
        _text_problem("result", scored.result),
    ]
    seen: dict[str, int] = {}
    for line in scored.players:
        problems.append(_text_problem(f"player {line.index}'s name", line.name))
        key = player_key(line.name)
        if not key:
            problems.append(f"player {line.index}'s name is blank")
        elif key in seen:
            problems.append(
                f"players {seen[key]} and {line.index} ({line.name.strip()!r}) are the same "
                "player: names that differ only in case or spaces are one player"
            )
        seen.setdefault(key, line.index)
    found = [problem for problem in problems if problem]
    if found:
        raise RejectedResultError("; ".join(found), scored.result_id)


def _decode(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_RESULT_BYTES:
        raise RejectedResultError(
            f"the payload is {len(payload)} bytes, over the limit of {MAX_RESULT_BYTES}"
        )
    try:
        document = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise RejectedResultError(f"not UTF-8 text (bad byte at offset {error.start})") from None
    except json.JSONDecodeError as error:
        raise RejectedResultError(
            f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise RejectedResultError("not JSON this service reads: nested too deeply") from None
    if not isinstance(document, dict):
        raise RejectedResultError(f"not a JSON object but {type(document).__name__}")
    return document


def _clean(text: str) -> str:
    """Text PostgreSQL can store (no NUL)."""
    return text.replace("\x00", "\ufffd")


def _reject(
    database: Database,
    payload: bytes,
    reason: str,
    result_id: str | None,
    board: str | None,
    received_at: float,
) -> IngestOutcome:
    """Keep a refused payload once (a redelivery is not counted again)."""
    if result_id is not None and _text_problem("result_id", result_id):
        result_id = None
    if board is not None and _text_problem("board", board):
        board = None
    dedupe_key = result_id if result_id is not None else _digest(payload)
    text = payload[: REJECTED_PAYLOAD_CHARS * 4].decode("utf-8", "replace")
    row = {
        "dedupe_key": dedupe_key,
        "result_id": result_id,
        "board": board,
        "reason": _clean(reason),
        "received_at": received_at,
        "payload": _clean(text)[:REJECTED_PAYLOAD_CHARS],
    }
    with database.write_session() as session:
        session.execute(upsert(session, Rejected).values(**row).on_conflict_do_nothing())
    log.info("rejected result %s from board %s: %s", result_id, board, reason)
    return IngestOutcome("rejected", result_id, reason)


def _digest(payload: bytes) -> str:
    return "sha256:" + hashlib.sha256(payload).hexdigest()[:32]


def _string_field(document: dict[str, Any], key: str) -> str | None:
    value = document.get(key)
    return value if isinstance(value, str) else None


def venue_id(session: Session, name: str, timezone: str = "UTC") -> int:
    """The id of venue ``name``, made when it is new; its time zone set to ``timezone``."""
    insert = upsert(session, Venue).values(name=name, timezone=timezone)
    session.execute(
        insert.on_conflict_do_update(
            index_elements=["name"],
            set_={"timezone": insert.excluded.timezone},
            where=Venue.timezone != insert.excluded.timezone,
        )
    )
    return int(session.execute(select(Venue.id).where(Venue.name == name)).scalar_one())


def _player_ids(session: Session, venue: int, names: Iterable[str], at: float) -> dict[str, int]:
    """Each name's player id in ``venue`` (by key), made when new; the display
    name becomes this spelling when this result is the player's latest."""
    spelled = {player_key(name): name.strip() for name in names}
    for key in sorted(spelled):  # one lock order for every writer
        insert = upsert(session, Player).values(
            venue_id=venue, key=key, name=spelled[key], name_at=at
        )
        session.execute(
            insert.on_conflict_do_update(
                index_elements=["venue_id", "key"],
                set_={"name": insert.excluded.name, "name_at": insert.excluded.name_at},
                where=(Player.name_at <= insert.excluded.name_at)
                & (Player.name != insert.excluded.name),
            )
        )
    rows = session.execute(
        select(Player.key, Player.id).where(Player.venue_id == venue, Player.key.in_(spelled))
    )
    return {key: ident for key, ident in rows}


def _store(
    session: Session,
    scored: ScoredResult,
    document: dict[str, Any],
    venues: VenueMap,
    received_at: float,
) -> bool:
    """Insert the result and its players' figures; False when it was there already."""
    lock_family(session, scored.game)
    venue = venues.venue_of(scored.board)
    venue_pk = venue_id(session, venue, venues.timezone_of(venue))
    winner_name = (
        scored.players[scored.winner].name.strip()
        if scored.winner is not None and 0 <= scored.winner < len(scored.players)
        else None
    )
    inserted = session.execute(
        upsert(session, Result)
        .values(
            result_id=scored.result_id,
            board=scored.board,
            venue_id=venue_pk,
            game=scored.game,
            options=scored.options,
            result=scored.result,
            winner=scored.winner,
            winner_name=winner_name,
            started_at=scored.started_at,
            finished_at=scored.finished_at,
            received_at=received_at,
            visits=[
                [v.player, list(v.darts), v.points, v.marks, v.bust, v.score_after]
                for v in scored.visits
            ],
            payload=document,
        )
        .on_conflict_do_nothing(index_elements=["result_id"])
        .returning(Result.id)
    ).scalar_one_or_none()
    if inserted is None:
        return False
    ids = _player_ids(session, venue_pk, (line.name for line in scored.players), scored.finished_at)
    lines = [
        {
            "result_pk": inserted,
            "player_id": ids[player_key(line.name)],
            "seat": line.index,
            "name": line.name.strip(),
            "game": scored.game,
            "venue_id": venue_pk,
            "finished_at": scored.finished_at,
            "team": line.team,
            "score": line.score,
            "won": line.won,
            "placement": line.placement,
            "darts": line.darts,
            "highlight": line.highlight,
            "points": line.points,
            "first9_points": line.first9_points,
            "first9_darts": line.first9_darts,
            "checkout_darts": line.checkout_darts,
            "checkouts": line.checkouts,
            "highest_checkout": line.highest_checkout,
            "leg_darts": line.leg_darts,
            "count_100": line.count_100,
            "count_140": line.count_140,
            "count_180": line.count_180,
            "marks": line.marks,
            "count_5_marks": line.count_5_marks,
            "count_7_marks": line.count_7_marks,
            "count_9_marks": line.count_9_marks,
        }
        for line in scored.players
    ]
    session.execute(sa_insert(ResultPlayer), lines)
    add_lines(session, scored.game, lines)
    rate_from(session, scored.game, scored.finished_at, scored.result_id)
    return True


def ingest(
    database: Database, payload: bytes, venues: VenueMap, received_at: float | None = None
) -> IngestOutcome:
    """Store one result payload (the ``result`` topic's bytes), committed
    before it returns; safe to call from several processes at once."""
    received = time.time() if received_at is None else received_at
    document: dict[str, Any] | None = None
    try:
        document = _decode(payload)
        scored = score_result(document)
        _checked(scored)
    except RejectedResultError as error:
        result_id = error.result_id or (document and _string_field(document, "result_id"))
        board = document and _string_field(document, "board")
        return _reject(database, payload, error.reason, result_id or None, board or None, received)
    except Exception as error:  # a bug in re-scoring must not stop the service
        log.exception("re-scoring a result failed")
        result_id = document and _string_field(document, "result_id")
        board = document and _string_field(document, "board")
        reason = f"could not be re-scored ({type(error).__name__}: {error})"
        return _reject(database, payload, reason, result_id or None, board or None, received)
    venue = venues.venue_of(scored.board)
    with database.write_session() as session:
        stored = _store(session, scored, document, venues, received)
    if not stored:
        return IngestOutcome("duplicate", scored.result_id)
    summary = ResultSummary(
        result_id=scored.result_id,
        board=scored.board,
        venue=venue,
        game=scored.game,
        finished_at=scored.finished_at,
        players=[line.name.strip() for line in scored.players],
        winner_name=(
            scored.players[scored.winner].name.strip() if scored.winner is not None else None
        ),
        result=scored.result,
    )
    return IngestOutcome("imported", scored.result_id, summary=summary)
