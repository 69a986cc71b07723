"""Who is throwing: the lobby a board holds between games, the venue's roster
a board keeps a copy of, how a player is named in ``join``/``leave``, and the
after-game lines the leaderboard sends back (docs/players.md).

A card's UID is a credential: no payload here carries one. The roster holds
each card as its keyed hash (:mod:`credentials.card_hash`, the venue's
secret), which a board compares with the hash of a tap.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from mqtt_contract.json_types import JsonObject, Meta, object_schema, omitted, topic_schema
from mqtt_contract.schema_parts import LATEST_TIMESTAMP

__all__ = [
    "CARD_HASH_PATTERN",
    "JOIN_CODE_ALPHABET",
    "JOIN_CODE_LENGTH",
    "JOIN_CODE_PATTERN",
    "LOBBY_SUGGESTIONS",
    "RESULT_LINES_TOPIC",
    "ROSTER_TOPIC",
    "JoinedBy",
    "LobbyPlayer",
    "LobbyState",
    "PlayerLine",
    "PlayerRef",
    "ResultLines",
    "RosterMessage",
    "RosterPlayer",
    "Suggestion",
    "join_code_problem",
]

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""A join code's letters: no 0/O or 1/I, so a code read off a screen is typed right."""
JOIN_CODE_LENGTH = 6
JOIN_CODE_PATTERN = rf"^[{JOIN_CODE_ALPHABET}]{{{JOIN_CODE_LENGTH}}}$"
"""A board's join code: six letters of :data:`JOIN_CODE_ALPHABET`."""
_JOIN_CODE_RE = re.compile(JOIN_CODE_PATTERN)

CARD_HASH_PATTERN = r"^hmac-sha256\$[A-Za-z0-9_-]{43}$"
"""A card as the roster and the journals keep it (:func:`credentials.card_hash.card_hash`)."""

LOBBY_SUGGESTIONS = 20
"""The most players a lobby suggests (the venue's regulars, then this board's last players)."""

PlayerId = Annotated[int, Meta(minimum=1, description="The player's id in the venue's roster.")]
Timestamp = Annotated[float, Meta(minimum=0, maximum=LATEST_TIMESTAMP)]
Name = Annotated[str, Meta(min_length=1, max_length=64)]


def join_code_problem(code: str) -> str | None:
    """What is wrong with ``code`` as a join code, or ``None``."""
    if _JOIN_CODE_RE.match(code):
        return None
    return (
        f"bad join code {code!r}: {JOIN_CODE_LENGTH} of the letters and digits {JOIN_CODE_ALPHABET}"
    )


