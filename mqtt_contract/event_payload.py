"""The ``event`` topic: one frozen class per event ``type``, whose
:meth:`~mqtt_contract.json_types.JsonObject.to_json` is the payload and whose
types make the topic's schema. The daemon builds these from what happened
(its session, its board, its credits), never from comparing two states.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from engine.awards import AWARD_IDS
from engine.state_schema import BED_NOTATION_PATTERN, MARKS_KEYS
from mqtt_contract.json_types import (
    FIXED,
    OMITTED,
    JsonObject,
    Meta,
    PayloadError,
    omitted,
    renamed,
    tagged_union_schema,
)
from mqtt_contract.lobby_payload import LobbyPlayer
from mqtt_contract.schema_parts import LATEST_TIMESTAMP
from mqtt_contract.state_payload import DART_SOURCES

__all__ = [
    "CARD_REFUSALS",
    "CREDIT_SOURCES",
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "OPERATOR_COMMANDS",
    "Award",
    "BatteryLevel",
    "BoardConnected",
    "BoardDisconnected",
    "Bounce",
    "Bust",
    "ButtonPressed",
    "CallCancelled",
    "CardRefused",
    "CorkWon",
    "Corrected",
    "CreditsChanged",
    "DaemonEvent",
    "Dart",
    "ErrorReported",
    "EventTeam",
    "GameOver",
    "GameStarted",
    "Ignored",
    "Index",
    "LegStarted",
    "LegWon",
    "MatchCalled",
    "PlayerChange",
    "PlayerJoined",
    "PlayerLeft",
    "Points",
    "Released",
    "Stuck",
    "Takeout",
    "TakeoutSensed",
    "Timestamp",
    "Undone",
    "VisitEnd",
    "Winner",
    "event_schema",
    "event_teams",
    "parse_event_payload",
]

CREDIT_SOURCES = ("coin", "remote", "happy-hour", "free-play", "game")
"""Where a credit change comes from (a line of the books, a ``credits`` event)."""

CARD_REFUSALS = ("unknown", "in-game", "no-secret")
"""Why a card tap joined nobody: the roster does not know the card, a game is
on (cards join between games), or the board has no ``[cards] secret``."""

OPERATOR_COMMANDS = ("add_credits", "set_free_play", "reset_books", "set_price", "unpair")
"""The commands on ``{base}/{board}/operator/cmd`` (docs/credits.md); refused on ``cmd``."""

Index = Annotated[int, Meta(minimum=0)]
"""A count or an index: an integer from 0."""
Timestamp = Annotated[
    float,
    Meta(description="Unix time in seconds (float), before 2100.", minimum=0),
    Meta(maximum=LATEST_TIMESTAMP),
]
"""Unix seconds, before 2100 (:data:`~mqtt_contract.LATEST_TIMESTAMP`)."""
Bed = Annotated[str, Meta(pattern=BED_NOTATION_PATTERN)]
"""A bed in canonical notation: S20, T19, DB, M, ..."""
PlayerIndex = Annotated[Index, Meta(description="Player index into the state's players.")]
Marks = Annotated[
    Index,
    Meta(
        description="Only on the event that moves cricket marks (Cricket's dart, "
        "Cricket-Shanghai's visit_end): the marks it scored, as the statistics count them."
    ),
]
Closed = Annotated[
    tuple[Annotated[str, Meta(enum=tuple(MARKS_KEYS))], ...],
    Meta(
        description="With marks: the targets the thrower's side closed, in marks order.",
        unique_items=True,
    ),
]
NullableIndex = Annotated[int | None, Meta(minimum=0)]


@dataclass(frozen=True, slots=True)
class DaemonEvent(JsonObject):
    """One thing that happened at ``at`` (Unix seconds)."""

    json_tag: ClassVar[str | None] = "type"
    type: ClassVar[str]
    at: Timestamp


@dataclass(frozen=True, slots=True)
class EventTeam(JsonObject):
    """A team of a ``game_started``, as in the state: its name and its players' indices."""

    name: str
    players: tuple[Index, ...]


def event_teams(teams: Any) -> tuple[EventTeam, ...] | None:
    """A state's ``teams`` (null or ``[{"name", "players"}]``) as event teams."""
    if teams is None:
        return None
    return tuple(EventTeam(team["name"], tuple(team["players"])) for team in teams)


@dataclass(frozen=True, slots=True)
class GameStarted(DaemonEvent):
    type: ClassVar[str] = "game_started"
    game: Annotated[str, Meta(min_length=1)]
    options: Mapping[str, Any] | None = field(default=None, kw_only=True, metadata=OMITTED)
    players: Annotated[tuple[str, ...], Meta(min_items=1)]
    teams: Annotated[
        tuple[EventTeam, ...] | None,
        Meta(description="As in the state: null, or the teams with player indices."),
    ] = None


