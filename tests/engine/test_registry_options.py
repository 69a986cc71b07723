"""The game registry, typed options and lineups: what a caller can set up and
what it is told when the setup is wrong."""

from __future__ import annotations

import re

import pytest

from engine import (
    EngineError,
    Game,
    Lineup,
    LineupError,
    Option,
    OptionError,
    Team,
    UnknownGameError,
    game_class,
    game_ids,
    new_game,
)
from engine.lineup import check_name

GAME_IDS = (
    "x01",
    "cricket",
    "cricket-shanghai",
    "baseball",
    "killer",
    "shanghai",
    "legs",
    "fifty-one-by-fives",
    "around-the-world",
    "english-cricket",
    "domino-cribbage",
    "skill-test",
    "count-up",
    "cricket-count-up",
)

# ----------------------------------------------------------------- registry


def test_game_ids_lists_every_game_in_menu_order() -> None:
    assert game_ids() == GAME_IDS
    assert len(game_ids()) == len(set(game_ids()))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_each_id_gives_a_game_class_with_that_id(game_id: str) -> None:
    cls = game_class(game_id)
    assert issubclass(cls, Game)
    assert cls.id == game_id
    game = new_game(game_id, ["Ann", "Bob"])
    assert isinstance(game, cls)
    assert game.state()["game"] == game_id


def test_game_ids_are_looked_up_case_insensitively() -> None:
    assert game_class("X01") is game_class("x01")
    assert game_class(" Cricket ") is game_class("cricket")


@pytest.mark.parametrize("bad", ["darts", "501", "", "cricket shanghai", "x-01"])
def test_unknown_game_id_raises_listing_the_valid_ids(bad: str) -> None:
    with pytest.raises(UnknownGameError) as caught:
        new_game(bad, ["Ann"])
    message = str(caught.value)
    assert repr(bad) in message
    for game_id in GAME_IDS:
        assert game_id in message
    assert isinstance(caught.value, ValueError)


# ------------------------------------------------------------------ options


def test_defaults_apply_when_no_options_are_given() -> None:
    assert new_game("x01", ["Ann"]).options == {
        "start": 501,
        "in": "straight",
        "out": "double",
        "bull": "split",
        "rounds": 0,
        "checkout_sigma_mm": "none",
        "handicaps": "none",
    }
    assert new_game("cricket", ["Ann"]).options == {
        "mode": "standard",
        "rounds": 0,
        "handicaps": "none",
    }
    assert new_game("cricket-shanghai", ["Ann"]).options == {"bull_order": "visit"}


def test_defaults_fill_the_options_not_given() -> None:
    game = new_game("x01", ["Ann"], {"start": "301"})
    assert game.options == {
        "start": 301,
        "in": "straight",
        "out": "double",
        "bull": "split",
        "rounds": 0,
        "checkout_sigma_mm": "none",
        "handicaps": "none",
    }
    assert game.state()["players"][0]["score"] == 301


@pytest.mark.parametrize("value", ["301", " 301 ", 301, 301.0])
def test_int_option_from_text_or_json(value: object) -> None:
    """JSON has one number type: 301.0 is the whole number 301."""
    game = new_game("x01", ["Ann"], {"start": value})
    assert game.options["start"] == 301
    assert type(game.options["start"]) is int


@pytest.mark.parametrize("value", ["Cut-Throat", "CUT-THROAT", " cut-throat "])
def test_str_choice_is_lower_cased(value: str) -> None:
    assert new_game("cricket", ["Ann"], {"mode": value}).options["mode"] == "cut-throat"


def test_several_options_from_text_like_the_command_line() -> None:
    game = new_game("x01", ["Ann"], {"start": "701", "in": "Double", "out": "MASTER"})
    assert game.options == {
        "start": 701,
        "in": "double",
        "out": "master",
        "bull": "split",
        "rounds": 0,
        "checkout_sigma_mm": "none",
        "handicaps": "none",
    }


def test_rounds_accepts_its_minimum() -> None:
    assert new_game("cricket", ["Ann"], {"rounds": "0"}).options["rounds"] == 0
    assert new_game("cricket", ["Ann"], {"rounds": 20}).options["rounds"] == 20


# No registered game has a bool option yet; the Option type is public API.
FLAG = Option("flag", False, "a yes/no option")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        ("true", True),
        ("YES", True),
        ("on", True),
        ("1", True),
        ("false", False),
        (" No ", False),
        ("off", False),
        ("0", False),
    ],
)
def test_bool_option_from_text_or_json(value: object, expected: bool) -> None:
    assert FLAG.coerce(value) is expected
    assert FLAG.kind == "bool"


