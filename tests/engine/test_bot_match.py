"""Every game has a policy, and ``engine.bot_match.simulate`` plays bots through
the engine reproducibly, stops a game that will not end, and names bad input."""

from __future__ import annotations

import pytest

from engine import game_ids, new_game
from engine.bot_match import SimulationError, simulate
from engine.strategy import StrategyError, strategy_for


@pytest.mark.parametrize("game_id", game_ids())
def test_every_registered_game_has_a_policy_that_aims(game_id: str) -> None:
    policy = strategy_for(game_id)
    assert policy.game_id == game_id
    players = ("Robo", "Ann")
    aim = policy.aim(new_game(game_id, players).state(), 20.0)
    assert aim.bed.notation  # a real point on (or off) the board


def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(StrategyError, match="no computer policy for game 'golf'"):
        strategy_for("golf")


def test_the_same_seed_plays_the_same_games() -> None:
    first = simulate("x01", [6, 4], games=6, seed=77, options={"start": 301})
    again = simulate("x01", [6, 4], games=6, seed=77, options={"start": 301})
    other = simulate("x01", [6, 4], games=6, seed=78, options={"start": 301})
    assert first == again
    assert first.bots != other.bots


def test_the_second_bot_throws_first_in_every_other_game() -> None:
    # Two equal bots at 301: whoever throws first has the edge, and it alternates.
    result = simulate("x01", [8, 8], games=40, seed=1, options={"start": 301})
    assert 0.3 < result.bots[0].win_rate < 0.7


def test_a_game_that_will_not_end_is_stopped_and_counted() -> None:
    result = simulate("cricket-shanghai", [1], games=2, seed=1, max_darts=30)
    assert result.unfinished == 2 and result.bots[0].wins == 0
    assert result.bots[0].darts == 60


def test_the_json_names_the_figures_of_each_game() -> None:
    x01 = simulate("x01", [9, 2], games=4, seed=2).as_json()
    assert set(x01) >= {"game", "games", "level", "against", "three_dart_average", "win_rate"}
    assert set(x01["opponent"]) >= {"level", "three_dart_average", "win_rate"}
    cricket = simulate("cricket", [5], games=2, seed=2).as_json()
    assert cricket["against"] is None and "mpr" in cricket and "opponent" not in cricket


@pytest.mark.parametrize(
    ("game_id", "levels", "games", "options", "message"),
    [
        ("golf", [3], 1, None, "unknown game 'golf'"),
        ("x01", [0], 1, None, "a bot level is 1 to 10, not 0"),
        ("x01", [3, 4, 5], 1, None, "one bot or two"),
        ("x01", [3], 0, None, "games must be a whole number from 1"),
        ("x01", [3], 1, {"start": 7}, "option 'start'"),
        ("killer", [3], 1, None, "Killer needs an opponent"),
        ("english-cricket", [3], 1, None, "English Cricket needs an opponent"),
        ("domino-cribbage", [3, 3], 1, None, "played by picking"),
    ],
)
def test_bad_arguments_name_what_is_wrong(
    game_id: str, levels: list[int], games: int, options: dict[str, object] | None, message: str
) -> None:
    with pytest.raises(SimulationError, match=message):
        simulate(game_id, levels, games, options=options)
