"""Domino cribbage scoring against the golden table tests/golden/cribbage_scoring.json:
one case per scoring line of seed 003, checked through the engine
(``peg_score``, ``count_hand``, ``count_points``), the command's functions
(``peg_json``, ``count_json``) and, for a few cases and the bad inputs, the
installed ``oche cribbage`` executable itself."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cribbage_scoring import count_hand, count_points, peg_score
from engine.errors import EngineError
from engine.tiles import DOUBLE_SIX, Tile, parse_tiles
from firmware_bridge.cli.cribbage_command import count_json, peg_json
from tests.paths import REPO

GOLDEN = REPO / "tests" / "golden" / "cribbage_scoring.json"
TABLE: dict[str, Any] = json.loads(GOLDEN.read_text("utf-8"))
PEG_CASES: list[dict[str, Any]] = TABLE["peg"]
COUNT_CASES: list[dict[str, Any]] = TABLE["count"]
OCHE = Path(sys.executable).parent / "oche"
SEED_FILES = sorted((REPO.parent / "shared" / "seeds").glob("003_*.txt"))

CATEGORIES = ("fifteens", "pairs", "runs")


def _ids(cases: Sequence[dict[str, Any]]) -> list[str]:
    return [case["name"] for case in cases]


def _values(tiles: Sequence[str]) -> list[int]:
    return [tile.value for tile in parse_tiles(tiles)]


def _peg_lines(case: dict[str, Any]) -> list[tuple[str, int]]:
    return [(reason, points) for reason, points in case["expect"]["scoring"]]


def _normalised(breakdown: dict[str, Any]) -> dict[str, Any]:
    """A count breakdown with each category's combinations in a canonical
    order (tiles sorted within a combination, combinations sorted), so the
    table states what scores, not the order the engine lists it in."""
    result: dict[str, Any] = {"total": breakdown["total"]}
    for category in CATEGORIES:
        combos = breakdown[category]["combinations"]
        result[category] = {
            "points": breakdown[category]["points"],
            "combinations": sorted(sorted(combo, key=Tile.parse) for combo in combos),
        }
    return result


def _oracle(values: Sequence[int]) -> tuple[int, int, int]:
    """Fifteen, pair and run points of a hand with its starter, worked out by
    brute force over subsets (independently of the engine): every subset
    summing to 15 scores 2, every pair 2, and the longest runs found score
    their length once for each way of choosing them."""
    fifteens = sum(
        1
        for size in range(2, len(values) + 1)
        for combo in itertools.combinations(values, size)
        if sum(combo) == 15
    )
    pairs = sum(1 for a, b in itertools.combinations(values, 2) if a == b)
    runs = 0
    for size in range(len(values), 2, -1):
        found = sum(
            1
            for combo in itertools.combinations(values, size)
            if len(set(combo)) == size and max(combo) - min(combo) == size - 1
        )
        if found:
            runs = size * found
            break
    return 2 * fifteens, 2 * pairs, runs


# ------------------------------------------------------------- the table


def test_the_table_has_a_case_for_every_scoring_line() -> None:
    peg_names = set(_ids(PEG_CASES))
    count_names = set(_ids(COUNT_CASES))
    assert {
        "fifteen",
        "pair",
        "pair_not_across_an_interposed_tile",
        "three_of_a_kind",
        "four_of_a_kind",
        "run_of_three_out_of_order",
        "run_of_four",
        "run_broken_by_a_non_consecutive_tile",
        "thirty_one",
    } <= peg_names
    assert {
        "one_fifteen_with_the_starter",
        "several_fifteens",
        "pair",
        "double_run_of_three",
        "double_run_of_four",
        "triple_run",
        "quadruple_run",
        "zero_hand",
        "blank_double_zero_tile",
    } <= count_names
    assert len(peg_names) == len(PEG_CASES) and len(count_names) == len(COUNT_CASES)


def test_every_case_quotes_its_seed_line_with_a_translation() -> None:
    for case in [*PEG_CASES, *COUNT_CASES, *TABLE["in_the_game"]]:
        source = case["source"]
        assert set(source) == {"ru", "en"}, case
        assert re.search(r"[\u0430-\u044f\u0451]", source["ru"], re.IGNORECASE), case
        assert source["en"].isascii() and source["en"].strip(), case


@pytest.mark.skipif(not SEED_FILES, reason="the seed text (../shared/seeds/003_*.txt) is absent")
def test_quoted_lines_are_the_seeds_own_words() -> None:
    seed_text = " ".join(SEED_FILES[0].read_text("utf-8").split())
    for case in [*PEG_CASES, *COUNT_CASES, *TABLE["in_the_game"]]:
        quote = " ".join(case["source"]["ru"].split())
        assert quote in seed_text, f"not in the seed: {quote}"


def test_rules_checked_in_the_game_have_their_tests() -> None:
    import tests.engine.test_game_domino_cribbage as game_tests

    for entry in TABLE["in_the_game"]:
        assert callable(getattr(game_tests, entry["test"], None)), entry["test"]


# ------------------------------------------------------------ pegging


@pytest.mark.parametrize("case", PEG_CASES, ids=_ids(PEG_CASES))
def test_peg_score(case: dict[str, Any]) -> None:
    values = _values(case["tiles"])
    score = peg_score(values)
    assert sum(values) == case["expect"]["count"]
    assert list(score.lines) == _peg_lines(case)
    assert score.points == case["expect"]["points"]


@pytest.mark.parametrize("case", PEG_CASES, ids=_ids(PEG_CASES))
def test_peg_json(case: dict[str, Any]) -> None:
    plays = peg_json(case["tiles"])["plays"]
    assert [play["tile"] for play in plays] == [str(Tile.parse(t)) for t in case["tiles"]]
    assert [play["player"] for play in plays] == [n % 2 for n in range(len(plays))]
    last = plays[-1]
    assert last["count"] == case["expect"]["count"]
    assert last["points"] == case["expect"]["points"]
    assert [(line["reason"], line["points"]) for line in last["scoring"]] == _peg_lines(case)
    assert sum(line["points"] for line in last["scoring"]) == last["points"]


def test_peg_json_scores_each_play_in_turn() -> None:
    # 0-6, 1-5, 2-4, 3-3 are the four sixes: a pair, three and four of a kind.
    plays = peg_json(["0-6", "1-5", "2-4", "3-3"])["plays"]
    assert [(play["count"], play["points"]) for play in plays] == [
        (6, 0),
        (12, 2),
        (18, 6),
        (24, 12),
    ]


def test_peg_past_thirty_one_is_a_move_error_naming_the_tile() -> None:
    with pytest.raises(EngineError, match=r"4-6.*past 31 \(count 23\)"):
        peg_json(["6-6", "5-6", "4-6"])


# ------------------------------------------------------------- counting


@pytest.mark.parametrize("case", COUNT_CASES, ids=_ids(COUNT_CASES))
def test_count_hand(case: dict[str, Any]) -> None:
    *hand, starter = parse_tiles([*case["hand"], case["starter"]])
    counted = count_hand(hand, starter)
    expect = case["expect"]
    assert _normalised(counted.as_json()) == _normalised(expect)
    assert counted.fifteen_points == expect["fifteens"]["points"]
    assert counted.pair_points == expect["pairs"]["points"]
    assert counted.run_points == expect["runs"]["points"]
    assert counted.total == expect["total"]


@pytest.mark.parametrize("case", COUNT_CASES, ids=_ids(COUNT_CASES))
def test_count_json(case: dict[str, Any]) -> None:
    crib = bool(case.get("crib", False))
    document = count_json(case["hand"], case["starter"], crib)
    assert document["tiles"] == case["hand"]
    assert (document["starter"], document["crib"]) == (case["starter"], crib)
    assert _normalised(document) == _normalised(case["expect"])


@pytest.mark.parametrize("case", COUNT_CASES, ids=_ids(COUNT_CASES))
def test_count_agrees_with_brute_force_and_count_points(case: dict[str, Any]) -> None:
    values = _values([*case["hand"], case["starter"]])
    expect = case["expect"]
    assert _oracle(values) == (
        expect["fifteens"]["points"],
        expect["pairs"]["points"],
        expect["runs"]["points"],
    )
    assert count_points(values) == expect["total"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DOUBLE_SIX), min_size=5, max_size=5, unique=True))
def test_any_count_agrees_with_brute_force(tiles: list[Tile]) -> None:
    """Every hand of four with a starter, not just the table's."""
    counted = count_hand(tiles[:4], tiles[4])
    assert (counted.fifteen_points, counted.pair_points, counted.run_points) == _oracle(
        [tile.value for tile in tiles]
    )


