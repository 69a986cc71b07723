"""The schemas once written out by hand against the ones now generated from
the contract's types (tests/golden/handwritten_schemas.json keeps the
hand-written ones as they were): ``result`` and ``books`` are the same
documents, key for key; ``operator/cmd``, whose arguments now sit under each
command's clause, takes and refuses the same payloads (docs/mqtt.md's
examples and hypothesis' mutations of them), as does its parser. And the
``cmd`` schema's names and game id take what the parser takes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mqtt_contract import (
    OPERATOR_CLASSES,
    TOPICS,
    AddCredits,
    CommandError,
    NewGame,
    ResetBooks,
    SetFreePlay,
    SetPrice,
    Unpair,
    parse_command,
    parse_operator_command,
)
from tests.paths import REPO
from tests.test_mqtt_contract_types import mutated, whole_floats

HANDWRITTEN: dict[str, Any] = json.loads(
    (REPO / "tests" / "golden" / "handwritten_schemas.json").read_text("utf-8")
)


@pytest.mark.parametrize("name", ["result", "books"])
def test_the_generated_schema_is_the_hand_written_one(name: str) -> None:
    assert TOPICS[name].schema == HANDWRITTEN[name]


OPERATOR_EXAMPLES = [
    {"command": "add_credits", "count": 1},
    {"command": "add_credits", "id": 1, "count": 10000, "reason": "r"},
    {"command": "set_free_play", "on": True},
    {"command": "reset_books", "id": "x", "reason": ""},
    {"command": "reset_books"},
    {"command": "set_price", "price": None},
    {"command": "set_price", "price": 1000, "game": "cricket"},
    {"command": "unpair"},
    {"command": "unpair", "id": 4, "device": "dev-ann-0001"},
]
OLD_OPERATOR = Draft202012Validator(HANDWRITTEN["operator/cmd"])
NEW_OPERATOR = Draft202012Validator(TOPICS["operator/cmd"].schema)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_operator_schema_takes_what_the_hand_written_one_took(data: st.DataObject) -> None:
    document = data.draw(mutated("operator/cmd", OPERATOR_EXAMPLES))
    # unpair came after the hand-written schema (issue 24): it never took one.
    assume(not (isinstance(document, dict) and document.get("command") == "unpair"))
    assert NEW_OPERATOR.is_valid(document) == OLD_OPERATOR.is_valid(document), document


def operator_parses(document: Any) -> bool:
    try:
        parse_operator_command(json.dumps(document).encode())
    except CommandError:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_operator_parser_takes_what_the_schema_accepts(data: st.DataObject) -> None:
    document = data.draw(mutated("operator/cmd", OPERATOR_EXAMPLES))
    assume(not whole_floats(document))
    # Known, kept: the parser takes a null reason (none) and refuses a blank
    # game id, both of which the schema does not say.
    assume(not (isinstance(document, dict) and document.get("reason", "") is None))
    assume(not (isinstance(document, dict) and str(document.get("game", "x")).strip() == ""))
    assert operator_parses(document) == NEW_OPERATOR.is_valid(document), document


def test_operator_commands_parse_into_their_classes() -> None:
    def parsed(document: dict[str, Any]) -> object:
        return parse_operator_command(json.dumps(document).encode())

    assert parsed({"command": "add_credits", "id": 3, "count": 2, "reason": " bar "}) == (
        AddCredits(id=3, count=2, reason="bar")
    )
    assert parsed({"command": "set_free_play", "on": False}) == SetFreePlay(on=False)
    assert parsed({"command": "reset_books", "reason": "  "}) == ResetBooks(reason=None)
    assert parsed({"command": "set_price", "price": None, "game": " X01 "}) == (
        SetPrice(price=None, game="x01")
    )
    assert parsed({"command": "unpair", "id": 5}) == Unpair(id=5)
    assert parsed({"command": "unpair", "device": "dev-ann-0001"}) == Unpair(device="dev-ann-0001")
    assert {cls.command for cls in OPERATOR_CLASSES} == {
        "add_credits",
        "set_free_play",
        "reset_books",
        "set_price",
        "unpair",
    }


def test_a_null_device_is_refused_rather_than_unpairing_every_device() -> None:
    """Only leaving "device" out unpairs them all: a null sent by mistake must not."""
    document = {"command": "unpair", "device": None}
    with pytest.raises(CommandError, match='"device"'):
        parse_operator_command(json.dumps(document).encode())
    assert not NEW_OPERATOR.is_valid(document)


CMD = Draft202012Validator(TOPICS["cmd"].schema)


def cmd_parses(document: Any) -> bool:
    try:
        parse_command(json.dumps(document).encode())
    except CommandError:
        return False
    return True


@pytest.mark.parametrize(
    ("name", "taken"),
    [
        (" " + "N" * 24 + " ", True),  # 24 characters once stripped, as the lineup keeps it
        ("\t" + "N" * 24, True),
        ("N" * 24, True),
        ("N", True),
        (" N ", True),
        ("N" * 25, False),
        (" " + "N" * 25, False),
        ("   ", False),
        ("", False),
        ("A\x01B", False),  # a control character
        ("A\nB", False),
    ],
)
def test_a_padded_name_is_taken_by_the_schema_exactly_when_the_parser_takes_it(
    name: str, taken: bool
) -> None:
    for document in (
        {"command": "new_game", "game": "x01", "players": [name]},
        {"command": "new_game", "game": "x01", "players": [{"name": name, "cpu": 3}]},
        {"command": "new_game", "game": "x01", "teams": {name: ["A"], "B": ["C"]}},
    ):
        assert cmd_parses(document) is taken, document
        assert CMD.is_valid(document) is taken, document


@pytest.mark.parametrize(("game", "taken"), [("x01", True), (" x01 ", True), (" ", False)])
def test_a_blank_game_id_is_refused_by_both(game: str, taken: bool) -> None:
    document = {"command": "new_game", "game": game, "players": ["A"]}
    assert cmd_parses(document) is taken
    assert CMD.is_valid(document) is taken


def test_a_parsed_new_game_is_its_own_payload() -> None:
    """What the parser returns writes back the document it read (the schema's type)."""
    document = {
        "command": "new_game",
        "id": 4,
        "game": "x01",
        "players": ["A", {"name": "B", "cpu": {"average": 50.0}}, {"name": "C", "board": "pub2"}],
    }
    command = parse_command(json.dumps(document).encode())
    assert isinstance(command, NewGame)
    assert command.to_json() == document
    assert CMD.is_valid(command.to_json())
    assert command.cpu == {"B": {"average": 50.0}} and command.boards == {"C": "pub2"}


def test_a_computer_player_may_be_asked_for_by_its_cricket_mpr() -> None:
    document = {
        "command": "new_game",
        "game": "cricket",
        "players": ["A", {"name": "B", "cpu": {"mpr": 2.4}}],
    }
    command = parse_command(json.dumps(document).encode())
    assert isinstance(command, NewGame) and command.cpu == {"B": {"mpr": 2.4}}
    assert command.to_json() == document and CMD.is_valid(document)
    for bad in ({"mpr": 9}, {"mpr": 2, "average": 40}):
        wrong = {**document, "players": ["A", {"name": "B", "cpu": bad}]}
        assert not CMD.is_valid(wrong)
        with pytest.raises(CommandError, match="cpu"):
            parse_command(json.dumps(wrong).encode())


def without_enum_types(schema: Any) -> Any:
    """``schema`` without the ``"type": "string"`` the generator writes beside
    an ``enum`` of strings (the hand-written blocks had the ``enum`` alone)."""
    if isinstance(schema, dict):
        plain = {key: without_enum_types(value) for key, value in schema.items()}
        strings = all(isinstance(value, str) for value in plain.get("enum", [None]))
        if strings and plain.get("type") == "string":
            del plain["type"]
        return plain
    if isinstance(schema, list):
        return [without_enum_types(item) for item in schema]
    return schema


def test_the_daemons_state_blocks_are_the_hand_written_ones() -> None:
    state = TOPICS["state"].schema
    generated = {key: state["properties"][key] for key in ("board", "credits", "journal", "remote")}
    player = state["$defs"]["player"]["properties"]
    generated["player cpu"] = player["cpu"]
    generated["player board"] = player["board"]
    assert without_enum_types(generated) == HANDWRITTEN["state blocks"]
