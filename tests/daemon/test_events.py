"""The daemon's typed events (the contract's, mqtt_contract.event_payload):
one class per published ``type``, whose JSON is the payload docs/mqtt.md shows
and the contract's schema accepts, as the daemon's session builds them."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from engine import parse_event
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from mqtt_contract import EVENT_CLASSES, EVENT_TYPES, TOPICS, DaemonEvent, Dart, Ignored, VisitEnd

EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)


def test_there_is_one_class_per_event_type() -> None:
    assert all(issubclass(cls, DaemonEvent) for cls in EVENT_CLASSES)
    assert sorted(cls.type for cls in EVENT_CLASSES) == sorted(EVENT_TYPES)
    assert len(set(EVENT_TYPES)) == len(EVENT_TYPES)


def test_a_dart_is_published_with_its_keys_in_order() -> None:
    payload = Dart(1767225612.31, 0, "T20", 60, 1, True).to_json()
    expected = (
        '{"type": "dart", "at": 1767225612.31, "player": 0, "segment": "T20", '
        '"points": 60, "dart": 1, "scored": true}'
    )
    assert json.dumps(payload) == expected
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []


def test_a_visit_end_publishes_its_darts_as_a_list_and_names_its_game() -> None:
    payload = VisitEnd(1.0, 0, ("T20", "T20", "T20"), 180, -180, None, "x01").to_json()
    assert payload["darts"] == ["T20", "T20", "T20"]
    assert payload["game"] == "x01"
    assert "marks" not in payload and "closed" not in payload  # not a cricket game
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []


def test_optional_keys_come_last_and_only_with_a_value() -> None:
    payload = Dart(2.0, 1, "T20", 60, 1, True, 3, ("20",)).to_json()
    assert list(payload) == [
        *("type", "at", "player", "segment", "points", "dart", "scored"),
        *("marks", "closed"),
    ]
    assert payload["closed"] == ["20"]
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []
    assert list(EVENT_SCHEMA.iter_errors({**payload, "closed": ["21"]})) != []
    assert list(EVENT_SCHEMA.iter_errors({**payload, "marks": -1})) != []


def events_of(game: str, tokens: str) -> list[dict[str, object]]:
    """The payloads a daemon session publishes for ``tokens``, in order."""
    session = GameSession(SessionSetup(game, {}, ["Ann", "Bob"]))
    payloads = []
    for at, token in enumerate(tokens.split()):
        payloads += [event.to_json() for event in session.apply(parse_event(token), float(at))]
    for payload in payloads:
        assert list(EVENT_SCHEMA.iter_errors(payload)) == [], payload
    return payloads


def test_cricket_darts_carry_the_marks_they_scored_and_the_targets_they_closed() -> None:
    darts = [e for e in events_of("cricket", "S20 D20 T20 NEXT T19 M SB") if e["type"] == "dart"]
    assert [(d["segment"], d["marks"], d["closed"]) for d in darts] == [
        ("S20", 1, []),
        ("D20", 2, ["20"]),  # the third mark closes
        ("T20", 3, []),  # scoring marks: Bob has 20 open
        ("T19", 3, ["19"]),
        ("M", 0, []),
        ("SB", 1, []),
    ]
    visit_ends = [e for e in events_of("cricket", "T20 T19 T18") if e["type"] == "visit_end"]
    assert visit_ends[0]["game"] == "cricket" and "closed" not in visit_ends[0]


def test_a_cricket_shanghai_visit_end_carries_what_the_visit_closed() -> None:
    payloads = events_of("cricket-shanghai", "T20 D20 S20 NEXT M M M NEXT SB SB DB")
    assert all("marks" not in e for e in payloads if e["type"] == "dart")
    visit_ends = [e for e in payloads if e["type"] == "visit_end"]
    assert [(e["player"], e["marks"], e["closed"]) for e in visit_ends] == [
        (0, 3, ["20"]),  # any order within the visit
        (1, 0, []),
        (0, 3, ["bull"]),
    ]


def test_an_ignored_contact_is_a_hit_that_did_not_score() -> None:
    payload = Ignored(2.0, "S5", "no game").to_json()
    assert payload == {
        "type": "hit",
        "at": 2.0,
        "segment": "S5",
        "scored": False,
        "reason": "no game",
    }
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []
