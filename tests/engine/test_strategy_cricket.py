"""The Cricket policy: it blocks, scores and finishes in hand-made states, every
mode plays to a finish, and a stronger level wins more often."""

from __future__ import annotations

import pytest

from engine.bot_levels import level
from engine.bot_match import simulate
from engine.strategy import StrategyError, strategy_for
from tests.engine.strategy_support import aimed_bed, played

TIGHT = level(9).sigma_mm


def test_a_fresh_game_opens_on_the_treble_20() -> None:
    assert aimed_bed(played("cricket", []), TIGHT) == "T20"


def test_it_closes_the_number_the_opponent_scores_on() -> None:
    # Ann closed the 19s and scored 114 on them; Robo owns the 20s but trails.
    game = played("cricket", ["T20", "N", "T19", "T19", "T19"])
    assert game.state()["players"][1]["score"] == 114
    assert aimed_bed(game, TIGHT) == "T19"


def test_it_scores_where_it_owns_the_number_and_trails() -> None:
    # Robo closes everything but scores nothing; Ann scores 90 on the 15s and
    # closes all but the 20s: only points on the 20s can catch her up.
    game = played(
        "cricket",
        [
            *("T20", "T19", "T18"),
            *("T15", "T15", "T15"),
            *("T17", "T16", "T15"),
            *("T19", "T18", "T17"),
            *("DB", "SB", "N"),
            *("T16", "DB", "SB"),
        ],
    )
    state = game.state()
    robo, ann = state["players"]
    assert all(marks == 3 for marks in robo["marks"].values())
    assert ann["marks"]["20"] == 0 and (robo["score"], ann["score"]) == (0, 90)
    assert state["current_player"] == 0
    assert aimed_bed(game, TIGHT) == "T20"


def _visits(first: list[str], second: list[str]) -> list[str]:
    """Interleave two players' darts as visits of three (ending short ones)."""
    darts: list[str] = []
    a = [first[i : i + 3] for i in range(0, len(first), 3)]
    b = [second[i : i + 3] for i in range(0, len(second), 3)]
    for index in range(max(len(a), len(b))):
        for visits in (a, b):
            visit = visits[index] if index < len(visits) else []
            darts += visit + (["N"] if len(visit) < 3 else [])
    return darts


def test_with_only_the_bull_left_and_the_lead_it_goes_for_the_bull() -> None:
    robo = [f"T{n}" for n in (20, 19, 18, 17, 16, 15)]
    game = played("cricket", _visits(robo, ["S1", "S1", "S1", "S1", "S1", "S1"]))
    assert game.state()["current_player"] == 0
    assert aimed_bed(game, TIGHT) in ("DB", "SB")


@pytest.mark.parametrize("mode", ["standard", "cut-throat", "no-score"])
def test_every_mode_plays_to_a_finish(mode: str) -> None:
    result = simulate("cricket", [7, 4], games=6, seed=5, options={"mode": mode})
    assert result.unfinished == 0
    assert sum(bot.wins for bot in result.bots) + result.draws == 6


def test_a_stronger_level_wins_more_often() -> None:
    result = simulate("cricket", [9, 3], games=40, seed=13)
    strong, weak = result.bots
    assert strong.win_rate >= 0.9 > weak.win_rate
    assert strong.mpr > weak.mpr


def test_a_round_limit_game_ends_on_points() -> None:
    result = simulate("cricket", [3, 3], games=4, seed=2, options={"rounds": 5})
    assert result.unfinished == 0


def test_it_refuses_another_game_or_a_finished_one() -> None:
    policy = strategy_for("cricket")
    with pytest.raises(StrategyError, match="got a 'x01' game"):
        policy.aim(played("x01", []).state(), TIGHT)
    won = played(
        "cricket", [f"T{n}" for n in (20, 19, 18, 17, 16, 15)] + ["DB", "SB"], players=("Robo",)
    )
    assert won.is_finished
    with pytest.raises(StrategyError, match="game is over"):
        policy.aim(won.state(), TIGHT)


def test_cut_throat_closes_the_number_that_can_load_it_with_points() -> None:
    # Ann owns the 20s (and could give Robo 60 a treble): Robo closes them first.
    game = played("cricket", ["S1", "N", "T20", "N"], {"mode": "cut-throat"})
    assert game.state()["players"][1]["marks"]["20"] == 3
    assert aimed_bed(game, TIGHT) == "T20"