class JoinedBy(StrEnum):
    """How a player came into a lobby."""

    NAME = "name"
    """A name typed or sent (a guest unless the roster knows it)."""
    ROSTER = "roster"
    """Picked from the roster (``{"id": n}``, the display's Players step)."""
    CARD = "card"
    """A registered player card tapped on the board's reader."""
    PHONE = "phone"
    """From the venue's web page with the board's join code."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRef(JsonObject):
    """A player as ``join`` and ``leave`` name one: ``{"name": ...}`` or ``{"id": n}``."""

    json_description: ClassVar[str | None] = (
        'A player: {"name": "Ann"} (a guest unless the roster has the name) or {"id": 12} '
        "(a roster player). Exactly one of the two."
    )

    json_closed: ClassVar[bool] = True
    json_extra: ClassVar[Mapping[str, Any]] = {
        "oneOf": [{"required": ["name"]}, {"required": ["id"]}]
    }
    name: Name | None = omitted()
    id: PlayerId | None = omitted()

    def __post_init__(self) -> None:
        if (self.name is None) == (self.id is None):
            raise ValueError('a player has exactly one of "name" and "id"')


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyPlayer(JsonObject):
    """One player waiting for the board's next game."""

    json_def: ClassVar[str | None] = "lobby_player"
    name: Name
    player_id: Annotated[
        int | None, Meta(minimum=1, description="The roster's id; null for a guest.")
    ] = None
    joined_by: JoinedBy
    joined_at: Timestamp
    average: Annotated[
        float | None,
        Meta(description="The player's average this month in the venue, when the roster has it."),
    ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Suggestion(JsonObject):
    """A player the lobby offers to pick (the display's numbered Players step)."""

    json_def: ClassVar[str | None] = "lobby_suggestion"
    name: Name
    player_id: Annotated[int | None, Meta(minimum=1)] = None
    regular: Annotated[
        bool, Meta(description="True: one of the venue's regulars; false: played here lately.")
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyState(JsonObject):
    """The state's ``lobby``: who joined the next game, the code that lets a
    phone join it, and whom to suggest."""

    json_def: ClassVar[str | None] = "lobby"
    players: tuple[LobbyPlayer, ...]
    join_code: Annotated[
        str | None,
        Meta(
            pattern=JOIN_CODE_PATTERN,
            description="This board's join code until its next game starts; null when "
            "phones cannot join (no web page configured).",
        ),
    ] = None
    join_url: Annotated[
        str | None,
        Meta(description="The page a phone opens to join (the code in it): the display's QR."),
    ] = None
    suggestions: Annotated[tuple[Suggestion, ...], Meta(max_items=LOBBY_SUGGESTIONS)] = ()
    roster: Annotated[
        bool, Meta(description="True once the board has a copy of its venue's roster.")
    ] = False
    card_waiting: Annotated[
        bool,
        Meta(
            description="True for a while after a card the roster does not know was tapped: "
            "a phone joining now may link it (join's link_card)."
        ),
    ] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RosterPlayer(JsonObject):
    """One player of the venue's roster, as a board keeps it."""

    json_def: ClassVar[str | None] = "roster_player"
    id: PlayerId
    name: Name
    cards: Annotated[
        tuple[str, ...],
        Meta(description="The player's cards as keyed hashes, never UIDs."),
    ] = ()
    average: float | None = None
    mpr: Annotated[
        float | None, Meta(description="The player's Cricket marks per round this month.")
    ] = None
    regular: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RosterMessage(JsonObject):
    """``{base}/{board}/roster``: the venue's roster for one board, retained."""

    venue: Name
    updated_at: Timestamp
    players: tuple[RosterPlayer, ...]

    def payload(self) -> bytes:
        """The message as published: compact JSON."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerLine(JsonObject):
    """One player's after-game line: this game against their month, their rating's move."""

    json_def: ClassVar[str | None] = "player_line"
    seat: Annotated[int, Meta(minimum=0)]
    name: Name
    player_id: Annotated[int | None, Meta(minimum=1)] = None
    average: Annotated[float | None, Meta(description="This game's average measure.")] = None
    month_average: Annotated[
        float | None, Meta(description="The player's average this month, this game included.")
    ] = None
    rating_change: Annotated[float | None, Meta(description="The rating's ordinal change.")] = None
    personal_best: Annotated[
        str | None, Meta(description="A personal best this game set, in words; else null.")
    ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultLines(JsonObject):
    """``{base}/{board}/result/lines``: the leaderboard's lines for the board's
    last stored result, retained."""

    result_id: str
    game: str
    at: Timestamp
    players: tuple[PlayerLine, ...]

    def payload(self) -> bytes:
        """The message as published: compact JSON."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


def _roster_schema(defs: dict[str, Any]) -> dict[str, Any]:
    return object_schema(RosterMessage, defs)


def _lines_schema(defs: dict[str, Any]) -> dict[str, Any]:
    return object_schema(ResultLines, defs)


ROSTER_TOPIC = topic_schema(
    "Oche roster topic",
    "Published retained by the leaderboard service for each board it knows: the players "
    "of the board's venue (id, name, cards as keyed hashes, month average, regular). The "
    "board keeps its last copy, so a card still joins while the service is down.",
    _roster_schema,
)
"""``{base}/{board}/roster``'s schema (the service's topic)."""

RESULT_LINES_TOPIC = topic_schema(
    "Oche result/lines topic",
    "Published retained by the leaderboard service once it stored a board's result: each "
    "player's line for that game (average against the month's, rating change, a personal "
    "best), which the display shows after the game.",
    _lines_schema,
)
"""``{base}/{board}/result/lines``'s schema (the service's topic)."""
