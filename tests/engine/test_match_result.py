"""A match's statistics over its legs (``Game.combine_stats``) and its one
``result`` document with every leg in it, checked against the result topic's
schema; a single game's document stays as it was."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import MatchFormat, new_game, parse_event
from engine.game_log import format_game_log, log_first_side, replay_log
from engine.games import X01, Cricket
from engine.match import Match
from mqtt_contract.result_payload import result_document
from mqtt_contract.topics import TOPICS

RESULT_TOPIC = Draft202012Validator(TOPICS["result"].schema)
X01_301 = {"start": 301, "out": "straight"}
LEG_FOR_FIRST = "T20 T20 T20 M M M T20 T11 D14"
LEG_FOR_SECOND = "M M M T20 T20 T20 M M M T20 T11 D14"


def played(match: Match, text: str) -> Match:
    match.push_all(parse_event(token) for token in text.split())
    return match


def document(game: Any, **kwargs: Any) -> dict[str, Any]:
    built = result_document(
        game, result_id="pub-1", board="pub", started_at=1.0, finished_at=2.0, **kwargs
    )
    errors = [error.message for error in RESULT_TOPIC.iter_errors(built)]
    assert errors == [], built
    return built


def ann_wins_two_nil() -> Match:
    match = Match("x01", ["Ann", "Bob"], X01_301, format=MatchFormat(2))
    return played(match, f"{LEG_FOR_FIRST} NEXT {LEG_FOR_SECOND}")


def test_a_match_s_result_carries_every_leg_and_the_legs_won() -> None:
    match = ann_wins_two_nil()
    built = document(match, cpu={1: {"level": 3, "sigma_mm": 30.0, "average": 40.0}})
    assert (built["winner"], built["winner_name"], built["result"]) == (0, "Ann", "checkout")
    assert built["legs_won"] == [2, 0] and "sets_won" not in built and "log" not in built
    assert built["match_id"] == built["game_key"] == "pub-1"
    assert built["match_format"] == {"legs": 2, "starts": "alternate", "decider": "none"}
    assert [(leg["leg"], leg["starter"], leg["winner"]) for leg in built["legs"]] == [
        (1, 0, 0),
        (2, 1, 0),
    ]
    assert built["players"][1]["cpu"]["level"] == 3
    first, second = built["legs"]
    assert log_first_side(first["log"]) == 0 and log_first_side(second["log"]) == 1
    for leg, record in zip(built["legs"], match.legs, strict=True):
        game = new_game("x01", ["Ann", "Bob"], X01_301, first_side=log_first_side(leg["log"]) or 0)
        assert replay_log(game, leg["log"]).state() == record.game.state()
    ann = built["players"][0]["stats"]
    assert (ann["darts"], ann["points"], ann["legs_won_darts"]) == (12, 602, [6, 6])
    assert ann["average"] == round(3 * 602 / 12, 2)
    assert (ann["count_180"], ann["checkouts"], ann["highest_checkout"]) == (2, 2, 121)
    assert built["legs"][1]["players"][0]["stats"] == record_stats(match, 1, 0)


def record_stats(match: Match, leg: int, player: int) -> dict[str, Any]:
    return dict(match.legs[leg].game.state()["players"][player]["stats"])


def test_a_match_in_sets_says_the_sets_won() -> None:
    match = Match("x01", ["Ann", "Bob"], X01_301, format=MatchFormat(1, sets=2))
    played(match, f"{LEG_FOR_FIRST} NEXT {LEG_FOR_SECOND}")
    built = document(match)
    assert built["sets_won"] == [2, 0] and built["legs_won"] == [2, 0]
    assert [leg["set"] for leg in built["legs"]] == [1, 2]


def test_a_single_game_s_document_is_unchanged_by_the_match_wrapper() -> None:
    game = played(Match("x01", ["Ann", "Bob"], X01_301), LEG_FOR_FIRST).leg
    alone = new_game("x01", ["Ann", "Bob"], X01_301)
    alone.push_all(game.events)
    assert "legs" not in document(alone)
    assert document(played(Match("x01", ["Ann", "Bob"], X01_301), LEG_FOR_FIRST)) == document(alone)
    assert document(alone)["log"] == format_game_log(alone)


def test_x01_s_match_statistics_are_recomputed_from_the_legs_counters() -> None:
    legs = [
        {
            "darts": 9,
            "visits": 3,
            "points": 301,
            "first9_points": 301,
            "first9_darts": 9,
            "checkouts": 1,
            "checkout_darts": 1,
            "highest_checkout": 121,
            "count_180": 1,
            "points_per_dart": 33.44,
            "average": 100.33,
            "bounce_outs": 0,
        },
        {
            "darts": 12,
            "visits": 4,
            "points": 200,
            "first9_points": 150,
            "first9_darts": 9,
            "checkouts": 0,
            "checkout_darts": 3,
            "highest_checkout": 0,
            "count_180": 0,
            "points_per_dart": 16.67,
            "average": 50.0,
            "bounce_outs": 1,
        },
    ]
    combined = X01.combine_stats(legs)
    assert combined["darts"] == 21 and combined["bounce_outs"] == 1
    assert combined["average"] == round(3 * 501 / 21, 2)
    assert combined["points_per_dart"] == round(501 / 21, 2)
    assert combined["first9_average"] == round(3 * 451 / 18, 2)
    assert combined["checkout_percent"] == 25.0
    assert combined["highest_checkout"] == 121 and combined["count_180"] == 1


def test_cricket_s_match_statistics_recompute_the_marks_per_round() -> None:
    combined = Cricket.combine_stats(
        [
            {"darts": 21, "visits": 7, "marks": 21, "mpr": 3.0, "count_5_marks": 1},
            {"darts": 30, "visits": 10, "marks": 12, "mpr": 1.2, "count_5_marks": 0},
        ]
    )
    assert combined["marks"] == 33 and combined["mpr"] == round(33 / 17, 2)
    assert combined["count_5_marks"] == 1


def test_a_cricket_leg_counts_its_five_seven_and_nine_mark_visits() -> None:
    game = new_game("cricket", ["Ann", "Bob"])
    visits = "T20 T20 T20 M M M T19 T19 S18 M M M T17 S17 S17"
    game.push_all(parse_event(token) for token in visits.split())
    counters = game.leg_stats(0)
    assert (counters["count_9_marks"], counters["count_7_marks"], counters["count_5_marks"]) == (
        1,
        1,
        1,
    )


@pytest.mark.parametrize("game_id", ["killer", "baseball", "shanghai"])
def test_other_games_sum_their_counters(game_id: str) -> None:
    cls = type(new_game(game_id, ["Ann", "Bob"]))
    combined = cls.combine_stats([{"darts": 3, "visits": 1}, {"darts": 6, "visits": 2}])
    assert (combined["darts"], combined["visits"]) == (9, 3)
