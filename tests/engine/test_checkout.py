"""Checkout suggestions: the well-known finishes, the impossible numbers, the
documented preference order checked against a brute-force search over every
route, and every suggestion replayed through the real X01 engine."""

from __future__ import annotations

import re
from functools import cache
from itertools import product, takewhile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ALL_BEDS, DB, Bed, new_game
from engine.checkout import (
    FINISH_ORDER,
    FINISH_TIERS,
    MAX_DARTS,
    SETUP_ORDER,
    checkout,
    checkout_text,
)
from engine.x01_rules import RING_RULES
from tests.paths import REPO

OUT_MULTIPLIERS = {"straight": {0, 1, 2, 3}, "double": {2}, "master": {2, 3}}
LOWEST_LEAVE = {"straight": 1, "double": 2, "master": 2}
"""The least score a dart that does not finish may leave without busting."""

X01_DOC = REPO / "docs" / "games" / "x01.md"
SCORES = range(-3, 3 * 60 + 5)
RULES_AND_DARTS = [(out, darts) for out in RING_RULES for darts in range(1, MAX_DARTS + 1)]


def beds(text: str) -> tuple[Bed, ...]:
    return tuple(Bed.parse(token) for token in text.split())


def is_valid(route: tuple[Bed, ...], remaining: int, darts: int, out: str) -> bool:
    """The route finishes ``remaining`` in at most ``darts`` darts under ``out``
    without busting on the way."""
    if not 1 <= len(route) <= darts or sum(bed.points for bed in route) != remaining:
        return False
    if route[-1].multiplier not in OUT_MULTIPLIERS[out]:
        return False
    left = remaining
    for bed in route[:-1]:
        left -= bed.points
        if left < LOWEST_LEAVE[out]:
            return False
    return True


# ------------------------------------------------------------ brute force


@cache
def finishable() -> frozenset[tuple[str, int, int]]:
    """Every (out, darts, remaining) some route of ALL_BEDS finishes.

    Whether a dart before the last busts depends only on its points, so the
    darts before the last range over one bed per points value (the miss
    included) and the last dart over every bed."""
    by_points = tuple({bed.points: bed for bed in ALL_BEDS}.values())
    found: set[tuple[str, int, int]] = set()
    for out in RING_RULES:
        for count in range(1, MAX_DARTS + 1):
            for setup in product(by_points, repeat=count - 1):
                for last in ALL_BEDS:
                    route = (*setup, last)
                    remaining = sum(bed.points for bed in route)
                    if remaining > 0 and is_valid(route, remaining, count, out):
                        found.update((out, d, remaining) for d in range(count, MAX_DARTS + 1))
    return frozenset(found)


def reference_key(route: tuple[Bed, ...], out: str) -> tuple[object, ...]:
    """The preference order of docs/games/x01.md, spelled out as a tuple (the
    lowest is preferred); engine/checkout.py packs the same order into ints."""
    rank = SETUP_ORDER.index
    if out == "straight":
        return (
            len(route),
            sum(bed.is_bull for bed in route),
            sum(bed.multiplier >= 2 for bed in route),
            tuple(rank(bed) for bed in route),
        )
    *setup, last = route
    tier = next(i for i, tier in enumerate(FINISH_TIERS[out]) if last in tier)
    return (
        len(route),
        sum(bed.is_double or bed.is_bull for bed in setup),
        last == DB,
        sum(bed.is_triple for bed in setup),
        tier,
        tuple(sorted(-bed.number for bed in setup if bed.is_triple)),
        FINISH_ORDER[out].index(last),
        tuple(rank(bed) for bed in setup),
    )


