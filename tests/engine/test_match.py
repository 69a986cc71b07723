"""The engine's match: legs until a side has the format's legs (or sets), who
throws first in each leg, NEXT between legs, undo across a leg boundary, and
the state's ``match`` block as the contract documents it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import END_VISIT, UNDO, Bed, Event, GameOverError, MatchFormat, parse_event
from engine.bot_levels import level
from engine.errors import EngineError, LineupError, NothingToUndoError
from engine.match import Match
from engine.match_format import Decider, Starts
from engine.strategy import strategy_for
from engine.strategy.domino_cribbage import NextMoveError
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


# ------------------------------------------------------------ who starts


def test_the_loser_or_the_winner_starts_the_next_leg() -> None:
    loser = play(x01_match(3, starts=Starts.LOSER), LEG_FOR_FIRST + "NEXT")
    assert loser.starter == 1
    winner = play(x01_match(3, starts=Starts.WINNER), LEG_FOR_FIRST + "NEXT")
    assert winner.starter == 0


def test_with_more_than_two_sides_the_loser_is_the_side_after_the_winner() -> None:
    match = Match("x01", ["Ann", "Bob", "Cy"], X01_301, format=MatchFormat(2, starts=Starts.LOSER))
    play(match, "M M M\nT20 T20 T20\nM M M\nM M M\nT20 T11 D14\nNEXT")
    assert match.legs[0].outcome.winner == 1 and match.starter == 2


def test_with_sets_each_set_s_first_leg_alternates_from_set_to_set() -> None:
    match = x01_match(2, sets=2)
    assert (match.set, match.starter) == (1, 0)
    play(match, LEG_FOR_FIRST + "NEXT")  # Ann 1-0 in set 1; Bob starts leg 2
    assert (match.set, match.starter, match.number) == (1, 1, 2)
    play(match, LEG_FOR_SECOND + "NEXT")  # Ann wins set 1
    assert (match.set, match.starter, match.number) == (2, 1, 3)
    state = match.state()["match"]
    assert (state["legs_won"], state["sets_won"]) == ([0, 0], [1, 0])
    assert_valid(match)


def test_a_set_won_shows_its_legs_until_next() -> None:
    match = play(x01_match(1, sets=2), LEG_FOR_FIRST)
    block = match.state()["match"]
    assert (block["set"], block["legs_won"], block["sets_won"], block["leg_over"]) == (
        1,
        [1, 0],
        [1, 0],
        True,
    )


# ------------------------------------------------------------- the cork

CRICKET_LEG = (
    "T20 T20 T20\nM M M\nT19 T19 T19\nM M M\nT18 T18 T18\nM M M\n"
    "T17 T17 T17\nM M M\nT16 T16 T16\nM M M\nT15 T15 T15\nM M M\nDB DB\n"
)
"""Cricket: the side that throws first closes everything and leads, and wins."""


def cricket_match(legs: int = 2, **kwargs: Any) -> Match:
    return Match("cricket", ["Ann", "Bob"], format=MatchFormat(legs, **kwargs))


def one_all(match: Match) -> Match:
    """Ann wins leg 1 (she starts it), Bob wins leg 2 (he starts it)."""
    return play(match, CRICKET_LEG + "NEXT\n" + CRICKET_LEG + "NEXT")


def test_the_cricket_family_s_deciding_leg_starts_with_a_cork() -> None:
    match = one_all(cricket_match())
    assert match.legs_won() == (1, 1)
    assert match.cork == (None, None) and match.deciding and match.starter is None
    assert match.accepts_darts() and match.cork_thrower == 0
    state = match.state()
    assert state["current_player"] == 0 and state["match"]["cork"] == [None, None]
    assert state["match"]["decider"] is True and state["match"]["format"]["decider"] == "cork"
    assert_valid(match)
    match.push(Bed.parse("SB"))
    assert match.state()["match"]["cork"] == ["SB", None]
    assert match.state()["current_player"] == 1
    assert match.state()["match"]["cork"] == ["SB", None]
    match.push(Bed.parse("DB"))
    assert match.cork is None and match.starter == 1 and match.leg.first_side == 1
    assert match.state()["match"]["starter"] == 1
    assert_valid(match)


@pytest.mark.parametrize(("first", "second"), [("DB", "DB"), ("SB", "SB"), ("M", "S20")])
def test_a_tied_cork_is_thrown_again(first: str, second: str) -> None:
    match = play(one_all(cricket_match()), f"{first} {second}")
    assert match.cork == (None, None)
    play(match, "S20 SB")
    assert match.starter == 1


def test_undo_takes_back_the_cork_s_darts_then_goes_back_to_the_won_leg() -> None:
    match = play(one_all(cricket_match()), "SB DB")
    match.push(UNDO)  # the deciding cork dart: back into the cork
    assert match.state()["match"]["cork"] == ["SB", None]
    match.push(UNDO)
    assert match.state()["match"]["cork"] == [None, None]
    match.push(UNDO)  # the NEXT that started the cork: the won leg again
    assert match.cork is None and match.leg_over and match.legs_won() == (1, 1)
    match.push(UNDO)  # its winning dart
    assert not match.leg_over and match.legs_won() == (1, 0)


def test_undo_in_a_first_leg_won_by_the_cork_goes_back_into_the_cork() -> None:
    """First to 1: the only leg decides, so the match opens with a cork; an
    UNDO before the leg's first dart takes back the cork's deciding dart."""
    match = play(cricket_match(1), "SB DB")
    assert match.cork is None and match.starter == 1 and match.can_undo()
    match.push(UNDO)
    assert match.state()["match"]["cork"] == ["SB", None] and match.cork_thrower == 1
    match.push(UNDO)
    assert match.state()["match"]["cork"] == [None, None] and not match.can_undo()
    with pytest.raises(NothingToUndoError):
        match.push(UNDO)
    play(match, "DB SB")  # thrown again: Ann's cork this time
    assert match.starter == 0 and match.leg.first_side == 0


def test_the_cork_refuses_a_next_naming_it() -> None:
    match = one_all(cricket_match())
    with pytest.raises(EngineError, match="cork"):
        match.push(END_VISIT)


def test_no_cork_when_the_format_says_none_or_for_x01_by_default() -> None:
    match = one_all(cricket_match(decider=Decider.NONE))
    assert match.cork is None and match.deciding and match.starter == 0
    x01 = play(x01_match(), LEG_FOR_FIRST + "NEXT\n" + LEG_FOR_FIRST + "NEXT")
    assert x01.legs_won() == (1, 1) and x01.cork is None and x01.deciding


def test_x01_plays_a_cork_when_the_format_says_so() -> None:
    match = play(x01_match(decider=Decider.CORK), LEG_FOR_FIRST + "NEXT\n" + LEG_FOR_FIRST)
    match.push(END_VISIT)
    assert match.cork == (None, None)


def test_a_match_of_one_leg_of_cricket_starts_with_the_cork() -> None:
    match = cricket_match(1)
    assert match.cork == (None, None) and match.deciding
    with pytest.raises(NothingToUndoError):
        match.push(UNDO)
    play(match, "DB M")
    assert match.starter == 0
    play(match, CRICKET_LEG)
    assert match.is_finished and match.outcome() == match.leg.outcome()


# ------------------------------------- corrections on a finished leg's visit


def test_a_bounce_of_the_winning_dart_reopens_the_leg() -> None:
    match = play(x01_match(), LEG_FOR_FIRST + "BOUNCE")
    assert not match.leg_over and match.legs_won() == (0, 0)
    assert match.leg.current_player == 1


def test_a_correction_of_the_winning_visit_may_undecide_the_leg() -> None:
    match = play(x01_match(), LEG_FOR_FIRST + "CORRECT3=S14")
    assert not match.leg_over and match.leg.score(0) == 14
    play(match, "UNDO")  # the corrected dart taken back: D14 again wins
    match.push(Bed.parse("D14"))
    assert match.leg_over


def test_the_state_doc_s_match_block_is_what_a_match_gives() -> None:
    """docs/state.md's example block: a 301 match first to 2 in leg 2."""
    text = (Path(__file__).parents[2] / "docs" / "state.md").read_text("utf-8")
    section = text.split("## A match: the `match` block", 1)[1]
    example = json.loads(re.findall(r"```json\n(.*?)```", section, re.S)[0])
    assert [e.message for e in MATCH_BLOCK.iter_errors(example)] == []
    assert play(x01_match(), LEG_FOR_FIRST + "NEXT").state()["match"] == example


