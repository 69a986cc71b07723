"""The skill-test practice game: darts simulated at a known sigma come back as
that sigma in the finished state, with the level, best aim and checkout advice
the throw model gives for it; its options and lineups refuse what they must;
numpy loads only once a player is done."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from engine import LineupError, OptionError, new_game
from engine.beds import Bed
from engine.board_geometry import SOFT, STEEL, BoardGeometry, bed_centre
from engine.bot_levels import level_for_sigma
from engine.checkout import checkout
from engine.checkout_plan import plan_for
from engine.game import DARTS_PER_VISIT
from engine.skill_report import CHECKOUT_SCORES
from engine.state_schema import STATE_SCHEMA
from engine.throw_model import best_scoring_aim, sample_beds
from tests.paths import REPO

VALIDATOR = Draft202012Validator(STATE_SCHEMA)
T20 = Bed(20, 3)


def thrown(target: Bed, sigma: float, count: int, seed: int, board: BoardGeometry) -> list[Bed]:
    return sample_beds(bed_centre(target, board), sigma, count, np.random.default_rng(seed), board)


def play(players: list[str], options: dict[str, object], darts: list[list[Bed]]) -> dict:
    """Each player's darts thrown in visits of three, in turn; the final state."""
    game = new_game("skill-test", players, options)
    position = [0] * len(players)
    while not game.is_finished:
        player = game.current_player
        for _ in range(DARTS_PER_VISIT):
            if game.current_player != player or game.is_finished:
                break
            game.dart(darts[player][position[player]])
            position[player] += 1
        game.end_visit()
    state = game.state()
    VALIDATOR.validate(state)
    return state


@pytest.mark.parametrize(
    ("target", "sigma", "board"),
    [("t20", 12.0, STEEL), ("bull", 30.0, STEEL), ("d16", 20.0, SOFT)],
)
def test_darts_at_a_known_sigma_come_back_in_the_finished_state(
    target: str, sigma: float, board: BoardGeometry
) -> None:
    bed = Bed(25, 2) if target == "bull" else Bed.parse(target)
    darts = thrown(bed, sigma, 300, 1, board)
    state = play(["Ann"], {"target": target, "darts": 300, "geometry": board.name}, [darts])
    assert state["finished"] and state["result"] == "practice-complete"
    ann = state["players"][0]
    skill = ann["skill"]
    assert skill["darts"] == 300 and skill["geometry"] == board.name
    assert skill["sigma_mm"] == pytest.approx(sigma, rel=0.15)
    low, high = skill["interval"]
    assert low <= sigma <= high
    assert skill["level"] == level_for_sigma(skill["sigma_mm"], board)
    assert ann["score"] == darts.count(bed) == ann["stats"]["hits"]
    assert sum(ann["beds"].values()) == 300


def test_the_advice_is_the_model_s_for_the_estimated_sigma() -> None:
    darts = thrown(T20, 45.0, 90, 3, STEEL)
    skill = play(["Ann"], {"darts": 90, "geometry": "steel"}, [darts])["players"][0]["skill"]
    sigma = skill["sigma_mm"]
    best = best_scoring_aim(sigma)
    assert skill["best_aim"]["bed"] == best.bed.notation != "T20"  # a wide throw moves off T20
    assert skill["best_average"] == pytest.approx(3 * best.expected, abs=0.01)
    plan = plan_for(sigma)
    assert [c["score"] for c in skill["checkouts"]] == list(CHECKOUT_SCORES)
    for advice in skill["checkouts"]:
        score = advice["score"]
        assert advice["aim"] == plan.aim(score, 3, score).bed.notation
        assert advice["expected_darts"] == pytest.approx(plan.expected_darts(score), abs=0.01)
        assert advice["table"] == [bed.notation for bed in checkout(score) or ()]
        route = [Bed.parse(n) for n in advice["route"]]
        assert advice["finishes"] == (sum(b.points for b in route) == score)
        if route:  # empty when the aim's own bed would bust (the plan hopes for less)
            assert route[0].notation == advice["aim"]
    by_score = {c["score"]: c for c in skill["checkouts"]}
    assert by_score[50]["route"] != by_score[50]["table"] == ["DB"]  # the bull is too small


def test_each_player_gets_their_own_estimate() -> None:
    tight, wide = thrown(T20, 10.0, 60, 1, STEEL), thrown(T20, 40.0, 60, 2, STEEL)
    state = play(["Ann", "Bo"], {"darts": 60}, [tight, wide])
    ann, bo = (p["skill"] for p in state["players"])
    assert ann["sigma_mm"] < 20 < 25 < bo["sigma_mm"]
    assert ann["level"] > bo["level"]
    assert state["winner"] == 0  # more darts in T20