@cache
def preferred(out: str) -> dict[int, tuple[Bed, ...]]:
    """Remaining -> the route the documented order prefers, by trying every
    route of scoring beds (the miss never helps)."""
    best: dict[int, tuple[tuple[object, ...], tuple[Bed, ...]]] = {}
    for count in range(1, MAX_DARTS + 1):
        for route in product(SETUP_ORDER, repeat=count):
            remaining = sum(bed.points for bed in route)
            if remaining in best and len(best[remaining][1]) < count:
                continue
            if not is_valid(route, remaining, count, out):
                continue
            key = reference_key(route, out)
            if remaining not in best or key < best[remaining][0]:
                best[remaining] = (key, route)
    return {remaining: route for remaining, (_, route) in best.items()}


# ----------------------------------------------------------- known finishes


@pytest.mark.parametrize(
    ("remaining", "darts", "out", "expected"),
    [
        (170, 3, "double", "T20 T20 DB"),
        (167, 3, "double", "T20 T19 DB"),
        (164, 3, "double", "T20 T18 DB"),
        (161, 3, "double", "T20 T17 DB"),
        (160, 3, "double", "T20 T20 D20"),
        (158, 3, "double", "T20 T20 D19"),
        (150, 3, "double", "T20 T18 D18"),
        (141, 3, "double", "T20 T19 D12"),
        (140, 3, "double", "T20 T20 D10"),
        (121, 3, "double", "T20 T15 D8"),
        (110, 2, "double", "T20 DB"),
        (101, 2, "double", "T17 DB"),
        (101, 3, "double", "T17 DB"),  # two darts beat T20 S1 D20
        (100, 3, "double", "T20 D20"),
        (99, 3, "double", "T20 S7 D16"),
        (90, 3, "double", "T18 D18"),
        (61, 3, "double", "T15 D8"),
        (60, 3, "double", "S20 D20"),
        (50, 3, "double", "DB"),  # one dart beats S10 D20
        (41, 3, "double", "S1 D20"),
        (40, 3, "double", "D20"),
        (32, 3, "double", "D16"),
        (25, 3, "double", "S9 D8"),
        (9, 3, "double", "S1 D4"),
        (5, 3, "double", "S1 D2"),
        (3, 3, "double", "S1 D1"),
        (2, 3, "double", "D1"),
        (2, 1, "double", "D1"),
        (50, 1, "double", "DB"),
        (170, 3, "master", "T20 T20 DB"),  # not T20 DB T20: no bull to set up
        (140, 3, "master", "T20 S20 T20"),
        (100, 3, "master", "T20 D20"),
        (60, 1, "master", "T20"),
        (36, 1, "master", "D18"),
        (6, 1, "master", "T2"),
        (3, 3, "master", "T1"),
        (180, 3, "straight", "T20 T20 T20"),
        (170, 3, "straight", "T20 T20 DB"),
        (140, 3, "straight", "T20 T20 S20"),
        (99, 3, "straight", "T20 T13"),
        (25, 3, "straight", "SB"),
        (20, 1, "straight", "S20"),
        (6, 3, "straight", "S6"),
        (1, 3, "straight", "S1"),
    ],
)
def test_well_known_finishes(remaining: int, darts: int, out: str, expected: str) -> None:
    assert checkout(remaining, darts, out) == beds(expected)
    assert checkout_text(remaining, darts, out) == expected


def test_defaults_are_three_darts_double_out() -> None:
    assert checkout(170) == checkout(170, 3, "double") == beds("T20 T20 DB")
    assert checkout_text(170) == "T20 T20 DB"


@pytest.mark.parametrize("remaining", [169, 168, 166, 165, 163, 162, 159])
def test_the_bogey_numbers_have_no_double_out_finish(remaining: int) -> None:
    assert checkout(remaining) is None
    assert checkout_text(remaining) == ""