def test_a_team_match_counts_legs_per_team_and_starts_with_a_team_s_first_player() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee"]}
    match = Match("x01", ["Ann", "Bob", "Cy", "Dee"], X01_301, teams=teams, format=MatchFormat(2))
    play(match, LEG_FOR_FIRST + "NEXT")
    assert match.starter == 1 and match.state()["current_player"] == 1
    assert_valid(match)
    play(match, LEG_FOR_SECOND)
    outcome = match.outcome()
    assert outcome is not None and (outcome.winner, outcome.team) == (0, 0)
    block = match.state()["match"]
    assert (block["legs_won"], block["winner_team"]) == ([2, 0], 0)
    assert_valid(match)


def test_each_leg_of_a_cribbage_match_is_dealt_its_own_tiles() -> None:
    """Leg 2 shuffles with its own seed (from the match's and the leg's
    number), so it is not leg 1's deal again; a replay deals both the same."""
    played = Match(
        "domino-cribbage",
        ["Robo", "Cpu"],
        {"seed": 3, "computer": "second"},
        format=MatchFormat(2),
    )
    policy = strategy_for("domino-cribbage")
    first_hand = played.leg.state()["players"][0]["hand"]
    for _ in range(5000):
        if played.leg.is_finished:
            break
        try:
            played.push(policy.aim(played.leg.state(), level(9).sigma_mm).bed)
        except (NextMoveError, EngineError):  # NEXT when asked; a refused pick is skipped
            played.push(END_VISIT)
    assert played.leg.is_finished
    played.push(END_VISIT)  # NEXT: leg 2
    assert played.number == 2
    second = played.leg
    assert second.options["seed"] != 3
    assert second.state()["players"][0]["hand"] != first_hand
    again = Match(
        "domino-cribbage",
        ["Robo", "Cpu"],
        {"seed": 3, "computer": "second"},
        format=MatchFormat(2),
    )
    for event in played.events:
        again.push(event)
    assert again.leg.state() == second.state()
