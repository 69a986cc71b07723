"""The Baseball policy: it aims at the inning's number (the bull in extra
innings) and plays whole games."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT, WIDE = level(9).sigma_mm, level(3).sigma_mm


def test_it_aims_at_the_innings_number() -> None:
    assert aimed_bed(played("baseball", []), TIGHT) == "T1"
    game = played("baseball", ["S1", "N", "S1", "N"])  # inning 2
    assert aimed_bed(game, TIGHT) == "T2"
    assert aimed_bed(game, WIDE) in ("S2", "T2")


def test_extra_innings_go_for_the_bull() -> None:
    game = played("baseball", ["M", "N", "M", "N"], options={"innings": 1})  # tied: extra inning
    assert game.state()["round"] == 2 and not game.is_finished
    assert aimed_bed(game, TIGHT) in ("DB", "SB")


def test_games_play_to_a_finish_and_the_stronger_wins_more() -> None:
    result = simulate("baseball", [9, 2], games=20, seed=4)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.8
