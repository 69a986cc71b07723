"""The MQTT API (pure): topics and the command-topic regex, command parsing
(every valid and invalid case), responses, events, Home Assistant discovery,
the payload schemas and docs/mqtt.md, which must print them exactly."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import new_game
from engine.awards import AWARD_IDS
from engine.events import parse_event
from firmware_bridge.daemon.home_assistant import discovery_messages, discovery_removals
from mqtt_contract import (
    COMMAND_CLASSES,
    COMMAND_TOPIC,
    COMMANDS,
    EVENT_TYPES,
    LEADERBOARD_LEVEL,
    LEADERBOARD_TOPIC,
    MAX_COMMAND_BYTES,
    PHASES,
    REMOTE_LEVEL,
    REMOTE_TOPIC_SPEC,
    TOPIC_NAMES,
    TOPICS,
    CommandError,
    NewGame,
    ThrowDart,
    check_board_id,
    check_subtopic,
    leaderboard_topic,
    parse_command,
    response_payload,
    topic,
)
from tests.mqtt_doc import regenerated
from tests.paths import REPO

ROOT = REPO
DOC = ROOT / "docs" / "mqtt.md"


def validator(name: str) -> Draft202012Validator:
    spec = {LEADERBOARD_LEVEL: LEADERBOARD_TOPIC, REMOTE_LEVEL: REMOTE_TOPIC_SPEC}.get(name)
    spec = spec or TOPICS[name]
    return Draft202012Validator(spec.schema)


def errors(name: str, payload: Any) -> list[str]:
    return [error.message for error in validator(name).iter_errors(payload)]


def cmd(document: Any) -> bytes:
    return json.dumps(document).encode()


BOARD = {"id": "b1", "name": "Pub", "connected": True, "status": "connected", "stuck_cells": []}


# -------------------------------------------------------------------- topics


def test_topic_names_and_specs() -> None:
    assert tuple(TOPICS) == TOPIC_NAMES
    for name, spec in TOPICS.items():
        assert spec.name == name
        assert spec.qos in (0, 1, 2)
    assert [n for n, s in TOPICS.items() if s.retain] == [
        "state",
        "availability",
        "instance",
        "books",
        "roster",
        "result/lines",
        "pairing",
    ]
    assert all(TOPICS[n].qos == 1 for n in ("state", "event", "availability", "cmd/response"))
    assert TOPICS["result"].qos == 1


def test_topic_builds_full_topics() -> None:
    assert topic("oche", "b1", "state") == "oche/b1/state"
    assert (
        topic("home/darts", "pub-board_2", "cmd/response") == "home/darts/pub-board_2/cmd/response"
    )
    for name in TOPIC_NAMES:
        assert topic("oche", "b", name).endswith("/" + name)


@pytest.mark.parametrize(
    ("base", "board", "name", "complaint"),
    [
        ("", "b1", "state", "base"),
        ("oche/", "b1", "state", "base"),
        ("/oche", "b1", "state", "base"),
        ("oc+he", "b1", "state", "base"),
        ("oche/#", "b1", "state", "base"),
        ("$SYS", "b1", "state", "base"),
        ("my oche", "b1", "state", "base"),
        ("oche", "", "state", "board"),
        ("oche", "b/1", "state", "board"),
        ("oche", "b+", "state", "board"),
        ("oche", "b 1", "state", "board"),
        ("oche", "b1", "status", "topic"),
    ],
)
def test_topic_refuses_bad_parts(base: str, board: str, name: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        topic(base, board, name)


@pytest.mark.parametrize(
    ("text", "base", "board"),
    [
        ("oche/b1/cmd", "oche", "b1"),
        ("home/darts/b1/cmd", "home/darts", "b1"),
        ("a/b/c/d/cmd", "a/b/c", "d"),
        ("oche/Pub-Board_2/cmd", "oche", "Pub-Board_2"),
        ("oche/cmd/cmd", "oche", "cmd"),
    ],
)
def test_command_topic_parses(text: str, base: str, board: str) -> None:
    match = COMMAND_TOPIC.match(text)
    assert match is not None
    assert (match["base"], match["board"]) == (base, board)
    assert topic(base, board, "cmd") == text


@pytest.mark.parametrize(
    "text",
    [
        "oche/b1/cmd/response",
        "oche/b1/state",
        "b1/cmd",
        "cmd",
        "oche//cmd",
        "/oche/b1/cmd",
        "oche/+/cmd",
        "oche/#/cmd",
        "+/b1/cmd",
        "$SYS/b1/cmd",
        "oche/b.1/cmd",
        "oche/b1/cmd/",
        "oche/b1/cmdx",
    ],
)
def test_command_topic_rejects(text: str) -> None:
    assert COMMAND_TOPIC.match(text) is None


def test_command_topic_is_one_regex() -> None:
    assert isinstance(COMMAND_TOPIC, re.Pattern)
    assert set(COMMAND_TOPIC.groupindex) == {"base", "board"}


def test_subtopic() -> None:
    assert check_subtopic("abc/def") == "abc/def"
    for bad in ("", "/a", "a/", "a//b", "a/+", "#", "a b"):
        with pytest.raises(ValueError, match="subtopic"):
            check_subtopic(bad)


# ------------------------------------------------------------ valid commands


WITH_ARGUMENTS = (
    "new_game",
    "dart",
    "join",
    "leave",
    "correct",
    "pair",
    "call_match",
    "cancel_call",
)
"""The commands that take arguments."""


@pytest.mark.parametrize("name", [c for c in COMMANDS if c not in WITH_ARGUMENTS])
def test_commands_without_arguments(name: str) -> None:
    kind = {cls.command: cls for cls in COMMAND_CLASSES}[name]
    assert parse_command(cmd({"command": name})) == kind()
    assert parse_command(cmd({"command": name, "id": 7})) == kind(id=7)
    assert parse_command(cmd({"command": name, "id": "abc"})) == kind(id="abc")
    assert parse_command(cmd({"command": name})).name == name


def test_new_game_with_players() -> None:
    command = parse_command(
        cmd(
            {
                "command": "new_game",
                "id": "g1",
                "game": "x01",
                "options": {"start": 301, "out": "double"},
                "players": ["Ann", "Bob"],
            }
        )
    )
    assert command == NewGame(
        id="g1", game="x01", options={"start": 301, "out": "double"}, players=("Ann", "Bob")
    )
    assert isinstance(command, NewGame)
    assert command.player_names == ("Ann", "Bob")
    assert command.team_names is None and command.cpu == {} and command.boards == {}


def test_new_game_minimal_and_eight_players() -> None:
    names = [f"P{i}" for i in range(8)]
    command = parse_command(cmd({"command": "new_game", "game": "cricket", "players": names}))
    assert command == NewGame(game="cricket", players=tuple(names))


def test_new_game_players_come_from_teams_in_throwing_order() -> None:
    teams = {"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee", "Eve"]}
    command = parse_command(cmd({"command": "new_game", "game": "x01", "teams": teams}))
    assert isinstance(command, NewGame)
    assert command.player_names == ("Ann", "Bob", "Cy", "Dee", "Eve")
    assert command.team_names == {team: tuple(names) for team, names in teams.items()}
    # The engine takes them as they are.
    game = new_game("x01", command.player_names, None, command.team_names)
    assert [t["name"] for t in game.state()["teams"]] == ["Red", "Blue"]


def test_new_game_players_and_teams_both_given() -> None:
    teams = {"Red": ["Ann"], "Blue": ["Bob"]}
    command = parse_command(
        cmd({"command": "new_game", "game": "x01", "players": ["Bob", "Ann"], "teams": teams})
    )
    assert isinstance(command, NewGame)
    assert command.player_names == ("Bob", "Ann")


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("T20", "T20"), ("t20", "T20"), (" sb ", "SB"), ("m", "M"), ("DB", "DB")],
)
def test_dart(given: str, canonical: str) -> None:
    assert parse_command(cmd({"command": "dart", "segment": given, "id": 3})) == ThrowDart(
        id=3, segment=canonical
    )


def test_command_of_exactly_the_limit_is_read() -> None:
    document = {"command": "next", "id": ""}
    padding = MAX_COMMAND_BYTES - len(cmd(document))
    document["id"] = "x" * padding
    payload = cmd(document)
    assert len(payload) == MAX_COMMAND_BYTES
    assert parse_command(payload).name == "next"


# ---------------------------------------------------------- invalid commands


def refused(payload: bytes) -> CommandError:
    with pytest.raises(CommandError) as caught:
        parse_command(payload)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value)
    return caught.value


def test_oversized_command() -> None:
    error = refused(b" " * (MAX_COMMAND_BYTES + 1))
    assert f"{MAX_COMMAND_BYTES + 1} bytes" in str(error)
    assert str(MAX_COMMAND_BYTES) in str(error)
    assert error.id is None


def test_not_utf8() -> None:
    error = refused(b'{"command": "next", "id": "\xff\xfe"}')
    assert "UTF-8" in str(error)
    assert error.id is None


@pytest.mark.parametrize(
    "payload",
    [
        b"[" * 1000 + b"]" * 1000,  # deeper than the parser's recursion limit
        b'{"command": "next", "id": 1, "x": ' + b"[" * 900 + b"]" * 900 + b"}",
        b'{"command": "next", "id": 1, "x": ' + b'{"a": ' * 16 + b"1" + b"}" * 16 + b"}",
    ],
)
def test_deeply_nested_json_is_refused_in_one_line(payload: bytes) -> None:
    error = refused(payload)
    assert str(error) == "command is nested too deeply; the limit is 16 levels"
    assert error.id == (1 if payload.startswith(b"{") else None)


def test_nesting_a_command_needs_is_taken() -> None:
    nested = {"command": "new_game", "game": "x01", "teams": {"Red": ["Ann"], "Blue": ["Bob"]}}
    command = parse_command(cmd(nested))
    assert isinstance(command, NewGame) and command.player_names == ("Ann", "Bob")


@pytest.mark.parametrize(
    ("payload", "command_id"),
    [
        (b'{"command": "reboot", "id": "\\ud800"}', None),
        (b'{"command": "new_game", "id": 7, "game": "x01", "players": ["\\udc00"]}', 7),
        (b'{"command": "next", "id": "a", "\\ud83d": 1}', "a"),
    ],
)
def test_a_lone_surrogate_is_refused_and_the_id_echoed_when_it_can_be(
    payload: bytes, command_id: str | int | None
) -> None:
    error = refused(payload)
    assert "lone surrogate" in str(error) and "must be Unicode" in str(error)
    assert error.id == command_id
    json.dumps(response_payload(error.id, False, str(error))).encode("utf-8")


@pytest.mark.parametrize("payload", [b"", b"{", b"next", b'{"command": "next",}', b"NaN"])
def test_not_json(payload: bytes) -> None:
    assert "not valid JSON" in str(refused(payload))


def test_nan_is_not_json() -> None:
    assert "NaN" in str(refused(b'{"command": "next", "id": NaN}'))


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        (b"[]", "array"),
        (b'"next"', "string"),
        (b"3", "integer"),
        (b"null", "null"),
        (b"true", "boolean"),
    ],
)
def test_not_an_object(payload: bytes, kind: str) -> None:
    error = refused(payload)
    assert "JSON object" in str(error)
    assert kind in str(error)


@pytest.mark.parametrize(
    ("bad_id", "kind"),
    [(True, "boolean"), (1.5, "number"), (None, "null"), ([1], "array"), ({}, "object")],
)
def test_bad_id(bad_id: Any, kind: str) -> None:
    error = refused(cmd({"command": "next", "id": bad_id}))
    assert '"id"' in str(error)
    assert kind in str(error)
    assert error.id is None


def test_missing_command_lists_the_valid_ones() -> None:
    error = refused(cmd({"id": 4}))
    assert '"command"' in str(error)
    assert all(name in str(error) for name in COMMANDS)
    assert error.id == 4


def test_command_not_a_string() -> None:
    error = refused(cmd({"command": 3, "id": "x"}))
    assert "must be a string" in str(error)
    assert error.id == "x"


def test_unknown_command_lists_the_valid_ones() -> None:
    error = refused(cmd({"command": "reboot", "id": "r1"}))
    assert "'reboot'" in str(error)
    assert "new_game, next, undo, miss, dart, end_game, rematch" in str(error)
    assert error.id == "r1"


@pytest.mark.parametrize("name", [c for c in COMMANDS if c not in WITH_ARGUMENTS])
def test_unknown_key_for_command_without_arguments(name: str) -> None:
    error = refused(cmd({"command": name, "id": 1, "force": True}))
    assert "'force'" in str(error)
    assert "no arguments" in str(error)
    assert error.id == 1


def test_unknown_keys_are_all_named() -> None:
    error = refused(cmd({"command": "new_game", "game": "x01", "players": ["A"], "a": 1, "b": 2}))
    assert "'a', 'b'" in str(error)
    assert "game, options, players, teams" in str(error)


BAD_NEW_GAMES: list[tuple[dict[str, Any], str | None]] = [
    ({}, "needs 'game'"),
    ({"game": 3, "players": ["A"]}, '"game" must be a string'),
    ({"game": " ", "players": ["A"]}, '"game" is empty'),
    ({"game": "x01"}, None),  # the lobby's players (the daemon refuses an empty lobby)
    ({"game": "x01", "players": []}, "1 to 8 names, got 0"),
    ({"game": "x01", "players": [f"P{i}" for i in range(9)]}, "1 to 8 names, got 9"),
    ({"game": "x01", "players": "Ann"}, '"players" must be a list'),
    (
        {"game": "x01", "players": ["Ann", 7]},
        '"players"[1] must be a string or an object, got integer: a player is a name or',
    ),
    ({"game": "x01", "players": ["Ann", "  "]}, """"players"[1] '  ' is empty"""),
    (
        {"game": "x01", "players": ["Ann", "B" * 5000]},
        f""""players"[1] '{"B" * 24}…' is 5000 characters long; the limit is 24""",
    ),
    ({"game": "x01", "players": [" " + "C" * 24 + " "]}, None),
    ({"game": "x01", "players": ["Ann\u0007"]}, "contains a control character (U+0007)"),
    ({"game": "x01", "players": ["Ann\nBob"]}, "contains a control character (U+000A)"),
    ({"game": "x01", "players": ["A"], "options": [1]}, '"options" must be an object, got array'),
    ({"game": "x01", "teams": ["Red"]}, '"teams" must be an object'),
    ({"game": "x01", "teams": {"Red": ["Ann"]}}, "at least two teams, got 1"),
    ({"game": "x01", "teams": {"Red": ["Ann"], "Blue": []}}, "'Blue'] has no players"),
    ({"game": "x01", "teams": {"Red": ["Ann"], "Blue": "Bob"}}, "'Blue'] must be a list"),
    ({"game": "x01", "teams": {"Red": ["Ann"], "Blue": [5]}}, "'Blue'][0] must be a string"),
    ({"game": "x01", "teams": {"Red": ["Ann"], " ": ["Bob"]}}, """"teams" name ' ' is empty"""),
    ({"game": "x01", "teams": {"Red": ["Ann"], "T" * 25: ["Bob"]}}, "25 characters long"),
    (
        {
            "game": "x01",
            "teams": {"Red": [f"R{i}" for i in range(5)], "Blue": ["B1", "B2", "B3", "B4"]},
        },
        "9 players; the limit is 8",
    ),
]


@pytest.mark.parametrize(("arguments", "complaint"), BAD_NEW_GAMES)
def test_bad_new_game(arguments: dict[str, Any], complaint: str | None) -> None:
    if complaint is None:  # on the limit: taken
        assert parse_command(cmd({"command": "new_game", **arguments})).name == "new_game"
        return
    error = refused(cmd({"command": "new_game", "id": "n", **arguments}))
    assert complaint in str(error)
    assert str(error).startswith("new_game")
    assert error.id == "n"


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({}, "needs 'segment'"),
        ({"segment": 20}, '"segment" must be a string, got integer'),
        ({"segment": "T21"}, "'T21' is not a bed"),
        ({"segment": ""}, "is not a bed"),
        ({"segment": "T20", "player": 1}, "'player'"),
    ],
)
def test_bad_dart(arguments: dict[str, Any], complaint: str) -> None:
    error = refused(cmd({"command": "dart", "id": 9, **arguments}))
    assert complaint in str(error)
    assert error.id == 9


def test_command_schema_agrees_with_the_parser() -> None:
    good = [
        {"command": "next"},
        {"command": "undo", "id": 2},
        {"command": "dart", "segment": "t20"},
        {"command": "new_game", "game": "x01", "players": ["A"]},
        {"command": "new_game", "game": "x01", "teams": {"R": ["A"], "B": ["C"]}},
        {"command": "new_game", "game": "x01"},
        {"command": "join", "player": {"name": "Ann"}},
        {"command": "join", "player": {"id": 3}, "code": "K7PQ2M", "link_card": True},
        {"command": "leave", "player": {"id": 3}},
    ]
    for document in good:
        parse_command(cmd(document))
        assert errors("cmd", document) == [], document
    bad = [
        {"command": "next", "force": 1},
        {"command": "reboot"},
        {"command": "new_game", "players": ["A"]},
        {"command": "join"},
        {"command": "join", "player": {}},
        {"command": "join", "player": {"name": "Ann", "id": 3}},
        {"command": "join", "player": {"id": 0}},
        {"command": "join", "player": {"name": "Ann"}, "link_card": True},
        {"command": "join", "player": {"name": "Ann"}, "code": "K7PQ2"},
        {"command": "leave", "player": {"name": "Ann", "x": 1}},
        {"command": "new_game", "game": "x01", "players": [f"P{i}" for i in range(9)]},
        {"command": "dart", "segment": "T21"},
        {"command": "dart"},
        {"command": "next", "id": 1.5},
        {"id": 1},
    ]
    for document in bad:
        with pytest.raises(CommandError):
            parse_command(cmd(document))
        assert errors("cmd", document) != [], document


# ----------------------------------------------------------------- responses


def test_response_payload() -> None:
    assert response_payload("a", True) == {"id": "a", "ok": True, "error": None}
    assert response_payload(None, False, "bad") == {"id": None, "ok": False, "error": "bad"}
    assert errors("cmd/response", response_payload(3, True)) == []
    assert errors("cmd/response", response_payload(3, False, "no")) == []
    with pytest.raises(ValueError):
        response_payload(1, True, "but")
    with pytest.raises(ValueError):
        response_payload(1, False)
    assert errors("cmd/response", {"id": 1, "ok": False, "error": None}) != []


def test_error_round_trip_echoes_the_id() -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(cmd({"command": "dart", "id": "d-7", "segment": "X"}))
    response = response_payload(caught.value.id, False, str(caught.value))
    assert response["id"] == "d-7"
    assert errors("cmd/response", response) == []


# -------------------------------------------------------------------- events

EVENT_EXAMPLES: dict[str, dict[str, Any]] = {
    "game_started": {
        "game": "x01",
        "options": {"start": 501},
        "players": ["Ann", "Bob"],
        "teams": [{"name": "Red", "players": [0]}, {"name": "Blue", "players": [1]}],
    },
    "dart": {"player": 0, "segment": "T20", "points": 60, "dart": 1, "scored": True},
    "bust": {"player": 1},
    "visit_end": {
        "player": 0,
        "darts": ["T20", "T20", "S1"],
        "total": 121,
        "score_change": -121,
        "visit_over": None,
    },
    "award": {
        "award": "white-horse",
        "player": 1,
        "name": "Bob",
        "darts": ["T20", "T19", "T18"],
        "marks": 9,
        "game": "cricket",
    },
    "takeout": {"player": 0},
    "player_change": {"player": 1, "previous": 0},
    "points": {"player": 1, "points": 2, "reason": "fifteen"},
    "undo": {"player": 0},
    "winner": {"player": 0, "team": None},
    "game_over": {"result": "checkout", "winner": 0},
    "stuck": {"row": 3, "col": 5},
    "released": {"row": 3, "col": 5},
    "hit": {"segment": "T20", "scored": False, "reason": "no game"},
    "button": {"button": "game"},
    "credits": {"change": -2, "credits": 0, "source": "game", "input": None, "reason": None},
    "bounce": {"player": 1, "segment": "S5"},
    "takeout_sensed": {"ended_visit": False},
    "battery": {"percent": 15},
    "board_connected": {"source": "serial:/dev/ttyACM0"},
    "board_disconnected": {"source": "serial:/dev/ttyACM0", "reason": "unplugged"},
    "error": {"kind": "crc", "message": "bad frame"},
    "joined": {
        "player": {
            "name": "Ann",
            "player_id": 12,
            "joined_by": "card",
            "joined_at": 1767225600.0,
            "average": None,
        }
    },
    "left": {
        "player": {"name": "Guest 1", "player_id": None, "joined_by": "name", "joined_at": 1.0}
    },
    "card_refused": {"reason": "unknown", "message": "Card not registered"},
    "corrected": {"player": 0, "dart": 2, "from": "S19", "to": "T19"},
    "leg_started": {"leg": 2, "set": None, "starter": 1, "decider": False},
    "leg_won": {
        "player": 0,
        "team": None,
        "leg": 1,
        "set": None,
        "result": "checkout",
        "legs_won": [1, 0],
        "sets_won": None,
        "set_won": False,
        "match_won": False,
    },
    "cork_won": {"player": 1},
    "match_called": {"call_id": "t4-m2", "title": "Friday Cup, round 1", "players": ["Ann", "Bob"]},
    "call_cancelled": {"call_id": "t4-m2"},
}


def test_every_event_type_has_an_example() -> None:
    assert set(EVENT_EXAMPLES) == set(EVENT_TYPES)


def event(kind: str, /, **fields: Any) -> dict[str, Any]:
    """An ``event`` payload as the daemon publishes it, written out."""
    return {"type": kind, "at": 1767225600.0, **fields}


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_event_examples_match_the_schema(kind: str) -> None:
    payload = event(kind, **EVENT_EXAMPLES[kind])
    assert errors("event", payload) == []
    assert json.loads(json.dumps(payload)) == payload


def test_event_schema_checks_fields() -> None:
    assert errors("event", event("dart", player=0)) != []  # no segment
    assert errors("event", event("dart", player=0, segment="T21")) != []
    assert errors("event", event("stuck", row=-1, col=0)) != []
    assert errors("event", event("contact", segment="T20")) != []  # no such type
    assert errors("event", {"type": "nope", "at": 1.0}) != []
    assert errors("event", {"type": "bust", "player": 0}) != []  # no "at"
    # Events are open: extra keys are fine.
    assert errors("event", event("bust", player=0, name="Ann")) == []


# ------------------------------------------------------------------- schemas


@pytest.mark.parametrize("name", TOPIC_NAMES)
def test_every_schema_is_valid(name: str) -> None:
    Draft202012Validator.check_schema(TOPICS[name].schema)
    assert TOPICS[name].schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def played(
    game_id: str,
    log: str,
    players: list[str] | None = None,
    teams: Any = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    game = new_game(game_id, players or ["Ann", "Bob"], options, teams)
    for token in log.split():
        game.push(parse_event(token))
    return game.state()


def board(**changes: Any) -> dict[str, Any]:
    return {**BOARD, **changes}


def test_state_schema_accepts_real_states() -> None:
    states = [
        (played("x01", ""), "throwing"),
        (played("x01", "T20 T20 T20"), "takeout"),
        (played("cricket", "T20 S19 NEXT T15"), "throwing"),
        (played("cricket-shanghai", "S20 T20"), "throwing"),
        (
            played(
                "x01",
                "T20 T20 T20 S20 S5 S1 T20 T20",
                ["Ann", "Bob", "Cy", "Dee"],
                {"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee"]},
            ),
            "takeout",
        ),
    ]
    for state, phase in states:
        document = json.loads(json.dumps({**state, "board": BOARD, "phase": phase}))
        assert errors("state", document) == [], state


def test_state_schema_accepts_a_finished_game() -> None:
    state = played("x01", "T20 T20 T20 S1 S1 S1 T20 T19 D2", options={"start": 301})
    assert state["finished"]
    assert errors("state", {**state, "board": BOARD, "phase": "finished"}) == []
    assert errors("state", {**state, "board": BOARD, "phase": "throwing"}) != []
    running = played("x01", "T20")
    assert errors("state", {**running, "board": BOARD, "phase": "finished"}) != []


def test_state_schema_idle() -> None:
    assert errors("state", {"game": None, "board": BOARD, "phase": "idle"}) == []
    assert errors("state", {"board": BOARD, "phase": "idle"}) == []
    assert errors("state", {"game": "x01", "board": BOARD, "phase": "idle"}) != []
    # Outside idle, every game key is needed.
    assert errors("state", {"game": None, "board": BOARD, "phase": "throwing"}) != []


def test_state_schema_board() -> None:
    state = played("x01", "T20")
    good = [
        board(),
        board(connected=False, status="disconnected"),
        board(status="stuck", stuck_cells=[[1, 2], [0, 7]]),
    ]
    for b in good:
        assert errors("state", {**state, "board": b, "phase": "throwing"}) == [], b
    bad = [
        board(status="stuck", connected=False),
        board(status="disconnected"),
        board(status="broken"),
        board(stuck_cells=[[1]]),
        board(stuck_cells=[[1, 2, 3]]),
        board(stuck_cells=[[1, -2]]),
        {k: v for k, v in BOARD.items() if k != "stuck_cells"},
    ]
    for b in bad:
        assert errors("state", {**state, "board": b, "phase": "throwing"}) != [], b
    assert errors("state", {**state, "phase": "throwing"}) != []
    assert errors("state", {**state, "board": BOARD}) != []
    assert errors("state", {**state, "board": BOARD, "phase": "sleeping"}) != []
    assert set(PHASES) == {"idle", "throwing", "takeout", "finished", "waiting-remote"}


def test_result_schema() -> None:
    result = {
        "result_id": "7f8a",
        "board": "b1",
        "game": "x01",
        "options": {"start": 301},
        "players": [{"name": "Ann", "team": None, "score": 0, "stats": {"darts": 3}}],
        "teams": None,
        "winner": 0,
        "winner_name": "Ann",
        "winner_team": None,
        "result": "checkout",
        "started_at": 1.0,
        "finished_at": 2.0,
        "log": "T20 T20 T20\n",
    }
    assert errors("result", result) == []
    assert errors("result", {k: v for k, v in result.items() if k != "result_id"}) != []
    assert errors("result", {**result, "winner": "Ann"}) != []


def test_instance_schema_and_what_the_daemon_publishes() -> None:
    from firmware_bridge.daemon.board_claim import BoardClaim, parse_instance

    claim = BoardClaim("b1", clock=lambda: 1767225600.0)
    announcement = json.loads(claim.announcement())
    assert errors("instance", announcement) == []
    assert announcement["since"] == announcement["at"] == 1767225600.0
    probe = {**announcement, "probe": True}
    assert errors("instance", probe) == []
    assert parse_instance(json.dumps(probe).encode()) is not None
    for broken in ({"instance": "x"}, {**announcement, "pid": "4242"}, "online"):
        assert errors("instance", broken) != []
        assert parse_instance(json.dumps(broken).encode()) is None
    assert parse_instance(b"") is None and parse_instance(b"{") is None


def test_availability_schema() -> None:
    assert errors("availability", "online") == []
    assert errors("availability", "offline") == []
    assert errors("availability", "away") != []


# --------------------------------------------------------- Home Assistant


def test_discovery_messages() -> None:
    messages = discovery_messages("homeassistant", "oche", "b1", "Pub board", 3)
    topics = [t for t, _ in messages]
    assert len(topics) == len(set(topics)) == 5 + 3 + 1  # and the award event entity
    award_topic, award = messages.pop()
    assert award_topic == "homeassistant/event/oche_b1/award/config"
    assert award["unique_id"] == "oche_b1_award"
    assert award["default_entity_id"] == f"event.{award['object_id']}" == "event.oche_b1_award"
    assert award["state_topic"] == "oche/b1/event"
    assert award["event_types"] == list(AWARD_IDS)
    assert award["availability_topic"] == "oche/b1/availability"
    unique_ids = [c["unique_id"] for _, c in messages]
    assert len(set(unique_ids)) == len(unique_ids)
    assert set(unique_ids) == {
        f"oche_b1_{what}"
        for what in (
            "game",
            "current_player",
            "last_dart",
            "phase",
            "journal",
            "score_0",
            "score_1",
            "score_2",
        )
    }
    for discovery_topic, config in messages:
        what = config["unique_id"].removeprefix("oche_b1_")
        assert discovery_topic == f"homeassistant/sensor/oche_b1/{what}/config"
        assert re.fullmatch(
            r"homeassistant/sensor/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/config", discovery_topic
        )
        assert config["default_entity_id"] == f"sensor.oche_b1_{what}"
        # Home Assistant before 2025.10 ignores default_entity_id: without
        # object_id the entity would be sensor.pub_board_player_1_score.
        assert config["object_id"] == f"oche_b1_{what}"
        assert config["state_topic"] == "oche/b1/state"
        assert config["availability_topic"] == "oche/b1/availability"
        assert (config["payload_available"], config["payload_not_available"]) == (
            "online",
            "offline",
        )
        assert config["device"] == {
            "identifiers": ["oche_b1"],
            "name": "Pub board",
            "manufacturer": "Oche",
            "model": "Soft-tip dartboard",
        }
        assert config["origin"]["name"] == "Oche"
        assert "{{" in config["value_template"] or "{%" in config["value_template"]
        json.dumps(config)


def test_discovery_entity_ids_are_lower_case() -> None:
    messages = discovery_messages("ha", "home/darts", "Pub-2", "Pub", 1)
    assert messages.pop()[1]["default_entity_id"] == "event.oche_pub_2_award"
    for discovery_topic, config in messages:
        assert re.fullmatch(r"sensor\.[a-z0-9_]+", config["default_entity_id"])
        assert f"sensor.{config['object_id']}" == config["default_entity_id"]
        assert config["unique_id"].startswith("oche_Pub-2_")
        assert discovery_topic.startswith("ha/sensor/oche_Pub-2/")
        assert config["state_topic"] == "home/darts/Pub-2/state"


def test_discovery_without_players_and_bad_input() -> None:
    assert len(discovery_messages("homeassistant", "oche", "b1", "B", 0)) == 5 + 1
    with pytest.raises(ValueError):
        discovery_messages("homeassistant", "oche", "b1", "B", 9)
    with pytest.raises(ValueError, match="board"):
        discovery_messages("homeassistant", "oche", "b/1", "B", 1)
    with pytest.raises(ValueError, match="prefix"):
        discovery_messages("home+assistant", "oche", "b1", "B", 1)


def test_leaderboard_topic_sits_beside_the_boards() -> None:
    """``{base}/leaderboard/{game}`` cannot be mistaken for a board's topic: no
    board may be called ``leaderboard`` and no game id is a board topic's name."""
    from engine import game_ids

    assert leaderboard_topic("home/darts", "x01") == "home/darts/leaderboard/x01"
    assert leaderboard_topic("oche", "+") == "oche/leaderboard/+"
    with pytest.raises(ValueError, match="game"):
        leaderboard_topic("oche", "x01/state")
    with pytest.raises(ValueError, match="base"):
        leaderboard_topic("oche/#", "x01")
    with pytest.raises(ValueError, match="reserved"):
        check_board_id("leaderboard")
    assert check_board_id("Leaderboard") == "Leaderboard"  # topics are case-sensitive
    assert not set(game_ids()) & set(TOPIC_NAMES)
    assert LEADERBOARD_TOPIC.retain and LEADERBOARD_TOPIC.qos == 1


