"""The ``cmd`` and ``cmd/response`` schemas: each command and its arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from engine.bot_targets import LEVELS
from engine.lineup import MAX_NAME_LENGTH, MAX_PLAYERS
from mqtt_contract.json_types import (
    JsonObject,
    Meta,
    object_schema,
    omitted,
    required_keys,
    tagged_union_schema,
)
from mqtt_contract.lobby_payload import CARD_HASH_PATTERN, JOIN_CODE_PATTERN, PlayerRef
from mqtt_contract.schema_parts import BED_ANY_CASE
from mqtt_contract.state_payload import CPU_AVERAGES
from mqtt_contract.topic_names import MAX_COMMAND_BYTES

Name = Annotated[
    str,
    Meta(
        description=f"Up to {MAX_NAME_LENGTH} characters, no control characters.",
        pattern=r"\S",
        max_length=MAX_NAME_LENGTH,
    ),
]
"""A player's or a team's name as a command gives it."""


@dataclass(frozen=True, slots=True)
class LocalPlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = "A player at this board, as the bare name is."
    name: Name


@dataclass(frozen=True, slots=True)
class CpuAverage(JsonObject):
    json_closed: ClassVar[bool] = True
    average: Annotated[float, Meta(minimum=CPU_AVERAGES[0], maximum=CPU_AVERAGES[1])]


@dataclass(frozen=True, slots=True)
class CpuPlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = "A computer player: the daemon throws its darts."
    name: Name
    cpu: Annotated[
        Annotated[int, Meta(minimum=LEVELS[0], maximum=LEVELS[-1])] | CpuAverage,
        Meta(
            description=f"A level {LEVELS[0]}-{LEVELS[-1]}, or "
            f'{{"average": A}} with A from {CPU_AVERAGES[0]:g} to {CPU_AVERAGES[1]:g} '
            "(the three-dart average it is to throw)."
        ),
    ]


@dataclass(frozen=True, slots=True)
class RemotePlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = (
        "A player at another board (a remote match, docs/remote.md): that board's id on "
        "this board's base, or base/board."
    )
    name: Name
    board: Annotated[str, Meta(min_length=1)]


PlayerEntry = Name | LocalPlayer | CpuPlayer | RemotePlayer
"""One player of a ``new_game``: a name, or one of the player objects."""
Roster = Annotated[tuple[PlayerEntry, ...], Meta(min_items=1, max_items=MAX_PLAYERS)]


@dataclass(frozen=True, slots=True)
class CommandBase(JsonObject):
    """What every command on ``cmd`` carries: its name (``command``) and an id."""

    json_tag: ClassVar[str | None] = "command"
    json_closed: ClassVar[bool] = True
    command: ClassVar[str]
    id: Annotated[
        str | int | None, Meta(description="Chosen by the sender; echoed in the response.")
    ] = omitted()


@dataclass(frozen=True, slots=True)
class NewGame(CommandBase):
    """Start a game."""

    command: ClassVar[str] = "new_game"
    game: Annotated[str, Meta(description="A game id: x01, cricket, ...", min_length=1)] = field(
        kw_only=True
    )
    options: Annotated[
        Mapping[str, Any] | None,
        Meta(description="Game options (see the game's docs); defaults fill the rest."),
    ] = omitted()
    players: Annotated[
        Roster | None,
        Meta(
            description='1-8 players, in order: a name (or {"name": ...}), a computer '
            'player {"name": ..., "cpu": LEVEL} or {"name": ..., "cpu": {"average": AVERAGE}}, '
            'or a player at another board {"name": ..., "board": BOARD} (docs/remote.md). '
            "Without players and teams: the lobby's players, in the order they joined "
            "(docs/players.md); refused when the lobby is empty."
        ),
    ] = omitted()
    teams: Annotated[
        Mapping[Name, Roster] | None,
        Meta(
            description="Team name -> member names in throwing order (at least two teams).",
            min_properties=2,
        ),
    ] = omitted()


@dataclass(frozen=True, slots=True)
class ThrowDart(CommandBase):
    """Enter a dart by hand."""

    command: ClassVar[str] = "dart"
    segment: Annotated[
        str,
        Meta(
            description="The bed, in any case: S1-S20, D1-D20, T1-T20, SB, DB or M.",
            pattern=BED_ANY_CASE,
        ),
    ] = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Next(CommandBase):
    """End the visit (the NEXT button)."""

    command: ClassVar[str] = "next"


@dataclass(frozen=True, slots=True)
class Undo(CommandBase):
    """Take back the last dart."""

    command: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Miss(CommandBase):
    """Enter a miss."""

    command: ClassVar[str] = "miss"


@dataclass(frozen=True, slots=True)
class EndGame(CommandBase):
    """Abandon the game."""

    command: ClassVar[str] = "end_game"


@dataclass(frozen=True, slots=True)
class Rematch(CommandBase):
    """The same game again."""

    command: ClassVar[str] = "rematch"


@dataclass(frozen=True, slots=True)
class BounceOut(CommandBase):
    """Take back the last dart as a bounce-out."""

    command: ClassVar[str] = "bounce"


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyPlayerRef(JsonObject):
    """``join``'s and ``leave``'s player as the schema says it (the parser
    reads it into a :class:`~mqtt_contract.lobby_payload.PlayerRef`)."""

    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = PlayerRef.json_description
    json_extra: ClassVar[Mapping[str, Any]] = {
        "oneOf": [{"required": ["name"]}, {"required": ["id"]}]
    }
    name: Name | None = omitted()
    id: Annotated[int | None, Meta(minimum=1, description="A roster id.")] = omitted()

    def __post_init__(self) -> None:
        if (self.name is None) == (self.id is None):
            raise ValueError('a player has exactly one of "name" and "id"')


@dataclass(frozen=True, slots=True)
class Join(CommandBase):
    """A player joins the board's lobby for its next game (docs/players.md)."""

    command: ClassVar[str] = "join"
    json_extra: ClassVar[Mapping[str, Any]] = {"dependentRequired": {"link_card": ["code"]}}
    player: LobbyPlayerRef = field(kw_only=True)
    code: Annotated[
        str | None,
        Meta(
            description="The board's join code (a phone's join, relayed by the leaderboard "
            "service): refused unless it is the board's current one.",
            pattern=JOIN_CODE_PATTERN,
        ),
    ] = omitted()
    link_card: Annotated[
        bool | None,
        Meta(
            description="With code: link the card last tapped on this board and not known "
            "(within 120 s) to the player; the response carries its hash as card."
        ),
    ] = omitted()


