"""The ``cmd`` and ``cmd/response`` payloads: one frozen class per command,
which is both the ``cmd`` schema (generated from its type hints) and what
:func:`~mqtt_contract.parse_command` returns.

Adding a command: a :class:`CommandBase` subclass here (its ``command`` name,
its arguments as annotated fields), listed in :data:`COMMAND_CLASSES` and in
the :data:`GameCommand` union; the parser (``commands.py``) checks its
arguments where they need more than the schema says, and every caller's
``match`` on :data:`GameCommand` (``assert_never``) then names the places
that must handle it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, TypeAlias

from engine.bot_targets import LEVELS, MPR_SPAN
from engine.handicap import SPOT_TARGETS, Handicap
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
from mqtt_contract.match_payload import CALL_ID_PATTERN, CallPlayer, CallTeam, MatchPlay
from mqtt_contract.pairing_payload import PAIRING_CODE_PATTERN, DeviceId, DeviceName
from mqtt_contract.schema_parts import BED_ANY_CASE
from mqtt_contract.state_payload import CPU_AVERAGES
from mqtt_contract.topic_names import MAX_COMMAND_BYTES

_NAME_CHARACTER = r"[^\x00-\x1f\x7f-\x9f]"
_NAME_END = r"[^\s\x00-\x1f\x7f-\x9f]"
NAME_PATTERN = rf"^\s*{_NAME_END}({_NAME_CHARACTER}{{0,{MAX_NAME_LENGTH - 2}}}{_NAME_END})?\s*$"
"""What ``engine.lineup.check_name`` takes: 1 to MAX_NAME_LENGTH characters
once stripped of the white space around them (which a name may carry), none a
control character."""

Name = Annotated[
    str,
    Meta(
        description=f"Up to {MAX_NAME_LENGTH} characters once stripped, no control characters.",
        pattern=NAME_PATTERN,
    ),
]
"""A player's or a team's name as a command gives it."""


Start = Annotated[
    int | None,
    Meta(
        minimum=1,
        maximum=1001,
        description="X01 only: the points this player starts from (a handicap, "
        "docs/games/x01.md); absent: the game's start.",
    ),
]
"""A player's own X01 start (a handicap)."""

SpotMarks = Annotated[
    Mapping[Annotated[str, Meta(enum=SPOT_TARGETS)], Annotated[int, Meta(minimum=0, maximum=3)]]
    | None,
    Meta(
        description='Cricket only: marks before the first dart, e.g. {"20": 3, "bull": 2} '
        "(a handicap, docs/games/cricket.md); absent: none."
    ),
]
"""A player's Cricket spot marks (a handicap)."""


@dataclass(frozen=True, slots=True)
class LocalPlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = "A player at this board, as the bare name is."
    name: Name
    start: Start = omitted()
    marks: SpotMarks = omitted()


@dataclass(frozen=True, slots=True)
class CpuAverage(JsonObject):
    json_closed: ClassVar[bool] = True
    average: Annotated[float, Meta(minimum=CPU_AVERAGES[0], maximum=CPU_AVERAGES[1])]


@dataclass(frozen=True, slots=True)
class CpuMpr(JsonObject):
    json_closed: ClassVar[bool] = True
    mpr: Annotated[float, Meta(minimum=MPR_SPAN[0], maximum=MPR_SPAN[1])]


@dataclass(frozen=True, slots=True)
class CpuPlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = "A computer player: the daemon throws its darts."
    name: Name
    cpu: Annotated[
        Annotated[int, Meta(minimum=LEVELS[0], maximum=LEVELS[-1])] | CpuAverage | CpuMpr,
        Meta(
            description=f"A level {LEVELS[0]}-{LEVELS[-1]}, "
            f'{{"average": A}} with A from {CPU_AVERAGES[0]:g} to {CPU_AVERAGES[1]:g} '
            "(the whole-leg 501 three-dart average it is to play, checkout included), or "
            f'{{"mpr": M}} with M from {MPR_SPAN[0]:g} to {MPR_SPAN[1]:g} '
            "(the Cricket marks per round it is to play)."
        ),
    ]
    start: Start = omitted()
    marks: SpotMarks = omitted()


