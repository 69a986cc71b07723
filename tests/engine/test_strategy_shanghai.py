"""The Shanghai policy: points on the round's number, the treble that makes
a Shanghai, whole games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT, WIDE = level(9).sigma_mm, level(2).sigma_mm


def test_it_scores_on_the_rounds_number() -> None:
    assert aimed_bed(played("shanghai", [], options={"start": 20}), TIGHT) == "T20"
    assert aimed_bed(played("shanghai", ["S1", "N", "S1", "N"]), TIGHT) == "T2"


def test_with_a_single_and_a_double_in_it_goes_for_the_treble() -> None:
    game = played("shanghai", ["S1", "D1"])
    assert aimed_bed(game, WIDE) == "T1"  # even a wide thrower: the Shanghai wins


def test_games_play_to_a_finish() -> None:
    result = simulate("shanghai", [9, 2], games=10, seed=6)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.7
    assert simulate("shanghai", [5], games=3, seed=6).unfinished == 0
