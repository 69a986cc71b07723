"""Storing results: a payload in, exactly one row out. Every path (MQTT ingest,
``oche leaderboard import``, ``oche leaderboard rescore``) goes through
:func:`ingest`, which re-scores the result from its log, dedupes on
``result_id`` with a unique constraint, keeps only the latest revision of each
game, and keeps what it does not count whole: what the rules refuse as
rejected with its reason, what its own code failed on as failed with the
traceback, for :func:`rescore` to try again."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import math
import time
import traceback
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from sqlalchemy import Table, delete, func, select
from sqlalchemy import insert as sa_insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from leaderboard.api_models import ResultSummary
from leaderboard.database import Database, upsert
from leaderboard.line_owners import FORGOTTEN_NAME, line_owners, player_key
from leaderboard.match_calls import outcome_of, results_stored
from leaderboard.models import (
    NAME_LENGTH,
    Player,
    Rating,
    Rejected,
    Result,
    ResultPlayer,
    Superseded,
    Venue,
)
from leaderboard.ratings import NewResult, rate_new, replay_from, rewind
from leaderboard.scoring import PlayerLine, RejectedResultError, ScoredResult, score_result
from leaderboard.totals import add_lines, recount
from leaderboard.venues import VenueMap

__all__ = [
    "FORGOTTEN_NAME",
    "MAX_RESULT_BYTES",
    "TRACEBACK_FRAMES",
    "IngestOutcome",
    "IngestStatus",
    "dated_by_receipt",
    "ingest",
    "ingest_many",
    "lock_family",
    "player_key",
    "rescore",
    "summarize",
    "upsert",
    "venue_id",
]

log = logging.getLogger(__name__)

MAX_RESULT_BYTES = 1 << 20
"""A result payload over this many bytes is rejected unread (and kept up to
this many bytes: every other payload that is not counted is kept whole)."""

TRACEBACK_FRAMES = 10
"""How many of the innermost frames a failed result's traceback keeps."""


IngestStatus = Literal["imported", "duplicate", "superseded", "withdrawn", "rejected", "failed"]
"""What became of a payload: ``imported`` (stored, and it counts; a higher
revision of a game replaces its earlier result), ``duplicate`` (had it
already), ``superseded`` (kept, not counted: a revision as high of its game
is stored), ``withdrawn`` (a withdrawal: its game no longer counts),
``rejected`` (the rules refuse it; kept whole with the reason), ``failed``
(re-scoring it raised, a fault of this service: kept whole with the
traceback, not counted until :func:`rescore` stores it)."""


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """What became of one payload. ``summary`` is set for a result that counts
    now (``imported``) and for a ``withdrawn`` one (the game taken out);
    ``replaced`` names the result that counted for the game until then."""

    status: IngestStatus
    result_id: str | None
    reason: str | None = None
    summary: ResultSummary | None = None
    replaced: str | None = None


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
        _text_problem("game_key", scored.game_key),
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


def _payload_text(payload: bytes) -> str:
    """A payload as the text kept of it: whole (up to :data:`MAX_RESULT_BYTES`),
    bytes that are not UTF-8 and NULs as ``\\xNN`` escapes, so nothing of it is
    lost from view; a payload that is UTF-8 JSON reads back byte for byte."""
    text = payload[:MAX_RESULT_BYTES].decode("utf-8", "backslashreplace")
    return text.replace("\x00", "\\x00")


def _keep(
    database: Database,
    payload: bytes,
    refusal: _Refusal,
    received_at: float,
) -> IngestOutcome:
    """Keep a payload that is not counted once, whole (a redelivery is not
    counted again): ``rejected`` by the rules, or ``failed`` with its
    traceback. A failed one kept already takes the latest verdict (a
    redelivery, or :func:`rescore`); a rejected one stays as it was kept."""
    result_id, board = refusal.result_id, refusal.board
    if result_id is not None and _text_problem("result_id", result_id):
        result_id = None
    if board is not None and _text_problem("board", board):
        board = None
    status: IngestStatus = "failed" if refusal.error is not None else "rejected"
    row = {
        "dedupe_key": result_id if result_id is not None else _digest(payload),
        "result_id": result_id,
        "board": board,
        "reason": _clean(refusal.reason),
        "received_at": received_at,
        "payload": _payload_text(payload),
        "status": status,
        "error": None if refusal.error is None else _clean(refusal.error),
    }
    with database.write_session() as session:
        insert = upsert(session, Rejected).values(**row)
        verdict = {"status": status, "reason": row["reason"], "error": row["error"]}
        session.execute(
            insert.on_conflict_do_update(
                index_elements=["dedupe_key"], set_=verdict, where=Rejected.status == "failed"
            )
        )
    log.info("%s result %s from board %s: %s", status, result_id, board, refusal.reason)
    return IngestOutcome(status, result_id, refusal.reason)


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
def _result_insert(dialect: str) -> Any:
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(Result)
    return insert.on_conflict_do_nothing(index_elements=["result_id"]).returning(
        Result.id, Result.result_id
    )


