"""The Around the World policy: the side's target number, trebles when they
advance further, the bull to win; whole games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm


def test_it_aims_at_the_target_and_at_trebles_with_multi() -> None:
    game = played("around-the-world", [])
    assert aimed_bed(game, TIGHT)[1:] == "1"
    multi = played("around-the-world", [], options={"multi": True})
    assert aimed_bed(multi, TIGHT) == "T1"


def test_the_bull_comes_last() -> None:
    game = played(
        "around-the-world",
        ["S15", "T16", "S19", "S20"],
        options={"multi": True, "start": 15},
        players=("Robo",),
    )
    assert game.state()["players"][0]["target"] == 25
    assert aimed_bed(game, TIGHT) in ("DB", "SB")


def test_games_play_to_a_finish() -> None:
    result = simulate("around-the-world", [9, 3], games=10, seed=11)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.8
