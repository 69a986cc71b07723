"""The engine's match: legs until a side has the format's legs (or sets), who
throws first in each leg, NEXT between legs, undo across a leg boundary, and
the state's ``match`` block as the contract documents it."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import END_VISIT, UNDO, Bed, Event, GameOverError, MatchFormat, parse_event
from engine.errors import EngineError, LineupError, NothingToUndoError
from engine.match import Match
from engine.match_format import Starts
from mqtt_contract.json_types import object_schema
from mqtt_contract.match_payload import MatchView
from mqtt_contract.topics import TOPICS

X01_301 = {"start": 301, "out": "straight"}
LEG_FOR_FIRST = "T20 T20 T20\nM M M\nT20 T11 D14\n"
"""301 straight out: the side that throws first checks out in its second visit."""
LEG_FOR_SECOND = "M M M\nT20 T20 T20\nM M M\nT20 T11 D14\n"
"""The side that throws second checks out in its second visit."""

STATE_TOPIC = Draft202012Validator(TOPICS["state"].schema)
MATCH_BLOCK = Draft202012Validator(object_schema(MatchView))
BOARD = {"id": "pub", "name": "Pub", "connected": True, "status": "connected", "stuck_cells": []}


def events(text: str) -> list[Event]:
    return [parse_event(token) for token in text.split()]


def play(match: Match, text: str) -> Match:
    match.push_all(events(text))
    return match


def x01_match(legs: int = 2, **kwargs: Any) -> Match:
    return Match("x01", ["Ann", "Bob"], X01_301, format=MatchFormat(legs, **kwargs))


def published(match: Match) -> dict[str, Any]:
    """The state as the daemon publishes it: the phase and board added."""
    if match.is_finished:
        phase = "finished"
    elif match.leg_over or match.leg.visit_over is not None:
        phase = "takeout"
    else:
        phase = "throwing"
    return {**match.state(), "phase": phase, "board": BOARD}


def assert_valid(match: Match) -> None:
    state = published(match)
    errors = [error.message for error in STATE_TOPIC.iter_errors(state)]
    assert errors == [], state
    if "match" in state:
        assert [e.message for e in MATCH_BLOCK.iter_errors(state["match"])] == []


def test_a_301_match_first_to_two_legs_alternates_the_throw() -> None:
    match = x01_match()
    assert match.state()["match"]["starter"] == 0
    play(match, LEG_FOR_FIRST)
    assert match.leg_over and not match.is_finished
    assert match.legs_won() == (1, 0)
    assert_valid(match)
    with pytest.raises(GameOverError, match="NEXT starts leg 2"):
        match.push(Bed.parse("T20"))
    match.push(END_VISIT)
    state = match.state()
    assert (state["match"]["leg"], state["match"]["starter"], state["current_player"]) == (2, 1, 1)
    assert not match.leg_over
    assert_valid(match)
    play(match, LEG_FOR_SECOND)
    assert match.is_finished
    outcome = match.outcome()
    assert outcome is not None and outcome.winner == 0
    assert match.legs_won() == (2, 0)
    block = match.state()["match"]
    assert block["finished"] and block["winner"] == 0 and block["legs_won"] == [2, 0]
    assert [leg["starter"] for leg in block["played"]] == [0, 1]
    assert_valid(match)


def test_a_single_game_is_a_thin_wrapper_without_a_match_block() -> None:
    match = Match("x01", ["Ann", "Bob"], X01_301)
    play(match, LEG_FOR_FIRST)
    assert match.is_finished and "match" not in match.state()
    assert match.state() == match.leg.state()
    assert match.legs_won() == (1, 0)


def test_undo_across_the_leg_boundary_reopens_the_leg() -> None:
    match = x01_match()
    play(match, LEG_FOR_FIRST)
    won = match.state()
    match.push(END_VISIT)
    match.push(UNDO)
    assert not match.leg_over and match.legs_won() == (0, 0)
    assert match.state()["match"]["leg"] == 1
    match.push(Bed.parse("D14"))
    assert match.state() == won


def test_nothing_to_undo_at_the_start_names_it() -> None:
    with pytest.raises(NothingToUndoError):
        x01_match().push(UNDO)


def test_a_replay_of_the_flat_events_is_the_same_match() -> None:
    match = x01_match(3, starts=Starts.LOSER)
    play(match, LEG_FOR_FIRST + "NEXT\n" + LEG_FOR_SECOND + "UNDO D14\nNEXT\n" + LEG_FOR_FIRST)
    again = x01_match(3, starts=Starts.LOSER)
    again.push_all(match.events)
    assert again.state() == match.state()


def test_a_match_needs_two_sides() -> None:
    with pytest.raises(LineupError, match="two sides"):
        Match("x01", ["Ann"], format=MatchFormat(2))


def test_errors_are_engine_errors() -> None:
    assert issubclass(GameOverError, EngineError)
