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
    cricket_option_parts,
    round_targets,
    route_to_show,
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
