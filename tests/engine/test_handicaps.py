"""Handicaps: the value type's text round trip, the games' checks, and a
handicapped game's result as the leaderboard re-scores it (issue #26)."""

from __future__ import annotations

import pytest

from engine import new_game
from engine.game_log import replay_log
from engine.games.cricket import MARKS_KEYS
from engine.handicap import (
    SPOT_TARGETS,
    Handicap,
    HandicapError,
    format_handicaps,
    parse_handicaps,
    with_handicaps,
)
from engine.registry import game_class
from leaderboard.scoring import RejectedResultError, score_result
from mqtt_contract import parse_command
from mqtt_contract.command_payload import NewGame
from tests.leaderboard.result_documents import result_document

BOB_FROM_401 = (
    "T20 T20 T20",
    "T20 T20 T20",
    "T20 T20 T20",
    "T20 T20 T20",
    "S20 S20 S20",
    "S1 D20",
)
"""Ann from 501, Bob from 401: Bob checks out in his third visit."""


@pytest.mark.parametrize(
    "text", ["401", "20:3", "20:3 19:1 bull:2", "401 15:1", "-", "bull:3 15:2 17:1"]
)
def test_a_handicap_reads_back_what_it_writes(text: str) -> None:
    handicap = Handicap.parse(text)
    assert Handicap.parse(str(handicap)) == handicap


def test_spot_marks_are_kept_in_target_order() -> None:
    assert str(Handicap.of(marks={"bull": 2, "20": 3, "15": 0})) == "20:3 bull:2"
    assert SPOT_TARGETS == MARKS_KEYS


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("40x", "'40x'"),
        ("25:1", "'25'"),
        ("20:4", "4"),
        ("401 301", "'301'"),
        ("20:1 20:2", "'20:2'"),
    ],
)
def test_a_bad_handicap_is_an_error_quoting_it(text: str, quoted: str) -> None:
    with pytest.raises(HandicapError, match=quoted):
        Handicap.parse(text)


def test_the_option_takes_one_item_per_player() -> None:
    assert parse_handicaps("none", 2) == (Handicap(), Handicap())
    assert parse_handicaps("501,-", 2) == (Handicap(501), Handicap())
    assert format_handicaps((Handicap(), Handicap(401))) == "-,401"
    assert format_handicaps((Handicap(), Handicap())) == "none"
    with pytest.raises(HandicapError, match="one per player"):
        new_game("x01", ["Ann", "Bob"], {"handicaps": "401"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"handicaps": "501,1"}, "a start of 1 cannot be played"),
        ({"handicaps": "501,1002"}, "a start of 1002 cannot be played"),
        ({"handicaps": "501,1", "out": "straight"}, None),
        ({"handicaps": "501,20:3"}, "not spot marks"),
    ],
)
def test_x01_checks_each_start(options: dict[str, object], message: str | None) -> None:
    if message is None:
        assert new_game("x01", ["Ann", "Bob"], options).score(1) == 1
        return
    with pytest.raises(HandicapError, match=message):
        new_game("x01", ["Ann", "Bob"], options)


def test_cricket_refuses_a_start_and_marks_that_close_everything() -> None:
    with pytest.raises(HandicapError, match="not a start"):
        new_game("cricket", ["Ann", "Bob"], {"handicaps": "-,401"})
    everything = " ".join(f"{key}:3" for key in SPOT_TARGETS)
    with pytest.raises(HandicapError, match="close every target"):
        new_game("cricket", ["Ann", "Bob"], {"handicaps": f"-,{everything}"})


def test_handicaps_are_per_player_not_per_team() -> None:
    with pytest.raises(HandicapError, match="team game"):
        new_game(
            "x01", ["A", "B", "C", "D"], {"handicaps": "401,-,-,-"}, {"X": [0, 2], "Y": [1, 3]}
        )


@pytest.mark.parametrize("game", ["cricket-shanghai", "english-cricket", "killer", "shanghai"])
def test_other_games_refuse_handicaps_by_name(game: str) -> None:
    with pytest.raises(HandicapError, match="takes no handicaps"):
        with_handicaps(game_class(game), {}, (Handicap(marks=(("20", 3),)), Handicap()))


def test_a_game_without_handicaps_keeps_its_state() -> None:
    state = new_game("x01", ["Ann", "Bob"]).state()
    assert "start" not in state["players"][0]
    assert "spot_marks" not in new_game("cricket", ["Ann"]).state()["players"][0]


def test_undo_keeps_the_handicap() -> None:
    game = new_game("cricket", ["Ann", "Bob"], {"handicaps": "bull:2,-"})
    replay_log(game, "SB UNDO")
    assert game.state()["players"][0]["marks"]["bull"] == 2


def test_new_game_players_carry_start_and_marks() -> None:
    command = parse_command(
        b'{"command": "new_game", "game": "x01", "players": ["Ann", {"name": "Bob", "start": 401},'
        b' {"name": "Cy", "cpu": 3, "marks": {"20": 3}}]}'
    )
    assert isinstance(command, NewGame)
    assert command.handicaps == (Handicap(), Handicap(401), Handicap(marks=(("20", 3),)))


def test_a_bad_spot_mark_in_new_game_is_refused_by_the_schema() -> None:
    with pytest.raises(ValueError, match="marks"):
        parse_command(
            b'{"command": "new_game", "game": "cricket", '
            b'"players": [{"name": "Bob", "marks": {"21": 3}}]}'
        )


def test_the_result_carries_each_start_and_bobs_average_counts_only_his_points() -> None:
    document = result_document("x01", BOB_FROM_401, options={"handicaps": "501,401"})
    assert [player["start"] for player in document["players"]] == [501, 401]
    ann, bob = score_result(document).players
    assert bob.won and bob.figures["points"] == 401 and bob.darts == 8
    assert 3 * bob.figures["points"] / bob.darts == pytest.approx(150.375)
    assert ann.figures["points"] == 420


def test_a_result_with_starts_but_no_option_is_re_scored_from_the_starts() -> None:
    document = result_document("x01", BOB_FROM_401, options={"handicaps": "501,401"})
    document["options"].pop("handicaps")
    assert score_result(document).players[1].figures["points"] == 401


def test_a_result_whose_starts_are_not_its_options_is_rejected() -> None:
    document = result_document("x01", BOB_FROM_401, options={"handicaps": "501,401"})
    document["players"][1]["start"] = 301
    with pytest.raises(RejectedResultError, match="handicap"):
        score_result(document)


def test_a_cricket_result_carries_the_spot_marks() -> None:
    moves = ["S20 S20 S20", "T19 T18 T17", "S20 S20 S20"]
    document = result_document(
        "cricket", moves, options={"handicaps": "-,20:3 19:3 18:3 17:3 16:3 15:3"}, finished=False
    )
    assert [player["marks"] for player in document["players"]] == [
        {},
        {"15": 3, "16": 3, "17": 3, "18": 3, "19": 3, "20": 3},
    ]