def venue_id(session: Session, name: str, timezone: str = "UTC") -> int:
    """The id of venue ``name``, made when it is new; its time zone set to ``timezone``."""
    session.execute(_venue_upsert(_dialect(session)), {"name": name, "timezone": timezone})
    return int(session.execute(select(Venue.id).where(Venue.name == name)).scalar_one())


def _line(
    result_pk: int, player_id: int | None, venue_pk: int, scored: ScoredResult, line: PlayerLine
) -> dict[str, Any]:
    """One ``result_players`` row: a :class:`scoring.PlayerLine` and where it
    belongs (a computer player's is no player's: ``player_id`` None)."""
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
        **line.figures,
        "cpu_level": line.cpu_level,
    }


@dataclass(frozen=True, slots=True)
class _Placed:
    """What became of one re-scored result of a batch: stored and counted
    (``imported``), had already, kept as ``superseded`` by a later revision of
    its game, or a ``withdrawn`` revision taking its game out; ``replaced``
    names the result that counted for the game until then."""

    status: Literal["imported", "duplicate", "superseded", "withdrawn"]
    replaced: str | None = None


@dataclass(frozen=True, slots=True)
class _Counted:
    """The result that counts for a game key (a ``results`` row)."""

    pk: int
    result_id: str
    game_key: str
    revision: int
    game: str
    board: str
    finished_at: float
    received_at: float
    payload: dict[str, Any]


@dataclass(slots=True)
class _GameState:
    """A game key as stored: the result that counts (None when it was
    withdrawn, or never counted), and its highest revision with that
    revision's result id (the counted one, or the withdrawal)."""

    counted: _Counted | None = None
    revision: int = 0
    latest: str | None = None


def _known(session: Session, result_ids: list[str]) -> set[str]:
    """The result ids stored already, counted or superseded."""
    known: set[str] = set()
    for model in (Result, Superseded):
        column = model.result_id
        for start in range(0, len(result_ids), 1000):
            chunk = result_ids[start : start + 1000]
            known.update(session.execute(select(column).where(column.in_(chunk))).scalars())
    return known


def _game_states(session: Session, keys: list[str]) -> dict[str, _GameState]:
    """The stored state of each game key that has one (two indexed reads)."""
    states: dict[str, _GameState] = {}
    for start in range(0, len(keys), 1000):
        chunk = keys[start : start + 1000]
        for row in session.execute(
            select(
                Result.id,
                Result.result_id,
                Result.game_key,
                Result.revision,
                Result.game,
                Result.board,
                Result.finished_at,
                Result.received_at,
                Result.payload,
            ).where(Result.game_key.in_(chunk))
        ):
            counted = _Counted(*row)
            states[counted.game_key] = _GameState(counted, counted.revision, counted.result_id)
        for key, revision, result_id in session.execute(
            select(Superseded.game_key, Superseded.revision, Superseded.result_id).where(
                Superseded.game_key.in_(chunk), Superseded.why == "withdrawal"
            )
        ):
            state = states.setdefault(key, _GameState())
            if revision > state.revision:
                state.revision, state.latest = revision, result_id
    return states


def _retired_row(
    scored: ScoredResult,
    document: dict[str, Any],
    why: str,
    by: str | None,
    received_at: float,
) -> dict[str, Any]:
    """A ``superseded_results`` row for a result of this batch that does not count."""
    return {
        "result_id": scored.result_id,
        "game_key": scored.game_key,
        "revision": scored.revision,
        "why": why,
        "superseded_by": by,
        "board": scored.board,
        "game": scored.game,
        "finished_at": scored.finished_at,
        "received_at": received_at,
        "payload": document,
    }


