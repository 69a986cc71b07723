"""Awards (docs/awards.md): each rule, the one-award-per-visit ranking, the
game's own feats, and what a bust, an undo, a bounce-out and a replay do."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import ALL_BEDS, BOUNCE, UNDO, Award, Bed, Game, new_game, parse_event
from engine.awards import AWARD_IDS, AWARD_RANKING, FEATS, bed_award, marks_award, points_award
from engine.game_log import format_game_log, replay_log
from engine.traits import AwardFigure


def play(game: str, tokens: str, options: dict[str, object] | None = None) -> Game:
    played = new_game(game, ["Ann", "Bob"], options or {})
    for token in tokens.split():
        played.push(parse_event(token))
    return played


def last_awards(game: str, tokens: str, options: dict[str, object] | None = None) -> list[str]:
    """The state's ``last_visit.awards`` after ``tokens``."""
    last = play(game, tokens, options).state()["last_visit"]
    assert last is not None
    awards: list[str] = last["awards"]
    return awards


def beds(text: str) -> list[Bed]:
    return [Bed.parse(token) for token in text.split()]


def test_the_ids_are_the_issues() -> None:
    assert (
        *("low-ton", "high-ton", "ton-80", "hat-trick", "three-in-the-black"),
        *("three-in-a-bed", "white-horse", "5-mark", "6-mark", "7-mark", "8-mark"),
        *("9-mark", "shanghai", "nine-darter"),
    ) == AWARD_IDS
    assert set(AWARD_RANKING) | set(FEATS) == set(Award)
    assert Award.TON_80.label == "Ton 80"


@pytest.mark.parametrize(
    ("points", "award"),
    [
        *((99, None), (100, "low-ton"), (150, "low-ton")),
        *((151, "high-ton"), (179, "high-ton"), (180, "ton-80")),
    ],
)
def test_the_ton_bands(points: int, award: str | None) -> None:
    assert points_award(points) == award


@pytest.mark.parametrize(
    ("marks", "award"), [(4, None), (5, "5-mark"), (7, "7-mark"), (9, "9-mark")]
)
def test_the_mark_bands(marks: int, award: str | None) -> None:
    assert marks_award(marks) == award


@pytest.mark.parametrize(
    ("darts", "award"),
    [
        ("SB SB SB", "hat-trick"),
        ("SB DB SB", "hat-trick"),
        ("DB DB DB", "three-in-the-black"),
        ("T19 T19 T19", "three-in-a-bed"),
        ("S5 S5 S5", "three-in-a-bed"),
        ("D5 D5 D5", "three-in-a-bed"),
        ("S5 D5 S5", None),
        ("M M M", None),
        ("SB SB", None),
    ],
)
def test_the_bed_awards(darts: str, award: str | None) -> None:
    assert bed_award(beds(darts)) == award


@pytest.mark.parametrize(
    ("tokens", "awards"),
    [
        ("T20 T20 T20", ["ton-80"]),  # not also three in a bed
        ("T20 T20 S20", ["low-ton"]),
        ("T20 T20 T17", ["high-ton"]),
        ("SB DB SB", ["hat-trick"]),  # 100, but a hat trick is no low ton
        ("DB DB DB", ["three-in-the-black"]),  # not also a hat trick
        ("T19 T19 T19", ["three-in-a-bed"]),  # 171, not a high ton
        ("T20 T20 NEXT", ["low-ton"]),  # a short visit's points count
        ("S1 S2 S3", []),
    ],
)
def test_an_x01_visit_shows_its_best_award(tokens: str, awards: list[str]) -> None:
    assert last_awards("x01", tokens) == awards


def test_a_bust_earns_nothing() -> None:
    tokens = "T20 T20 T20  M M M  T20 T20 T20"  # 121 left, then 180: bust
    assert last_awards("x01", tokens, {"start": 301}) == []


def test_a_nine_darter_is_a_feat_beside_the_visit_award() -> None:
    game = play("x01", "T20 T20 T20  M M M  T20 T20 T20  M M M  T20 T19 D12")
    state = game.state()
    assert state["finished"] is True
    assert state["visit_awards"] == ["nine-darter", "low-ton"]
    assert state["last_visit"]["awards"] == []  # Bob's M M M: the win stays in "visit"
    awarded = game.awarded
    assert awarded is not None and awarded.points == 141 and awarded.player == 0


def test_a_301_in_six_darts_is_no_nine_darter() -> None:
    game = play("x01", "T20 T20 T20  M M M  T20 T11 D14", {"start": 301})
    assert game.is_finished and game.state()["visit_awards"] == ["low-ton"]


