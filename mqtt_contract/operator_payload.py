"""The ``operator/cmd`` and ``books`` topics: the coin-op side of a board."""

from __future__ import annotations

from typing import Any

from mqtt_contract.event_payload import OPERATOR_COMMANDS
from mqtt_contract.schema_parts import COMMAND_ID, DRAFT, INDEX, LATEST_TIMESTAMP, TIMESTAMP

OPERATOR_ARGUMENTS: dict[str, dict[str, Any]] = {
    "add_credits": {
        "count": {
            "description": "add_credits: how many.",
            "type": "integer",
            "minimum": 1,
            "maximum": 10000,
        },
        "reason": {
            "description": "Why (the books keep it).",
            "type": "string",
            "maxLength": 200,
        },
    },
    "set_free_play": {"on": {"description": "set_free_play: on or off.", "type": "boolean"}},
    "reset_books": {
        "reason": {
            "description": "Why (the books keep it).",
            "type": "string",
            "maxLength": 200,
        },
    },
    "set_price": {
        "price": {
            "description": "set_price: credits per player; null: back to the config's.",
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": 1000,
        },
        "game": {
            "description": "set_price: for this game id only (else every game).",
            "type": "string",
            "minLength": 1,
        },
    },
}
OPERATOR_REQUIRED: dict[str, tuple[str, ...]] = {
    "add_credits": ("count",),
    "set_free_play": ("on",),
    "set_price": ("price",),
}


def operator_schema() -> dict[str, Any]:
    """The operator's commands (docs/credits.md)."""
    return {
        "$schema": DRAFT,
        "title": "Oche operator/cmd topic",
        "description": "A command of the board's operator: credits, free play, prices, "
        "the books. Only an operator account may publish here (deploy/mosquitto/acl).",
        "type": "object",
        "properties": {
            "command": {"enum": [*OPERATOR_COMMANDS]},
            "id": COMMAND_ID,
            **{
                key: spec
                for arguments in OPERATOR_ARGUMENTS.values()
                for key, spec in arguments.items()
            },
        },
        "required": ["command"],
        "allOf": [
            {
                "if": {"properties": {"command": {"const": name}}, "required": ["command"]},
                "then": {
                    "propertyNames": {"enum": ["command", "id", *OPERATOR_ARGUMENTS[name]]},
                    "required": [*OPERATOR_REQUIRED.get(name, ())],
                },
            }
            for name in OPERATOR_COMMANDS
        ],
    }


_BOOK_COUNT = {"type": "integer", "minimum": 0}
_BOOK_TIME = {"type": ["number", "null"], "minimum": 0, "maximum": LATEST_TIMESTAMP}
_BOOKS: dict[str, Any] = {
    "description": "One set of books (firmware_bridge/daemon/books.py).",
    "type": "object",
    "properties": {
        "from": {"description": "Where the period starts (null: open).", **_BOOK_TIME},
        "until": {"description": "Where it ends, excluded (null: open).", **_BOOK_TIME},
        "coins": {
            "description": 'Per coin input ("1", "2"): its pulses and the credits they gave.',
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"pulses": _BOOK_COUNT, "credits": _BOOK_COUNT},
                "required": ["pulses", "credits"],
            },
        },
        "coins_total": {"description": "Pulses on every input.", **_BOOK_COUNT},
        "credits_in": {
            "description": "Credits in per source: coin, remote, happy-hour, free-play.",
            "type": "object",
            "additionalProperties": {"type": "integer"},
        },
        "credits_in_total": {"type": "integer"},
        "credits_spent": {"description": "Credits games spent.", "type": "integer"},
        "credits_net": {"type": "integer"},
        "games": {
            "description": "Per game id: games played, finished, and their play time.",
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "played": _BOOK_COUNT,
                    "finished": _BOOK_COUNT,
                    "play_time_s": {"type": "number", "minimum": 0},
                },
            },
        },
        "games_played": _BOOK_COUNT,
        "play_time_s": {"type": "number", "minimum": 0},
        "reset_at": {"description": "Customer books: the last reset_books, or null.", **_BOOK_TIME},
    },
    "required": ["coins", "credits_in", "credits_spent", "games", "games_played", "play_time_s"],
}


def books_schema() -> dict[str, Any]:
    """The retained books snapshot (docs/credits.md): ``books.books()``, with
    the daemon's ``credits`` and ``today``."""
    return {
        "$schema": DRAFT,
        "title": "Oche books topic",
        "description": "The board's books, retained, for its operator only: the customer "
        "books (since their last reset) and the lifetime security books.",
        "type": "object",
        "properties": {
            "board": {"type": "string"},
            "since": _BOOK_TIME,
            "until": _BOOK_TIME,
            "customer": {
                "description": "Since the last reset_books (reset_at; null: never reset).",
                "$ref": "#/$defs/books",
            },
            "security": {
                "description": "The board's whole life; never reset.",
                "$ref": "#/$defs/books",
            },
            "today": {
                "description": "Added by the daemon: since the local midnight "
                "([credits] timezone).",
                "$ref": "#/$defs/books",
            },
            "credits": {"description": "Added by the daemon: credits held now.", **INDEX},
            "updated_at": TIMESTAMP,
        },
        "required": ["customer", "security", "updated_at"],
        "$defs": {"books": _BOOKS},
    }