@dataclass(frozen=True, slots=True)
class Dart(DaemonEvent):
    """A dart thrown; in Cricket also the marks it scored and the targets it
    closed (``marks``, ``closed``: the engine's ``MarksGame.marked``); the
    daemon adds who entered it (``source``: ``mqtt_contract.DART_SOURCES``).
    Older daemons' darts may lack ``points``, ``dart`` and ``scored``."""

    type: ClassVar[str] = "dart"
    player: PlayerIndex
    segment: Bed
    points: Annotated[Index | None, Meta(description="Face value (T20 is 60).")] = omitted()
    dart: Annotated[int | None, Meta(description="1-3 within the visit.", minimum=1)] = omitted()
    scored: Annotated[bool | None, Meta(description="False for a dead dart.")] = omitted()
    marks: Marks | None = omitted()
    closed: Closed | None = omitted()
    source: Annotated[
        str | None,
        Meta(
            description="Who entered the dart: board (detected), manual (a dart or miss "
            "command, the MISS button, the misses NEXT fills in) or cpu (thrown by the "
            "daemon for a computer player).",
            enum=DART_SOURCES,
        ),
    ] = omitted()


@dataclass(frozen=True, slots=True)
class Bust(DaemonEvent):
    type: ClassVar[str] = "bust"
    player: PlayerIndex


@dataclass(frozen=True, slots=True)
class VisitEnd(DaemonEvent):
    """A visit ended, in ``game`` (its id); in Cricket-Shanghai, whose marks
    count at a visit's end, also the marks it scored and the targets it closed."""

    type: ClassVar[str] = "visit_end"
    player: PlayerIndex
    darts: Annotated[tuple[Bed, ...], Meta(max_items=3)]
    total: int | None = omitted()
    score_change: Annotated[
        int | None,
        Meta(description="The side's score change, or null when unknown (after an undo)."),
    ] = None
    visit_over: str | None = None
    game: Annotated[str | None, Meta(description="The game's id: x01, cricket, ...")] = omitted()
    marks: Marks | None = omitted()
    closed: Closed | None = omitted()


@dataclass(frozen=True, slots=True)
class Award(DaemonEvent):
    """A visit earned an award (docs/awards.md): one event per award, right
    after its ``visit_end`` (or the dart that won the game on it); never again
    on an undo, a replay or a restart."""

    type: ClassVar[str] = "award"
    award: Annotated[str, Meta(enum=AWARD_IDS, description="The award's id: ton-80, ...")]
    player: PlayerIndex
    name: Annotated[str, Meta(description="The player's name.")]
    darts: Annotated[
        tuple[Bed, ...], Meta(max_items=3, description="The visit's darts as they scored.")
    ]
    points: Annotated[
        int | None,
        Meta(description="The visit's points, only in a game that counts points (X01)."),
    ] = omitted()
    marks: Annotated[
        int | None,
        Meta(description="The visit's marks, only in a marks game (Cricket)."),
    ] = omitted()
    game: Annotated[str | None, Meta(description="The game's id: x01, cricket, ...")] = omitted()


@dataclass(frozen=True, slots=True)
class Takeout(DaemonEvent):
    type: ClassVar[str] = "takeout"
    player: PlayerIndex


@dataclass(frozen=True, slots=True)
class PlayerChange(DaemonEvent):
    type: ClassVar[str] = "player_change"
    player: PlayerIndex
    previous: PlayerIndex | None = omitted()


@dataclass(frozen=True, slots=True)
class Points(DaemonEvent):
    type: ClassVar[str] = "points"
    player: PlayerIndex
    points: Annotated[int, Meta(minimum=1)]
    reason: Annotated[
        str,
        Meta(
            description="What scored, e.g. fifteen, pair, run of 3, go, hand, crib.",
            min_length=1,
        ),
    ]


@dataclass(frozen=True, slots=True)
class Undone(DaemonEvent):
    type: ClassVar[str] = "undo"
    player: PlayerIndex | None = omitted()


@dataclass(frozen=True, slots=True)
class Winner(DaemonEvent):
    type: ClassVar[str] = "winner"
    player: PlayerIndex
    team: NullableIndex = None


@dataclass(frozen=True, slots=True)
class GameOver(DaemonEvent):
    type: ClassVar[str] = "game_over"
    result: str
    winner: NullableIndex = None


@dataclass(frozen=True, slots=True)
class Stuck(DaemonEvent):
    type: ClassVar[str] = "stuck"
    row: Index
    col: Index


@dataclass(frozen=True, slots=True)
class Released(DaemonEvent):
    type: ClassVar[str] = "released"
    row: Index
    col: Index


