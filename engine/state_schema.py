"""The JSON Schema (draft 2020-12) of the state JSON that ``Game.state()`` returns.

The state JSON is the one document every client reads: the displays, the MQTT
``state`` topic and ``oche replay``. :data:`STATE_SCHEMA` describes the keys
every game shares and, with ``if``/``then`` on ``game``, the keys each game of
the engine adds. Those live with each game (``Game.state_schema`` and the
``Game.schema_defs`` it refers to, e.g. ``opened`` for X01, ``marks`` for the
cricket family) and are gathered here from the registry. Player objects and the
document itself stay open (extra keys are allowed) so later games can add their own.

``docs/state.schema.json`` is this dict dumped with
``json.dumps(STATE_SCHEMA, indent=2) + "\\n"``; ``docs/state.md`` explains every
key. This module does no I/O.
"""

from __future__ import annotations

from typing import Any

import engine.games  # noqa: F401  (registers every game, whose fragments are gathered here)
from engine.awards import AWARD_IDS
from engine.game import VisitOver
from engine.games.cricket import MARKS_KEYS
from engine.registry import game_class, game_ids
from engine.schema_parts import (
    BED_NOTATION_PATTERN,
    NON_NEGATIVE_INT,
    TILE_NOTATION_PATTERN,
)

__all__ = [
    "BED_NOTATION_PATTERN",
    "CRICKET_FAMILY",
    "MARKS_KEYS",
    "STATE_SCHEMA",
    "TILE_NOTATION_PATTERN",
    "VISIT_OVER_REASONS",
]

_GAMES = tuple(game_class(game_id) for game_id in game_ids())

CRICKET_FAMILY = tuple(game.id for game in _GAMES if "marks" in game.schema_defs)
"""Game ids whose players carry ``marks``."""

VISIT_OVER_REASONS = (VisitOver.BUST, VisitOver.WIN, VisitOver.ELIMINATION, VisitOver.GAME_OVER)
"""The reasons every client should know; a game may add its own (Killer:
``number chosen``; English Cricket: ``innings over``)."""

_VISIT_OVER: dict[str, Any] = {"type": ["string", "null"], "minLength": 1}
"""Why the visit in progress stopped scoring (``visit_over``), besides ``null``."""


def _game_is(game_id: str) -> dict[str, Any]:
    """An ``if`` clause: the document's ``game`` is ``game_id``."""
    return {"properties": {"game": {"const": game_id}}, "required": ["game"]}


def _game_defs() -> dict[str, dict[str, Any]]:
    """Every game's :attr:`~engine.game.Game.schema_defs` in one namespace; two
    games may share a definition only if they define it the same way."""
    defs: dict[str, dict[str, Any]] = {}
    for game in _GAMES:
        for name, definition in game.schema_defs.items():
            if defs.setdefault(name, definition) != definition:
                raise ValueError(f"{game.id}: schema definition {name!r} differs from another's")
    return defs


_STATS: dict[str, Any] = {
    "description": "Statistics of one thrower (never shared by a team).",
    "type": "object",
    "properties": {
        "darts": {
            "description": "Live darts thrown (dead darts after a bust or a win are not counted).",
            **NON_NEGATIVE_INT,
        },
        "visits": {
            "description": "Visits begun, counting the one in progress.",
            **NON_NEGATIVE_INT,
        },
        "bounce_outs": {
            "description": "Darts taken back by BOUNCE: each stays thrown (in darts) as a "
            "miss. Not an undo. Absent from the states of an Oche without bounce-outs.",
            **NON_NEGATIVE_INT,
        },
    },
    "required": ["darts", "visits"],
}

_PLAYER: dict[str, Any] = {
    "description": "One thrower. Game keys (score, marks, ...) are their side's: a team's "
    "members all show the team's values.",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "score": {
            "description": "The side's score; its meaning depends on the game.",
            "type": "integer",
        },
        "team": {
            "description": "Index into teams, or null when there are no teams.",
            "type": ["integer", "null"],
            "minimum": 0,
        },
        "out": {"description": "The side has been eliminated.", "type": "boolean"},
        "stats": {"$ref": "#/$defs/stats"},
    },
    "required": ["name", "score", "team", "out", "stats"],
}

_TEAM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "players": {
            "description": "Indices into players, in throwing order.",
            "type": "array",
            "items": NON_NEGATIVE_INT,
            "minItems": 1,
            "uniqueItems": True,
        },
    },
    "required": ["name", "players"],
}