@pytest.mark.parametrize(
    ("tokens", "awards"),
    [
        ("T20 T19 T18", ["white-horse"]),  # not also 9 marks
        ("T20 T20 T20", ["three-in-a-bed"]),  # 9 marks, but a bed ranks higher
        ("T20 T19 T17  M M M  T20 T19 T18", ["9-mark"]),  # 20 and 19 were closed
        ("T20 T19 S18", ["7-mark"]),
        ("T20 D19", ["5-mark"]),
        ("T20 S19 M", []),
        ("T15 T16 T14", ["6-mark"]),  # 14 is no cricket number
        ("SB DB DB", ["hat-trick"]),  # 5 marks, but a hat trick ranks higher
    ],
)
def test_a_cricket_visit_shows_its_best_award(tokens: str, awards: list[str]) -> None:
    assert last_awards("cricket", tokens + " NEXT" if len(tokens.split()) % 3 else tokens) == awards


def test_cricket_shanghai_counts_its_visit_marks() -> None:
    game = play("cricket-shanghai", "S20 D20 T20")
    awarded = game.awarded
    assert awarded is not None and awarded.points is None
    assert awarded.marks == game.state()["players"][0]["stats"]["marks"] > 0


def test_a_shanghai_wins_with_its_award() -> None:
    game = play("shanghai", "S1 D1 T1")
    assert game.state()["visit_awards"] == ["shanghai"]


def test_other_games_give_only_the_bed_awards() -> None:
    assert last_awards("baseball", "T1 T1 T1") == ["three-in-a-bed"]
    assert last_awards("baseball", "SB SB SB") == ["hat-trick"]
    assert new_game("domino-cribbage", ["Ann", "Bob"]).award_figure is AwardFigure.NONE


def test_an_undo_takes_the_award_back_and_the_dart_again_earns_it() -> None:
    game = play("x01", "T20 T20 T20")
    assert game.awarded is not None
    game.push(UNDO)
    assert game.state()["last_visit"] is None and game.awarded is None
    game.push(Bed.parse("T20"))
    assert game.awarded is not None and game.state()["last_visit"]["awards"] == ["ton-80"]


def test_awarded_is_only_the_event_that_settled_the_visit() -> None:
    game = play("x01", "T20 T20 T20")
    assert game.awarded is not None and game.awarded.awards == (Award.TON_80,)
    game.push(Bed.parse("S1"))
    assert game.awarded is None
    assert game.last_visit_awards == (Award.TON_80,)


def test_a_bounced_third_dart_settles_the_visit_again() -> None:
    game = play("x01", "T20 T20 T20")
    game.push(BOUNCE)
    awarded = game.awarded
    assert awarded is not None and awarded.awards == (Award.LOW_TON,)
    assert game.state()["last_visit"]["awards"] == ["low-ton"]


def test_an_exported_log_notes_each_visits_awards_and_replays_the_same() -> None:
    game = play("x01", "T20 T20 T20  SB DB SB  T20 T20 T20 BOUNCE  S1 S1 NEXT")
    text = format_game_log(game, awards=True)
    assert text.splitlines() == [
        "T20 T20 T20  # award: ton-80",
        "SB DB SB  # award: hat-trick",
        "T20 T20 T20 BOUNCE  # award: low-ton",
        "S1 S1",
    ]
    again = replay_log(new_game("x01", ["Ann", "Bob"]), text)
    assert again.state() == game.state()


def _visit_awards(game: str, darts: Sequence[Bed]) -> list[str]:
    played = new_game(game, ["Ann", "Bob"])
    for bed in darts:
        played.push(bed)
    last = played.state()["last_visit"]
    return [] if last is None else list(last["awards"])


@given(st.lists(st.sampled_from(ALL_BEDS), min_size=3, max_size=3))
def test_a_visit_shows_at_most_one_board_award(darts: list[Bed]) -> None:
    for game in ("x01", "cricket"):
        awards = _visit_awards(game, darts)
        assert len([award for award in awards if award not in FEATS]) <= 1
        if all(bed.is_bull for bed in darts):
            assert awards and awards[0] in ("hat-trick", "three-in-the-black")
    total = sum(bed.points for bed in darts)
    expected = points_award(total)
    if bed_award(darts) is None and expected is not None:
        assert _visit_awards("x01", darts) == [expected]


@pytest.mark.parametrize(
    ("game", "tokens", "options", "awards"),
    [
        ("count-up", "T20 T20 T20 NEXT", None, ["ton-80"]),
        ("count-up", "SB SB T20 NEXT", None, ["high-ton"]),  # the fat bull: 50 + 50 + 60
        ("count-up", "SB SB T20 NEXT", {"bull": "split"}, ["low-ton"]),  # 25 + 25 + 60
        ("cricket-count-up", "T20 T19 T18 NEXT", None, ["9-mark"]),
        ("cricket-count-up", "T20 D19 S18 NEXT", None, ["6-mark"]),
    ],
)
def test_the_count_up_games_count_points_and_marks(
    game: str, tokens: str, options: dict[str, object] | None, awards: list[str]
) -> None:
    assert last_awards(game, tokens, options) == awards
