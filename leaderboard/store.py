"""Storing results: a payload in, exactly one row out. Every path (MQTT ingest,
``oche leaderboard import``) goes through :func:`ingest`, which re-scores the
result from its log, dedupes on ``result_id`` with a unique constraint and
keeps what it refuses as a rejected result with its reason."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import math
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from sqlalchemy import Table, func, select
from sqlalchemy import insert as sa_insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from leaderboard.api_models import ResultSummary
from leaderboard.database import Database, upsert
from leaderboard.models import NAME_LENGTH, Player, Rejected, Result, ResultPlayer, Venue
from leaderboard.ratings import NewResult, rate_new
from leaderboard.scoring import PlayerLine, RejectedResultError, ScoredResult, score_result
from leaderboard.totals import add_lines
from leaderboard.venues import VenueMap

__all__ = [
    "MAX_RESULT_BYTES",
    "REJECTED_PAYLOAD_CHARS",
    "IngestOutcome",
    "dated_by_receipt",
    "ingest",
    "ingest_many",
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
        None if scored.match is None else _text_problem("match", scored.match),
    ]
    seen: dict[str, int] = {}
    for line in scored.players:
        problems.append(_text_problem(f"player {line.index}'s name", line.name))
        if line.board is not None:
            problems.append(_text_problem(f"player {line.index}'s board", line.board))
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


def _table(model: type[Any]) -> Table:
    """A model's table, for Core statements (no ORM bulk grouping of rows)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


@functools.cache
def _venue_upsert(dialect: str) -> Any:
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(Venue)
    return insert.on_conflict_do_update(
        index_elements=["name"],
        set_={"timezone": insert.excluded.timezone},
        where=Venue.timezone != insert.excluded.timezone,
    )


@functools.cache
def _player_upsert(dialect: str) -> Any:
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(Player)
    return insert.on_conflict_do_update(
        index_elements=["venue_id", "key"],
        set_={"name": insert.excluded.name, "name_at": insert.excluded.name_at},
        where=(Player.name_at <= insert.excluded.name_at) & (Player.name != insert.excluded.name),
    )


@functools.cache
def _result_insert(dialect: str) -> Any:
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(Result)
    return insert.on_conflict_do_nothing(index_elements=["result_id"]).returning(
        Result.id, Result.result_id
    )


def venue_id(session: Session, name: str, timezone: str = "UTC") -> int:
    """The id of venue ``name``, made when it is new; its time zone set to ``timezone``."""
    session.execute(_venue_upsert(_dialect(session)), {"name": name, "timezone": timezone})
    return int(session.execute(select(Venue.id).where(Venue.name == name)).scalar_one())


def _player_ids(
    session: Session, spellings: dict[tuple[int, str], tuple[float, str]]
) -> dict[tuple[int, str], int]:
    """Each (venue id, key)'s player id, made when new; ``spellings`` gives
    each one's latest spelling and when: the display name becomes it when it
    is newer than the player's."""
    session.execute(
        _player_upsert(_dialect(session)),
        [  # one lock order for every writer
            {"venue_id": venue, "key": key, "name": name, "name_at": at}
            for (venue, key), (at, name) in sorted(spellings.items())
        ],
    )
    ids: dict[tuple[int, str], int] = {}
    for venue in sorted({venue for venue, _ in spellings}):
        keys = [key for place, key in spellings if place == venue]
        for key, ident in session.execute(
            select(Player.key, Player.id).where(Player.venue_id == venue, Player.key.in_(keys))
        ):
            ids[(venue, key)] = ident
    return ids


