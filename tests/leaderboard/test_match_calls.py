"""The queue of called matches (leaderboard/match_calls.py) on SQLite and
PostgreSQL: migration 0010 makes the table the model says; a call is
checked as its board will check it; a stored result carrying its
``call_id`` finishes it and runs its owner's hook exactly once (a
redelivery, a later revision, a walkover first, two results stored at
once: no second advance); a board holds one live call, and a call is
claimed once, also by two writers at once."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from leaderboard.database import Database
from leaderboard.match_calls import (
    CallError,
    call_command,
    cancel_call,
    claim_board,
    held_boards,
    live_calls,
    mark_playing,
    queue_call,
    ready_calls,
    register_owner,
    release_call,
)
from leaderboard.models import Base, MatchCall
from leaderboard.sample_results import SimulatedPlayer, sample_match_result
from leaderboard.store import ingest
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import STARTED_AT, result_document
from tests.leaderboard.web_seed import VENUES

ANN_BOB = [{"name": "Ann", "player_id": None}, {"name": "Bob"}]


def _queue(database: Database, **given: Any) -> str:
    arguments: dict[str, Any] = {
        "owner_kind": "test",
        "owner_id": 1,
        "title": "Friday Cup, round 1",
        "game": "x01",
        "options": {"start": 301},
        "match_format": None,
        "players": ANN_BOB,
        "boards": ["oche/board1"],
    }
    with database.write_session() as session:
        return queue_call(session, **{**arguments, **given}).call_id


def _call(database: Database, call_id: str) -> MatchCall:
    with database.session() as session:
        return session.execute(select(MatchCall).where(MatchCall.call_id == call_id)).scalar_one()


@pytest.fixture
def finished() -> list[tuple[str, str, int | None, list[int] | None]]:
    """Each call the ``test`` owner's hook saw: id, status, winner, legs."""
    seen: list[tuple[str, str, int | None, list[int] | None]] = []

    def on_finished(session: Session, call: MatchCall) -> None:
        assert session.in_transaction()
        seen.append((call.call_id, call.status, call.winner, call.legs_won))

    register_owner("test", on_finished)
    return seen


def test_migration_0010_makes_the_table_the_model_says(database: Database) -> None:
    def of_calls(item: Any, name: str | None, kind: str, *_: Any) -> bool:
        table = name if kind == "table" else item.table.name
        return table == "match_calls"

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": of_calls}
        )
        assert compare_metadata(context, Base.metadata) == []


def test_a_call_is_queued_ready_and_its_command_is_the_contract_s(database: Database) -> None:
    call_id = _queue(database, match_format={"legs": 2})
    call = _call(database, call_id)
    assert (call.status, call.board, call.owner_kind, call.owner_id) == ("ready", None, "test", 1)
    assert call.players == [{"name": "Ann", "player_id": None}, {"name": "Bob", "player_id": None}]
    command = call_command(call).to_json()
    assert command["command"] == "call_match"
    assert command["match"] == {"legs": 2, "starts": "alternate"}
    assert command["players"] == [{"name": "Ann"}, {"name": "Bob"}]
    with database.session() as session:
        assert [c.call_id for c in ready_calls(session)] == [call_id]


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": [{"name": "Ann"}]}, "players"),
        ({"players": [{"name": ""}, {"name": "Bob"}]}, "player 0"),
        ({"match_format": {"legs": 0}}, "match format"),
        ({"boards": []}, "at least one board"),
        ({"boards": ["oche/board 1"]}, "not a board"),
        ({"call_id": "no spaces"}, "not a call id"),
        ({"title": "x" * 81}, "title"),
        (
            {"teams": [{"name": "A", "players": ["Ann"]}, {"name": "B", "players": ["Zed"]}]},
            "'Zed'",
        ),
        ({"teams": [{"name": "A", "players": ["Ann", "Bob"]}]}, "teams"),
        ({"players": [{"name": "Ann"}, {"name": "Bob", "board": "pub 2"}]}, "not a board"),
        ({"players": [{"name": "Ann"}, {"name": "Bob", "board": "board1"}]}, "away board"),
    ],
)
def test_a_bad_call_is_refused_naming_what_is_wrong(
    database: Database, given: dict[str, Any], words: str
) -> None:
    with pytest.raises(CallError, match=words):
        _queue(database, **given)
    with database.session() as session:
        assert ready_calls(session) == []


