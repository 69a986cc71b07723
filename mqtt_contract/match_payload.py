"""Match play in the contract: the ``match`` of a ``new_game`` and of a
result, the state's ``match`` block (legs and sets), and a match the venue's
service calls to a board (the ``call_match`` command, the state's ``call``
block): docs/matches.md.

A side is a player, or a team in a team game: ``legs_won`` and ``sets_won``
are indexed by side (the state's ``teams`` when it has them, else its
players); ``starter`` and ``winner`` are player indices, as everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from engine.match_format import MAX_LEGS, MAX_SETS, Decider, MatchFormat, Starts
from mqtt_contract.json_types import PRESENT, JsonObject, Meta, omitted, required
from mqtt_contract.schema_parts import LATEST_TIMESTAMP

__all__ = [
    "CALL_ID_PATTERN",
    "CallPlayer",
    "CallTeam",
    "CallView",
    "MatchLeg",
    "MatchPlay",
    "MatchView",
    "call_problem",
]

CALL_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
"""A called match's id: the service's, echoed in the result's ``call_id``."""

Index = Annotated[int, Meta(minimum=0)]
PlayerIndex = Annotated[int, Meta(minimum=0, description="An index into the state's players.")]
SideCounts = Annotated[
    tuple[Index, ...],
    Meta(description="Per side: the teams' order in a team game, else the players'."),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchPlay(JsonObject):
    """A match's format (``engine.MatchFormat`` as JSON): ``new_game``'s
    ``match``, the state's ``match.format``, a result's ``match_format``."""

    json_closed: ClassVar[bool] = True
    json_description: ClassVar[str | None] = (
        "A match: first to legs legs (in each set, with sets), first to sets sets; who "
        "throws first in each leg; how a deciding leg's first throw is won (docs/matches.md)."
    )

    legs: Annotated[int, Meta(minimum=1, maximum=MAX_LEGS, description="The legs a side must win.")]
    sets: Annotated[
        int | None,
        Meta(minimum=1, maximum=MAX_SETS, description="The sets a side must win; null: no sets."),
    ] = omitted(null=True)
    starts: Annotated[
        str,
        Meta(
            enum=tuple(s.value for s in Starts),
            description="Who throws first in each leg after the first: alternate (default), "
            "the last leg's loser or its winner.",
        ),
    ] = Starts.ALTERNATE.value
    decider: Annotated[
        str | None,
        Meta(
            enum=tuple(d.value for d in Decider),
            description="The deciding leg's first throw: none (as starts says) or cork (a "
            "bull-off). Null or absent: the game's default (cork for the cricket family).",
        ),
    ] = omitted(null=True)

    def format(self) -> MatchFormat:
        """The engine's value of this format."""
        return MatchFormat.from_json({k: v for k, v in self.to_json().items() if v is not None})

    @classmethod
    def of(cls, match: MatchFormat) -> MatchPlay:
        """``match`` as its payload."""
        return cls.from_json(match.to_json())


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchLeg(JsonObject):
    """A finished leg of the match, as the state lists them."""

    leg: Annotated[int, Meta(minimum=1, description="Its number in the match, from 1.")] = required(
        0
    )
    set: Annotated[int | None, Meta(minimum=1, description="Its set, from 1; null: no sets.")] = (
        required(None, null=True)
    )
    starter: Annotated[int | None, Meta(minimum=0, description="Who threw first.")] = required()
    winner: Annotated[
        int | None, Meta(minimum=0, description="Who won it (player index); null: a draw.")
    ] = required(None, null=True)
    winner_team: Annotated[int | None, Meta(minimum=0)] = required(None, null=True)
    result: Annotated[str | None, Meta(description="How it ended: checkout, ...")] = required()


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchView(JsonObject):
    """The state's ``match`` block: only in a match (a ``new_game`` with a ``match``)."""

    json_description: ClassVar[str | None] = (
        "Only in a match (docs/matches.md): its format, the leg and set being played, "
        "who threw first in it, the legs and sets won per side, the legs played."
    )

    present: bool = field(default=False, metadata=PRESENT)
    format: MatchPlay | None = required()
    leg: Annotated[int, Meta(minimum=1, description="This leg's number in the match.")] = required(
        0
    )
    set: Annotated[int | None, Meta(minimum=1, description="This set's number; null: no sets.")] = (
        required(None, null=True)
    )
    starter: Annotated[
        int | None,
        Meta(
            minimum=0,
            description="Who throws (threw) first in this leg; null while its cork is thrown.",
        ),
    ] = required(None, null=True)
    legs_won: Annotated[
        SideCounts, Meta(description="Legs won per side: in this set with sets, else in the match.")
    ] = required(())
    sets_won: Annotated[
        tuple[Index, ...] | None, Meta(description="Sets won per side; null: no sets.")
    ] = required(None, null=True)
    decider: Annotated[
        bool, Meta(description="This leg decides the match: every side is one leg from it.")
    ] = required(False)
    leg_over: Annotated[
        bool,
        Meta(
            description="This leg is won and the match goes on: the board shows the leg's "
            "winner until NEXT starts the next leg (or the cork for it)."
        ),
    ] = required(False)
    cork: Annotated[
        tuple[str | None, ...] | None,
        Meta(
            description="While a deciding leg's cork is thrown: each side's dart this round "
            "(null: not yet thrown); null otherwise."
        ),
    ] = required(None, null=True)
    finished: Annotated[bool, Meta(description="The match is over.")] = required(False)
    winner: Annotated[
        int | None, Meta(minimum=0, description="The match's winner (player index).")
    ] = required(None, null=True)
    winner_team: Annotated[int | None, Meta(minimum=0)] = required(None, null=True)
    played: Annotated[
        tuple[MatchLeg, ...], Meta(description="The legs finished so far, in order.")
    ] = required(())


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPlayer(JsonObject):
    """A player of a called match."""

    json_closed: ClassVar[bool] = True
    name: Annotated[str, Meta(min_length=1, max_length=64)]
    player_id: Annotated[
        int | None, Meta(minimum=1, description="Their id in the venue's roster; null: a guest.")
    ] = omitted(null=True)
    board: Annotated[
        str | None,
        Meta(
            min_length=1,
            description="Where they throw when it is another board (base/board or a board id): "
            "the called board hosts a remote match (docs/remote.md); absent: at this board.",
        ),
    ] = omitted(null=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallTeam(JsonObject):
    """A team of a called team game (a league's pairs): its name and its
    players, by name, in throwing order."""

    json_closed: ClassVar[bool] = True
    name: Annotated[str, Meta(min_length=1, max_length=64)]
    players: Annotated[
        tuple[Annotated[str, Meta(min_length=1, max_length=64)], ...],
        Meta(min_items=1, description="The names of the call's players in this team, in order."),
    ]


def call_problem(players: tuple[CallPlayer, ...], teams: tuple[CallTeam, ...] | None) -> str | None:
    """Why a call's teams do not fit its players (each player in exactly one
    team, at least two teams), in words; None when they do (or no teams)."""
    if teams is None:
        return None
    if len(teams) < 2:
        return "a team game needs at least two teams"
    names = [player.name for player in players]
    members = [name for team in teams for name in team.players]
    if len({team.name for team in teams}) != len(teams):
        return "two teams have one name"
    for name in members:
        if name not in names:
            return f"team member {name!r} is not one of the call's players"
    if sorted(members) != sorted(names):
        return "each of the call's players must be in exactly one team"
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallView(JsonObject):
    """The state's ``call`` block: a match the venue's service called to this
    board, waiting for its players to start it with a dart or NEXT."""

    json_description: ClassVar[str | None] = (
        "Only while a match the venue's service called (a tournament's or a league's, "
        "docs/matches.md) waits to be started on this board: its players are in the lobby, "
        "and a dart or NEXT starts it."
    )

    present: bool = field(default=False, metadata=PRESENT)
    call_id: Annotated[str, Meta(pattern=CALL_ID_PATTERN)] = required("")
    title: Annotated[
        str | None, Meta(description='What it is part of, e.g. "Friday Cup, round 1".')
    ] = required(None, null=True)
    game: Annotated[str, Meta(min_length=1)] = required("")
    options: Mapping[str, Any] | None = required(None, null=True)
    match: MatchPlay | None = required(None, null=True)
    players: Annotated[tuple[CallPlayer, ...], Meta(min_items=1)] = required(())
    teams: Annotated[
        tuple[CallTeam, ...] | None,
        Meta(description="A team game's teams, in side order; null: every player a side."),
    ] = omitted(null=True)
    called_at: Annotated[float | None, Meta(minimum=0, maximum=LATEST_TIMESTAMP)] = required()
