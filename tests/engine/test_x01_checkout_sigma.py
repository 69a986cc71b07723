"""X01's checkout hint in the state: the fixed table by default, the X01 plan
for a player's own sigma with ``checkout_sigma_mm`` (one for all, or one per
player), and a clear error for a value it cannot use."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from engine import Bed, OptionError, new_game
from engine.checkout import checkout
from engine.checkout_plan import PLAN_START, plan_for, planned_route, route_table
from engine.game import Game
from engine.game_log import replay_log
from engine.games.x01 import CHECKOUT_SIGMA_RANGE
from engine.skill_estimate import MAX_ESTIMATE_MM
from engine.state_schema import STATE_SCHEMA
from engine.throw_model import MIN_SIGMA_MM
from tests.paths import REPO

VALIDATOR = Draft202012Validator(STATE_SCHEMA)

# 301: Ann 180 and 71 leave 50; Bo scores 0 twice. Ann throws next.
AT_FIFTY = "T20 T20 T20\nM M M\nT19 S14 M\nM M M\n"


def game_at_fifty(options: dict[str, object]) -> Game:
    return replay_log(new_game("x01", ["Ann", "Bo"], {"start": 301, **options}), AT_FIFTY)


def hints(game: Game) -> list[list[str] | None]:
    state = game.state()
    VALIDATOR.validate(state)
    return [player["checkout"] for player in state["players"]]


def test_by_default_the_hint_is_the_fixed_table() -> None:
    game = game_at_fifty({})
    assert game.state()["players"][0]["score"] == 50
    assert hints(game) == [["DB"], None]  # Bo's 301 has no finish
    game.dart(Bed.parse("S10"))  # 40 left, two darts
    assert hints(game)[0] == [b.notation for b in checkout(40, 2) or ()] == ["D20"]


def test_with_a_wide_sigma_the_hint_is_the_plan_s_where_it_differs() -> None:
    table = hints(game_at_fifty({}))[0]
    wide = hints(game_at_fifty({"checkout_sigma_mm": 20}))[0]
    assert table == ["DB"]
    assert wide is not None and wide != table  # the bull is too small a target at 20 mm
    route = planned_route(20.0, 50)
    assert route is not None and wide == [bed.notation for bed in route]
    assert sum(Bed.parse(n).points for n in wide) == 50 and Bed.parse(wide[-1]).is_double


def test_a_tight_sigma_agrees_with_the_table_on_a_plain_double() -> None:
    game = game_at_fifty({"checkout_sigma_mm": "3"})
    game.dart(Bed.parse("S10"))
    assert hints(game)[0] == ["D20"]


def test_one_sigma_per_player_in_throwing_order() -> None:
    game = replay_log(
        new_game("x01", ["Ann", "Bo"], {"start": 301, "checkout_sigma_mm": "none, 20"}),
        "T20 T20 T20\nT20 T20 T20\nT19 S14 M\nT19 S14 M\n",
    )
    ann, bo = hints(game)
    assert ann == ["DB"]  # Ann keeps the table
    assert bo is not None and bo != ["DB"]  # Bo's hint for his next visit is his plan's


def test_mid_visit_the_hint_uses_the_darts_left_and_the_visit_start() -> None:
    game = replay_log(
        new_game("x01", ["Ann"], {"start": 301, "checkout_sigma_mm": 25}), "T20 T20 T20\n"
    )
    game.dart(Bed.parse("S20"))  # 101 left, two darts, the visit began at 121
    route = planned_route(25.0, 101, 2, 121)
    assert route is not None
    hint = hints(game)[0]
    if sum(bed.points for bed in route) == 101:
        assert hint == [bed.notation for bed in route] and len(hint) <= 2
    else:  # the plan sets up the next visit: no finish to show
        assert hint is None


def test_no_hint_once_the_visit_is_dead_or_the_game_over() -> None:
    game = game_at_fifty({"checkout_sigma_mm": 20})
    game.dart(Bed.parse("T20"))  # bust
    assert game.state()["visit_over"] == "bust" and hints(game)[0] is None
    game.end_visit()
    game.end_visit()
    game = game_at_fifty({})
    game.dart(Bed.parse("DB"))
    assert game.is_finished and hints(game) == [None, None]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("fast", "'fast' is not a spread"),
        ("0.5", "'0.5' is not a spread"),
        ("401", "'401' is not a spread"),
        ("nan", "'nan' is not a spread"),
        ("20,30,40", "one per player (2)"),
        (True, "checkout_sigma_mm"),
    ],
)
def test_a_sigma_it_cannot_use_is_refused_naming_it(value: object, words: str) -> None:
    with pytest.raises(OptionError, match="checkout_sigma_mm") as caught:
        new_game("x01", ["Ann", "Bo"], {"checkout_sigma_mm": value})
    assert words in str(caught.value)


def test_a_json_number_is_taken_as_its_text() -> None:
    assert new_game("x01", ["Ann"], {"checkout_sigma_mm": 22.5}).options["checkout_sigma_mm"] == (
        "22.5"
    )


def test_the_range_is_the_model_s() -> None:
    assert CHECKOUT_SIGMA_RANGE == (MIN_SIGMA_MM, MAX_ESTIMATE_MM)
    assert PLAN_START == 170 == max(s for s in range(181) if checkout(s) is not None)


def test_the_default_hint_loads_no_numpy() -> None:
    code = (
        "import sys\n"
        "from engine import new_game\n"
        "from engine.game_log import replay_log\n"
        f"game = replay_log(new_game('x01', ['Ann', 'Bo'], {{'start': 301}}), {AT_FIFTY!r})\n"
        "assert game.state()['players'][0]['checkout'] == ['DB']\n"
        "assert 'numpy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)


@pytest.mark.parametrize(("sigma", "out"), [(20.0, "double"), (9.5, "master"), (14.0, "straight")])
def test_the_route_table_walks_every_visit_as_the_plan_does(sigma: float, out: str) -> None:
    """The numpy-free table a daemon's loop reads the hints from (sent back
    pickled by its solving process) gives the plan's route from every score,
    darts left and visit start, and its unpickling loads no numpy."""
    plan = plan_for(sigma, out)
    table = route_table(plan, out)
    assert pickle.loads(pickle.dumps(table)) == table and len(pickle.dumps(table)) < 40_000
    lowest = 1 if out == "straight" else 2  # 1 left busts: no visit starts there
    for start in range(lowest, PLAN_START + 1):
        for darts, reach in ((3, 0), (2, 60), (1, 120)):
            for remaining in range(max(1, start - reach), start + 1):
                expected = planned_route(sigma, remaining, darts, start, out, plan=plan)
                assert table.route(remaining, darts, start) == expected, (remaining, darts, start)
    assert table.route(171, 3, 171) is None and table.route(40, 3, 60) == ()  # no such visit
    sent = pickle.dumps(table)
    code = f"import pickle, sys; pickle.loads({sent!r}); print('numpy' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert loaded.stdout.strip() == "False", loaded.stderr