def test_alone_it_is_a_practice_not_a_win() -> None:
    """One player: the test ends as a completed practice with no winner (a
    leaderboard counts no win for it); two or more: most hits wins."""
    darts = thrown(T20, 20.0, 9, 4, SOFT)
    alone = play(["Ann"], {"darts": 9}, [darts])
    assert (alone["finished"], alone["winner"], alone["result"]) == (
        True,
        None,
        "practice-complete",
    )
    assert alone["players"][0]["skill"] is not None  # the estimate is what it was for
    pair = play(["Ann", "Bo"], {"darts": 9}, [darts, thrown(T20, 60.0, 9, 5, SOFT)])
    assert pair["result"] == "darts-thrown"


def test_the_estimate_is_measured_on_the_soft_tip_board_unless_told() -> None:
    """The board the bots throw at by default: the same darts give a
    different sigma on the steel board (its beds are smaller)."""
    darts = thrown(T20, 20.0, 30, 6, SOFT)
    soft = play(["Ann"], {"darts": 30}, [darts])["players"][0]["skill"]
    steel = play(["Ann"], {"darts": 30, "geometry": "steel"}, [darts])["players"][0]["skill"]
    assert soft["geometry"] == "soft" and steel["geometry"] == "steel"
    assert steel["sigma_mm"] < soft["sigma_mm"]


def test_a_player_who_is_done_shows_an_estimate_while_others_throw() -> None:
    game = new_game("skill-test", ["Ann", "Bo"], {"darts": 3})
    for bed in ("T20", "S20", "S1"):
        game.dart(Bed.parse(bed))
    state = game.state()
    assert not state["finished"] and state["current_player"] == 1
    assert state["players"][0]["skill"]["darts"] == 3
    assert state["players"][1]["skill"] is None and state["players"][1]["remaining"] == 3
    VALIDATOR.validate(state)


@pytest.mark.parametrize("bad", ["T21", "M", "miss", "twenty", "25"])
def test_a_target_that_is_no_bed_is_refused_naming_it(bad: str) -> None:
    with pytest.raises(OptionError, match="target") as caught:
        new_game("skill-test", ["Ann"], {"target": bad})
    assert repr(bad.lower()) in str(caught.value)


@pytest.mark.parametrize(("name", "value"), [("darts", 2), ("darts", 1000), ("geometry", "wood")])
def test_bad_counts_and_boards_are_refused(name: str, value: object) -> None:
    with pytest.raises(OptionError, match=name):
        new_game("skill-test", ["Ann"], {name: value})


def test_targets_read_in_any_case_and_bull_is_the_centre() -> None:
    state = new_game("skill-test", ["Ann"], {"target": " Bull "}).state()
    assert state["players"][0]["target"] == "DB"
    assert new_game("skill-test", ["Ann"], {"target": "t19"}).state()["players"][0]["target"] == (
        "T19"
    )


def test_teams_are_refused() -> None:
    with pytest.raises(LineupError, match="without teams"):
        new_game("skill-test", ["A", "B", "C", "D"], None, {"X": ["A", "B"], "Y": ["C", "D"]})


def test_numpy_loads_only_once_a_player_is_done() -> None:
    code = (
        "import sys\n"
        "from engine import Bed, new_game\n"
        "game = new_game('skill-test', ['Ann'], {'darts': 3})\n"
        "game.dart(Bed.parse('T20')); game.dart(Bed.parse('S20'))\n"
        "game.state()\n"
        "assert 'numpy' not in sys.modules, 'numpy before the end'\n"
        "game.dart(Bed.parse('S1'))\n"
        "assert game.state()['players'][0]['skill']['darts'] == 3\n"
        "assert 'numpy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=120)


def test_a_bot_aims_at_the_target_s_centre_and_a_better_one_hits_it_more() -> None:
    from engine.bot_match import simulate
    from engine.strategy import strategy_for

    state = new_game("skill-test", ["Robo"], {"target": "d16"}).state()
    aim = strategy_for("skill-test").aim(state, 20.0)
    assert (aim.x_mm, aim.y_mm) == bed_centre(Bed(16, 2)) and aim.bed == Bed(16, 2)
    result = simulate("skill-test", [9, 2], games=6, seed=5, options={"darts": 30})
    strong, weak = result.bots
    assert strong.wins > weak.wins
