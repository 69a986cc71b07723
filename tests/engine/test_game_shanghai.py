"""Shanghai: options, registry, the Shanghai win, the round limit and the state schema."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

import engine.games.shanghai  # noqa: F401  (registers the game)
from engine import OptionError, game_class, game_ids, new_game
from engine.game_log import replay_log
from engine.games.shanghai import Shanghai
from engine.state_schema import STATE_SCHEMA

VALIDATOR = Draft202012Validator(STATE_SCHEMA)


def test_registered() -> None:
    assert "shanghai" in game_ids()
    assert game_class("shanghai") is Shanghai
    assert Shanghai.name == "Shanghai"
    assert new_game("shanghai", ["Ann"]).options == {"rounds": 7, "start": 1}


@pytest.mark.parametrize(
    ("options", "names"),
    [
        ({"rounds": 8}, ["rounds"]),
        ({"rounds": 0}, ["rounds"]),
        ({"start": 0}, ["start"]),
        ({"start": "x"}, ["start"]),
        ({"start": 21}, ["start"]),
        ({"target": 1}, ["target"]),
    ],
)
def test_bad_options_rejected(options: dict[str, object], names: list[str]) -> None:
    with pytest.raises(OptionError) as caught:
        new_game("shanghai", ["Ann", "Bo"], options)
    for name in names:
        assert name in str(caught.value)


@pytest.mark.parametrize(("start", "rounds"), [(14, 7), (12, 9), (1, 20), (15, 7), (2, 20)])
def test_any_start_fits_every_round_count(start: int, rounds: int) -> None:
    game = new_game("shanghai", ["Ann"], {"start": start, "rounds": rounds})
    assert game.state()["players"][0]["target"] == start


def test_after_20_the_targets_go_on_at_1() -> None:
    game = replay_log(new_game("shanghai", ["Ann"], {"start": 19}), "M\nM\n")
    assert game.state()["players"][0]["target"] == 1
    game = replay_log(game, "S1 D1 T1\n")
    assert game.outcome() is not None and game.outcome().reason == "shanghai"  # type: ignore[union-attr]


def test_target_follows_round() -> None:
    game = replay_log(new_game("shanghai", ["Ann", "Bo"], {"start": 5}), "M\nM\nM\n")
    assert game.round == 2
    assert [p["target"] for p in game.state()["players"]] == [6, 6]


def test_shanghai_needs_one_visit() -> None:
    # S1 D1 in round 1 and T2 in round 2 are different targets and visits.
    game = replay_log(new_game("shanghai", ["Ann"]), "S1 D1\nT2 S2 D2\n")
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "shanghai"
    assert game.state()["players"][0]["score"] == 3 + 12


def test_undo_after_shanghai_reopens() -> None:
    game = replay_log(new_game("shanghai", ["Ann", "Bo"]), "T1 D1 S1\n")
    assert game.is_finished
    game.undo()
    assert not game.is_finished
    assert game.state()["players"][0]["score"] == 5


@pytest.mark.parametrize(
    "log",
    ["", "S1 D1 T1\n", "M\nM\n" * 7, "S1 S1 D1\nT1\nS2\n"],
)
def test_state_matches_schema(log: str) -> None:
    game = replay_log(new_game("shanghai", ["Ann", "Bo"]), log)
    assert [e.message for e in VALIDATOR.iter_errors(game.state())] == []


def test_teams_state_matches_schema() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bo", "Di"]}
    game = new_game("shanghai", ["Ann", "Bo", "Cy", "Di"], {}, teams)
    replay_log(game, "S1\nM\nS2 D2 T2\n")
    assert [e.message for e in VALIDATOR.iter_errors(game.state())] == []
    assert game.state()["winner_team"] == 0