@dataclass(frozen=True, slots=True)
class BoardConnected(DaemonEvent):
    type: ClassVar[str] = "board_connected"
    source: str | None = omitted()


@dataclass(frozen=True, slots=True)
class BoardDisconnected(DaemonEvent):
    type: ClassVar[str] = "board_disconnected"
    source: str | None = omitted()
    reason: str | None = omitted()


@dataclass(frozen=True, slots=True)
class ErrorReported(DaemonEvent):
    type: ClassVar[str] = "error"
    kind: Annotated[str, Meta(description="Stable, for counting (crc, garbage, ...).")]
    message: str


@dataclass(frozen=True, slots=True)
class Ignored(DaemonEvent):
    """A contact that was not scored (published as a ``hit`` with ``scored`` false)."""

    type: ClassVar[str] = "hit"
    segment: Bed
    scored: Annotated[Literal[False], Meta(description="Always false: a contact not scored.")] = (
        field(default=False, kw_only=True, metadata=FIXED)
    )
    reason: Annotated[
        str,
        Meta(
            description="Why: no game, takeout, a bounce; exactly cpu-turn while a "
            "computer player throws."
        ),
    ]


@dataclass(frozen=True, slots=True)
class ButtonPressed(DaemonEvent):
    type: ClassVar[str] = "button"
    button: Annotated[str, Meta(min_length=1)]


@dataclass(frozen=True, slots=True)
class CreditsChanged(DaemonEvent):
    """The ``credits`` event: a line of the books, as it was journaled (its
    ``change``, the ``credits`` held after it, its ``source``; a coin's
    ``input``, an operator's ``reason``)."""

    type: ClassVar[str] = "credits"
    change: Annotated[int, Meta(description="Credits added (+) or spent (-).")]
    credits: Annotated[Index, Meta(description="The balance after it.")]
    source: Annotated[
        str,
        Meta(
            description="Where it came from: coin, remote, happy-hour, free-play, game.",
            enum=CREDIT_SOURCES,
        ),
    ]
    input: Annotated[NullableIndex, Meta(description="For a coin: the coin input.")] = omitted(
        null=True
    )
    reason: str | None = omitted(null=True)


@dataclass(frozen=True, slots=True)
class Bounce(DaemonEvent):
    """BOUNCE took back ``player``'s last dart, ``segment``: it stays thrown,
    as a miss, and counts as a bounce-out (not an undo)."""

    type: ClassVar[str] = "bounce"
    player: Annotated[
        Index, Meta(description="Who threw the dart (in takeout, the turn may have passed).")
    ]
    segment: Annotated[
        Bed,
        Meta(
            description="The dart taken back (a bounce-out): it stays thrown, as a miss (M) "
            "in the state's visit, and counts in stats.bounce_outs."
        ),
    ]


@dataclass(frozen=True, slots=True)
class Corrected(DaemonEvent):
    """A ``correct`` replaced dart ``dart`` of ``player``'s visit on the board:
    it counted as ``from``, it hit ``to``; the state after it is the visit
    re-scored (a bust or a win it made or took back follows)."""

    type: ClassVar[str] = "corrected"
    player: Annotated[
        Index, Meta(description="Whose visit (in takeout, the turn may have passed).")
    ]
    dart: Annotated[
        int, Meta(description="Which dart of that visit, counted from 1.", minimum=1, maximum=3)
    ]
    was: Annotated[Bed, Meta(description="What the dart counted as (M for a bounce-out).")] = (
        renamed("from")
    )
    to: Annotated[Bed, Meta(description="The bed it really hit, as it counts now.")] = renamed("to")


@dataclass(frozen=True, slots=True)
class TakeoutSensed(DaemonEvent):
    """A board's sensor saw the darts being taken out (a DaSCR board's
    ultrasonic sensor); ``ended_visit``: it ended the takeout, as NEXT does."""

    type: ClassVar[str] = "takeout_sensed"
    ended_visit: Annotated[
        bool,
        Meta(
            description="True when it ended the visit (during takeout, as NEXT); false "
            "when it was only seen."
        ),
    ]


@dataclass(frozen=True, slots=True)
class BatteryLevel(DaemonEvent):
    """A wireless board reported its battery level (a GranBoard's)."""

    type: ClassVar[str] = "battery"
    percent: Annotated[int, Meta(minimum=0, maximum=100)]


@dataclass(frozen=True, slots=True)
class PlayerJoined(DaemonEvent):
    """A player joined the board's lobby for its next game (docs/players.md)."""

    type: ClassVar[str] = "joined"
    player: LobbyPlayer