@dataclass(frozen=True, slots=True)
class Leave(CommandBase):
    """A player leaves the board's lobby."""

    command: ClassVar[str] = "leave"
    player: LobbyPlayerRef = field(kw_only=True)


COMMAND_CLASSES: tuple[type[CommandBase], ...] = (
    NewGame,
    Next,
    Undo,
    Miss,
    ThrowDart,
    EndGame,
    Rematch,
    BounceOut,
    Join,
    Leave,
)
"""One class per command a board takes on ``{base}/{board}/cmd``."""

COMMANDS: tuple[str, ...] = tuple(cls.command for cls in COMMAND_CLASSES)
"""The commands a board takes on ``{base}/{board}/cmd``."""

COMMAND_ARGUMENTS: dict[str, tuple[str, ...]] = {
    cls.command: tuple(key for key in cls.json_keys() if key not in ("command", "id"))
    for cls in COMMAND_CLASSES
}
"""Each command's argument keys, in the order its errors list them."""
REQUIRED_ARGUMENTS: dict[str, tuple[str, ...]] = {
    cls.command: tuple(required_keys(cls)) for cls in COMMAND_CLASSES
}
"""The arguments each command cannot go without."""


def command_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """The ``cmd`` topic's schema body, from :data:`COMMAND_CLASSES`."""
    return tagged_union_schema("command", COMMAND_CLASSES, CommandBase, defs)


COMMAND_TOPIC_TEXT = (
    "Oche cmd topic",
    f"A command to the board: a JSON object of at most {MAX_COMMAND_BYTES} bytes (UTF-8). "
    "Keys a command does not take are refused.",
)
"""The ``cmd`` topic's title and description."""


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
    card: Annotated[
        str | None,
        Meta(
            description="Only on a join with link_card that linked a card: the card as "
            "its keyed hash (never the UID).",
            pattern=CARD_HASH_PATTERN,
        ),
    ] = omitted()

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
