"""The readings both scoreboards share (``mqtt_contract.scoreboard``,
``StateView.game_option``, ``engine.game_name``): the display's scenes and
the web's board views show the same route, options and names from one state."""

from __future__ import annotations

from typing import Any

from engine import X01, Cricket, game_name
from engine.games import AroundTheWorld, Shanghai
from mqtt_contract import Phase, StateView
from mqtt_contract.scoreboard import (
    around_the_world_options,
    call_line,
    call_words,
    cork_turn,
    cork_words,
    cricket_option_parts,
    game_shot_words,
    leg_in_set,
    leg_ordinal,
    match_format_words,
    match_position_words,
    match_score_words,
    match_winner_words,
    round_targets,
    route_to_show,
    side_count,
    side_label,
    side_legs,
    side_of,
    starter_side,
    starter_words,
    target_of,
    x01_option_parts,
)


def _x01(score: int, phase: Phase = Phase.THROWING, **extra: Any) -> StateView:
    player = {"name": "Ann", "score": score, **extra}
    return StateView.from_json(
        {
            "game": X01.id,
            "phase": phase.value,
            "options": {"start": 501, "out": "double"},
            "players": [player, {"name": "Bob", "score": 501}],
            "current_player": 0,
            "visit": [],
        }
    )


def test_a_game_name_comes_from_the_registry_else_the_id_in_words() -> None:
    assert game_name(X01.id) == X01.name
    assert game_name("moon-darts") == "Moon Darts"
    assert game_name(None) == "Game"


def test_an_option_the_state_leaves_out_is_the_game_s_default() -> None:
    state = StateView.from_json({"game": X01.id, "options": {"start": 301}})
    assert state.game_option("start") == 301
    assert state.game_option("out") == "double"
    assert state.game_option("no-such-option") is None
    assert StateView.from_json({"game": "moon-darts"}).game_option("out") is None


def test_the_route_is_the_state_s_hint_else_the_engine_s_table() -> None:
    assert route_to_show(_x01(100, checkout=["S20", "D20"])) == ["S20", "D20"]
    fallback = route_to_show(_x01(100))
    assert fallback is not None and 1 <= len(fallback) <= 3
    assert route_to_show(_x01(171)) is None
    assert route_to_show(_x01(100, Phase.TAKEOUT)) is None
    assert route_to_show(_x01(100, opened=False)) is None
    assert route_to_show(_x01(100, checkout=None)) is None


def test_options_in_words_and_around_the_world_s_start() -> None:
    x01 = StateView.from_json(
        {"game": X01.id, "options": {"start": 501, "in": "double", "rounds": 10}}
    )
    assert x01_option_parts(x01) == ["501", "double in", "double out", "10 rounds"]
    cricket = StateView.from_json({"game": Cricket.id, "options": {"mode": "cut-throat"}})
    assert cricket_option_parts(cricket) == ["cut throat"]
    world = StateView.from_json({"game": AroundTheWorld.id, "options": {"start": 5}})
    assert around_the_world_options(world) == (False, 5)
    odd = StateView.from_json({"game": AroundTheWorld.id, "options": {"start": True}})
    assert around_the_world_options(odd) == (False, 1)


def test_shanghai_s_rounds_go_on_at_1_after_20() -> None:
    state = StateView.from_json({"game": Shanghai.id, "options": {"rounds": 3, "start": 19}})
    assert round_targets(state) == [19, 20, 1]
    assert target_of(state) == 19
    later = StateView.from_json(
        {"game": Shanghai.id, "options": {"rounds": 3, "start": 19}, "round": 3}
    )
    assert target_of(later) == 1


def _match(**match: Any) -> StateView:
    """A 501 match of Ann and Bob, with the match block's keys overridden."""
    block: dict[str, Any] = {
        "format": {"legs": 3, "sets": None, "starts": "alternate", "decider": "none"},
        "leg": 2,
        "set": None,
        "starter": 1,
        "legs_won": [1, 0],
        "sets_won": None,
        "decider": False,
        "leg_over": False,
        "cork": None,
        "finished": False,
        "winner": None,
        "winner_team": None,
        "played": [
            {
                "leg": 1,
                "set": None,
                "starter": 0,
                "winner": 0,
                "winner_team": None,
                "result": "checkout",
            }
        ],
        **match,
    }
    return StateView.from_json(
        {
            "game": X01.id,
            "phase": Phase.THROWING.value,
            "options": {"start": 501},
            "players": [{"name": "Ann", "score": 501}, {"name": "Bob", "score": 501}],
            "current_player": 1,
            "match": block,
        }
    )


def _leg(leg: int, set_: int, winner: int) -> dict[str, Any]:
    return {"leg": leg, "set": set_, "starter": 0, "winner": winner, "result": "checkout"}


def test_leg_ordinals_are_words_to_ninety_nine() -> None:
    words = [leg_ordinal(n) for n in (1, 2, 3, 11, 12, 20, 21, 25, 40, 99)]
    assert words == [
        "first",
        "second",
        "third",
        "eleventh",
        "twelfth",
        "twentieth",
        "twenty-first",
        "twenty-fifth",
        "fortieth",
        "ninety-ninth",
    ]
    assert [leg_ordinal(n) for n in (101, 111, 112, 123, 0)] == [
        "101st",
        "111th",
        "112th",
        "123rd",
        "first",
    ]