def _cpu_figure(cpu: int | CpuAverage | CpuMpr) -> dict[str, float]:
    """A computer player's ``cpu`` as ``resolve_bots`` reads it."""
    if isinstance(cpu, CpuAverage):
        return {"average": cpu.average}
    if isinstance(cpu, CpuMpr):
        return {"mpr": cpu.mpr}
    return {"level": cpu}


@dataclass(frozen=True, slots=True)
class RemotePlayer(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = (
        "A player at another board (a remote match, docs/remote.md): that board's id on "
        "this board's base, or base/board."
    )
    name: Name
    board: Annotated[str, Meta(min_length=1)]
    start: Start = omitted()
    marks: SpotMarks = omitted()


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

    @property
    def name(self) -> str:
        """The command's name (``new_game``, ``dart``, ...), for logs and replies."""
        return self.command


@dataclass(frozen=True, slots=True)
class NewGame(CommandBase):
    """Start a game."""

    command: ClassVar[str] = "new_game"
    game: Annotated[str, Meta(description="A game id: x01, cricket, ...", pattern=r"\S")] = field(
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
            'Any object may add a handicap: "start" (X01) or "marks" (Cricket). '
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
    match: Annotated[
        MatchPlay | None,
        Meta(
            description="Play a match of this game: first to legs legs (sets of them), "
            "alternating the throw (docs/matches.md). Absent: one game."
        ),
    ] = omitted()
    handicap: Annotated[
        str | None,
        Meta(
            enum=("suggested",),
            description='"suggested": the board suggests each player\'s handicap from '
            "their month figure in the venue's roster (docs/players.md, Handicaps): in X01 "
            "a start from their average (a player without one, and the strongest, start "
            "from the game's start), in Cricket spot marks from their MPR. "
            "Absent: the players' own start/marks, if any.",
        ),
    ] = omitted()

    @property
    def team_names(self) -> dict[str, tuple[str, ...]] | None:
        """Each team's members' names as given, in throwing order; ``None`` without teams."""
        if self.teams is None:
            return None
        return {team: tuple(map(entry_name, roster)) for team, roster in self.teams.items()}

    @property
    def player_names(self) -> tuple[str, ...]:
        """The players' names as given, in throwing order: ``players``, or
        each team's first, then each team's second, ... when only ``teams`` is given."""
        if self.players is not None:
            return tuple(map(entry_name, self.players))
        rosters = list((self.team_names or {}).values())
        longest = max(map(len, rosters), default=0)
        return tuple(roster[i] for i in range(longest) for roster in rosters if i < len(roster))

    def _entries(self) -> list[PlayerEntry]:
        teams = [entry for roster in (self.teams or {}).values() for entry in roster]
        return [*teams, *(self.players or ())]

    @property
    def cpu(self) -> dict[str, dict[str, float]]:
        """Each computer player's stripped name -> ``{"level": n}``,
        ``{"average": x}`` or ``{"mpr": m}`` (what ``resolve_bots`` reads);
        empty without one."""
        return {
            entry.name.strip(): _cpu_figure(entry.cpu)
            for entry in self._entries()
            if isinstance(entry, CpuPlayer)
        }

    @property
    def handicaps(self) -> tuple[Handicap, ...]:
        """Each player's handicap (``start``, ``marks``) in :attr:`player_names`'s
        order; a player given as a bare name has none. A HandicapError quotes a bad one."""
        given = {entry_name(entry): entry_handicap(entry) for entry in self._entries()}
        return tuple(given.get(name, Handicap()) for name in self.player_names)

    @property
    def boards(self) -> dict[str, str]:
        """Each player at another board (stripped name) -> that board as given,
        stripped (``pub2`` or ``base/pub2``); empty for a game on this board alone."""
        return {
            entry.name.strip(): entry.board.strip()
            for entry in self._entries()
            if isinstance(entry, RemotePlayer)
        }


def entry_name(entry: PlayerEntry) -> str:
    """A ``new_game`` player's name as given, whichever form the player takes."""
    return entry if isinstance(entry, str) else entry.name


def entry_handicap(entry: PlayerEntry) -> Handicap:
    """A ``new_game`` player's handicap: their ``start`` and spot ``marks``, if any."""
    if isinstance(entry, str):
        return Handicap()
    return Handicap.of(entry.start, entry.marks)


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


@dataclass(frozen=True, slots=True)
class Join(CommandBase):
    """A player joins the board's lobby for its next game (docs/players.md)."""

    command: ClassVar[str] = "join"
    json_extra: ClassVar[Mapping[str, Any]] = {"dependentRequired": {"link_card": ["code"]}}
    player: PlayerRef = field(kw_only=True)
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
    player: PlayerRef = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Correct(CommandBase):
    """Replace a dart of the visit on the board with the bed it really hit (a
    misread dart): the visit is re-scored as if thrown right (docs/mqtt.md)."""

    command: ClassVar[str] = "correct"
    dart: Annotated[
        int,
        Meta(
            description="Which dart of the current visit, counted from 1.",
            minimum=1,
            maximum=3,
        ),
    ] = field(kw_only=True)
    segment: Annotated[
        str,
        Meta(
            description="The bed it really hit, in any case: S1-S20, D1-D20, T1-T20, SB, DB or M.",
            pattern=BED_ANY_CASE,
        ),
    ] = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class PairDevice(JsonObject):
    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = "The browser being paired, as the service names it."
    id: DeviceId
    name: DeviceName


@dataclass(frozen=True, slots=True)
class Pair(CommandBase):
    """Pair a browser to control this board (relayed by the venue's web service
    with the code a user typed, docs/phone.md)."""

    command: ClassVar[str] = "pair"
    code: Annotated[
        str,
        Meta(
            description="The board's pairing code (its display shows it): refused unless "
            "it is the current one.",
            pattern=PAIRING_CODE_PATTERN,
        ),
    ] = field(kw_only=True)
    device: PairDevice = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class CallMatch(CommandBase):
    """The venue's service calls a match (a tournament's or a league's) to
    this board: its players go to the lobby, the display says who plays whom,
    and the players start it with a dart or NEXT (docs/matches.md). The same
    ``call_id`` again changes nothing."""

    command: ClassVar[str] = "call_match"
    call_id: Annotated[str, Meta(pattern=CALL_ID_PATTERN)] = field(kw_only=True)
    title: Annotated[
        str | None,
        Meta(description='What it is part of, e.g. "Friday Cup, round 1".', max_length=80),
    ] = omitted()
    game: Annotated[str, Meta(description="A game id: x01, cricket, ...", pattern=r"\S")] = field(
        kw_only=True
    )
    options: Mapping[str, Any] | None = omitted()
    match: MatchPlay | None = omitted()
    players: Annotated[tuple[CallPlayer, ...], Meta(min_items=2, max_items=MAX_PLAYERS)] = field(
        kw_only=True
    )
    teams: Annotated[
        tuple[CallTeam, ...] | None,
        Meta(
            description="A team game (a league's pairs): each team and its players' names, in "
            "side order; every player in one team. Absent: every player is a side.",
            min_items=2,
        ),
    ] = omitted()


@dataclass(frozen=True, slots=True)
class CancelCall(CommandBase):
    """The service takes a called match back (walked over, or moved to
    another board) before it started; a match already started plays on."""

    command: ClassVar[str] = "cancel_call"
    call_id: Annotated[str, Meta(pattern=CALL_ID_PATTERN)] = field(kw_only=True)


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
    Correct,
    Pair,
    CallMatch,
    CancelCall,
)
"""One class per command a board takes on ``{base}/{board}/cmd``."""

GameCommand: TypeAlias = (
    NewGame
    | Next
    | Undo
    | Miss
    | ThrowDart
    | EndGame
    | Rematch
    | BounceOut
    | Join
    | Leave
    | Correct
    | Pair
    | CallMatch
    | CancelCall
)
"""A command :func:`~mqtt_contract.parse_command` read: ``match`` on it (with
``assert_never``) so that a new command names every place to handle it."""

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
