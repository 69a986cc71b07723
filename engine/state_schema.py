"""The JSON Schema (draft 2020-12) of the state JSON that ``Game.state()`` returns.

The state JSON is the one document every client reads: the displays, the MQTT
``state`` topic and ``oche replay``. :data:`STATE_SCHEMA` describes the keys
every game shares and, with ``if``/``then`` on ``game``, the keys each game of
the engine adds (``opened`` for X01; ``marks`` for the cricket family and
``marks_after_visit`` for Cricket-Shanghai). Player objects and the document
itself stay open (extra keys are allowed) so later games can add their own.

``docs/state.schema.json`` is this dict dumped with
``json.dumps(STATE_SCHEMA, indent=2) + "\\n"``; ``docs/state.md`` explains every
key. This module is plain data: it does no I/O.
"""

from __future__ import annotations

from typing import Any

from engine.games.cricket import MARKS_KEYS

__all__ = [
    "BED_NOTATION_PATTERN",
    "CRICKET_FAMILY",
    "MARKS_KEYS",
    "STATE_SCHEMA",
    "TILE_NOTATION_PATTERN",
    "VISIT_OVER_REASONS",
]

BED_NOTATION_PATTERN = r"^(S|D|T)([1-9]|1[0-9]|20)$|^(SB|DB|M)$"
"""A dart in canonical notation: S1-S20, D1-D20, T1-T20, SB, DB or M."""


CRICKET_FAMILY = ("cricket", "cricket-shanghai")
"""Game ids whose players carry ``marks``."""

VISIT_OVER_REASONS = ("bust", "win", "elimination", "game-over")
"""The reasons every client should know; a game may add its own (Killer:
``number chosen``; English Cricket: ``innings over``)."""

_VISIT_OVER: dict[str, Any] = {"type": ["string", "null"], "minLength": 1}
"""Why the visit in progress stopped scoring (``visit_over``), besides ``null``."""

_NON_NEGATIVE_INT: dict[str, Any] = {"type": "integer", "minimum": 0}
_NON_NEGATIVE_NUMBER: dict[str, Any] = {"type": "number", "minimum": 0}


def _game_is(*game_ids: str) -> dict[str, Any]:
    """An ``if`` clause: the document's ``game`` is one of ``game_ids``."""
    test: dict[str, Any] = {"const": game_ids[0]} if len(game_ids) == 1 else {"enum": [*game_ids]}
    return {"properties": {"game": test}, "required": ["game"]}


def _every_player(schema: dict[str, Any]) -> dict[str, Any]:
    """A ``then`` clause: every item of ``players`` also matches ``schema``."""
    return {"properties": {"players": {"items": schema}}}


_MARKS: dict[str, Any] = {
    "description": "Marks per cricket target, 0 (open) to 3 (closed).",
    "type": "object",
    "properties": {key: {"type": "integer", "minimum": 0, "maximum": 3} for key in MARKS_KEYS},
    "required": [*MARKS_KEYS],
    "additionalProperties": False,
}

_STATS: dict[str, Any] = {
    "description": "Statistics of one thrower (never shared by a team).",
    "type": "object",
    "properties": {
        "darts": {
            "description": "Live darts thrown (dead darts after a bust or a win are not counted).",
            **_NON_NEGATIVE_INT,
        },
        "visits": {
            "description": "Visits begun, counting the one in progress.",
            **_NON_NEGATIVE_INT,
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
            "items": _NON_NEGATIVE_INT,
            "minItems": 1,
            "uniqueItems": True,
        },
    },
    "required": ["name", "players"],
}

_X01_PLAYER: dict[str, Any] = {
    "properties": {
        "score": {"description": "Points still to score.", "minimum": 0},
        "opened": {"description": "The side has scored its opening dart.", "type": "boolean"},
        "stats": {
            "properties": {
                "points": _NON_NEGATIVE_INT,
                "points_per_dart": _NON_NEGATIVE_NUMBER,
                "average": _NON_NEGATIVE_NUMBER,
            },
            "required": ["points", "points_per_dart", "average"],
        },
    },
    "required": ["opened"],
}

_CRICKET_PLAYER: dict[str, Any] = {
    "properties": {
        "score": {"minimum": 0},
        "marks": {"$ref": "#/$defs/marks"},
        "stats": {
            "properties": {"marks": _NON_NEGATIVE_INT, "mpr": _NON_NEGATIVE_NUMBER},
            "required": ["marks", "mpr"],
        },
    },
    "required": ["marks"],
}

_CRICKET_SHANGHAI_PLAYER: dict[str, Any] = {
    "properties": {
        "score": {"description": "Elements closed, 0-21.", "maximum": 21},
        "marks_after_visit": {"$ref": "#/$defs/marks"},
    },
    "required": ["marks_after_visit"],
}

TILE_NOTATION_PATTERN = r"^[0-6]-[0-6]$"
"""A domino of the double-six set, low end first: 0-0 to 6-6."""