@pytest.mark.parametrize("value", ["maybe", "", 1, 0, None, 1.0])
def test_bool_option_rejects_other_values(value: object) -> None:
    with pytest.raises(OptionError) as caught:
        FLAG.coerce(value)
    message = str(caught.value)
    assert "'flag'" in message
    assert repr(value) in message
    assert "true or false" in message


@pytest.mark.parametrize(
    "value", [True, "1.5", 1.5, float("inf"), float("nan"), "1.0", "abc", "", None]
)
def test_int_option_rejects_non_integers(value: object) -> None:
    with pytest.raises(OptionError) as caught:
        new_game("cricket", ["Ann"], {"rounds": value})
    message = str(caught.value)
    assert "'rounds'" in message
    assert repr(value) in message
    assert "whole number" in message


@pytest.mark.parametrize("value", [301, ["standard"], None])
def test_str_option_rejects_non_text(value: object) -> None:
    with pytest.raises(OptionError) as caught:
        new_game("cricket", ["Ann"], {"mode": value})
    message = str(caught.value)
    assert "'mode'" in message
    assert repr(value) in message


def test_wrong_type_for_a_choice_option_names_it_and_lists_the_choices() -> None:
    with pytest.raises(OptionError) as caught:
        new_game("x01", ["Ann"], {"start": "abc"})
    message = str(caught.value)
    assert "'start'" in message
    assert "'abc'" in message
    for choice in ("301", "501", "1001"):
        assert choice in message


@pytest.mark.parametrize(
    ("game_id", "name", "value", "valid"),
    [
        ("x01", "start", "300", ("301", "401", "501", "601", "701", "901", "1001")),
        ("x01", "start", 500, ("301", "501", "1001")),
        ("x01", "in", "triple", ("straight", "double", "master")),
        ("x01", "out", "single", ("straight", "double", "master")),
        ("cricket", "mode", "killer", ("standard", "cut-throat", "no-score")),
        ("cricket-shanghai", "bull_order", "random", ("visit", "strict")),
    ],
)
def test_value_not_in_choices_names_option_value_and_choices(
    game_id: str, name: str, value: object, valid: tuple[str, ...]
) -> None:
    with pytest.raises(OptionError) as caught:
        new_game(game_id, ["Ann"], {name: value})
    message = str(caught.value)
    assert repr(name) in message
    assert repr(value) in message
    for choice in valid:
        assert choice in message


@pytest.mark.parametrize("game_id", ["x01", "cricket"])
@pytest.mark.parametrize("value", ["-1", -5])
def test_value_below_minimum_names_option_value_and_minimum(game_id: str, value: object) -> None:
    with pytest.raises(OptionError) as caught:
        new_game(game_id, ["Ann"], {"rounds": value})
    message = str(caught.value)
    assert "'rounds'" in message
    assert repr(value) in message
    assert "0" in message.replace(repr(value), "")


@pytest.mark.parametrize(
    ("game_id", "valid"),
    [
        ("x01", ("start", "in", "out", "rounds")),
        ("cricket", ("mode", "rounds")),
        ("cricket-shanghai", ("bull_order",)),
    ],
)
def test_unknown_option_name_lists_the_options_of_the_game(
    game_id: str, valid: tuple[str, ...]
) -> None:
    with pytest.raises(OptionError) as caught:
        new_game(game_id, ["Ann"], {"speed": "fast"})
    message = str(caught.value)
    assert "'speed'" in message
    assert game_id in message
    for name in valid:
        assert name in message


def test_option_that_belongs_to_another_game_is_unknown() -> None:
    with pytest.raises(OptionError, match="'start'"):
        new_game("cricket", ["Ann"], {"start": "301"})


# ------------------------------------------------------------------- lineup


@pytest.mark.parametrize("count", [1, 2, 5, 8])
def test_one_to_eight_players(count: int) -> None:
    names = [f"P{i}" for i in range(count)]
    lineup = Lineup.build(names)
    assert lineup.players == tuple(names)
    assert lineup.teams == ()
    assert lineup.sides == tuple((i,) for i in range(count))
    assert len(new_game("x01", names).state()["players"]) == count


@pytest.mark.parametrize("count", [0, 9, 12])
def test_zero_or_more_than_eight_players_rejected(count: int) -> None:
    names = [f"P{i}" for i in range(count)]
    with pytest.raises(LineupError, match=str(count)):
        Lineup.build(names)
    with pytest.raises(LineupError):
        new_game("cricket", names)