def test_a_single_game_has_no_match_words() -> None:
    state = _x01(501)
    assert match_score_words(state) is None
    assert match_position_words(state) is None
    assert match_format_words(state) is None
    assert starter_side(state) is None and starter_words(state) is None
    assert cork_words(state) is None and match_winner_words(state) is None
    assert call_words(state, "Board 2") is None


def test_the_legs_score_the_leg_and_who_throws_first() -> None:
    state = _match()
    assert match_score_words(state) == "Legs 1-0"
    assert match_position_words(state) == "Leg 2"
    assert match_format_words(state) == "first to 3 legs"
    assert starter_side(state) == 1
    assert starter_words(state) == "Bob throws first"
    assert side_legs(state.match, 0) == (1, None)
    assert side_legs(state.match, 5) == (0, None)
    assert side_count(state) == 2 and side_label(state, 1) == "Bob"
    won = _match(leg_over=True, legs_won=[1, 1])
    assert starter_words(won) is None


def test_with_sets_the_score_and_the_leg_of_the_set() -> None:
    played = [_leg(1, 1, 0), _leg(2, 1, 0), _leg(3, 2, 1)]
    state = _match(
        format={"legs": 2, "sets": 3},
        leg=4,
        set=2,
        legs_won=[0, 1],
        sets_won=[1, 0],
        played=played,
    )
    assert match_score_words(state) == "Sets 1-0, legs 0-1"
    assert leg_in_set(state.match) == 2
    assert match_position_words(state) == "Set 2, leg 2"
    assert match_format_words(state) == "first to 3 sets of 2 legs"
    assert side_legs(state.match, 0) == (0, 1)
    # Without the legs played, the legs won this set count them.
    assert leg_in_set(_match(set=2, leg=4, legs_won=[1, 1], sets_won=[1, 0], played=[]).match) == 3


def test_the_caller_s_game_shot() -> None:
    assert game_shot_words(1) == "Game shot, and the first leg"
    assert game_shot_words(3, set_won=True) == "Game shot, and the set"
    assert game_shot_words(2, set_won=True, match_won=True) == "Game shot, and the match"


def test_the_match_s_winner_and_teams_as_sides() -> None:
    over = _match(finished=True, winner=0, legs_won=[3, 1])
    assert match_winner_words(over) == "Ann wins the match 3-1"
    teams = StateView.from_json(
        {
            "game": X01.id,
            "players": [
                {"name": "Ann", "team": 0},
                {"name": "Bob", "team": 1},
                {"name": "Cy", "team": 0},
                {"name": "Dan", "team": 1},
            ],
            "teams": [{"name": "Lions", "players": [0, 2]}, {"name": "Tigers", "players": [1, 3]}],
            "match": {"format": {"legs": 2}, "leg": 2, "starter": 3, "legs_won": [1, 0]},
        }
    )
    assert side_count(teams) == 2
    assert side_of(teams, 3) == 1 and starter_side(teams) == 1
    assert side_label(teams, 0) == "Lions"
    assert starter_words(teams) == "Dan (Tigers) throws first"


def test_the_cork_says_whose_turn_at_the_bull() -> None:
    state = _match(decider=True, legs_won=[2, 2], cork=["SB", None])
    assert cork_turn(state.match) == 1
    assert cork_words(state) == "Bull for the throw: Bob to throw"
    assert starter_words(state) is None
    assert cork_turn(_match(cork=["SB", "DB"]).match) is None


def test_the_called_match_line() -> None:
    state = StateView.from_json(
        {
            "phase": Phase.IDLE.value,
            "call": {
                "call_id": "t4-m2",
                "title": "Friday Cup, round 1",
                "game": X01.id,
                "players": [{"name": "Ann", "player_id": 1}, {"name": "Bob"}],
            },
        }
    )
    assert call_line(state.call) == "Ann v Bob"
    assert call_words(state, "Board 2") == "Next: Ann v Bob on Board 2"
    assert call_words(state) == "Next: Ann v Bob"


def test_a_called_pairs_game_and_a_remote_call_say_their_sides() -> None:
    pairs = StateView.from_json(
        {
            "phase": Phase.IDLE.value,
            "call": {
                "call_id": "league-1-g4",
                "game": X01.id,
                "players": [{"name": n} for n in ("Ann", "Bob", "Cy", "Dee")],
                "teams": [
                    {"name": "Lions", "players": ["Ann", "Cy"]},
                    {"name": "Tigers", "players": ["Bob", "Dee"]},
                ],
            },
        }
    )
    assert call_words(pairs, "Board 2") == "Next: Ann & Cy v Bob & Dee on Board 2"
    remote = StateView.from_json(
        {
            "phase": Phase.IDLE.value,
            "call": {
                "call_id": "league-2-g1",
                "game": X01.id,
                "players": [{"name": "Ann"}, {"name": "Bob", "board": "oche/swan-1"}],
            },
        }
    )
    assert call_line(remote.call) == "Ann v Bob (at swan-1)"