_TILES: dict[str, Any] = {"type": "array", "items": {"$ref": "#/$defs/tile"}}
_SCORING_LINE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "player": _NON_NEGATIVE_INT,
        "points": {"type": "integer", "minimum": 1},
        "reason": {"type": "string", "minLength": 1},
    },
    "required": ["player", "points", "reason"],
}
_COMBINATIONS: dict[str, Any] = {
    "type": "object",
    "properties": {"points": _NON_NEGATIVE_INT, "combinations": {"type": "array"}},
    "required": ["points", "combinations"],
}

_DOMINO_CRIBBAGE: dict[str, Any] = {
    "description": "Domino cribbage's own keys (docs/games/domino-cribbage.md).",
    "properties": {
        "stage": {"enum": ["discard", "play", "show", "over"]},
        "dealer": _NON_NEGATIVE_INT,
        "hand": {"description": "The hand (deal) number, from 1.", "type": "integer", "minimum": 1},
        "target": {"type": "integer", "minimum": 1},
        "seed": _NON_NEGATIVE_INT,
        "starter": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/tile"}]},
        "crib": {**_TILES, "maxItems": 4},
        "count": {"type": "integer", "minimum": 0, "maximum": 31},
        "count_tiles": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"player": _NON_NEGATIVE_INT, "tile": {"$ref": "#/$defs/tile"}},
                "required": ["player", "tile"],
            },
        },
        "played": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "player": _NON_NEGATIVE_INT,
                    "tile": {"$ref": "#/$defs/tile"},
                    "count": {"type": "integer", "minimum": 0, "maximum": 31},
                    "points": _NON_NEGATIVE_INT,
                },
                "required": ["player", "tile", "count", "points"],
            },
            "maxItems": 8,
        },
        "to_discard": {"type": "integer", "minimum": 0, "maximum": 2},
        "scoring": {"type": "array", "items": _SCORING_LINE},
        "counts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "player": _NON_NEGATIVE_INT,
                    "what": {"enum": ["hand", "crib"]},
                    "tiles": {**_TILES, "maxItems": 4},
                    "fifteens": _COMBINATIONS,
                    "pairs": _COMBINATIONS,
                    "runs": _COMBINATIONS,
                    "total": _NON_NEGATIVE_INT,
                },
                "required": ["player", "what", "tiles", "fifteens", "pairs", "runs", "total"],
            },
            "maxItems": 3,
        },
        "players": {
            "minItems": 2,
            "maxItems": 2,
            "items": {
                "properties": {
                    "score": {"minimum": 0},
                    "previous_score": _NON_NEGATIVE_INT,
                    "hand": {**_TILES, "maxItems": 6},
                    "kept": {**_TILES, "maxItems": 4},
                    "go": {"type": "boolean"},
                    "computer": {"type": "boolean"},
                    "stats": {
                        "properties": {
                            key: _NON_NEGATIVE_INT
                            for key in ("pegged", "hands", "crib", "best_hand", "gos")
                        },
                        "required": ["pegged", "hands", "crib", "best_hand", "gos"],
                    },
                },
                "required": ["previous_score", "hand", "kept", "go", "computer"],
            },
        },
    },
    "required": [
        "stage",
        "dealer",
        "hand",
        "target",
        "seed",
        "starter",
        "crib",
        "count",
        "count_tiles",
        "played",
        "to_discard",
        "scoring",
        "counts",
    ],
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
            **_NON_NEGATIVE_INT,
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
        "finished",
        "winner",
        "winner_team",
        "result",
    ],
    "allOf": [
        {"if": _game_is("x01"), "then": _every_player({"$ref": "#/$defs/x01_player"})},
        {
            "if": _game_is(*CRICKET_FAMILY),
            "then": _every_player({"$ref": "#/$defs/cricket_player"}),
        },
        {
            "if": _game_is("cricket-shanghai"),
            "then": _every_player({"$ref": "#/$defs/cricket_shanghai_player"}),
        },
        {"if": _game_is("domino-cribbage"), "then": {"$ref": "#/$defs/domino_cribbage"}},
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
                "player": {"description": "Who threw it.", **_NON_NEGATIVE_INT},
                "darts": {"type": "array", "items": {"$ref": "#/$defs/bed"}, "maxItems": 3},
                "visit_over": {
                    "description": "Why it stopped scoring early, or null.",
                    **_VISIT_OVER,
                },
            },
            "required": ["player", "darts", "visit_over"],
            "additionalProperties": False,
        },
        "tile": {
            "description": "A domino, low end first: 0-0 to 6-6.",
            "type": "string",
            "pattern": TILE_NOTATION_PATTERN,
        },
        "marks": _MARKS,
        "stats": _STATS,
        "player": _PLAYER,
        "team": _TEAM,
        "x01_player": _X01_PLAYER,
        "cricket_player": _CRICKET_PLAYER,
        "cricket_shanghai_player": _CRICKET_SHANGHAI_PLAYER,
        "domino_cribbage": _DOMINO_CRIBBAGE,
    },
}
"""The schema of ``Game.state()``; ``docs/state.schema.json`` is this, dumped."""