@dataclass(frozen=True, slots=True)
class PlayerLeft(DaemonEvent):
    """A player left the board's lobby."""

    type: ClassVar[str] = "left"
    player: LobbyPlayer


@dataclass(frozen=True, slots=True)
class CardRefused(DaemonEvent):
    """A card tapped on the board's reader joined nobody; ``message`` is what
    the display shows. Never the card's UID."""

    type: ClassVar[str] = "card_refused"
    reason: Annotated[str, Meta(enum=CARD_REFUSALS)]
    message: Annotated[str, Meta(min_length=1)]


@dataclass(frozen=True, slots=True)
class LegStarted(DaemonEvent):
    """A match's next leg has begun (docs/matches.md): who throws first in it."""

    type: ClassVar[str] = "leg_started"
    leg: Annotated[int, Meta(minimum=1, description="Its number in the match.")]
    starter: Annotated[Index, Meta(description="The player who throws first.")]
    set: Annotated[int | None, Meta(minimum=1, description="Its set; null: no sets.")] = None
    decider: Annotated[bool, Meta(description="It decides the match.")] = False


@dataclass(frozen=True, slots=True)
class LegWon(DaemonEvent):
    """A leg of a match is won (docs/matches.md): what the caller says
    ("Game shot, and the first leg") and the score in legs and sets."""

    type: ClassVar[str] = "leg_won"
    player: Annotated[Index, Meta(description="The leg's winner (player index).")]
    leg: Annotated[int, Meta(minimum=1, description="The leg's number in the match.")]
    result: Annotated[str, Meta(description="How the leg ended: checkout, closed-all, ...")]
    legs_won: Annotated[
        tuple[Index, ...],
        Meta(description="Legs won per side after it (in its set, with sets)."),
    ]
    team: NullableIndex = None
    set: Annotated[int | None, Meta(minimum=1, description="Its set; null: no sets.")] = None
    sets_won: Annotated[
        tuple[Index, ...] | None, Meta(description="Sets won per side after it; null: no sets.")
    ] = None
    set_won: Annotated[bool, Meta(description="It won its set too.")] = False
    match_won: Annotated[
        bool, Meta(description="It won the match (a winner and game_over follow).")
    ] = False


@dataclass(frozen=True, slots=True)
class CorkWon(DaemonEvent):
    """A deciding leg's cork (bull-off) is decided: who throws first."""

    type: ClassVar[str] = "cork_won"
    player: Annotated[Index, Meta(description="The player who throws first in the leg.")]


@dataclass(frozen=True, slots=True)
class MatchCalled(DaemonEvent):
    """The venue's service called a match to this board (``call_match``): the
    display says "Next: Ann v Bob on Board 2" until a dart or NEXT starts it."""

    type: ClassVar[str] = "match_called"
    call_id: Annotated[str, Meta(min_length=1)]
    players: Annotated[tuple[str, ...], Meta(min_items=1)]
    title: str | None = None


@dataclass(frozen=True, slots=True)
class CallCancelled(DaemonEvent):
    """A called match was taken back before it started (``cancel_call``)."""

    type: ClassVar[str] = "call_cancelled"
    call_id: Annotated[str, Meta(min_length=1)]


EVENT_CLASSES: tuple[type[DaemonEvent], ...] = (
    GameStarted,
    Dart,
    Bust,
    VisitEnd,
    Award,
    Takeout,
    PlayerChange,
    Points,
    Undone,
    Winner,
    GameOver,
    Stuck,
    Released,
    BoardConnected,
    BoardDisconnected,
    ErrorReported,
    Ignored,
    ButtonPressed,
    CreditsChanged,
    Bounce,
    Corrected,
    TakeoutSensed,
    BatteryLevel,
    PlayerJoined,
    PlayerLeft,
    CardRefused,
    LegStarted,
    LegWon,
    CorkWon,
    MatchCalled,
    CallCancelled,
)
"""One class per event ``type``, in the order docs/mqtt.md lists them."""

EVENT_TYPES: tuple[str, ...] = tuple(cls.type for cls in EVENT_CLASSES)
"""The ``type`` of every ``event`` payload."""

_BY_TYPE = {cls.type: cls for cls in EVENT_CLASSES}


def parse_event_payload(document: Any) -> DaemonEvent:
    """A decoded ``event`` payload as its class (keys it does not know are
    dropped: events are open); a PayloadError says why it is not one."""
    kind = document.get("type") if isinstance(document, dict) else None
    cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise PayloadError(f"$.type: not an event type: {kind!r}")
    return cls.from_json(document)


def event_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """The ``event`` topic's schema body, from :data:`EVENT_CLASSES`."""
    return tagged_union_schema("type", EVENT_CLASSES, DaemonEvent, defs)
