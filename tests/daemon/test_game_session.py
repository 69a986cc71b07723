"""Visits as players feel them: takeout, NEXT, MISS, UNDO, coalescing, and a
journal replay that brings the phase back exactly."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from engine import Bed, Event, PickingGame, parse_event
from firmware_bridge.daemon.game_session import (
    GameSession,
    PickingPlay,
    Refusal,
    SessionSetup,
    VisitPlay,
)
from mqtt_contract import PHASES, Phase

X01 = SessionSetup("x01", {"start": 301}, ["Ann", "Bob"])
T20 = Bed.parse("T20")


def play(session: GameSession, moves: Sequence[Event | str], now: float = 0.0) -> list[dict]:
    """Apply engine events (or their journal tokens); the payloads they caused."""
    events: list[dict[str, Any]] = []
    for move in moves:
        event = parse_event(move) if isinstance(move, str) else move
        events += [caused.to_json() for caused in session.apply(event, now)]
    return events


def tokens(events: Sequence[Event]) -> list[str]:
    return [str(event) for event in events]


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def test_the_third_dart_ends_the_visit_and_starts_takeout() -> None:
    session = GameSession(X01)
    events = play(session, ["T20", "T20", "T20"])
    assert session.phase == Phase.TAKEOUT
    assert types(events) == [
        *("dart", "dart", "dart", "visit_end", "award", "takeout", "player_change")
    ]
    assert events[4]["award"] == "ton-80"  # right after the visit it was earned in
    visit_end = events[3]
    assert (visit_end["total"], visit_end["score_change"], visit_end["player"]) == (180, -180, 0)
    assert session.state()["current_player"] == 1


def test_contacts_during_takeout_are_refused_and_change_nothing() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20"])
    before = session.state()
    with pytest.raises(Refusal, match="takeout"):
        session.plan_hit(T20, 1.0)
    with pytest.raises(Refusal, match="NEXT"):
        session.plan_miss()
    assert session.state() == before


def test_next_ends_takeout_and_darts_score_again() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20"])
    planned = session.plan_next()
    assert tokens(planned) == ["NEXT"]
    play(session, planned)
    assert session.phase == Phase.THROWING
    play(session, session.plan_hit(Bed.parse("S5"), 2.0))
    assert session.state()["players"][1]["score"] == 296


def test_next_before_the_third_dart_fills_the_visit_with_misses_without_a_takeout() -> None:
    session = GameSession(X01)
    play(session, ["S20"])
    planned = session.plan_next()
    assert tokens(planned) == ["M", "M", "NEXT"]
    events = play(session, planned)
    assert "takeout" not in types(events)
    assert session.phase == Phase.THROWING
    state = session.state()
    assert state["current_player"] == 1
    assert state["last_visit"]["darts"] == ["S20", "M", "M"]


def test_a_bust_starts_takeout_at_once_and_next_passes_the_turn() -> None:
    session = GameSession(SessionSetup("x01", {"start": 301}, ["Ann", "Bob"]))
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT"])
    events = play(session, ["T20", "T20"])  # 121 - 60 = 61, then 1: bust under double out
    assert types(events)[-2:] == ["bust", "takeout"]
    assert session.phase == Phase.TAKEOUT
    events = play(session, session.plan_next())
    assert types(events) == ["visit_end", "player_change"]
    assert events[0]["visit_over"] == "bust" and events[0]["total"] == 0
    assert session.state()["players"][0]["score"] == 121


def test_takeout_timer_owes_a_next_once_it_runs_out() -> None:
    session = GameSession(X01, takeout_s=2.0)
    play(session, ["S1", "S1", "S1"], now=10.0)
    assert session.due(11.9) == []
    assert tokens(session.due(12.0)) == ["NEXT"]


def test_without_a_takeout_timer_nothing_is_due() -> None:
    session = GameSession(X01)
    play(session, ["S1", "S1", "S1"])
    assert session.due(1e9) == []


def test_bounces_within_coalesce_ms_are_one_dart() -> None:
    session = GameSession(X01, coalesce_ms=30)
    assert session.plan_hit(T20, 1.000) == [T20]
    with pytest.raises(Refusal, match="30 ms"):
        session.plan_hit(Bed.parse("S20"), 1.020)
    assert session.plan_hit(Bed.parse("S20"), 1.040) == [Bed.parse("S20")]


def test_undo_after_takeout_reopens_the_visit_for_its_thrower() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20"])
    events = play(session, session.plan_undo())
    assert "undo" in types(events)
    assert session.phase == Phase.THROWING
    state = session.state()
    assert (state["current_player"], state["visit"]) == (0, ["T20", "T20"])


def test_undo_with_nothing_thrown_is_refused() -> None:
    with pytest.raises(Refusal, match="nothing to undo"):
        GameSession(X01).plan_undo()


def test_checkout_emits_winner_and_game_over_and_refuses_more_darts() -> None:
    session = GameSession(SessionSetup("x01", {"start": 301}, ["Ann", "Bob"]))
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT"])  # Ann 121
    play(session, ["T20", "T20", "S1", "NEXT", "M", "M", "M", "NEXT"])  # bust, 121
    events = play(session, ["T20", "T11", "D14"])  # 60 + 33 + 28 = 121
    assert types(events)[-2:] == ["winner", "game_over"]
    assert session.phase == Phase.FINISHED
    with pytest.raises(Refusal, match="over"):
        session.plan_hit(T20, 100.0)
    with pytest.raises(Refusal, match="over"):
        session.plan_next()
    play(session, session.plan_undo())
    assert session.phase == Phase.THROWING
    assert not session.state()["finished"]


def test_replaying_the_tokens_gives_the_same_state_and_phase() -> None:
    journal = ["T20", "T20", "T20", "NEXT", "S1", "M", "M", "NEXT", "T20", "UNDO", "S19"]
    live = GameSession(X01)
    play(live, journal, 0.0)
    replayed = GameSession(X01)
    play(replayed, journal, 5.0)
    assert replayed.state() == live.state()
    assert replayed.phase == live.phase
    mid_takeout = journal[:3]
    a, b = GameSession(X01), GameSession(X01)
    play(a, mid_takeout)
    play(b, mid_takeout)
    assert a.phase == b.phase == Phase.TAKEOUT


def test_the_phases_are_the_contracts_and_publish_as_plain_strings() -> None:
    assert tuple(Phase) == PHASES
    state = GameSession(X01).state()
    assert type(state["phase"]) is str
    assert json.dumps(state["phase"]) == '"throwing"'


def test_a_game_played_by_picking_has_no_takeout_and_no_miss() -> None:
    session = GameSession(SessionSetup("domino-cribbage", {"seed": 7}, ["Ann", "Bob"]))
    assert isinstance(session.game, PickingGame)
    assert isinstance(session.play, PickingPlay)
    with pytest.raises(Refusal, match="has no misses"):
        session.plan_miss()
    with pytest.raises(Refusal, match="NEXT: choose 2 more"):
        session.plan_next()  # the discard comes first: no Go yet
    events = play(session, [Bed.parse("S1")])
    assert session.phase == Phase.THROWING
    assert "takeout" not in types(events)


def test_a_game_thrown_in_visits_plays_in_visits() -> None:
    session = GameSession(X01)
    assert not isinstance(session.game, PickingGame)
    assert isinstance(session.play, VisitPlay)