def _place(
    session: Session, batch: Sequence[tuple[ScoredResult, dict[str, Any]]]
) -> tuple[
    list[_Placed], list[int], list[tuple[int, str, str | None]], list[tuple[_Counted, str, str]]
]:
    """Decide each result of the batch: which count (their indexes), which are
    kept as superseded or withdrawals (index, why, by whom), and which stored
    results they take out (the row, why, the result id taking its place). Per
    game key only the highest revision counts, stored or in this batch."""
    placed: list[_Placed | None] = [None] * len(batch)
    known = _known(session, sorted({scored.result_id for scored, _ in batch}))
    fresh: dict[str, list[int]] = {}
    seen: set[str] = set()
    for index, (scored, _) in enumerate(batch):
        if scored.result_id in known or scored.result_id in seen:
            placed[index] = _Placed("duplicate")
        else:
            seen.add(scored.result_id)
            fresh.setdefault(scored.game_key, []).append(index)
    states = _game_states(session, sorted(fresh))
    counting: list[int] = []
    retired: list[tuple[int, str, str | None]] = []
    removed: list[tuple[_Counted, str, str]] = []
    for key, indexes in fresh.items():
        state = states.get(key, _GameState())
        best = max(indexes, key=lambda i: (batch[i][0].revision, -i))
        top = batch[best][0]
        latest = state.latest
        if top.revision > state.revision:
            latest = top.result_id
            replaced = state.counted.result_id if state.counted is not None else None
            if top.withdrawn:
                placed[best] = _Placed("withdrawn", replaced)
                retired.append((best, "withdrawal", None))
            else:
                placed[best] = _Placed("imported", replaced)
                counting.append(best)
            if state.counted is not None:
                why = "withdrawn" if top.withdrawn else "replaced"
                removed.append((state.counted, why, top.result_id))
        for index in indexes:
            if placed[index] is None:
                placed[index] = _Placed("superseded")
                retired.append((index, "superseded", latest))
    return [p for p in placed if p is not None], sorted(counting), retired, removed


def _take_out(session: Session, removed: list[tuple[_Counted, str, str]]) -> set[int]:
    """Move stored results to ``superseded_results`` (why, and by which
    result): their figures and rating history go (rewind their families
    first), their players' totals are counted again. The players they touched."""
    pks = [counted.pk for counted, _, _ in removed]
    touched = set(
        session.execute(
            select(ResultPlayer.player_id)
            .where(ResultPlayer.result_pk.in_(pks), ResultPlayer.player_id.is_not(None))
            .distinct()
        ).scalars()
    )
    session.execute(
        sa_insert(_table(Superseded)),
        [
            {
                "result_id": counted.result_id,
                "game_key": counted.game_key,
                "revision": counted.revision,
                "why": why,
                "superseded_by": by,
                "board": counted.board,
                "game": counted.game,
                "finished_at": counted.finished_at,
                "received_at": counted.received_at,
                "payload": counted.payload,
            }
            for counted, why, by in removed
        ],
    )
    session.execute(delete(Rating).where(Rating.result_pk.in_(pks)))
    session.execute(delete(ResultPlayer).where(ResultPlayer.result_pk.in_(pks)))
    session.execute(delete(Result).where(Result.id.in_(pks)))
    ids = {player_id for player_id in touched if player_id is not None}
    recount(session, ids)
    return ids


def _drop_unplayed(session: Session, player_ids: set[int]) -> None:
    """Delete the players of ``player_ids`` left without a game (theirs was
    withdrawn or replaced by one they are not in), but not one the roster
    registered by hand (``registered_at``): they stay without games."""
    if player_ids:
        played = select(ResultPlayer.id).where(ResultPlayer.player_id == Player.id).exists()
        session.execute(
            delete(Player).where(
                Player.id.in_(sorted(player_ids)), ~played, Player.registered_at.is_(None)
            )
        )