def _line(
    result_pk: int, player_id: int, venue_pk: int, scored: ScoredResult, line: PlayerLine
) -> dict[str, Any]:
    """One ``result_players`` row: a :class:`scoring.PlayerLine` and where it belongs."""
    return {
        "result_pk": result_pk,
        "player_id": player_id,
        "seat": line.index,
        "name": line.name.strip(),
        "game": scored.game,
        "venue_id": venue_pk,
        "board": line.board,
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


def _store(
    session: Session,
    batch: Sequence[tuple[ScoredResult, dict[str, Any]]],
    venues: VenueMap,
    received_at: float,
) -> list[bool]:
    """Insert the results (in ``finished_at`` order) and their players'
    figures, and rate them; for each, False when it was there already. The
    caller holds their families' locks (:func:`lock_family`). A handful of
    statements a batch, whatever its size."""
    named = {venues.venue_of(scored.board) for scored, _ in batch} | {
        venue for scored, _ in batch for venue in _player_venues(scored, venues)
    }
    venue_pks = {
        venue: venue_id(session, venue, venues.timezone_of(venue)) for venue in sorted(named)
    }
    rows: list[dict[str, Any]] = []
    for scored, document in batch:
        winner = scored.winner
        rows.append(
            {
                "result_id": scored.result_id,
                "board": scored.board,
                "venue_id": venue_pks[venues.venue_of(scored.board)],
                "player_venue_ids": [venue_pks[v] for v in _player_venues(scored, venues)],
                "match": scored.match,
                "game": scored.game,
                "options": scored.options,
                "result": scored.result,
                "winner": winner,
                "winner_name": (
                    scored.players[winner].name.strip()
                    if winner is not None and 0 <= winner < len(scored.players)
                    else None
                ),
                "started_at": scored.started_at,
                "finished_at": scored.finished_at,
                "received_at": received_at,
                "visits": [
                    [v.player, list(v.darts), v.points, v.marks, v.bust, v.score_after]
                    for v in scored.visits
                ],
                "payload": document,
            }
        )
    first: dict[str, dict[str, Any]] = {}  # a result given twice in a batch is stored once
    for row in rows:
        first.setdefault(row["result_id"], row)
    statement = _result_insert(_dialect(session))
    columns = [
        {key: value for key, value in row.items() if key != "player_venue_ids"}
        for row in first.values()
    ]
    inserted = {result_id: pk for pk, result_id in session.execute(statement, columns)}
    stored = [
        first[scored.result_id] is row and scored.result_id in inserted
        for (scored, _), row in zip(batch, rows, strict=True)
    ]
    new = [
        (scored, row)
        for (scored, _), row, is_new in zip(batch, rows, stored, strict=True)
        if is_new
    ]
    if new:
        _store_new(session, new, inserted)
    return stored


def _store_new(
    session: Session,
    new: list[tuple[ScoredResult, dict[str, Any]]],
    inserted: dict[str, int],
) -> None:
    """The players, figures, totals and ratings of the results just inserted."""
    spellings: dict[tuple[int, str], tuple[float, str]] = {}
    for scored, row in new:
        for line, venue in zip(scored.players, row["player_venue_ids"], strict=True):
            key = (venue, player_key(line.name))
            if key not in spellings or spellings[key][0] <= scored.finished_at:
                spellings[key] = (scored.finished_at, line.name.strip())
    ids = _player_ids(session, spellings)
    lines: dict[str, list[dict[str, Any]]] = {}
    for scored, row in new:
        lines[scored.result_id] = [
            _line(
                inserted[scored.result_id],
                ids[(venue, player_key(line.name))],
                venue,
                scored,
                line,
            )
            for line, venue in zip(scored.players, row["player_venue_ids"], strict=True)
        ]
    session.execute(
        sa_insert(_table(ResultPlayer)), [line for group in lines.values() for line in group]
    )
    for game in sorted({scored.game for scored, _ in new}):
        family = [scored for scored, _ in new if scored.game == game]
        add_lines(session, game, [line for scored in family for line in lines[scored.result_id]])
        rate_new(
            session,
            game,
            [
                NewResult(
                    inserted[scored.result_id],
                    scored.result_id,
                    scored.finished_at,
                    lines[scored.result_id],
                )
                for scored in family
            ],
        )


def _player_venues(scored: ScoredResult, venues: VenueMap) -> list[str]:
    """Each player's venue, in seat order: in a remote match the venue of the
    board they threw at, else the result's board's."""
    return [venues.venue_of_player(scored.board, line.board) for line in scored.players]


def dated_by_receipt(document: dict[str, Any], received_at: float) -> dict[str, Any]:
    """The document as it is scored: one whose board said its clock was not
    synchronised (``clock_synced: false``: a board without a real-time clock
    before NTP answered) finished when it arrived, ``received_at``, and
    started as long before as the board says the game lasted. Anything else
    is left as it is (the schema judges what is not a number)."""
    finished, started = document.get("finished_at"), document.get("started_at")
    if document.get("clock_synced") is not False or not _number(finished):
        return document
    dated = {**document, "finished_at": received_at}
    if _number(started):
        lasted = min(max(0.0, finished - started), received_at)
        dated["started_at"] = received_at - lasted
    return dated


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _scored(payload: bytes, received_at: float) -> tuple[ScoredResult, dict[str, Any]] | _Refusal:
    """The payload re-scored (dated by ``received_at`` when its board's clock
    was not synchronised), or why it is refused (pure: no database)."""
    document: dict[str, Any] | None = None
    try:
        document = _decode(payload)
        scored = score_result(dated_by_receipt(document, received_at))
        _checked(scored)
    except RejectedResultError as error:
        result_id = error.result_id or (document and _string_field(document, "result_id"))
        board = document and _string_field(document, "board")
        return _Refusal(payload, error.reason, result_id or None, board or None)
    except Exception as error:  # a bug in re-scoring must not stop the service
        log.exception("re-scoring a result failed")
        result_id = document and _string_field(document, "result_id")
        board = document and _string_field(document, "board")
        reason = f"could not be re-scored ({type(error).__name__}: {error})"
        return _Refusal(payload, reason, result_id or None, board or None)
    return scored, document


@dataclass(frozen=True, slots=True)
class _Refusal:
    payload: bytes
    reason: str
    result_id: str | None
    board: str | None


def _summary(scored: ScoredResult, venues: VenueMap) -> ResultSummary:
    venue = venues.venue_of(scored.board)
    return ResultSummary(
        result_id=scored.result_id,
        board=scored.board,
        venue=venue,
        venues=list(dict.fromkeys([venue, *_player_venues(scored, venues)])),
        match=scored.match,
        game=scored.game,
        finished_at=scored.finished_at,
        players=[line.name.strip() for line in scored.players],
        winner_name=(
            scored.players[scored.winner].name.strip() if scored.winner is not None else None
        ),
        result=scored.result,
    )


def reject_unstorable(
    database: Database, payload: bytes, problem: str, received_at: float | None = None
) -> IngestOutcome:
    """Keep a result the database itself refused to store (a value a column
    cannot take) as rejected, with ``problem`` in its reason, so it is seen in
    the admin view and its sender's redeliveries stop: the payload passed
    every check of this service, so retrying it would only fail again."""
    document: dict[str, Any] | None = None
    with contextlib.suppress(RejectedResultError):
        document = _decode(payload)
    result_id = _string_field(document, "result_id") if document else None
    board = _string_field(document, "board") if document else None
    received = time.time() if received_at is None else received_at
    reason = f"the database refused to store it: {problem}"
    return _reject(database, payload, reason, result_id, board, received)


def ingest(
    database: Database, payload: bytes, venues: VenueMap, received_at: float | None = None
) -> IngestOutcome:
    """Store one result payload (the ``result`` topic's bytes), committed
    before it returns; safe to call from several processes at once."""
    return ingest_many(database, [payload], venues, received_at)[0]


def ingest_many(
    database: Database,
    payloads: Sequence[bytes],
    venues: VenueMap,
    received_at: float | None = None,
) -> list[IngestOutcome]:
    """:func:`ingest` for a batch: the results in one transaction (one commit
    instead of one a result), stored in ``finished_at`` order; the outcomes in
    the payloads' order. A database error raises, and nothing is stored."""
    received = time.time() if received_at is None else received_at
    outcomes: list[IngestOutcome | None] = [None] * len(payloads)
    results: list[tuple[int, ScoredResult, dict[str, Any]]] = []
    for index, payload in enumerate(payloads):
        checked = _scored(payload, received)
        if isinstance(checked, _Refusal):
            outcomes[index] = _reject(
                database, payload, checked.reason, checked.result_id, checked.board, received
            )
        else:
            results.append((index, *checked))
    if results:
        results.sort(key=lambda item: (item[1].finished_at, item[1].result_id))
        with database.write_session() as session:
            for game in sorted({scored.game for _, scored, _ in results}):
                lock_family(session, game)  # in one order: two batches never deadlock
            stored = _store(
                session, [(scored, document) for _, scored, document in results], venues, received
            )
        for (index, scored, _), new in zip(results, stored, strict=True):
            outcomes[index] = (
                IngestOutcome(
                    "imported",
                    scored.result_id,
                    summary=_summary(scored, venues),
                )
                if new
                else IngestOutcome("duplicate", scored.result_id)
            )
    return [outcome for outcome in outcomes if outcome is not None]
