"""The ``state`` topic's payload schema: the engine's state plus the board,
the phase, credits, the journal, computer players, remote matches and the lobby.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.state_schema import STATE_SCHEMA
from mqtt_contract.json_types import (
    PRESENT,
    JsonObject,
    Meta,
    object_schema,
    omitted,
    required,
    schema_of,
)
from mqtt_contract.lobby_payload import LobbyState
from mqtt_contract.match_payload import CallView, MatchView
from mqtt_contract.schema_parts import DRAFT
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


Index = Annotated[int, Meta(minimum=0)]


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardView(JsonObject):
    """The physical board (``board``), added by the daemon: its schema, and
    what a client reads of it (:meth:`~JsonObject.read`)."""

    json_description: ClassVar[str | None] = "The physical board."
    json_extra: ClassVar[Mapping[str, Any]] = {
        "allOf": [
            {
                "if": {"properties": {"status": {"const": "disconnected"}}, "required": ["status"]},
                "then": {"properties": {"connected": {"const": False}}},
                "else": {"properties": {"connected": {"const": True}}},
            }
        ]
    }

    present: bool = field(default=False, metadata=PRESENT)
    """The state has a ``board`` object at all."""
    id: Annotated[str | None, Meta(description="The board id, as in the topics.")] = required()
    name: Annotated[str | None, Meta(description="A display name.")] = required()
    connected: Annotated[bool | None, Meta(description="The daemon can talk to the board.")] = (
        required()
    )
    """Whether the daemon can talk to the board; ``None``: the state does not say."""
    status: Annotated[
        str | None,
        Meta(
            description="connected; disconnected; or stuck (connected, with stuck cells "
            "masked until they are released).",
            enum=BOARD_STATUSES,
        ),
    ] = required()
    stuck_cells: Annotated[
        tuple[tuple[Index, Index], ...],
        Meta(description="Matrix cells [row, col] stuck closed and masked."),
    ] = required(())
    clock_synced: Annotated[
        bool | None,
        Meta(
            description="False when the board's clock is not synchronised (its results "
            "then say so, docs/mqtt.md). Absent: true."
        ),
    ] = omitted()
    problem: Annotated[
        str | None,
        Meta(
            description="What is wrong with the board, in words, or null: while it is "
            "disconnected, why (its port and the reason: '/dev/oche-board: cannot open: No "
            "such file or directory: is the board plugged in?'); while connected, what its "
            "bytes say is set up wrongly (a wrong-protocol or wrong-speed diagnosis, "
            "docs/drivers.md), until the board is read again. Absent from older daemons."
        ),
    ] = omitted(null=True)


CPU_AVERAGES = (TARGET_AVERAGES[0], TARGET_AVERAGES[-1])
"""The whole-leg 501 averages a bot can be asked for (``{"cpu": {"average": x}}``):
the span of the levels, level 1's to level 10's."""

DART_SOURCES = ("board", "manual", "cpu")
"""Who entered a ``dart`` event's dart: the board detected it; a person entered
it (a ``dart`` or ``miss`` command, the MISS button, the misses NEXT fills in);
or the daemon threw it for a computer player."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CpuView(JsonObject):
    """A computer player's ``cpu`` (in the state and in a result): its level
    and what it throws like."""

    json_description: ClassVar[str | None] = (
        "Only on a computer player (added by the daemon, not the engine): its level, the "
        "throw spread it throws with and the whole-leg 501 average that spread plays."
    )
    level: Annotated[int | None, Meta(minimum=LEVELS[0], maximum=LEVELS[-1])] = required()
    sigma_mm: Annotated[float | None, Meta(exclusive_minimum=0)] = required()
    average: Annotated[float | None, Meta(minimum=0)] = required()


