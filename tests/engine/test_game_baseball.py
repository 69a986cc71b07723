"""Baseball: options, registry, scoring per inning, extra innings and the state schema."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

import engine.games.baseball  # noqa: F401  (registers the game)
from engine import Bed, OptionError, game_class, game_ids, new_game
from engine.game_log import replay_log
from engine.games.baseball import Baseball, runs_for
from engine.state_schema import STATE_SCHEMA

VALIDATOR = Draft202012Validator(STATE_SCHEMA)


def test_registered() -> None:
    assert "baseball" in game_ids()
    assert game_class("baseball") is Baseball
    assert Baseball.name == "Baseball"
    assert new_game("baseball", ["Ann"]).options == {"innings": 9}


@pytest.mark.parametrize("bad", [0, -1, "nine", True])
def test_bad_innings_rejected(bad: object) -> None:
    with pytest.raises(OptionError, match="innings"):
        new_game("baseball", ["Ann", "Bo"], {"innings": bad})


def test_innings_accepts_text() -> None:
    assert new_game("baseball", ["Ann"], {"innings": "3"}).options["innings"] == 3


@pytest.mark.parametrize(
    ("notation", "inning", "runs"),
    [
        ("S1", 1, 1),
        ("D1", 1, 2),
        ("T1", 1, 3),
        ("T9", 9, 3),  # not multiplied by the inning
        ("T8", 9, 0),
        ("SB", 9, 0),
        ("DB", 9, 0),
        ("M", 1, 0),
        ("SB", 10, 1),
        ("DB", 10, 2),
        ("T10", 10, 0),  # extra inning 10: numbers score nothing
    ],
)
def test_runs_for(notation: str, inning: int, runs: int) -> None:
    assert runs_for(Bed.parse(notation), inning, 9) == runs


def test_single_player_wins_after_last_inning() -> None:
    game = replay_log(new_game("baseball", ["Ann"], {"innings": 2}), "M\nM\n")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "round-limit"


def test_undo_after_win_reopens() -> None:
    game = replay_log(new_game("baseball", ["Ann", "Bo"], {"innings": 1}), "S1\nM\n")
    assert game.is_finished
    game.undo()
    assert not game.is_finished
    assert game.state()["players"][0]["innings_runs"] == [1]


@pytest.mark.parametrize(
    "log",
    ["", "S1 D1 T1\nM\n", "S1\nS1\nSB\nDB\n", "S1 S1\nS1 S1\nS2 S2 S2\nSB\n"],
)
def test_state_matches_schema(log: str) -> None:
    game = replay_log(new_game("baseball", ["Ann", "Bo", "Cy"], {"innings": 1}), log)
    errors = [e.message for e in VALIDATOR.iter_errors(game.state())]
    assert errors == []


def test_teams_state_matches_schema() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bo", "Di"]}
    game = new_game("baseball", ["Ann", "Bo", "Cy", "Di"], {"innings": 2}, teams)
    replay_log(game, "S1 S1\nT1\nD2\nM\n")  # Red 4, Blue 3
    assert [e.message for e in VALIDATOR.iter_errors(game.state())] == []
    assert game.is_finished
