"""The Cricket-Shanghai policy: it takes the element it lacks, counts a hit
waiting in the visit, plays to a finish under both bull rules, and a stronger
level wins more often."""

from __future__ import annotations

import pytest

from engine.bot_levels import level
from engine.bot_match import simulate
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm
CLOSE_ALL_BUT_20 = [f"{ring}{n}" for n in (19, 18, 17, 16, 15) for ring in "SDT"] + [
    "SB",
    "SB",
    "DB",
]


def test_a_fresh_visit_takes_a_single() -> None:
    bed = aimed_bed(played("cricket-shanghai", [], players=("Robo",)), TIGHT)
    assert bed[0] == "S" and int(bed[1:]) in range(15, 21)


def test_with_only_the_treble_left_it_aims_at_the_treble() -> None:
    game = played("cricket-shanghai", [*CLOSE_ALL_BUT_20, "S20", "D20", "N"], players=("Robo",))
    assert game.state()["players"][0]["marks"]["20"] == 2
    assert aimed_bed(game, TIGHT) == "T20"


def test_a_treble_waiting_in_the_visit_makes_the_double_worth_two() -> None:
    # The 20s stand at S; this visit's T20 waits for the D20 that lets it join.
    game = played("cricket-shanghai", [*CLOSE_ALL_BUT_20, "S20", "N", "T20"], players=("Robo",))
    assert game.state()["players"][0]["marks_after_visit"]["20"] == 1
    assert aimed_bed(game, TIGHT) == "D20"


@pytest.mark.parametrize("bull_order", ["visit", "strict"])
def test_games_play_to_a_finish(bull_order: str) -> None:
    result = simulate(
        "cricket-shanghai", [8, 5], games=4, seed=3, options={"bull_order": bull_order}
    )
    assert result.unfinished == 0
    assert sum(bot.wins for bot in result.bots) == 4


def test_a_stronger_level_wins_more_often() -> None:
    result = simulate("cricket-shanghai", [9, 3], games=20, seed=21)
    strong, weak = result.bots
    assert strong.win_rate >= 0.9 > weak.win_rate
    assert strong.mpr > weak.mpr