@pytest.mark.parametrize("names", [["Ann", "Ann"], ["Ann", "Bob", "ann"], ["Bob", "BOB"]])
def test_duplicate_names_rejected(names: list[str]) -> None:
    with pytest.raises(LineupError) as caught:
        Lineup.build(names)
    assert repr(names[-1]) in str(caught.value)


@pytest.mark.parametrize(
    ("name", "complaint"),
    [
        ("A" * 25, "'AAAAAAAAAAAAAAAAAAAAAAAA…' is 25 characters long; the limit is 24"),
        ("Ann\x00", "contains a control character (U+0000)"),
        ("Ann\tBob", "contains a control character (U+0009)"),
        ("\ud800", "contains a lone surrogate (U+D800)"),
        ("   ", "is empty"),
    ],
)
def test_check_name_refuses_what_a_scoreboard_cannot_show(name: str, complaint: str) -> None:
    with pytest.raises(LineupError, match=re.escape(complaint)):
        check_name(name)


@pytest.mark.parametrize("name", ["A" * 24, "  Zoë Ødegård  ", "李小龍", "Ann 🎯"])
def test_check_name_takes_names_up_to_the_limit(name: str) -> None:
    assert check_name(name) == name.strip()


@pytest.mark.parametrize("names", [[""], ["Ann", ""], ["Ann", "   "]])
def test_empty_names_rejected(names: list[str]) -> None:
    with pytest.raises(LineupError):
        Lineup.build(names)


def test_teams_resolve_names_and_indices_in_throwing_order() -> None:
    lineup = Lineup.build(["Ann", "Bob", "Cy", "Dee"], {"A": ["Ann", 2], "B": ["bob", "Dee"]})
    assert lineup.teams == (Team("A", (0, 2)), Team("B", (1, 3)))
    assert lineup.sides == ((0, 2), (1, 3))


def test_fewer_than_two_teams_rejected() -> None:
    with pytest.raises(LineupError):
        Lineup.build(["Ann", "Bob"], {"A": ["Ann", "Bob"]})


def test_player_in_two_teams_rejected() -> None:
    with pytest.raises(LineupError) as caught:
        Lineup.build(["Ann", "Bob", "Cy"], {"A": ["Ann", "Bob"], "B": ["Bob", "Cy"]})
    message = str(caught.value)
    assert "'Bob'" in message
    assert "'A'" in message
    assert "'B'" in message


def test_player_in_no_team_rejected() -> None:
    with pytest.raises(LineupError) as caught:
        Lineup.build(["Ann", "Bob", "Cy"], {"A": ["Ann"], "B": ["Bob"]})
    assert "Cy" in str(caught.value)


@pytest.mark.parametrize("member", ["Zed", 7, -1])
def test_unknown_team_member_rejected(member: str | int) -> None:
    with pytest.raises(LineupError) as caught:
        Lineup.build(["Ann", "Bob"], {"A": ["Ann"], "B": ["Bob", member]})
    assert str(member) in str(caught.value)


def test_empty_team_rejected() -> None:
    with pytest.raises(LineupError, match="'B'"):
        Lineup.build(["Ann", "Bob"], {"A": ["Ann", "Bob"], "B": []})


def test_duplicate_team_names_rejected() -> None:
    with pytest.raises(LineupError):
        Lineup(("Ann", "Bob"), (Team("A", (0,)), Team("a", (1,))))


def test_new_game_passes_teams_through() -> None:
    game = new_game("x01", ["Ann", "Bob"], teams={"Reds": ["Ann"], "Blues": ["Bob"]})
    state = game.state()
    assert state["teams"] == [{"name": "Reds", "players": [0]}, {"name": "Blues", "players": [1]}]
    assert [p["team"] for p in state["players"]] == [0, 1]


# ------------------------------------------------------------------- errors


def _raise_each() -> list[Exception]:
    caught: list[Exception] = []
    for attempt in (
        lambda: game_class("nope"),
        lambda: new_game("x01", ["Ann"], {"start": "7"}),
        lambda: new_game("x01", ["Ann"], {"bogus": "7"}),
        lambda: Lineup.build([]),
        lambda: Lineup.build(["Ann", "Bob"], {"A": ["Ann", "Bob"]}),
    ):
        with pytest.raises(EngineError) as info:
            attempt()
        caught.append(info.value)
    return caught


def test_all_setup_errors_are_value_errors_and_engine_errors() -> None:
    errors = _raise_each()
    assert [type(e) for e in errors] == [
        UnknownGameError,
        OptionError,
        OptionError,
        LineupError,
        LineupError,
    ]
    for error in errors:
        assert isinstance(error, ValueError)
    for cls in (UnknownGameError, OptionError, LineupError):
        assert issubclass(cls, EngineError)
        assert issubclass(cls, ValueError)