@pytest.mark.parametrize(
    ("remaining", "darts", "out"),
    [
        (1, 3, "double"),
        (1, 3, "master"),
        (0, 3, "straight"),
        (-5, 3, "double"),
        (171, 3, "double"),
        (181, 3, "straight"),
        (500, 3, "master"),
        (111, 2, "double"),
        (121, 2, "straight"),
        (51, 1, "double"),
        (61, 1, "master"),
        (23, 1, "double"),
        (40, 0, "double"),
        (40, -1, "double"),
    ],
)
def test_no_finish(remaining: int, darts: int, out: str) -> None:
    assert checkout(remaining, darts, out) is None
    assert checkout_text(remaining, darts, out) == ""


@pytest.mark.parametrize(
    ("darts", "out", "highest"),
    [
        (1, "double", 50),
        (2, "double", 110),
        (3, "double", 170),
        (1, "master", 60),
        (2, "master", 120),
        (3, "master", 180),
        (1, "straight", 60),
        (2, "straight", 120),
        (3, "straight", 180),
    ],
)
def test_highest_finish_for_each_number_of_darts(darts: int, out: str, highest: int) -> None:
    assert checkout(highest, darts, out) is not None
    assert all(checkout(r, darts, out) is None for r in range(highest + 1, highest + 100))


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="out rule"):
        checkout(40, 3, "triple")
    with pytest.raises(ValueError, match="at most 3 darts"):
        checkout(40, 4)


def test_a_lookup_returns_the_same_precomputed_route_every_time() -> None:
    assert checkout(170) is checkout(170)
    assert checkout(57, 2, "master") is checkout(57, 2, "master")


def test_finish_orders_hold_every_allowed_last_dart_once() -> None:
    for out in ("double", "master"):
        order = FINISH_ORDER[out]
        allowed = {bed for bed in ALL_BEDS if bed.multiplier in OUT_MULTIPLIERS[out]}
        assert len(order) == len(set(order)) == len(allowed)
        assert set(order) == allowed
        assert order[:6] == beds("D20 D16 D8 D18 D12 D10")
        assert order[-1] == DB
    assert set(SETUP_ORDER) == set(ALL_BEDS) - {Bed.parse("M")}


# -------------------------------------------------- complete and as documented


@pytest.mark.parametrize(("out", "darts"), RULES_AND_DARTS)
def test_every_suggestion_is_valid_and_none_exactly_when_impossible(out: str, darts: int) -> None:
    for remaining in SCORES:
        route = checkout(remaining, darts, out)
        if (out, darts, remaining) in finishable():
            assert route is not None, (remaining, darts, out)
            assert is_valid(route, remaining, darts, out), (remaining, darts, out, route)
        else:
            assert route is None, (remaining, darts, out, route)


@pytest.mark.parametrize(("out", "darts"), RULES_AND_DARTS)
def test_suggestions_follow_the_documented_order(out: str, darts: int) -> None:
    best = preferred(out)
    for remaining in SCORES:
        route = best.get(remaining)
        expected = route if route is not None and len(route) <= darts else None
        assert checkout(remaining, darts, out) == expected, (remaining, darts, out)


def test_no_setup_bull_when_a_finish_without_one_exists() -> None:
    for out in RING_RULES:
        for remaining in range(2, 181):
            route = checkout(remaining, 3, out)
            if route is not None and any(bed.is_bull for bed in route[:-1]):
                assert out == "straight" or not any(
                    is_valid(other, remaining, 3, out)
                    and not any(bed.is_bull for bed in other[:-1])
                    and len(other) == len(route)
                    for other in product(SETUP_ORDER, repeat=len(route))
                    if sum(bed.points for bed in other) == remaining
                ), (remaining, out, route)


# ------------------------------------------------------- through the engine


