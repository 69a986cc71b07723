"""Fifty-one by Fives: options, the per-visit judgement and the state JSON."""

from __future__ import annotations

import jsonschema
import pytest

import engine.games.fifty_one_by_fives  # noqa: F401  (registers the game)
from engine import STATE_SCHEMA, Bed, OptionError, game_class, new_game
from engine.game_log import replay_log

GAME = "fifty-one-by-fives"


def test_registered_with_its_name_and_default_target() -> None:
    assert game_class(GAME).name == "Fifty-one by Fives"
    assert new_game(GAME, ["Ann", "Bo"]).state()["options"] == {"target": 51}


@pytest.mark.parametrize("target", [4, 0, -5, "five", True])
def test_bad_target_is_an_option_error(target: object) -> None:
    with pytest.raises(OptionError, match="target"):
        new_game(GAME, ["Ann", "Bo"], {"target": target})


def test_target_given_as_text() -> None:
    assert new_game(GAME, ["Ann"], {"target": "5"}).options["target"] == 5


def test_visit_is_judged_only_at_its_end() -> None:
    game = new_game(GAME, ["Ann", "Bo"])
    game.dart(Bed.parse("S5"))
    game.dart(Bed.parse("S5"))
    assert game.state()["players"][0]["score"] == 0
    game.dart(Bed.parse("S5"))
    assert game.state()["players"][0]["score"] == 3


def test_visit_ended_after_two_darts_scores_nothing() -> None:
    game = replay_log(new_game(GAME, ["Ann", "Bo"]), "S5 S5\n")
    ann = game.state()["players"][0]
    assert (ann["score"], ann["stats"]["scoring_visits"]) == (0, 0)


def test_exact_target_wins_and_passing_it_busts() -> None:
    game = replay_log(new_game(GAME, ["Ann", "Bo"], {"target": 5}), "S5 S5 S10\nM M M\nS5 S5 S5\n")
    ann = game.state()["players"][0]
    assert (ann["score"], ann["stats"]["busts"]) == (4, 1)
    assert game.state()["last_visit"]["visit_over"] is None
    replay_log(game, "M M M\nS1 S2 S2\n")
    state = game.state()
    assert (state["winner"], state["result"], state["players"][0]["score"]) == (0, "target", 5)


@pytest.mark.parametrize(
    "log",
    ["", "S5 S5 S5\n", "S5 S5\nT20 T20 T20\n", "T20 T20 T20\nM M M\nT20 T20 T20\nM M M\n"],
)
def test_state_matches_the_schema(log: str) -> None:
    game = replay_log(new_game(GAME, ["Ann", "Bo"], {"target": 51}), log)
    jsonschema.validate(game.state(), STATE_SCHEMA)


def test_state_with_teams_matches_the_schema() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bo", "Di"]}
    game = replay_log(
        new_game(GAME, ["Ann", "Bo", "Cy", "Di"], {"target": 5}, teams), "S5 S5 S10\nM\nS1 S2 S2\n"
    )
    state = game.state()
    jsonschema.validate(state, STATE_SCHEMA)
    assert (state["winner"], state["winner_team"]) == (0, 0)