def test_discovery_removals() -> None:
    removals = discovery_removals("homeassistant", "b1", 2, 4)
    assert removals == [
        ("homeassistant/sensor/oche_b1/score_2/config", ""),
        ("homeassistant/sensor/oche_b1/score_3/config", ""),
    ]
    assert len(discovery_removals("homeassistant", "b1", 0)) == 8
    assert discovery_removals("homeassistant", "b1", 8) == []
    assert discovery_removals("homeassistant", "b1", 3, None) == discovery_removals(
        "homeassistant", "b1", 3, 8
    )
    assert discovery_removals("homeassistant", "b1", 3, 2) == []  # a bigger game removes none
    with pytest.raises(ValueError, match="previous_count"):
        discovery_removals("homeassistant", "b1", 3, 9)
    published = {t for t, _ in discovery_messages("homeassistant", "oche", "b1", "B", 2)}
    assert not published & {t for t, _ in discovery_removals("homeassistant", "b1", 2)}
    # A board on free play: its credits sensors go too.
    assert discovery_removals("homeassistant", "b1", 2, 2, credits=True) == [
        ("homeassistant/sensor/oche_b1/credits/config", ""),
        ("homeassistant/sensor/oche_b1/coins_today/config", ""),
    ]
    coin = discovery_messages("homeassistant", "oche", "b1", "B", 2, credits=True)
    assert {t for t, _ in discovery_removals("homeassistant", "b1", 2, 2, credits=True)} <= {
        t for t, _ in coin
    }


