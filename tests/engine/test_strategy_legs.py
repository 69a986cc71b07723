"""The Legs policy: the best chance to beat the last visit, then points; whole
games to a finish."""

from __future__ import annotations

from engine.bot_levels import level
from engine.bot_match import simulate
from engine.strategy import strategy_for
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm


def test_the_first_visit_goes_for_points() -> None:
    assert aimed_bed(played("legs", []), TIGHT) == "T20"


def test_the_last_dart_takes_the_surest_bed_that_beats_the_bar() -> None:
    # Robo's 62 is the bar; Ann has 60 with one dart: anything over 2 beats it.
    game = played("legs", ["T20", "S2", "M", "T20", "M"])
    state = game.state()
    assert state["current_player"] == 1 and state["players"][1]["to_beat"] == 62
    aim = strategy_for("legs").aim(game.state(), TIGHT)
    assert aim.bed.points >= 3
    assert aim.expected > 0.95  # the chance of beating it (and a hair for the points)


def test_a_high_bar_takes_a_big_treble() -> None:
    # Robo's 170 is the bar; Ann has 120 with one dart: only T17-T20 beat it.
    game = played("legs", ["T20", "T20", "DB", "T20", "T20"])
    assert game.state()["players"][1]["to_beat"] == 170
    aim = strategy_for("legs").aim(game.state(), TIGHT)
    assert aim.bed.multiplier == 3 and aim.bed.number >= 17
    assert 0.2 < aim.expected < 0.6


def test_games_play_to_a_finish_and_the_stronger_wins_more() -> None:
    result = simulate("legs", [9, 2], games=20, seed=9)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > 0.8