# ------------------------------------------------- the real executable


def _oche(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), "cribbage", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _case(cases: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(case for case in cases if case["name"] == name)


@pytest.mark.parametrize("name", ["double_run_of_three", "blank_double_zero_tile"])
def test_oche_cribbage_count(name: str) -> None:
    case = _case(COUNT_CASES, name)
    result = _oche("count", *case["hand"], "--starter", case["starter"])
    assert (result.returncode, result.stderr) == (0, "")
    document = json.loads(result.stdout)
    assert document == count_json(case["hand"], case["starter"])
    assert _normalised(document) == _normalised(case["expect"])


def test_oche_cribbage_count_crib_flag() -> None:
    case = _case(COUNT_CASES, "crib_counts_like_a_hand")
    result = _oche("count", *case["hand"], "--starter", case["starter"], "--crib")
    assert (result.returncode, result.stderr) == (0, "")
    document = json.loads(result.stdout)
    assert document["crib"] is True
    assert document["total"] == case["expect"]["total"]


@pytest.mark.parametrize("name", ["four_of_a_kind", "thirty_one"])
def test_oche_cribbage_peg(name: str) -> None:
    case = _case(PEG_CASES, name)
    result = _oche("peg", *case["tiles"])
    assert (result.returncode, result.stderr) == (0, "")
    document = json.loads(result.stdout)
    assert document == peg_json(case["tiles"])
    last = document["plays"][-1]
    assert (last["count"], last["points"]) == (case["expect"]["count"], case["expect"]["points"])


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["count", "1-7", "2-3", "3-4", "4-5", "--starter", "0-0"], "'1-7'"),
        (["count", "x", "2-3", "3-4", "4-5", "--starter", "0-0"], "'x'"),
        (["count", "1-2", "2-3", "3-4", "4-5", "--starter", "2-1"], "1-2"),
        (["peg", "6-6", "5-6", "4-6"], "4-6"),
    ],
    ids=["end-past-six", "not-a-tile", "duplicate", "past-31"],
)
def test_oche_cribbage_bad_input_exits_2_naming_the_tile(args: list[str], named: str) -> None:
    result = _oche(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert named in lines[0]


@pytest.mark.parametrize("tiles", [["1-6", "2-6", "3-6"], ["1-6", "2-6", "3-6", "4-5", "5-5"]])
def test_oche_cribbage_count_of_a_hand_that_is_not_four_tiles(tiles: list[str]) -> None:
    """Three tiles once said 'the following arguments are required: TILE'."""
    result = _oche("count", *tiles, "--starter", "0-0")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"oche cribbage: a hand is 4 tiles (the starter goes in --starter); "
        f"{len(tiles)} given: {' '.join(tiles)}\n"
    )
