"""The Killer policy: pick a free number, become a killer on the own double,
then take lives off opponents, never off itself; whole games finish."""

from __future__ import annotations

from engine import Bed
from engine.bot_levels import level
from engine.bot_match import simulate
from engine.strategy import strategy_for
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm


def test_a_side_without_a_number_aims_at_a_free_one() -> None:
    game = played("killer", ["S20", "N"])  # Robo took 20; Ann picks
    aim = strategy_for("killer").aim(game.state(), level(5).sigma_mm)
    assert aim.bed.number != 20 and 1 <= aim.bed.number <= 20
    assert aim.expected > 0.5  # the chance of landing on a free number


def test_it_becomes_a_killer_on_its_own_double_then_attacks() -> None:
    game = played("killer", ["S20", "N", "S3", "N"])  # Robo 20, Ann 3
    assert aimed_bed(game, TIGHT) == "D20"
    game.push(Bed(20, 2))  # Robo is a killer now
    assert aimed_bed(game, TIGHT) == "D3"
    assert strategy_for("killer").aim(game.state(), TIGHT).expected > 0


def test_the_opponent_with_fewest_lives_comes_first() -> None:
    game = played(
        "killer",
        ["S20", "N", "S3", "N", "S6", "N", "D20", "D3", "D3"],
        players=("Robo", "Ann", "Cy"),
    )
    assert [p["lives"] for p in game.state()["players"]] == [3, 1, 3]
    assert aimed_bed(game, TIGHT) == "D3"


def test_games_play_to_a_finish_and_the_stronger_wins_more() -> None:
    result = simulate("killer", [9, 3], games=20, seed=8)
    assert result.unfinished == 0
    assert result.bots[0].win_rate > result.bots[1].win_rate
