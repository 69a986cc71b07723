"""The ``state`` topic's payload schema: the engine's state plus the board,
the phase, credits, the journal, computer players and remote matches.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.state_schema import STATE_SCHEMA
from mqtt_contract.json_types import JsonObject, Meta, object_schema
from mqtt_contract.schema_parts import DRAFT, INDEX
from mqtt_contract.topic_names import (
    BOARD_STATUSES,
    JOURNAL_STATUSES,
    MATCH_ID_PATTERN,
    PHASES,
    WAITING_REMOTE,
)


def _state_body() -> dict[str, Any]:
    """STATE_SCHEMA without its draft and $defs (those go to the document root)."""
    body = copy.deepcopy(STATE_SCHEMA)
    body.pop("$schema", None)
    body.pop("$defs", None)
    return body


_BOARD: dict[str, Any] = {
    "description": "The physical board.",
    "type": "object",
    "properties": {
        "id": {"description": "The board id, as in the topics.", "type": "string"},
        "name": {"description": "A display name.", "type": "string"},
        "connected": {"description": "The daemon can talk to the board.", "type": "boolean"},
        "status": {
            "description": "connected; disconnected; or stuck (connected, with stuck cells "
            "masked until they are released).",
            "enum": [*BOARD_STATUSES],
        },
        "stuck_cells": {
            "description": "Matrix cells [row, col] stuck closed and masked.",
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [INDEX, INDEX],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        "clock_synced": {
            "description": "False when the board's clock is not synchronised (its results "
            "then say so, docs/mqtt.md). Absent: true.",
            "type": "boolean",
        },
        "problem": {
            "description": "What is wrong with the board, in words, or null: while it is "
            "disconnected, why (its port and the reason: '/dev/oche-board: cannot open: No "
            "such file or directory: is the board plugged in?'); while connected, what its "
            "bytes say is set up wrongly (a wrong-protocol or wrong-speed diagnosis, "
            "docs/drivers.md), until the board is read again. Absent from older daemons.",
            "type": ["string", "null"],
        },
    },
    "required": ["id", "name", "connected", "status", "stuck_cells"],
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "disconnected"}}, "required": ["status"]},
            "then": {"properties": {"connected": {"const": False}}},
            "else": {"properties": {"connected": {"const": True}}},
        }
    ],
}


CPU_AVERAGES = (TARGET_AVERAGES[0], TARGET_AVERAGES[-1])
"""The three-dart averages a bot can be asked for (``{"cpu": {"average": x}}``):
the span of the levels, level 1's to level 10's."""

DART_SOURCES = ("board", "manual", "cpu")
"""Who entered a ``dart`` event's dart: the board detected it; a person entered
it (a ``dart`` or ``miss`` command, the MISS button, the misses NEXT fills in);
or the daemon threw it for a computer player."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CpuState(JsonObject):
    """A computer player's ``cpu`` in the state and in a result."""

    json_description: ClassVar[str | None] = (
        "Only on a computer player (added by the daemon, not the engine): its level, the "
        "throw spread it throws with and the three-dart average that spread gives at T20."
    )
    level: Annotated[int, Meta(minimum=LEVELS[0], maximum=LEVELS[-1])]
    sigma_mm: Annotated[float, Meta(exclusive_minimum=0)]
    average: Annotated[float, Meta(minimum=0)]


CPU_STATE: dict[str, Any] = object_schema(CpuState)
""":class:`CpuState`'s schema, for the state's players (still written out below)."""


_CREDITS_STATE: dict[str, Any] = {
    "description": "Added by the daemon (docs/credits.md): free play, or the credits a "
    "coin-operated board holds and what a game costs.",
    "type": "object",
    "properties": {
        "mode": {"enum": ["free", "coin"]},
        "free_play": {"description": "Every game is free now.", "type": "boolean"},
        "credits": {"description": "Credits held.", **INDEX},
        "price": {"description": "Credits per player for a game now.", **INDEX},
        "happy_hour": {"description": "A happy-hour window is on.", "type": "boolean"},
        "game_prices": {
            "description": "Coin mode, not free play: credits per player now for the games "
            "whose price is their own (game id -> credits); others cost player_prices or price.",
            "type": "object",
            "additionalProperties": INDEX,
        },
        "player_prices": {
            "description": "Coin mode, not free play: credits per player now by the number "
            'of paying players ("3" -> credits), for games without a price of their own.',
            "type": "object",
            "additionalProperties": INDEX,
        },
        "coins_today": {
            "description": "Mode coin: coin pulses since the local midnight ([credits] timezone).",
            **INDEX,
        },
    },
    "required": ["mode", "free_play", "credits", "price"],
}

