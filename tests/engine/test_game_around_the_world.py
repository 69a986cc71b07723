"""Around the World: options, the course and the state JSON."""

from __future__ import annotations

import jsonschema
import pytest

import engine.games.around_the_world  # noqa: F401  (registers the game)
from engine import STATE_SCHEMA, Bed, OptionError, game_class, new_game
from engine.game_log import replay_log

GAME = "around-the-world"


def test_registered_with_its_name_and_defaults() -> None:
    assert game_class(GAME).name == "Around the World"
    state = new_game(GAME, ["Ann", "Bo"]).state()
    assert state["options"] == {"multi": False, "start": 1}
    assert (state["players"][0]["target"], state["players"][0]["score"]) == (1, 0)


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"start": 2}, "start"),
        ({"start": 20}, "start"),
        ({"start": "ten"}, "start"),
        ({"multi": "maybe"}, "multi"),
        ({"multi": 2}, "multi"),
    ],
)
def test_bad_option_is_an_option_error(options: dict[str, object], name: str) -> None:
    with pytest.raises(OptionError, match=name):
        new_game(GAME, ["Ann", "Bo"], options)


def test_options_given_as_text() -> None:
    game = new_game(GAME, ["Ann"], {"multi": "yes", "start": "15"})
    assert game.options == {"multi": True, "start": 15}


@pytest.mark.parametrize(("start", "course"), [(1, 21), (5, 17), (10, 12), (15, 7)])
def test_full_course_one_number_per_dart(start: int, course: int) -> None:
    game = new_game(GAME, ["Ann"], {"start": start})
    for number in range(start, 21):
        game.dart(Bed.parse(f"T{number}"))
    assert game.state()["players"][0]["target"] == 25
    assert not game.is_finished
    game.dart(Bed.parse("SB"))
    state = game.state()
    assert (state["result"], state["winner"]) == ("bull", 0)
    assert state["players"][0]["score"] == course
    assert state["players"][0]["stats"]["hit_rate"] == 1.0


def test_multi_triple_on_nineteen_stops_at_the_bull() -> None:
    game = replay_log(new_game(GAME, ["Ann", "Bo"], {"multi": True, "start": 15}), "S15 T16 T19\n")
    ann = game.state()["players"][0]
    assert (ann["target"], ann["score"]) == (25, 6)


@pytest.mark.parametrize(
    ("options", "log"),
    [
        ({}, ""),
        ({}, "S1 S2 M\n"),
        ({"multi": True}, "S1\nM M M\nT2 T3 T4\n"),
        ({"multi": True, "start": 15}, "T15 T18 DB\n"),
        ({"start": 15}, "SB S15 DB\nM\n"),
    ],
)
def test_state_matches_the_schema(options: dict[str, object], log: str) -> None:
    game = replay_log(new_game(GAME, ["Ann", "Bo"], options), log)
    jsonschema.validate(game.state(), STATE_SCHEMA)


def test_state_with_teams_matches_the_schema() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bo", "Di"]}
    game = replay_log(
        new_game(GAME, ["Ann", "Bo", "Cy", "Di"], {"start": 15, "multi": True}, teams),
        "T15 T18\nM\nDB\n",
    )
    state = game.state()
    jsonschema.validate(state, STATE_SCHEMA)
    assert [p["score"] for p in state["players"]] == [7, 0, 7, 0]
    assert (state["winner"], state["winner_team"], state["result"]) == (0, 0, "bull")
