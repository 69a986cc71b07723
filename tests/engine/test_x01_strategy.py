"""The X01 bot policy: sensible aims under each out rule, the state JSON read
right, and the plan's expected darts borne out by legs played through the engine."""

from __future__ import annotations

import numpy as np
import pytest

from engine import END_VISIT, Bed, new_game
from engine.strategy import StrategyError, strategy_for
from engine.strategy.x01 import X01Strategy, x01_plan
from engine.throw_model import best_scoring_aim, sample_throw

T20 = Bed(20, 3)


def test_a_tight_player_scores_on_t20_and_finishes_on_the_double() -> None:
    plan = x01_plan(8.0)
    assert plan.aim(501, 3, 501).bed == T20
    assert plan.aim(40, 3, 40).bed == Bed(20, 2)
    assert plan.aim(32, 3, 32).bed == Bed(16, 2)
    assert plan.aim(2, 3, 2).bed == Bed(1, 2)
    odd = plan.aim(41, 3, 41).bed  # set up a double: a single leaving an even finish
    assert odd.multiplier == 1 and (41 - odd.points) % 2 == 0


def test_each_out_rule_finishes_with_what_it_allows() -> None:
    straight = x01_plan(8.0, out="straight", start=301)
    assert straight.aim(20, 3, 20).bed.points == 20
    assert straight.aim(1, 3, 1).bed.points == 1
    master = x01_plan(8.0, out="master", start=301)
    assert master.aim(57, 3, 57).bed == Bed(19, 3)
    assert master.aim(60, 3, 60).bed == T20


def test_a_wider_throw_needs_more_darts() -> None:
    darts = [x01_plan(sigma).expected_darts(501) for sigma in (8.0, 15.0, 36.0)]
    assert 12 < darts[0] < darts[1] < darts[2]
    assert x01_plan(8.0).expected_darts(0) == 0.0


def test_far_from_the_finish_a_wide_thrower_aims_where_it_scores_most() -> None:
    plan = x01_plan(36.0)
    best = best_scoring_aim(36.0)
    assert plan.aim(501, 3, 501).bed == best.bed


def test_a_plan_is_cached() -> None:
    assert x01_plan(12.5) is x01_plan(12.5)


def test_the_policy_reads_the_state_json() -> None:
    game = new_game("x01", ("Robo", "Ann"), {"start": 301, "in": "double"})
    policy = strategy_for("x01")
    assert policy.aim(game.state(), 10.0).bed.is_double  # must open on a double
    game.push(Bed(5, 1))  # does not open
    game.push(Bed(20, 2))  # opens: 261 left, one dart to go, the visit began at 301
    plan = x01_plan(10.0, in_rule="double", start=301)
    assert policy.aim(game.state(), 10.0) == plan.aim(261, 1, 301)
    game = new_game("x01", ("Robo",), {"start": 301})
    for dart in ("T20", "T20", "T20", "T20", "T20"):  # 121 left, then 1 left: bust
        game.push(Bed.parse(dart))
    with pytest.raises(StrategyError, match="visit is over"):
        policy.aim(game.state(), 10.0)


def test_other_games_and_bad_rules_are_refused() -> None:
    with pytest.raises(StrategyError, match="no computer policy"):
        strategy_for("golf")
    with pytest.raises(StrategyError, match="out rule"):
        x01_plan(10.0, out="triple")
    with pytest.raises(StrategyError, match="X01 policy got"):
        X01Strategy().aim({"game": "cricket"}, 10.0)
    with pytest.raises(StrategyError, match="cannot follow"):
        x01_plan(10.0).aim(300, 1, 501)


def play_leg(sigma: float, rng: np.random.Generator) -> int:
    """Darts a bot takes to win a 301 double-out leg through the engine, a bust
    also costing the darts left in its visit (the plan's count)."""
    game = new_game("x01", ("Robo",), {"start": 301})
    policy = strategy_for("x01")
    darts = 0
    while not game.state()["finished"]:
        state = game.state()
        if state["visit_over"] is not None:
            darts += 3 - len(state["visit"])
            game.push(END_VISIT)
            continue
        aim = policy.aim(state, sigma)
        game.push(sample_throw((aim.x_mm, aim.y_mm), sigma, rng).bed)
        darts += 1
    return darts


def test_legs_played_through_the_engine_take_the_darts_the_plan_expects() -> None:
    sigma = 12.0
    rng = np.random.default_rng(301)
    legs = np.array([play_leg(sigma, rng) for _ in range(400)])
    expected = x01_plan(sigma, start=301).expected_darts(301)
    assert legs.mean() == pytest.approx(expected, abs=4 * legs.std() / np.sqrt(len(legs)))
