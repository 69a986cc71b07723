"""English Cricket: lineups, innings and wickets, the dead darts after the
tenth wicket, and states that match the state JSON schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import engine.games.english_cricket  # noqa: F401  (registers english-cricket)
from engine import Bed, Game, LineupError, game_ids, new_game
from engine.game_log import replay_log
from engine.games.english_cricket import INNINGS_OVER, EnglishCricket
from engine.state_schema import STATE_SCHEMA

VALIDATOR = Draft202012Validator(STATE_SCHEMA)

# Innings 1: Ann 140 runs, Bo's tenth wicket on the second dart of his second
# visit (the SB after it is dead). Innings 2: Bo 100 runs, Ann ten wickets.
FULL_GAME = [
    "T20 T20 T20",
    "DB DB DB",
    "M M M",
    "DB DB SB",
    "T20 T20 S20",
    "DB DB DB",
    "M M M",
    "SB DB SB",
]


def game(log: list[str] | None = None, players: list[str] | None = None) -> Game:
    g = new_game("english-cricket", players or ["Ann", "Bo"])
    if log:
        replay_log(g, "".join(line + "\n" for line in log))
    return g


def darts(g: Game, text: str) -> None:
    for token in text.split():
        g.dart(Bed.parse(token))


def schema_errors(state: dict[str, Any]) -> list[str]:
    wire = json.loads(json.dumps(state))
    assert wire == state
    return [error.message for error in VALIDATOR.iter_errors(wire)]


def all_states(log: list[str]) -> list[dict[str, Any]]:
    """The state after every dart and every visit end of ``log``."""
    g = game()
    states = [g.state()]
    for line in log:
        for token in line.split():
            g.dart(Bed.parse(token))
            states.append(g.state())
        g.end_visit()
        states.append(g.state())
    return states


def test_registered() -> None:
    assert "english-cricket" in game_ids()
    assert isinstance(game(), EnglishCricket)
    assert EnglishCricket.name == "English Cricket"
    assert EnglishCricket.options_spec == ()


@pytest.mark.parametrize(
    ("players", "teams", "got"),
    [
        (["Ann"], None, "got 1 player"),
        (["Ann", "Bo", "Cy"], None, "got 3 players"),
        (
            ["Ann", "Bo", "Cy"],
            {"Red": ["Ann"], "Blue": ["Bo"], "Green": ["Cy"]},
            "got 3 teams",
        ),
    ],
)
def test_lineup_must_be_two_sides(
    players: list[str], teams: dict[str, list[str]] | None, got: str
) -> None:
    with pytest.raises(LineupError, match="exactly two players or two teams") as error:
        new_game("english-cricket", players, None, teams)
    assert got in str(error.value)


def test_two_teams_of_two_are_allowed() -> None:
    g = new_game("english-cricket", ["Ann", "Bo", "Cy", "Di"], None, {"R": [0, 2], "B": [1, 3]})
    assert g.state()["teams"] is not None


def test_initial_state_has_innings_and_wickets() -> None:
    state = game().state()
    assert state["innings"] == 1
    assert state["wickets"] == 0
    assert [p["batting"] for p in state["players"]] == [True, False]
    assert [p["score"] for p in state["players"]] == [0, 0]
    assert state["players"][0]["stats"] == {
        "darts": 0,
        "visits": 0,
        "bounce_outs": 0,
        "runs": 0,
        "wickets_taken": 0,
    }


def test_runs_are_judged_at_visit_end() -> None:
    g = game()
    darts(g, "T20 T20")
    assert g.state()["players"][0]["score"] == 0
    darts(g, "T20")
    assert g.state()["players"][0]["score"] == 140


def test_short_visit_scores_on_visit_end() -> None:
    g = game()
    darts(g, "T20")
    g.end_visit()
    assert g.state()["players"][0]["score"] == 20
    assert g.current_player == 1


def test_tenth_wicket_makes_later_darts_dead_mid_visit() -> None:
    g = game(["M M M", "DB DB DB", "M M M"])
    darts(g, "DB DB")
    state = g.state()
    assert state["visit_over"] == INNINGS_OVER
    assert (state["innings"], state["wickets"]) == (1, 10)
    assert state["current_player"] == 1
    darts(g, "DB")  # dead: no eleventh wicket
    state = g.state()
    assert (state["innings"], state["wickets"]) == (2, 0)
    assert state["current_player"] == 1
    assert state["players"][1]["stats"]["wickets_taken"] == 10
    assert state["players"][1]["stats"]["darts"] == 5
    assert state["last_visit"]["visit_over"] == INNINGS_OVER


def test_db_on_nine_wickets_takes_only_the_tenth() -> None:
    g = game(["M M M", "DB DB DB", "M M M", "DB SB"])
    assert g.state()["wickets"] == 9
    darts(g, "M M M")
    darts(g, "DB")
    assert g.state()["players"][1]["stats"]["wickets_taken"] == 10


def test_full_game() -> None:
    g = game(FULL_GAME)
    state = g.state()
    assert [p["score"] for p in state["players"]] == [140, 100]
    assert (state["innings"], state["wickets"]) == (2, 10)
    assert (state["winner"], state["result"], state["visit_over"]) == (0, "runs", "win")
    assert not g.accepts_darts()


def test_undo_after_the_end_reopens_the_second_innings() -> None:
    g = game(FULL_GAME)
    g.undo()
    state = g.state()
    assert not state["finished"]
    assert (state["innings"], state["wickets"]) == (2, 9)


def test_states_match_schema() -> None:
    states = all_states(FULL_GAME)
    assert any(state["visit_over"] == INNINGS_OVER for state in states)
    for state in states:
        assert {"innings", "wickets"} <= set(state)
        assert state["innings"] in (1, 2)
        assert 0 <= state["wickets"] <= 10
        assert schema_errors(state) == [], state


def test_team_states_match_schema() -> None:
    g = new_game("english-cricket", ["Ann", "Bo", "Cy", "Di"], None, {"R": [0, 2], "B": [1, 3]})
    replay_log(g, "".join(line + "\n" for line in FULL_GAME))
    assert g.is_finished
    assert schema_errors(g.state()) == []
