"""The ``event`` topic: its event types and their payload schema."""

from __future__ import annotations

from typing import Any

from engine.state_schema import MARKS_KEYS
from mqtt_contract.schema_parts import BED, DRAFT, INDEX, TIMESTAMP
from mqtt_contract.state_payload import DART_SOURCES

CREDIT_SOURCES = ("coin", "remote", "happy-hour", "free-play", "game")
"""Where a credit change comes from (a line of the books, a ``credits`` event)."""

OPERATOR_COMMANDS = ("add_credits", "set_free_play", "reset_books", "set_price")
"""The commands on ``{base}/{board}/operator/cmd`` (docs/credits.md); refused on ``cmd``."""

EVENT_TYPES = (
    "game_started",
    "dart",
    "bust",
    "visit_end",
    "takeout",
    "player_change",
    "points",
    "undo",
    "winner",
    "game_over",
    "stuck",
    "released",
    "board_connected",
    "board_disconnected",
    "error",
    "hit",
    "button",
    "credits",
    "bounce",
    "takeout_sensed",
    "battery",
)
"""The ``type`` of every ``event`` payload."""

_PLAYER_FIELD = {"description": "Player index into the state's players.", **INDEX}
NULLABLE_INDEX: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}
_MARKS_FIELDS: dict[str, Any] = {
    "marks": {
        "description": "Only on the event that moves cricket marks (Cricket's dart, "
        "Cricket-Shanghai's visit_end): the marks it scored, as the statistics count them.",
        **INDEX,
    },
    "closed": {
        "description": "With marks: the targets the thrower's side closed, in marks order.",
        "type": "array",
        "items": {"enum": [*MARKS_KEYS]},
        "uniqueItems": True,
    },
}

_EVENT_FIELDS: dict[str, tuple[dict[str, Any], list[str]]] = {
    # type: (properties, required)
    "game_started": (
        {
            "game": {"type": "string", "minLength": 1},
            "options": {"type": "object"},
            "players": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "teams": {
                "description": "As in the state: null, or the teams with player indices.",
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "players": {"type": "array", "items": INDEX},
                    },
                    "required": ["name", "players"],
                },
            },
        },
        ["game", "players"],
    ),
    "dart": (
        {
            "player": _PLAYER_FIELD,
            "segment": BED,
            "points": {"description": "Face value (T20 is 60).", **INDEX},
            "dart": {"description": "1-3 within the visit.", "type": "integer", "minimum": 1},
            "scored": {"description": "False for a dead dart.", "type": "boolean"},
            "source": {
                "description": "Who entered the dart: board (detected), manual (a dart or "
                "miss command, the MISS button, the misses NEXT fills in) or cpu (thrown by "
                "the daemon for a computer player).",
                "enum": [*DART_SOURCES],
            },
            **_MARKS_FIELDS,
        },
        ["player", "segment"],
    ),
    "bust": ({"player": _PLAYER_FIELD}, ["player"]),
    "visit_end": (
        {
            "player": _PLAYER_FIELD,
            "darts": {"type": "array", "items": BED, "maxItems": 3},
            "total": {"type": "integer"},
            "score_change": {
                "description": "The side's score change, or null when unknown (after an undo).",
                "type": ["integer", "null"],
            },
            "visit_over": {"type": ["string", "null"]},
            "game": {"description": "The game's id: x01, cricket, ...", "type": "string"},
            **_MARKS_FIELDS,
        },
        ["player", "darts"],
    ),
    "takeout": ({"player": _PLAYER_FIELD}, ["player"]),
    "player_change": ({"player": _PLAYER_FIELD, "previous": _PLAYER_FIELD}, ["player"]),
    "points": (
        {
            "player": _PLAYER_FIELD,
            "points": {"type": "integer", "minimum": 1},
            "reason": {
                "description": "What scored, e.g. fifteen, pair, run of 3, go, hand, crib.",
                "type": "string",
                "minLength": 1,
            },
        },
        ["player", "points", "reason"],
    ),
    "undo": ({"player": _PLAYER_FIELD}, []),
    "winner": ({"player": _PLAYER_FIELD, "team": NULLABLE_INDEX}, ["player"]),
    "game_over": (
        {"result": {"type": "string"}, "winner": NULLABLE_INDEX},
        ["result"],
    ),
    "stuck": ({"row": INDEX, "col": INDEX}, ["row", "col"]),
    "released": ({"row": INDEX, "col": INDEX}, ["row", "col"]),
    "board_connected": ({"source": {"type": "string"}}, []),
    "board_disconnected": (
        {"source": {"type": "string"}, "reason": {"type": "string"}},
        [],
    ),
    "error": (
        {
            "kind": {"description": "Stable, for counting (crc, garbage, ...).", "type": "string"},
            "message": {"type": "string"},
        },
        ["kind", "message"],
    ),
    "hit": (
        {
            "segment": BED,
            "scored": {"description": "Always false: a contact not scored.", "const": False},
            "reason": {
                "description": "Why: no game, takeout, a bounce; exactly cpu-turn while a "
                "computer player throws.",
                "type": "string",
            },
        },
        ["segment", "scored", "reason"],
    ),
    "button": ({"button": {"type": "string", "minLength": 1}}, ["button"]),
    "credits": (
        {
            "change": {"description": "Credits added (+) or spent (-).", "type": "integer"},
            "credits": {"description": "The balance after it.", **INDEX},
            "source": {
                "description": "Where it came from: coin, remote, happy-hour, free-play, game.",
                "enum": [*CREDIT_SOURCES],
            },
            "input": {"description": "For a coin: the coin input.", **NULLABLE_INDEX},
            "reason": {"type": ["string", "null"]},
        },
        ["change", "credits", "source"],
    ),
    "bounce": (
        {
            "player": {
                "description": "Who threw the dart (in takeout, the turn may have passed).",
                **INDEX,
            },
            "segment": {
                "description": "The dart taken back (a bounce-out): it stays thrown, as a "
                "miss (M) in the state's visit, and counts in stats.bounce_outs.",
                **BED,
            },
        },
        ["player", "segment"],
    ),
    "takeout_sensed": (
        {
            "ended_visit": {
                "description": "True when it ended the visit (during takeout, as NEXT); "
                "false when it was only seen.",
                "type": "boolean",
            }
        },
        ["ended_visit"],
    ),
    "battery": (
        {"percent": {"type": "integer", "minimum": 0, "maximum": 100}},
        ["percent"],
    ),
}


def event_schema() -> dict[str, Any]:
    clauses = []
    for kind in EVENT_TYPES:
        properties, required = _EVENT_FIELDS[kind]
        then: dict[str, Any] = {"properties": properties}
        if required:
            then["required"] = required
        clauses.append(
            {"if": {"properties": {"type": {"const": kind}}, "required": ["type"]}, "then": then}
        )
    return {
        "$schema": DRAFT,
        "title": "Oche event topic",
        "description": "Something that happened on the board. Events are open: clients "
        "ignore keys they do not know.",
        "type": "object",
        "properties": {"type": {"enum": [*EVENT_TYPES]}, "at": TIMESTAMP},
        "required": ["type", "at"],
        "allOf": clauses,
    }
