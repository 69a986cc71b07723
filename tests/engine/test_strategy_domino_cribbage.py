"""Domino cribbage's policy hands the choice to the game's own computer player
and throws at the picked tile's number; NEXT moves are said, not thrown."""

from __future__ import annotations

import numpy as np
import pytest

from engine import END_VISIT, EngineError, new_game
from engine.bot_levels import level
from engine.cribbage_computer import choose_discards
from engine.strategy import StrategyError, strategy_for
from engine.strategy.domino_cribbage import NextMoveError, choose_tile
from engine.throw_model import sample_throw
from engine.tiles import Tile

TIGHT = level(9).sigma_mm


def test_the_first_discard_is_the_computers_choice() -> None:
    game = new_game("domino-cribbage", ("Robo", "Ann"), {"seed": 7})
    state = game.state()
    player = state["players"][state["current_player"]]
    hand = [Tile.parse(text) for text in player["hand"]]
    own_crib = state["current_player"] == state["dealer"]
    wanted = hand.index(choose_discards(hand, own_crib)[0]) + 1
    assert choose_tile(state) == wanted
    aim = strategy_for("domino-cribbage").aim(state, TIGHT)
    assert aim.bed.number == wanted and aim.expected > 0.9


def test_a_bot_plays_a_whole_game_against_the_computer() -> None:
    """Seat 0 picks by darts (a pick the game refuses is ignored, as the daemon
    does), seat 1 is the game's computer; NEXT when the policy says so."""
    game = new_game("domino-cribbage", ("Robo", "Cpu"), {"seed": 3, "computer": "second"})
    policy = strategy_for("domino-cribbage")
    rng = np.random.default_rng(3)
    nexts = 0
    for _ in range(5000):
        if game.is_finished:
            break
        try:
            aim = policy.aim(game.state(), TIGHT)
        except NextMoveError:
            game.push(END_VISIT)
            nexts += 1
            continue
        bed = sample_throw((aim.x_mm, aim.y_mm), TIGHT, rng).bed
        try:
            game.push(bed)
        except EngineError:
            continue
    assert game.is_finished and nexts > 0


def test_another_game_is_refused() -> None:
    with pytest.raises(StrategyError, match="got a 'x01' game"):
        choose_tile(new_game("x01", ("Robo",)).state())