OPENING = ["T20 T20 T20", "T20 T20 T20", "T20 T7 M", "T20 T7 M"]
ANN_WINS = [*OPENING, "D20"]
BOB_WINS_AFTER_THE_UNDO = [*ANN_WINS, "UNDO M M M", "D20"]
"""Ann's winning D20 taken back (the game reopens), Ann misses, Bob checks out."""


def _result(call_id: str, moves: list[str] = ANN_WINS, **given: Any) -> dict[str, Any]:
    document = result_document("x01", moves, options={"start": 301}, **given)
    document["call_id"] = call_id
    return document


def test_a_result_with_the_call_id_finishes_it_and_advances_its_owner_once(
    database: Database, finished: list[Any]
) -> None:
    call_id = _queue(database, call_id="t1-m1")
    with database.write_session() as session:
        assert claim_board(session, call_id, "oche/board1", 100.0)
    document = _result(call_id)
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    assert finished == [(call_id, "finished", 0, [1, 0])]
    call = _call(database, call_id)
    assert (call.status, call.result_id, call.winner, call.legs_won) == (
        "finished",
        document["result_id"],
        0,
        [1, 0],
    )
    assert call.finished_at == document["finished_at"]
    # the same result again, then a later revision of its game: no second advance
    assert ingest(database, as_payload(document), VENUES).status == "duplicate"
    revision = _result(call_id, BOB_WINS_AFTER_THE_UNDO, revision_of=document)
    assert revision["winner"] == 1
    assert ingest(database, as_payload(revision), VENUES).status == "imported"
    assert len(finished) == 1
    assert _call(database, call_id).result_id == document["result_id"]


def test_a_match_result_s_legs_won_are_kept_per_side(
    database: Database, finished: list[Any]
) -> None:
    call_id = _queue(database)
    document = _result(call_id)
    document["legs_won"] = [2, 1]  # as a match's result carries them (the contract's shape)
    ingest(database, as_payload(document), VENUES)
    assert finished == [(call_id, "finished", 0, [2, 1])]


def test_a_walked_over_call_s_late_result_advances_nothing(
    database: Database, finished: list[Any]
) -> None:
    call_id = _queue(database)
    with database.write_session() as session:
        cancel_call(session, call_id)
    assert _call(database, call_id).status == "walkover"
    with database.write_session() as session, pytest.raises(CallError, match="walkover already"):
        cancel_call(session, call_id)
    with database.write_session() as session, pytest.raises(CallError, match="no call 'nope'"):
        cancel_call(session, "nope")
    assert ingest(database, as_payload(_result(call_id)), VENUES).status == "imported"
    assert finished == []
    assert _call(database, call_id).status == "walkover"


def test_a_failing_owner_hook_leaves_the_call_and_the_result_is_stored(
    database: Database,
) -> None:
    def broken(session: Session, call: MatchCall) -> None:
        raise RuntimeError("the bracket is broken")

    register_owner("broken", broken)
    call_id = _queue(database, owner_kind="broken")
    assert ingest(database, as_payload(_result(call_id)), VENUES).status == "imported"
    assert _call(database, call_id).status == "ready"


def test_a_board_holds_one_live_call_and_a_call_is_claimed_once(database: Database) -> None:
    first, second = _queue(database), _queue(database)
    with database.write_session() as session:
        assert claim_board(session, first, "oche/board1", 1.0)
    with database.write_session() as session:
        assert not claim_board(session, first, "oche/board2", 2.0)  # called already
    with pytest.raises(IntegrityError), database.write_session() as session:
        claim_board(session, second, "oche/board1", 3.0)
    assert _call(database, second).status == "ready"
    with database.write_session() as session:
        assert mark_playing(session, first)
        assert not mark_playing(session, first)
        assert [c.call_id for c in live_calls(session)] == [first]
    with database.write_session() as session:
        assert release_call(session, first, "oche/board1")
        assert claim_board(session, second, "oche/board1", 4.0)
    assert (_call(database, first).status, _call(database, first).board) == ("ready", None)


def _at_once(*work: Any) -> list[Any]:
    """Each function run in its own thread, started together; their outcomes
    (a value, or the exception raised)."""
    barrier = threading.Barrier(len(work))

    def run(function: Any) -> Any:
        barrier.wait()
        try:
            return function()
        except Exception as error:
            return error

    with ThreadPoolExecutor(len(work)) as pool:
        return list(pool.map(run, work))


