"""The English Cricket policy: points when batting, bulls when bowling; whole
games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm


def test_the_batter_scores_and_the_bowler_aims_at_the_bull() -> None:
    game = played("english-cricket", [])
    assert aimed_bed(game, TIGHT) == "T20"
    game = played("english-cricket", ["T20", "T20", "T20"])
    assert aimed_bed(game, TIGHT) in ("DB", "SB")


def test_games_play_to_a_finish() -> None:
    result = simulate("english-cricket", [9, 3], games=10, seed=12)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.8
