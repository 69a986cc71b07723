"""The Count-Up and Cricket Count-Up policies: the most expected points (the
bull rule counted) and the most expected marks, and whole games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT, WIDE = level(9).sigma_mm, level(3).sigma_mm


def test_count_up_goes_for_the_fat_bull_as_soft_tip_players_do() -> None:
    """The fat bull is 50 over the whole bull: more than T20 is worth on average."""
    assert aimed_bed(played("count-up", []), TIGHT) == "DB"
    assert aimed_bed(played("count-up", []), WIDE) == "DB"


def test_count_up_with_the_split_bull_goes_for_the_treble_twenty_when_tight() -> None:
    split = {"bull": "split"}
    assert aimed_bed(played("count-up", [], options=split), TIGHT) == "T20"
    assert aimed_bed(played("count-up", [], options=split), WIDE) not in ("SB", "DB")


def test_cricket_count_up_aims_at_a_cricket_treble_when_tight() -> None:
    assert aimed_bed(played("cricket-count-up", []), TIGHT) in {f"T{n}" for n in range(15, 21)}


def test_both_play_to_a_finish_and_the_stronger_wins_more() -> None:
    for game in ("count-up", "cricket-count-up"):
        result = simulate(game, [9, 2], games=20, seed=4)
        assert result.unfinished == 0, game
        assert result.bots[0].win_rate > 0.8, game


def test_the_x01_bot_plays_the_fat_bull_as_the_double_bull() -> None:
    """With the fat bull the whole bull is the double bull: a wide thrower on
    50 aims at it to finish (with the split bull the double bull is too small
    for it: it sets up a double instead); on 25 the fat bull would bust, so
    the bot never aims at it."""
    fat, split = {"start": 301, "bull": "fat"}, {"start": 301}
    to_50 = ["T20", "T20", "T20", "N", "M", "N", "T20", "S11", "M", "N", "M", "N"]
    assert played("x01", to_50, options=fat).state()["players"][0]["score"] == 50
    assert aimed_bed(played("x01", to_50, options=fat), WIDE) == "DB"
    assert aimed_bed(played("x01", to_50, options=split), WIDE) != "DB"
    to_25 = ["T20", "T20", "T20", "N", "M", "N", "T20", "S20", "S16", "N", "M", "N"]
    assert played("x01", to_25, options=fat).state()["players"][0]["score"] == 25
    assert aimed_bed(played("x01", to_25, options=fat), TIGHT) not in ("SB", "DB")
