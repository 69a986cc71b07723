"""The Fifty-one by Fives policy: visits that divide by five, the exact
finish, whole games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from engine.strategy import strategy_for
from tests.engine.strategy_support import played

TIGHT = level(9).sigma_mm


def test_one_five_short_it_plays_for_a_visit_of_exactly_five() -> None:
    game = played(
        "fifty-one-by-fives", ["S5", "S5", "S10"], options={"target": 5}, players=("Robo",)
    )
    assert game.state()["players"][0]["score"] == 4
    policy = strategy_for("fifty-one-by-fives")
    aim = policy.aim(game.state(), TIGHT)
    assert aim.bed.points <= 3  # three scoring darts totalling 5: 1+1+3, 1+2+2, ...
    game.push(aim.bed)
    second = policy.aim(game.state(), TIGHT)
    assert second.bed.points <= 5 - aim.bed.points - 1


def test_far_from_the_target_it_scores_in_fives() -> None:
    game = played("fifty-one-by-fives", ["T20", "T20"], players=("Robo",))
    aim = strategy_for("fifty-one-by-fives").aim(game.state(), TIGHT)
    assert aim.bed.points % 5 == 0 and aim.bed.points >= 15


def test_games_play_to_a_finish() -> None:
    result = simulate("fifty-one-by-fives", [9, 4], games=10, seed=10)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.6
