"""A match as the board plays it (docs/matches.md, "Match play"): a won leg
is takeout until NEXT or the takeout timer starts the next leg (or its cork),
darts between legs are refused, undo goes back across a leg's start, a
replay of the journal's tokens gives the same match, a computer player
corks at the bull, and the journal and ``oche export``/``replay`` keep it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from engine import Bed, parse_event
from engine.board_geometry import GEOMETRIES
from engine.match_format import MatchFormat
from firmware_bridge.cli.history_command import export_text, history_entries, history_table
from firmware_bridge.cli.main import main
from firmware_bridge.daemon.bots import resolve_bots
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.journal import SCHEMA_VERSION, Journal
from firmware_bridge.daemon.journal import schema as journal_schema
from mqtt_contract import Phase

FIRST_TO_2 = MatchFormat(2)
X01_MATCH = SessionSetup("x01", {"start": 301, "out": "straight"}, ["Ann", "Bob"], None, FIRST_TO_2)
# The starter wins a leg of 301 straight out in their second visit.
STARTER_WINS = ["T20", "T20", "T20", "NEXT", "S1", "S1", "S1", "NEXT", "T20", "T20", "S1"]


def play(session: GameSession, moves: Sequence[str], now: float = 0.0) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for move in moves:
        events += [caused.to_json() for caused in session.apply(parse_event(move), now)]
    return events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]


def test_a_won_leg_is_takeout_until_next_starts_the_next_leg() -> None:
    session = GameSession(X01_MATCH)
    events = play(session, STARTER_WINS)
    [won] = of_type(events, "leg_won")
    assert (won["player"], won["leg"], won["legs_won"], won["match_won"]) == (0, 1, [1, 0], False)
    assert of_type(events, "winner") == [] and of_type(events, "game_over") == []
    assert session.phase == Phase.TAKEOUT and not session.is_finished
    assert session.state()["match"]["leg_over"] is True
    with pytest.raises(Refusal, match="takeout"):
        session.plan_hit(Bed.parse("T20"), 1.0)
    with pytest.raises(Refusal):
        session.plan_manual_dart(Bed.parse("T20"))
    with pytest.raises(Refusal):
        session.plan_miss()

    assert [str(e) for e in session.plan_next()] == ["NEXT"]
    events = play(session, ["NEXT"])
    [started] = of_type(events, "leg_started")
    assert (started["leg"], started["starter"], started["decider"]) == (2, 1, False)
    state = session.state()
    assert (session.phase, state["current_player"], state["match"]["leg"]) == (
        Phase.THROWING,
        1,
        2,
    )
    assert [p["score"] for p in state["players"]] == [301, 301]


def test_the_takeout_timer_starts_the_next_leg() -> None:
    session = GameSession(X01_MATCH, takeout_s=2.0)
    play(session, STARTER_WINS[:-1])
    play(session, ["S1"], now=10.0)  # Ann wins the leg: takeout from 10 s
    assert session.phase == Phase.TAKEOUT and session.takeout_deadline == 12.0
    assert session.due(11.9) == []
    assert [str(e) for e in session.due(12.0)] == ["NEXT"]
    play(session, ["NEXT"], now=12.0)
    assert session.state()["match"]["leg"] == 2 and session.state()["phase"] == "throwing"


def test_the_match_ends_with_its_last_leg_and_only_then_has_a_winner() -> None:
    session = GameSession(X01_MATCH)
    play(session, [*STARTER_WINS, "NEXT"])
    events = play(session, ["S1", "S1", "S1", "NEXT", *STARTER_WINS[:3], "NEXT"])
    events += play(session, ["S1", "S1", "S1", "NEXT", "T20", "T20", "S1"])
    assert [e["type"] for e in events[-3:]] == ["leg_won", "winner", "game_over"]
    assert events[-3]["match_won"] is True and events[-3]["legs_won"] == [2, 0]
    assert session.phase == Phase.FINISHED and session.is_finished
    match = session.state()["match"]
    assert (match["finished"], match["winner"], match["legs_won"]) == (True, 0, [2, 0])
    with pytest.raises(Refusal, match="over"):
        session.plan_next()


def test_undo_goes_back_across_a_legs_start_into_the_won_leg() -> None:
    session = GameSession(X01_MATCH)
    play(session, [*STARTER_WINS, "NEXT", "S5"])
    play(session, ["UNDO"])  # Bob's S5
    assert session.state()["match"]["leg"] == 2 and session.match.can_undo()
    events = play(session, ["UNDO"])  # no dart in leg 2: Ann's winning S1
    assert of_type(events, "undo")[0]["player"] == 0
    state = session.state()
    assert (state["match"]["leg"], state["match"]["legs_won"], state["visit"]) == (
        1,
        [0, 0],
        ["T20", "T20"],
    )
    assert session.phase == Phase.THROWING
    events = play(session, ["S1"])  # won again
    assert len(of_type(events, "leg_won")) == 1 and session.state()["phase"] == "takeout"


def test_replaying_the_tokens_gives_the_same_match_and_phase() -> None:
    live = GameSession(X01_MATCH)
    moves = [*STARTER_WINS, "NEXT", "S5", "UNDO", "UNDO", "S1", "NEXT", "S20", "S20"]
    play(live, moves)
    replayed = GameSession(X01_MATCH)
    play(replayed, [str(event) for event in live.match.events])
    assert replayed.state() == live.state()
    again = GameSession(X01_MATCH)
    play(again, moves)  # the journal keeps every token, the undone ones too
    assert again.state() == live.state() and again.phase == live.phase


CRICKET_DECIDER = SessionSetup("cricket", {}, ["Ann", "Robo"], None, MatchFormat(1))


def test_a_deciding_legs_cork_refuses_next_and_its_winner_throws_first() -> None:
    session = GameSession(CRICKET_DECIDER)  # first to 1: the only leg decides, by a cork
    assert session.state()["match"]["cork"] == [None, None] and session.thrower() == 0
    with pytest.raises(Refusal, match="cork"):
        session.plan_next()
    with pytest.raises(Refusal, match="cork"):
        session.plan_bounce()
    events = play(session, ["SB", "UNDO", "S20"])
    assert session.thrower() == 1 and session.state()["current_player"] == 1
    events = play(session, ["DB"])
    assert [e["type"] for e in events][:3] == ["dart", "cork_won", "leg_started"]
    assert events[1]["player"] == 1 and events[2]["starter"] == 1
    assert session.state()["match"]["cork"] is None and session.thrower() == 1


def test_undo_on_the_board_takes_back_the_cork_that_started_the_only_leg() -> None:
    session = GameSession(CRICKET_DECIDER)
    play(session, ["SB", "DB"])  # Bob's bull wins the cork: he throws first
    assert session.thrower() == 1 and session.state()["match"]["cork"] is None
    events = play(session, ["UNDO"])
    assert [e["type"] for e in events][:1] == ["undo"]
    assert session.state()["match"]["cork"] == ["SB", None] and session.thrower() == 1


def test_a_computer_player_throws_its_cork_at_the_bull() -> None:
    bots = resolve_bots("cricket", {"Robo": {"level": 10}}, GEOMETRIES["soft"])
    session = GameSession(CRICKET_DECIDER)
    play(session, ["S20"])  # Ann's cork dart: Robo's turn
    darts = [bots.throw(session.match.state(), applied).notation for applied in range(40)]
    assert sum(dart in ("SB", "DB") for dart in darts) >= 20, darts


def journal_match(path: Path, tokens: Sequence[str]) -> int:
    with Journal(path) as journal:
        game_id = journal.games.start_game(
            "x01",
            {"start": 301, "out": "straight"},
            ["Ann", "Bob"],
            None,
            "board1",
            1_700_000_000.0,
            match=FIRST_TO_2.to_json(),
        )
        for index, token in enumerate(tokens):
            journal.games.append(game_id, token, 1_700_000_001.0 + index)
    return game_id


def test_export_writes_each_legs_log_and_replay_plays_the_same_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite3"
    moves = [*STARTER_WINS, "NEXT", "S5", "UNDO", "S1", "S1", "S1"]
    game_id = journal_match(path, moves)
    live = GameSession(X01_MATCH)
    play(live, moves)
    with Journal(path) as journal:
        [entry] = history_entries(journal)
        text = export_text(journal.games.game(game_id))
        table = history_table([entry])
    assert entry["match"] == FIRST_TO_2.to_json() and entry["legs_won"] == [1, 0]
    assert entry["winner"] is None  # the match goes on
    assert "- (1-0)" in table
    assert '# match: {"legs": 2' in text and "# legs: 1-0" in text
    body = [line for line in text.splitlines() if not line.startswith("# ") or "leg " in line]
    assert body == [
        "# leg 1: first Ann, won by Ann (checkout)",
        "T20 T20 T20",
        "S1 S1 S1",
        "T20 T20 S1",
        "NEXT  # leg 2",
        "# leg 2: first Bob, in progress",
        "S1 S1 S1",
    ]
    log = tmp_path / "match.log"
    log.write_text(text, "utf-8")
    assert main(["replay", str(log)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state == live.match.state()


def test_a_version_6_journal_migrates_its_games_to_single_games(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    connection = sqlite3.connect(path, isolation_level=None)
    for version in range(1, 7):
        journal_schema.MIGRATIONS[version](connection)
    connection.execute(f"PRAGMA application_id = {journal_schema.APPLICATION_ID}")
    connection.execute("PRAGMA user_version = 6")
    connection.execute(
        "INSERT INTO games (game, options, players, board, started_at, status) "
        "VALUES ('x01', '{}', '[\"Ann\"]', 'b', 1, 'playing')"
    )
    connection.close()
    with Journal(path) as journal:
        assert journal.games.game(1).match is None
        second = journal.games.start_game(
            "x01", {}, ["Ann", "Bob"], None, "b", 2.0, match=FIRST_TO_2.to_json()
        )
        assert journal.games.game(second).match == FIRST_TO_2.to_json()
    assert SCHEMA_VERSION == 7
