"""Legs (Piernas): options, beating the previous visit, and the state JSON."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

import engine.games.legs  # noqa: F401  (registers the game)
from engine import STATE_SCHEMA, Bed, OptionError, new_game
from engine.game_log import replay_log

VALIDATOR = Draft202012Validator(STATE_SCHEMA)


def play(log: str, options: dict[str, object] | None = None, players: int = 2) -> dict[str, Any]:
    names = ["Ann", "Bo", "Cy", "Di"][:players]
    return replay_log(new_game("legs", names, options), log).state()


def errors(state: dict[str, Any]) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(state)]


@pytest.mark.parametrize("options", [{"lives": 0}, {"lives": -1}, {"lives": "x"}, {"rounds": 5}])
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        new_game("legs", ["Ann", "Bo"], options)


def test_first_visit_has_nothing_to_beat() -> None:
    state = new_game("legs", ["Ann", "Bo"]).state()
    assert [p["to_beat"] for p in state["players"]] == [None, None]
    assert errors(state) == []
    state = play("M M M")
    assert [p["lives"] for p in state["players"]] == [3, 3]
    assert state["players"][0]["to_beat"] == 0


def test_judged_at_visit_end_only() -> None:
    game = replay_log(new_game("legs", ["Ann", "Bo"]), "T20 T20 T20")
    game.push_all([Bed.parse("S1"), Bed.parse("S1")])
    assert game.state()["players"][1]["lives"] == 3  # Bo's visit is still open
    game.end_visit()
    state = game.state()
    assert state["players"][1]["lives"] == 2
    assert state["players"][1]["stats"]["legs_lost"] == 1
    assert state["players"][0]["to_beat"] == 2


def test_states_validate_through_elimination() -> None:
    log = "S20\nS19\nS20\nT20\nS1"
    lines = log.splitlines()
    for end in range(len(lines) + 1):
        state = play("\n".join(lines[:end]), {"lives": 1}, players=3)
        assert errors(state) == [], end
    assert state["finished"] is True
    assert [p["out"] for p in state["players"]] == [False, True, True]


def test_one_player_runs_out_alone() -> None:
    state = play("S20\nS1", {"lives": 1}, players=1)
    assert state["result"] == "all-out"
    assert state["winner"] is None