_JOURNAL_STATE: dict[str, Any] = {
    "description": "Added by the daemon (docs/journal.md): whether its journal takes "
    "writes. The daemon counts nothing it cannot journal: while status is not ok every "
    "dart, button and command is refused (each with an error event) until it writes again.",
    "type": "object",
    "properties": {
        "status": {
            "description": "ok; full (the journal's file system is full); failing (another "
            "write failure: a failing or read-only disk, a file damaged since the start).",
            "enum": [*JOURNAL_STATUSES],
        },
        "message": {
            "description": "While status is not ok, the line a screen shows, e.g. "
            '"the journal is full: darts are not counted"; null while it is ok.',
            "type": ["string", "null"],
        },
        "salvaged": {
            "description": "After a start that found the journal damaged, until the next "
            "game starts: the line a screen shows (where the damaged file was set aside, "
            "what was salvaged, whether the game in progress was lost); null otherwise.",
            "type": ["string", "null"],
        },
    },
    "required": ["status", "message", "salvaged"],
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "ok"}}, "required": ["status"]},
            "then": {"properties": {"message": {"type": "null"}}},
            "else": {"properties": {"message": {"type": "string", "minLength": 1}}},
        }
    ],
}

_PLAYER_BOARD: dict[str, Any] = {
    "description": "Only in a remote match (added by the daemon): the board the player "
    "throws at, as base/board.",
    "type": "string",
}

_REMOTE_STATE: dict[str, Any] = {
    "description": "Only while this board is in a remote match (docs/remote.md): the "
    "match, the boards in it and where the player who is up throws. A guest publishes the "
    "host's state with its own board and role.",
    "type": "object",
    "properties": {
        "match": {"type": "string", "pattern": f"^{MATCH_ID_PATTERN}$"},
        "role": {"description": "This board's part in it.", "enum": ["host", "guest"]},
        "host": {"description": "The host, as base/board.", "type": "string"},
        "throwing_at": {
            "description": "The board of the player whose visit is on, as base/board; "
            "null when no visit is (the game is over, or the guest has no state yet).",
            "type": ["string", "null"],
        },
        "boards": {
            "description": "Every board of the match, the host first.",
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "board": {"description": "base/board.", "type": "string"},
                    "name": {"description": "Its display name.", "type": "string"},
                    "online": {"type": "boolean"},
                    "joined": {"type": "boolean"},
                    "applied": {
                        "description": "The highest forwarded action (seq) of this board "
                        "the host has taken, applied or ignored; 0 for the host.",
                        **INDEX,
                    },
                },
                "required": ["board", "name", "online", "joined", "applied"],
            },
        },
        "waiting": {
            "description": "The boards the match waits for (offline, or not joined yet), "
            "as base/board; the phase is waiting-remote while this is not empty.",
            "type": "array",
            "items": {"type": "string"},
        },
    },
    "required": ["match", "role", "host", "throwing_at", "boards", "waiting"],
}


def cpu_label(name: str, level: int | None) -> str:
    """How every screen names a player: ``Robo (CPU 6)`` for a computer player
    of that ``level``, the plain name for a person (``None``)."""
    return name if level is None else f"{name} (CPU {level})"


def state_topic_schema() -> dict[str, Any]:
    body = _state_body()
    game_keys = list(body["required"])
    body["title"] = "Oche state topic"
    body["description"] = (
        "The retained state of a board: the game state (docs/state.md) plus board and "
        "phase. In phase idle there is no game: game is null and the other game keys "
        "are absent."
    )
    game = {**body["properties"]["game"], "type": ["string", "null"]}
    game["description"] = "The game id, e.g. x01, cricket; null in phase idle."
    body["properties"] = {
        **body["properties"],
        "game": game,
        "board": _BOARD,
        "phase": {
            "description": "idle (no game), throwing, takeout (darts being removed), "
            "finished, or waiting-remote (a remote match waits for a board; game is null "
            "on a guest that has no state from the host yet).",
            "enum": [*PHASES],
        },
    }
    body["required"] = ["board", "phase"]
    body["allOf"] = [
        {
            "if": {"properties": {"phase": {"const": "idle"}}, "required": ["phase"]},
            "then": {"properties": {"game": {"type": "null"}}},
        },
        {
            "if": {
                "properties": {"phase": {"enum": ["throwing", "takeout", "finished"]}},
                "required": ["phase"],
            },
            "then": {"required": game_keys, "properties": {"game": {"type": "string"}}},
        },
        {
            "if": {"properties": {"phase": {"const": WAITING_REMOTE}}, "required": ["phase"]},
            "then": {
                "required": ["remote"],
                "if": {"properties": {"game": {"type": "string"}}, "required": ["game"]},
                "then": {"required": game_keys},
            },
        },
        {
            "if": {"properties": {"phase": {"const": "finished"}}, "required": ["phase"]},
            "then": {"properties": {"finished": {"const": True}}},
        },
        {
            "if": {
                "properties": {"phase": {"enum": ["throwing", "takeout"]}},
                "required": ["phase"],
            },
            "then": {"properties": {"finished": {"const": False}}},
        },
        *body["allOf"],
    ]
    body["properties"]["remote"] = _REMOTE_STATE
    body["properties"]["credits"] = _CREDITS_STATE
    body["properties"]["journal"] = _JOURNAL_STATE
    defs = copy.deepcopy(STATE_SCHEMA["$defs"])
    defs["player"]["properties"]["cpu"] = CPU_STATE
    defs["player"]["properties"]["board"] = _PLAYER_BOARD
    return {"$schema": DRAFT, **body, "$defs": defs}