def test_two_results_of_one_call_stored_at_once_advance_it_once(
    database: Database, finished: list[Any]
) -> None:
    call_id = _queue(database)
    one, other = _result(call_id), _result(call_id, finished_at=STARTED_AT + 999.0)
    outcomes = _at_once(
        lambda: ingest(database, as_payload(one), VENUES),
        lambda: ingest(database, as_payload(other), VENUES),
    )
    assert [outcome.status for outcome in outcomes] == ["imported", "imported"]
    assert len(finished) == 1
    assert _call(database, call_id).result_id in (one["result_id"], other["result_id"])


def _claim(database: Database, call_id: str, board: str) -> bool:
    with database.write_session() as session:
        return claim_board(session, call_id, board, 1.0)


def test_two_instances_claiming_at_once_get_one_call_and_one_board(database: Database) -> None:
    first, second = _queue(database), _queue(database)
    outcomes = _at_once(
        lambda: _claim(database, first, "oche/board1"),
        lambda: _claim(database, first, "oche/board2"),
    )
    assert sorted(outcomes, key=str) == [False, True]
    board = _call(database, first).board
    assert board in ("oche/board1", "oche/board2")
    assert isinstance(_at_once(lambda: _claim(database, second, board))[0], IntegrityError)
    third = _queue(database)
    outcomes = _at_once(  # two calls, one free board
        lambda: _claim(database, second, "oche/board3"),
        lambda: _claim(database, third, "oche/board3"),
    )
    assert sum(outcome is True for outcome in outcomes) == 1
    assert sum(isinstance(outcome, IntegrityError) for outcome in outcomes) == 1
    assert sorted(_call(database, c).status for c in (second, third)) == ["called", "ready"]


def test_a_remote_call_and_a_call_to_its_away_board_claimed_at_once_get_one_board(
    database: Database,
) -> None:
    away = [{"name": "Ann"}, {"name": "Bob", "board": "oche/swan-1"}]
    for _ in range(3):  # three rounds: the stale claims of the round before are taken over
        remote = _queue(database, players=away, boards=["oche/crown-1"])
        local = _queue(database, boards=["oche/swan-1"])
        outcomes = _at_once(
            lambda remote=remote: _claim(database, remote, "oche/crown-1"),
            lambda local=local: _claim(database, local, "oche/swan-1"),
        )
        assert sum(outcome is True for outcome in outcomes) == 1, outcomes
        assert all(o is True or isinstance(o, IntegrityError) for o in outcomes), outcomes
        statuses = sorted(_call(database, c).status for c in (remote, local))
        assert statuses == ["called", "ready"]
        with database.session() as session:
            held = held_boards(session)
        assert held == (
            {"crown-1", "swan-1"} if _call(database, remote).status == "called" else {"swan-1"}
        )
        with database.write_session() as session:
            for call_id in (remote, local):
                if _call(database, call_id).status == "called":
                    cancel_call(session, call_id, why="cancelled", now=2.0)


def test_a_released_call_claimed_again_elsewhere_leaves_its_first_board_free(
    database: Database,
) -> None:
    first = _queue(database, boards=["oche/board1", "oche/board2"])
    assert _claim(database, first, "oche/board1")
    with database.write_session() as session:  # board1 refused it (busy)
        assert release_call(session, first, "oche/board1")
    assert _claim(database, first, "oche/board2")
    second = _queue(database)
    assert _claim(database, second, "oche/board1")
    with database.session() as session:
        assert held_boards(session) == {"board1", "board2"}


def test_a_called_match_s_result_finishes_it_with_the_legs_in_the_call_s_order(
    database: Database, finished: list[Any]
) -> None:
    """A match's result (the engine's Match, as a board sends it) with its
    players seated the other way round: the winner and the legs come back
    in the call's side order."""
    rng = random.Random(3)
    players = [SimulatedPlayer("Bob", 0.3, rng), SimulatedPlayer("Ann", 0.3, rng)]
    document = sample_match_result(rng, "board1", players, "x01", STARTED_AT + 600.0)
    call_id = _queue(database)  # Ann, then Bob
    document["call_id"] = call_id
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    legs = document["legs_won"]
    winner = document["winner"]
    assert max(legs) == 2
    ((seen, status, side, legs_won),) = finished
    assert (seen, status) == (call_id, "finished")
    assert side == 1 - winner  # the result's player 0 is the call's side 1
    assert legs_won == list(reversed(legs))