def _store(
    session: Session,
    batch: Sequence[tuple[ScoredResult, dict[str, Any]]],
    venues: VenueMap,
    received_at: float,
) -> list[_Placed]:
    """Store the results (in ``finished_at`` order): insert those that count
    and their players' figures, and rate them; keep those that do not (a lower
    revision of a game, a withdrawal) as superseded, taking out what a higher
    revision replaces. The caller holds their families' locks
    (:func:`lock_family`). A handful of statements a batch, whatever its size."""
    placed, counting, retired, removed = _place(session, batch)
    families = {scored.game for scored, _ in batch}
    for game in sorted({counted.game for counted, _, _ in removed} - families):
        lock_family(session, game)  # a revision of another game: rare, and locked late
    rewound: dict[str, tuple[float, str]] = {}
    for counted, _, _ in removed:
        point = (counted.finished_at, counted.result_id)
        rewound[counted.game] = min(rewound.get(counted.game, point), point)
    for index in counting:
        scored = batch[index][0]
        if scored.game in rewound:
            point = (scored.finished_at, scored.result_id)
            rewound[scored.game] = min(rewound[scored.game], point)
    touched: set[int] = set()
    if removed:
        for game, (at, result_id) in sorted(rewound.items()):
            rewind(session, game, at, result_id)
        touched = _take_out(session, removed)
    if retired:
        session.execute(
            upsert(session, Superseded).on_conflict_do_nothing(index_elements=["result_id"]),
            [_retired_row(*batch[index], why, by, received_at) for index, why, by in retired],
        )
    inserted = _insert(session, [batch[index] for index in counting], venues, received_at, rewound)
    replayed = set()
    for index in counting:
        scored = batch[index][0]
        if scored.result_id in inserted:
            replayed.add(scored.game)
        else:
            placed[index] = _Placed("duplicate")  # stored meanwhile, as a result of another game
    for game in sorted(set(rewound) - replayed):
        replay_from(session, game, *rewound[game])  # a withdrawal: the family without it
    _drop_unplayed(session, touched)
    _finish_calls(
        session, [batch[index] for index in counting if placed[index].status == "imported"]
    )
    return placed


def _finish_calls(session: Session, stored: Sequence[tuple[ScoredResult, dict[str, Any]]]) -> None:
    """The results just stored that carry a ``call_id`` finish their calls
    (:func:`leaderboard.match_calls.results_stored`: once, whatever comes again)."""
    outcomes = [
        outcome
        for scored, document in stored
        if (outcome := outcome_of(document, scored.winner, scored.finished_at)) is not None
    ]
    if outcomes:
        results_stored(session, outcomes)


def _insert(
    session: Session,
    batch: Sequence[tuple[ScoredResult, dict[str, Any]]],
    venues: VenueMap,
    received_at: float,
    rewound: dict[str, tuple[float, str]],
) -> set[str]:
    """Insert the results that count, their players' figures and totals, and
    rate them (a family in ``rewound`` is replayed from that point); the
    result ids inserted."""
    if not batch:
        return set()
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
                "game_key": scored.game_key,
                "revision": scored.revision,
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
    statement = _result_insert(_dialect(session))
    columns = [
        {key: value for key, value in row.items() if key != "player_venue_ids"} for row in rows
    ]
    inserted = {result_id: pk for pk, result_id in session.execute(statement, columns)}
    new = [
        (scored, row)
        for (scored, _), row in zip(batch, rows, strict=True)
        if scored.result_id in inserted
    ]
    if new:
        _store_new(session, new, inserted, rewound)
    return set(inserted)


