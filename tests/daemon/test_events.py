"""The daemon's typed events: one class per published ``type``, whose JSON is
the payload docs/mqtt.md shows and the contract's schema accepts."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from firmware_bridge.daemon import events
from firmware_bridge.daemon.events import DaemonEvent, Dart, Ignored, VisitEnd
from firmware_bridge.mqtt_contract import EVENT_TYPES, TOPICS

EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)


def test_there_is_one_class_per_event_type() -> None:
    classes = [getattr(events, name) for name in events.__all__ if name != "DaemonEvent"]
    assert all(issubclass(cls, DaemonEvent) for cls in classes)
    assert sorted(cls.type for cls in classes) == sorted(EVENT_TYPES)


def test_a_dart_is_published_with_its_keys_in_order() -> None:
    payload = Dart(1767225612.31, 0, "T20", 60, 1, True).to_json()
    expected = (
        '{"type": "dart", "at": 1767225612.31, "player": 0, "segment": "T20", '
        '"points": 60, "dart": 1, "scored": true}'
    )
    assert json.dumps(payload) == expected
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []


def test_a_visit_end_publishes_its_darts_as_a_list() -> None:
    payload = VisitEnd(1.0, 0, ("T20", "T20", "T20"), 180, -180, None).to_json()
    assert payload["darts"] == ["T20", "T20", "T20"]
    assert list(EVENT_SCHEMA.iter_errors(payload)) == []


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
