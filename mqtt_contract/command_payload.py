"""The ``cmd`` and ``cmd/response`` schemas: each command and its arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from engine.bot_targets import LEVELS
from engine.lineup import MAX_NAME_LENGTH, MAX_PLAYERS
from mqtt_contract.json_types import JsonObject, Meta, object_schema
from mqtt_contract.schema_parts import BED_ANY_CASE, COMMAND_ID, DRAFT
from mqtt_contract.state_payload import CPU_AVERAGES
from mqtt_contract.topic_names import MAX_COMMAND_BYTES

COMMANDS = ("new_game", "next", "undo", "miss", "dart", "end_game", "rematch", "bounce")
"""The commands a board takes on ``{base}/{board}/cmd``."""

_NAME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": r"\S",
    "maxLength": MAX_NAME_LENGTH,
    "description": f"Up to {MAX_NAME_LENGTH} characters, no control characters.",
}

_CPU_PLAYER_SCHEMA: dict[str, Any] = {
    "description": "A computer player: the daemon throws its darts.",
    "type": "object",
    "properties": {
        "name": _NAME_SCHEMA,
        "cpu": {
            "description": f"A level {LEVELS[0]}-{LEVELS[-1]}, or "
            f'{{"average": A}} with A from {CPU_AVERAGES[0]:g} to {CPU_AVERAGES[1]:g} '
            "(the three-dart average it is to throw).",
            "oneOf": [
                {"type": "integer", "minimum": LEVELS[0], "maximum": LEVELS[-1]},
                {
                    "type": "object",
                    "properties": {
                        "average": {
                            "type": "number",
                            "minimum": CPU_AVERAGES[0],
                            "maximum": CPU_AVERAGES[1],
                        }
                    },
                    "required": ["average"],
                    "additionalProperties": False,
                },
            ],
        },
    },
    "required": ["name", "cpu"],
    "additionalProperties": False,
}

_REMOTE_PLAYER_SCHEMA: dict[str, Any] = {
    "description": "A player at another board (a remote match, docs/remote.md): that "
    "board's id on this board's base, or base/board.",
    "type": "object",
    "properties": {"name": _NAME_SCHEMA, "board": {"type": "string", "minLength": 1}},
    "required": ["name", "board"],
    "additionalProperties": False,
}

_PLAYER_OBJECT_SCHEMA: dict[str, Any] = {
    "description": "A player at this board, as the bare name is.",
    "type": "object",
    "properties": {"name": _NAME_SCHEMA},
    "required": ["name"],
    "additionalProperties": False,
}

_PLAYER_ITEM: dict[str, Any] = {
    "oneOf": [_NAME_SCHEMA, _PLAYER_OBJECT_SCHEMA, _CPU_PLAYER_SCHEMA, _REMOTE_PLAYER_SCHEMA]
}

COMMAND_ARGUMENTS: dict[str, dict[str, Any]] = {
    "new_game": {
        "game": {"description": "A game id: x01, cricket, ...", "type": "string", "minLength": 1},
        "options": {
            "description": "Game options (see the game's docs); defaults fill the rest.",
            "type": "object",
        },
        "players": {
            "description": '1-8 players, in order: a name (or {"name": ...}), a computer '
            'player {"name": ..., "cpu": LEVEL} or {"name": ..., "cpu": {"average": AVERAGE}}, '
            'or a player at another board {"name": ..., "board": BOARD} (docs/remote.md). '
            "Required unless teams is given.",
            "type": "array",
            "items": _PLAYER_ITEM,
            "minItems": 1,
            "maxItems": MAX_PLAYERS,
        },
        "teams": {
            "description": "Team name -> member names in throwing order (at least two teams).",
            "type": "object",
            "minProperties": 2,
            "propertyNames": _NAME_SCHEMA,
            "additionalProperties": {
                "type": "array",
                "items": _PLAYER_ITEM,
                "minItems": 1,
                "maxItems": MAX_PLAYERS,
            },
        },
    },
    "dart": {
        "segment": {
            "description": "The bed, in any case: S1-S20, D1-D20, T1-T20, SB, DB or M.",
            "type": "string",
            "pattern": BED_ANY_CASE,
        }
    },
}
REQUIRED_ARGUMENTS: dict[str, tuple[str, ...]] = {"new_game": ("game",), "dart": ("segment",)}


def command_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "command": {"enum": [*COMMANDS]},
        "id": COMMAND_ID,
    }
    clauses: list[dict[str, Any]] = []
    for name in COMMANDS:
        arguments = COMMAND_ARGUMENTS.get(name, {})
        properties.update(arguments)
        then: dict[str, Any] = {"propertyNames": {"enum": ["command", "id", *arguments]}}
        if name in REQUIRED_ARGUMENTS:
            then["required"] = [*REQUIRED_ARGUMENTS[name]]
        if name == "new_game":
            then["anyOf"] = [{"required": ["players"]}, {"required": ["teams"]}]
        clauses.append(
            {
                "if": {"properties": {"command": {"const": name}}, "required": ["command"]},
                "then": then,
            }
        )
    return {
        "$schema": DRAFT,
        "title": "Oche cmd topic",
        "description": f"A command to the board: a JSON object of at most {MAX_COMMAND_BYTES} "
        "bytes (UTF-8). Keys a command does not take are refused.",
        "type": "object",
        "properties": properties,
        "required": ["command"],
        "allOf": clauses,
    }


@dataclass(frozen=True, slots=True)
class CommandResponse(JsonObject):
    """The answer to one command (``cmd/response``, ``operator/cmd/response``):
    ``error`` is null when ok and a non-empty reason when not."""

    json_closed: ClassVar[bool] = True
    json_extra: ClassVar[Mapping[str, Any]] = {
        "if": {"properties": {"ok": {"const": True}}},
        "then": {"properties": {"error": {"type": "null"}}},
        "else": {"properties": {"error": {"type": "string", "minLength": 1}}},
    }

    id: Annotated[
        str | int | None,
        Meta(description="The command's id, or null when it had none or it could not be read."),
    ]
    ok: bool
    error: Annotated[str | None, Meta(description="Why the command was refused, or null when ok.")]

    def __post_init__(self) -> None:
        # What json_extra says, for a response built or read here.
        if self.ok and self.error is not None:
            raise ValueError("a successful response carries no error")
        if not self.ok and not self.error:
            raise ValueError("a refused command needs an error message")


RESPONSE_TOPIC = (
    "Oche cmd/response topic",
    "The answer to one command.",
    lambda defs: object_schema(CommandResponse, defs),
)
"""The response topics' title, description and schema body (for ``topic_schema``)."""
