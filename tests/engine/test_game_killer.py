"""Killer: options, the number choice, killers and lives, and the state JSON."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

import engine.games.killer  # noqa: F401  (registers the game)
from engine import STATE_SCHEMA, OptionError, new_game
from engine.game_log import replay_log

VALIDATOR = Draft202012Validator(STATE_SCHEMA)


def play(log: str, options: dict[str, object] | None = None, players: int = 2) -> dict[str, Any]:
    names = ["Ann", "Bo", "Cy", "Di"][:players]
    return replay_log(new_game("killer", names, options), log).state()


def errors(state: dict[str, Any]) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(state)]


@pytest.mark.parametrize(
    "options",
    [{"lives": 0}, {"lives": "three"}, {"any_ring_kills": "maybe"}, {"darts": 3}],
)
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        new_game("killer", ["Ann", "Bo"], options)


def test_options_are_coerced_from_text() -> None:
    game = new_game("killer", ["Ann", "Bo"], {"lives": "5", "any_ring_kills": "yes"})
    assert game.options == {"lives": 5, "any_ring_kills": True}
    assert [p["lives"] for p in game.state()["players"]] == [5, 5]


def test_new_game_validates_with_null_numbers() -> None:
    state = new_game("killer", ["Ann", "Bo"]).state()
    assert [p["number"] for p in state["players"]] == [None, None]
    assert errors(state) == []


def test_elimination_states_validate() -> None:
    # Ann, Bo and Cy pick 1, 2 and 3; Ann becomes a killer and takes both of
    # Bo's lives mid-visit (Cy's M M M is last_visit, not a "number chosen").
    state = play("S1\nS2\nS3\nD1 D2\nM M M\nM M M\nD2", {"lives": 2}, players=3)
    assert state["players"][1]["out"] is True
    assert state["players"][1]["lives"] == 0
    assert state["finished"] is False
    assert errors(state) == []
    state = play("S1\nS2\nM M M\nM M M\nD1 D2 D2", {"lives": 2})
    assert state["result"] == "last-standing"
    assert state["players"][1]["out"] is True
    assert errors(state) == []


def test_number_chosen_visit_validates() -> None:
    state = play("S1")
    assert state["last_visit"]["visit_over"] == "number chosen"
    assert errors(state) == []


def test_one_player_who_kills_themself_is_a_draw() -> None:
    state = play("S5\nD5 D5", {"lives": 1}, players=1)
    assert state["finished"] is True
    assert state["winner"] is None
    assert state["result"] == "all-out"
    assert state["visit_over"] == "elimination"


def test_out_side_numbers_are_dead() -> None:
    # Bo (2) is out; Ann's later D2 takes nothing and counts no life.
    state = play("S1\nS2\nS3\nD1 D2 M\nM M M\nM M M\nD2", {"lives": 1}, players=3)
    ann, bo, cy = state["players"]
    assert bo["out"] is True
    assert ann["stats"]["lives_taken"] == 1
    assert cy["lives"] == 1
    assert state["finished"] is False
