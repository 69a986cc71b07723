"""The leaderboard service's own topics: ``{base}/leaderboard/{game}`` (a
game's top ten, retained) and its availability.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from mqtt_contract.schema_parts import DRAFT, TIMESTAMP
from mqtt_contract.topic_names import LEADERBOARD_LEVEL, check_base
from mqtt_contract.topics import TopicSpec

Period = Literal["day", "week", "month", "all"]
"""A leaderboard period: the venue's local day, ISO week (from Monday), month, or all time."""

PERIODS: tuple[Period, ...] = get_args(Period)
"""Every :data:`Period`, shortest first: what the API, ``oche leaderboard show``
and the display take."""

LEADERBOARD_TOP = 10
"""How many rows a ``{base}/leaderboard/{game}`` snapshot carries at most."""

_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_NULLABLE_NUMBER: dict[str, Any] = {"type": ["number", "null"]}
_NULLABLE_COUNT: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}


def _leaderboard_schema() -> dict[str, Any]:
    row = {
        "description": "One player's row, as GET /api/leaderboard returns it. X01 rows add "
        "three_dart_average, first9_average, checkout_percent, highest_checkout, "
        "best_leg_darts, count_100, count_140 and count_180; Cricket and Cricket-Shanghai "
        "rows add mpr, best_game_mpr, count_5_marks, count_7_marks and count_9_marks "
        "(docs/leaderboard.md).",
        "type": "object",
        "properties": {
            "rank": {"type": "integer", "minimum": 1},
            "player": {"type": "string", "minLength": 1},
            "venue": {"type": "string"},
            "played": _COUNT,
            "won": _COUNT,
            "win_percent": {"type": "number", "minimum": 0, "maximum": 100},
            "rating": {"description": "The conservative OpenSkill ordinal.", "type": "number"},
            "highlight": {
                "description": "The player's best of the game's own highlight, or null.",
                **_NULLABLE_NUMBER,
            },
            "three_dart_average": _NULLABLE_NUMBER,
            "first9_average": _NULLABLE_NUMBER,
            "checkout_percent": _NULLABLE_NUMBER,
            "highest_checkout": _NULLABLE_COUNT,
            "best_leg_darts": _NULLABLE_COUNT,
            "count_100": _COUNT,
            "count_140": _COUNT,
            "count_180": _COUNT,
            "mpr": _NULLABLE_NUMBER,
            "best_game_mpr": _NULLABLE_NUMBER,
            "count_5_marks": _COUNT,
            "count_7_marks": _COUNT,
            "count_9_marks": _COUNT,
        },
        "required": ["rank", "player", "venue", "played", "won", "win_percent", "rating"],
    }
    record = {
        "description": "One record: the game it was set in, what it is, who set it, the "
        "value, the result it came from and when (Unix seconds).",
        "type": ["object", "null"],
        "properties": {
            "game": {"type": "string"},
            "label": {"type": "string"},
            "player": {"type": "string"},
            "value": {"type": "number"},
            "result_id": {"type": "string"},
            "at": {"type": "number"},
        },
        "required": ["game", "label", "player", "value", "result_id", "at"],
    }
    return {
        "$schema": DRAFT,
        "title": "Oche leaderboard topic",
        "description": "A game's table, published retained by the leaderboard service on "
        "{base}/leaderboard/{game} after new results and on every (re)connection: the "
        f"first {LEADERBOARD_TOP} rows by rank of the day's table, or of the all-time table "
        "when nobody played the game today (period says which), and the day's records.",
        "type": "object",
        "properties": {
            "game": {"description": "The game id, as in the topic.", "type": "string"},
            "updated_at": {"description": "When the service built it.", **TIMESTAMP},
            "period": {"description": "The table's period.", "enum": ["day", "all"]},
            "top": {"type": "array", "items": {"$ref": "#/$defs/row"}, "maxItems": LEADERBOARD_TOP},
            "records": {
                "description": "The day's records over every game (GET /api/records?period=day).",
                "type": "object",
                "properties": {
                    "period": {"const": "day"},
                    "venue": {"type": ["string", "null"]},
                    "highest_checkout": {"$ref": "#/$defs/record"},
                    "best_leg": {"$ref": "#/$defs/record"},
                    "most_180s": {"$ref": "#/$defs/record"},
                    "highlights": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/record", "type": "object"},
                    },
                },
                "required": ["highest_checkout", "best_leg", "most_180s", "highlights"],
            },
        },
        "required": ["game", "updated_at", "period", "top", "records"],
        "$defs": {"row": row, "record": record},
    }


LEADERBOARD_TOPIC = TopicSpec(LEADERBOARD_LEVEL, retain=True, qos=1, schema=_leaderboard_schema())
"""``{base}/leaderboard/{game}``: not a board's topic, so not in :data:`TOPICS`."""


def leaderboard_availability_topic(base: str, instance: str) -> str:
    """``{base}/leaderboard/availability/{instance}``: a leaderboard service's
    retained ``online``/``offline`` (its last will). ``instance`` is its session's
    client id, or ``+`` to subscribe to every instance. A board that sees one
    come online sends again every result that no service has stored yet."""
    check_base(base)
    if instance != "+" and (
        not instance or any(c in instance for c in "/+#") or instance != instance.strip()
    ):
        raise ValueError(f"bad leaderboard instance {instance!r}: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/availability/{instance}"


def leaderboard_topic(base: str, game: str) -> str:
    """``{base}/leaderboard/{game}``; ``game`` may be ``+`` to subscribe to every
    game. A ValueError names a bad base or game."""
    check_base(base)
    if game != "+" and (not game or any(c in game for c in "/+#") or game != game.strip()):
        raise ValueError(f"bad game id {game!r} for a leaderboard topic: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/{game}"