STATE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Oche game state",
    "description": "The state JSON every Oche game returns from Game.state(); see docs/state.md.",
    "type": "object",
    "properties": {
        "game": {
            "description": "The game id, e.g. x01, cricket.",
            "type": "string",
            "minLength": 1,
        },
        "options": {
            "description": "Every option of the game with its value (defaults filled in).",
            "type": "object",
            "additionalProperties": {"type": ["integer", "string", "boolean"]},
        },
        "players": {
            "description": "The throwers, in the order they were given.",
            "type": "array",
            "items": {"$ref": "#/$defs/player"},
            "minItems": 1,
            "maxItems": 8,
        },
        "teams": {
            "description": "The teams in throwing order, or null for a game without teams.",
            "oneOf": [
                {"type": "null"},
                {"type": "array", "items": {"$ref": "#/$defs/team"}, "minItems": 2},
            ],
        },
        "current_player": {
            "description": "Index of the player to throw (the last thrower once finished).",
            **NON_NEGATIVE_INT,
        },
        "round": {"description": "The round, from 1.", "type": "integer", "minimum": 1},
        "visit": {
            "description": "Darts of the visit in progress (the last visit once finished).",
            "type": "array",
            "items": {"$ref": "#/$defs/bed"},
            "maxItems": 3,
        },
        "visit_over": {
            "description": "Why the rest of the visit in progress is dead, or null: "
            + ", ".join(VISIT_OVER_REASONS)
            + ", or a game's own reason.",
            **_VISIT_OVER,
        },
        "last_visit": {
            "description": "The visit that ended last, kept while the next one starts "
            "(so a display can show the darts to remove), or null before any visit ended.",
            "oneOf": [{"type": "null"}, {"$ref": "#/$defs/last_visit"}],
        },
        "visit_awards": {
            "description": "The awards of the visit in `visit` once it ended the game "
            "(docs/awards.md); empty while it is open.",
            "$ref": "#/$defs/awards",
        },
        "finished": {"type": "boolean"},
        "winner": {
            "description": "Winning player (a team's first player), or null.",
            "type": ["integer", "null"],
            "minimum": 0,
        },
        "winner_team": {
            "description": "Winning team's index, or null.",
            "type": ["integer", "null"],
            "minimum": 0,
        },
        "result": {
            "description": "How the game ended (checkout, closed-all, round-limit, ...), or null.",
            "type": ["string", "null"],
        },
    },
    "required": [
        "game",
        "options",
        "players",
        "teams",
        "current_player",
        "round",
        "visit",
        "visit_over",
        "last_visit",
        "visit_awards",
        "finished",
        "winner",
        "winner_team",
        "result",
    ],
    "allOf": [
        *(
            {"if": _game_is(game.id), "then": game.state_schema}
            for game in _GAMES
            if game.state_schema
        ),
        {
            "if": {"properties": {"finished": {"const": False}}, "required": ["finished"]},
            "then": {
                "properties": {
                    "visit_over": {"not": {"enum": ["win", "game-over"]}},
                    "winner": {"type": "null"},
                    "winner_team": {"type": "null"},
                    "result": {"type": "null"},
                }
            },
            "else": {
                "properties": {"visit_over": {"type": "string"}, "result": {"type": "string"}}
            },
        },
        {
            "if": {"properties": {"teams": {"type": "null"}}, "required": ["teams"]},
            "then": {
                "properties": {
                    "winner_team": {"type": "null"},
                    "players": {"items": {"properties": {"team": {"type": "null"}}}},
                }
            },
            "else": {
                "properties": {"players": {"items": {"properties": {"team": {"type": "integer"}}}}}
            },
        },
        {
            "if": {"properties": {"winner": {"type": "null"}}, "required": ["winner"]},
            "then": {"properties": {"winner_team": {"type": "null"}}},
        },
    ],
    "$defs": {
        "bed": {
            "description": "A dart: S1-S20, D1-D20, T1-T20, SB (25), DB (50) or M (miss).",
            "type": "string",
            "pattern": BED_NOTATION_PATTERN,
        },
        "last_visit": {
            "type": "object",
            "properties": {
                "player": {"description": "Who threw it.", **NON_NEGATIVE_INT},
                "darts": {"type": "array", "items": {"$ref": "#/$defs/bed"}, "maxItems": 3},
                "visit_over": {
                    "description": "Why it stopped scoring early, or null.",
                    **_VISIT_OVER,
                },
                "awards": {
                    "description": "The visit's awards (docs/awards.md), or empty.",
                    "$ref": "#/$defs/awards",
                },
            },
            "required": ["player", "darts", "visit_over", "awards"],
            "additionalProperties": False,
        },
        "awards": {
            "description": "Awards, a visit's feats first, then its award: "
            + ", ".join(AWARD_IDS)
            + ".",
            "type": "array",
            "items": {"enum": list(AWARD_IDS)},
            "uniqueItems": True,
        },
        "stats": _STATS,
        "player": _PLAYER,
        "team": _TEAM,
        **_game_defs(),
    },
}
"""The schema of ``Game.state()``; ``docs/state.schema.json`` is this, dumped."""