def replay(remaining: int, darts: int, out: str, route: tuple[Bed, ...]) -> None:
    """Bring a one-player game to ``remaining`` with ``3 - darts`` darts of
    the visit thrown, throw ``route`` and check that it wins on its last dart."""
    start = 301 if remaining <= 301 else 501
    game = new_game("x01", ["A"], {"start": start, "out": out})
    prefix: list[Bed] = []
    left = start - remaining
    while left:
        points = 60 if left >= 60 else left if left <= 20 else 20
        prefix.append(Bed.parse("T20" if points == 60 else f"S{points}"))
        left -= points
    thrown = MAX_DARTS - darts
    misses = (thrown - len(prefix)) % MAX_DARTS
    game.push_all([Bed.parse("M")] * misses + prefix)
    state = game.state()
    assert state["players"][0]["score"] == remaining
    assert len(game.visit) == thrown
    assert state["visit_over"] is None
    for index, bed in enumerate(route):
        assert not game.is_finished
        game.dart(bed)
        if index < len(route) - 1:
            assert game.state()["visit_over"] is None, "the suggestion busts"
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "checkout")
    assert game.state()["players"][0]["score"] == 0


@pytest.mark.parametrize("out", RING_RULES)
def test_every_three_dart_suggestion_wins_in_the_engine(out: str) -> None:
    for remaining in range(1, 181):
        route = checkout(remaining, 3, out)
        if route is not None:
            replay(remaining, 3, out, route)


@settings(max_examples=300, deadline=None)
@given(
    remaining=st.integers(min_value=-10, max_value=200),
    darts=st.integers(min_value=0, max_value=MAX_DARTS),
    out=st.sampled_from(RING_RULES),
)
def test_suggestions_are_legal_and_win_in_the_engine(remaining: int, darts: int, out: str) -> None:
    route = checkout(remaining, darts, out)
    text = checkout_text(remaining, darts, out)
    if route is None:
        assert text == ""
        assert darts < 1 or (out, darts, remaining) not in finishable()
        return
    assert text == " ".join(str(bed) for bed in route)
    assert is_valid(route, remaining, darts, out)
    replay(remaining, darts, out, route)


@settings(max_examples=200, deadline=None)
@given(
    remaining=st.integers(min_value=2, max_value=180),
    darts=st.integers(min_value=1, max_value=MAX_DARTS),
    out=st.sampled_from(RING_RULES),
)
def test_more_darts_never_lose_a_finish_nor_change_a_short_one(
    remaining: int, darts: int, out: str
) -> None:
    fewer = checkout(remaining, darts, out)
    more = checkout(remaining, MAX_DARTS, out)
    if fewer is not None:
        assert more == fewer


# ------------------------------------------------------------- the document


def doc_table(heading: str) -> list[list[str]]:
    """The body rows of the first table after ``heading`` in docs/games/x01.md."""
    lines = X01_DOC.read_text(encoding="utf-8").splitlines()
    lines = lines[lines.index(heading) :]
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("|")) :]
    table = list(takewhile(lambda line: line.startswith("|"), lines))
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in table[2:]]


def test_the_documented_examples_are_what_checkout_says() -> None:
    rows = doc_table("### Examples")
    assert len(rows) > 20
    for left, *routes in rows:
        for out, expected in zip(("double", "master", "straight"), routes, strict=True):
            assert checkout_text(int(left), 3, out) == expected, (left, out)


def test_the_documented_impossible_numbers_are_exactly_those_without_a_finish() -> None:
    rows = doc_table("### Impossible numbers")
    assert [row[0] for row in rows] == ["3", "2", "1"]
    for darts, *cells in rows:
        for out, cell in zip(("double", "master", "straight"), cells, strict=True):
            listed = {int(n) for n in re.findall(r"(?<![-\w])\d+(?![-\d])", cell)}
            above = int(re.findall(r"above (\d+)", cell)[0])
            listed.discard(above)
            if "every odd number" in cell:
                listed |= set(range(1, above, 2))
            for low, high in re.findall(r"(\d+)-(\d+)", cell):
                listed |= set(range(int(low), int(high) + 1))
            impossible = {r for r in range(1, above + 1) if checkout(r, int(darts), out) is None}
            assert impossible == listed, (darts, out)
            assert checkout(above + 1, int(darts), out) is None