# -------------------------------------------------------------------- the doc


def doc_schemas() -> dict[str, Any]:
    """The JSON blocks under each '### `name`' heading marked as a schema."""
    text = DOC.read_text("utf-8")
    found: dict[str, Any] = {}
    for match in re.finditer(
        r"<!-- schema: (?P<name>[a-z/]+) -->\n```json\n(?P<body>.*?)\n```", text, re.S
    ):
        found[match["name"]] = json.loads(match["body"])
    return found


def test_doc_prints_every_schema_exactly() -> None:
    """``python -m tests.mqtt_doc`` prints them; run it after a contract change."""
    assert regenerated(DOC.read_text("utf-8")) == DOC.read_text("utf-8")
    schemas = doc_schemas()
    assert set(schemas) == {*TOPIC_NAMES, LEADERBOARD_LEVEL, REMOTE_LEVEL}
    for name in TOPIC_NAMES:
        assert schemas[name] == TOPICS[name].schema, name
    assert schemas[LEADERBOARD_LEVEL] == LEADERBOARD_TOPIC.schema
    assert schemas[REMOTE_LEVEL] == REMOTE_TOPIC_SPEC.schema


def test_doc_examples_are_valid() -> None:
    """Every block marked as an example of a topic passes that topic's schema."""
    text = DOC.read_text("utf-8")
    count = 0
    for match in re.finditer(
        r"<!-- example: (?P<name>[a-z/]+) -->\n```json\n(?P<body>.*?)\n```", text, re.S
    ):
        payload = json.loads(match["body"])
        assert errors(match["name"], payload) == [], match["body"]
        if match["name"] == "cmd":
            parse_command(match["body"].encode())
        count += 1
    assert count >= len(EVENT_TYPES) + len(COMMANDS)
    for kind in EVENT_TYPES:
        assert f'"type": "{kind}"' in text, kind
    for name in COMMANDS:
        assert f'"command": "{name}"' in text, name