def _store_new(
    session: Session,
    new: list[tuple[ScoredResult, dict[str, Any]]],
    inserted: dict[str, int],
    rewound: dict[str, tuple[float, str]],
) -> None:
    """The players, figures, totals and ratings of the results just inserted.
    A computer player is no player, nor is a forgotten one (a failed result
    re-scored after a forget): the line has no ``player_id``, so it is in no
    table, total, rating or record."""
    owners = line_owners(session, [(scored, row["player_venue_ids"]) for scored, row in new])
    lines: dict[str, list[dict[str, Any]]] = {}
    for (scored, row), ids in zip(new, owners, strict=True):
        lines[scored.result_id] = [
            _line(inserted[scored.result_id], owner, venue, scored, line)
            for line, venue, owner in zip(scored.players, row["player_venue_ids"], ids, strict=True)
        ]
    session.execute(
        sa_insert(_table(ResultPlayer)), [line for group in lines.values() for line in group]
    )
    for game in sorted({scored.game for scored, _ in new}):
        family = [scored for scored, _ in new if scored.game == game]
        add_lines(session, game, [line for scored in family for line in lines[scored.result_id]])
        if game in rewound:
            replay_from(session, game, *rewound[game])
            continue
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
    was not synchronised), or why it is not (pure: no database): refused by
    the rules, or a fault of this code (``error`` set: the traceback)."""
    document: dict[str, Any] | None = None
    try:
        document = _decode(payload)
        scored = score_result(dated_by_receipt(document, received_at))
        _checked(scored)
    except RejectedResultError as error:
        result_id = error.result_id or (document and _string_field(document, "result_id"))
        board = document and _string_field(document, "board")
        return _Refusal(error.reason, result_id or None, board or None)
    except Exception as error:  # a bug in re-scoring must not stop the service
        log.exception("re-scoring a result failed")
        result_id = document and _string_field(document, "result_id")
        board = document and _string_field(document, "board")
        what = (str(error).strip().splitlines() or [""])[0]
        reason = (
            f"could not be re-scored ({type(error).__name__}: {what}): a fault of this "
            "service, not of the result; kept to be re-scored by `oche leaderboard rescore`"
        )
        trace = "".join(traceback.format_exception(error, limit=-TRACEBACK_FRAMES))
        return _Refusal(reason, result_id or None, board or None, trace)
    return scored, document


@dataclass(frozen=True, slots=True)
class _Refusal:
    """Why a payload is not counted: ``reason``, and for a fault of this
    service (not of the result) ``error``, its traceback."""

    reason: str
    result_id: str | None
    board: str | None
    error: str | None = None


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
        cpu_levels=[line.cpu_level for line in scored.players],
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
    return _keep(database, payload, _Refusal(reason, result_id, board), received)


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
            outcomes[index] = _keep(database, payload, checked, received)
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
            stored_ids = sorted({scored.result_id for _, scored, _ in results})
            session.execute(  # a failed result stored at last is failed no more
                delete(Rejected).where(
                    Rejected.status == "failed", Rejected.dedupe_key.in_(stored_ids)
                )
            )
        for (index, scored, _), placed in zip(results, stored, strict=True):
            counts = placed.status in ("imported", "withdrawn")
            outcomes[index] = IngestOutcome(
                placed.status,
                scored.result_id,
                summary=_summary(scored, venues) if counts else None,
                replaced=placed.replaced,
            )
    return [outcome for outcome in outcomes if outcome is not None]


def summarize(outcomes: Iterable[IngestOutcome]) -> dict[str, Any]:
    """What ``oche leaderboard import`` and ``rescore`` print: how many results
    were imported (and of those, ``replaced`` an earlier revision of their
    game), duplicates, superseded and withdrawn, and each rejected and failed
    one with its reason."""
    summary: dict[str, Any] = {
        "imported": 0,
        "replaced": 0,
        "duplicates": 0,
        "superseded": 0,
        "withdrawn": 0,
        "rejected": [],
        "failed": [],
    }
    for outcome in outcomes:
        if outcome.status in ("rejected", "failed"):
            entry = {"result_id": outcome.result_id, "reason": outcome.reason}
            summary[outcome.status].append(entry)
        else:
            summary["duplicates" if outcome.status == "duplicate" else outcome.status] += 1
        if outcome.status == "imported" and outcome.replaced is not None:
            summary["replaced"] += 1
    return summary


def rescore(database: Database, venues: VenueMap) -> dict[str, Any]:
    """Re-score every failed result (oldest first) with this code, as after
    an upgrade that mended the fault: stored when it scores now, rejected when
    the rules refuse it, failed still (with the new traceback) otherwise. The
    :func:`summarize` of their outcomes, with ``rescored``: how many were tried."""
    with database.session() as session:
        failed = session.execute(
            select(Rejected.id, Rejected.payload, Rejected.received_at)
            .where(Rejected.status == "failed")
            .order_by(Rejected.id)
        ).all()
    outcomes = []
    for row_id, payload, received_at in failed:
        outcome = ingest(database, payload.encode("utf-8"), venues, received_at)
        if outcome.status not in ("rejected", "failed"):
            with database.write_session() as session:  # gone already, unless kept by digest
                session.execute(
                    delete(Rejected).where(Rejected.id == row_id, Rejected.status == "failed")
                )
        outcomes.append(outcome)
    return {"rescored": len(failed), **summarize(outcomes)}