@dataclass(frozen=True, slots=True, kw_only=True)
class CreditsView(JsonObject):
    """Free play, or the credits a coin-operated board holds (``credits``)."""

    json_description: ClassVar[str | None] = (
        "Added by the daemon (docs/credits.md): free play, or the credits a coin-operated "
        "board holds and what a game costs."
    )

    present: bool = field(default=False, metadata=PRESENT)
    mode: Annotated[str | None, Meta(enum=("free", "coin"))] = required()
    free_play: Annotated[bool, Meta(description="Every game is free now.")] = required(False)
    credits: Annotated[Index, Meta(description="Credits held.")] = required(0)
    price: Annotated[Index, Meta(description="Credits per player for a game now.")] = required(0)
    happy_hour: Annotated[bool, Meta(description="A happy-hour window is on.")] = omitted(
        default=False
    )
    game_prices: Annotated[
        Mapping[str, Index] | None,
        Meta(
            description="Coin mode, not free play: credits per player now for the games "
            "whose price is their own (game id -> credits); others cost player_prices or price."
        ),
    ] = omitted()
    """Credits per player for the games priced on their own, ``None`` without any."""
    player_prices: Annotated[
        Mapping[str, Index] | None,
        Meta(
            description="Coin mode, not free play: credits per player now by the number "
            'of paying players ("3" -> credits), for games without a price of their own.'
        ),
    ] = omitted()
    """Credits per player by the number of paying players (``"3"``), ``None`` without any."""
    coins_today: Annotated[
        Index | None,
        Meta(description="Mode coin: coin pulses since the local midnight ([credits] timezone)."),
    ] = omitted()


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalView(JsonObject):
    """Whether the daemon's journal takes writes (``journal``)."""

    json_description: ClassVar[str | None] = (
        "Added by the daemon (docs/journal.md): whether its journal takes writes. The daemon "
        "counts nothing it cannot journal: while status is not ok every dart, button and "
        "command is refused (each with an error event) until it writes again."
    )
    json_extra: ClassVar[Mapping[str, Any]] = {
        "allOf": [
            {
                "if": {"properties": {"status": {"const": "ok"}}, "required": ["status"]},
                "then": {"properties": {"message": {"type": "null"}}},
                "else": {"properties": {"message": {"type": "string", "minLength": 1}}},
            }
        ]
    }

    present: bool = field(default=False, metadata=PRESENT)
    status: Annotated[
        str | None,
        Meta(
            description="ok; full (the journal's file system is full); failing (another "
            "write failure: a failing or read-only disk, a file damaged since the start).",
            enum=JOURNAL_STATUSES,
        ),
    ] = required()
    message: Annotated[
        str | None,
        Meta(
            description="While status is not ok, the line a screen shows, e.g. "
            '"the journal is full: darts are not counted"; null while it is ok.'
        ),
    ] = required(null=True)
    salvaged: Annotated[
        str | None,
        Meta(
            description="After a start that found the journal damaged, until the next "
            "game starts: the line a screen shows (where the damaged file was set aside, "
            "what was salvaged, whether the game in progress was lost); null otherwise."
        ),
    ] = required(null=True)


PlayerBoard = Annotated[
    str,
    Meta(
        description="Only in a remote match (added by the daemon): the board the player "
        "throws at, as base/board."
    ),
]
"""A player's ``board`` in a remote match."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoteBoard(JsonObject):
    """One board of a remote match."""

    board: Annotated[str, Meta(description="base/board.")] = required("")
    name: Annotated[str, Meta(description="Its display name.")] = required("")
    online: bool | None = required()
    """``None``: the host does not say."""
    joined: bool | None = required()
    applied: Annotated[
        Index | None,
        Meta(
            description="The highest forwarded action (seq) of this board the host has "
            "taken, applied or ignored; 0 for the host."
        ),
    ] = required()


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoteView(JsonObject):
    """The remote match this board is in (``remote``), if any."""

    json_description: ClassVar[str | None] = (
        "Only while this board is in a remote match (docs/remote.md): the match, the boards "
        "in it and where the player who is up throws. A guest publishes the host's state "
        "with its own board and role."
    )

    present: bool = field(default=False, metadata=PRESENT)
    match: Annotated[str | None, Meta(pattern=f"^{MATCH_ID_PATTERN}$")] = required()
    role: Annotated[
        str | None, Meta(description="This board's part in it.", enum=("host", "guest"))
    ] = required()
    host: Annotated[str | None, Meta(description="The host, as base/board.")] = required()
    throwing_at: Annotated[
        str | None,
        Meta(
            description="The board of the player whose visit is on, as base/board; "
            "null when no visit is (the game is over, or the guest has no state yet)."
        ),
    ] = required(null=True)
    boards: Annotated[
        tuple[RemoteBoard, ...], Meta(description="Every board of the match, the host first.")
    ] = required(())
    waiting: Annotated[
        tuple[str, ...],
        Meta(
            description="The boards the match waits for (offline, or not joined yet), "
            "as base/board; the phase is waiting-remote while this is not empty."
        ),
    ] = required(())


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
        "board": object_schema(BoardView),
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
                # A match's won leg (match.leg_over) is finished in takeout.
                "not": {
                    "properties": {
                        "match": {
                            "properties": {"leg_over": {"const": True}},
                            "required": ["leg_over"],
                        }
                    },
                    "required": ["match"],
                },
            },
            "then": {"properties": {"finished": {"const": False}}},
        },
        *body["allOf"],
    ]
    body["properties"]["remote"] = object_schema(RemoteView)
    body["properties"]["credits"] = object_schema(CreditsView)
    body["properties"]["journal"] = object_schema(JournalView)
    body["properties"]["match"] = object_schema(MatchView)
    body["properties"]["call"] = object_schema(CallView)
    defs = copy.deepcopy(STATE_SCHEMA["$defs"])
    body["properties"]["lobby"] = {
        **object_schema(LobbyState, defs),
        "description": "Added by the daemon (docs/players.md), in every phase: the players "
        "who joined the board's next game, its join code and page, whom to suggest.",
    }
    defs["player"]["properties"]["cpu"] = object_schema(CpuView)
    defs["player"]["properties"]["board"] = schema_of(PlayerBoard)
    return {"$schema": DRAFT, **body, "$defs": defs}
