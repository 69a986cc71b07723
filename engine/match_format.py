"""A match's format: first to N legs, optionally first to M sets of them,
who throws first in each leg, and how a deciding leg's first throw is won.

A tiny frozen value with a JSON round trip (``MatchFormat.from_json`` /
``to_json``) and words for screens (``str``): ``new_game``'s ``match``, the
state's ``match.format``, a result's ``match_format`` and a tournament's
match format are all this one value (docs/matches.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from engine.errors import EngineError

__all__ = ["MAX_LEGS", "MAX_SETS", "Decider", "MatchFormat", "MatchFormatError", "Starts"]

MAX_LEGS = 25
"""The most legs a side may need to win (a set, or the match)."""
MAX_SETS = 13
"""The most sets a side may need to win the match."""


class MatchFormatError(EngineError):
    """A match format that is not one: names the key and quotes the value."""


class Starts(StrEnum):
    """Who throws first in each leg after the first (side 0 starts leg 1, and
    with sets each set's first leg alternates from set to set)."""

    ALTERNATE = "alternate"
    """The sides take turns: the darts' usual rule."""
    LOSER = "loser"
    """The side that lost the last leg."""
    WINNER = "winner"
    """The side that won the last leg."""


class Decider(StrEnum):
    """How the first throw of the deciding leg (every side one leg from the
    match) is won."""

    NONE = "none"
    """As any other leg (``starts``)."""
    CORK = "cork"
    """A bull-off: one dart each at the bull, the better (DB over SB over the
    rest) throws first; a tie throws again. The cricket family's default."""


_KEYS = ("legs", "sets", "starts", "decider")


@dataclass(frozen=True, slots=True)
class MatchFormat:
    """First to ``legs`` legs (in each set, with ``sets``), first to ``sets``
    sets (``None``: no sets); ``starts`` says who throws first in a leg and
    ``decider`` how the deciding leg's first throw is won (``None``: the
    game's default, which the engine's match fills in)."""

    legs: int
    sets: int | None = None
    starts: Starts = Starts.ALTERNATE
    decider: Decider | None = None

    def __post_init__(self) -> None:
        _count("legs", self.legs, MAX_LEGS)
        if self.sets is not None:
            _count("sets", self.sets, MAX_SETS)

    @classmethod
    def from_json(cls, value: object) -> MatchFormat:
        """Read ``{"legs": 3, "sets": 2, "starts": "loser", "decider": "cork"}``
        (``legs`` required); a :class:`MatchFormatError` names what is wrong."""
        if not isinstance(value, Mapping):
            raise MatchFormatError(f'a match is an object like {{"legs": 3}}, not {value!r}')
        unknown = sorted(set(map(str, value)) - set(_KEYS))
        if unknown:
            raise MatchFormatError(
                f"unknown match key {unknown[0]!r}; a match has {', '.join(_KEYS)}"
            )
        if "legs" not in value:
            raise MatchFormatError('a match needs "legs": the legs a side must win')
        sets = value.get("sets")
        decider = value.get("decider")
        return cls(
            legs=value["legs"],
            sets=sets,
            starts=_choice("starts", value.get("starts", Starts.ALTERNATE.value), Starts),
            decider=None if decider is None else _choice("decider", decider, Decider),
        )

    def to_json(self) -> dict[str, Any]:
        """The format as JSON, every key written (``decider`` null when the game's default)."""
        return {
            "legs": self.legs,
            "sets": self.sets,
            "starts": self.starts.value,
            "decider": None if self.decider is None else self.decider.value,
        }

    def __str__(self) -> str:
        legs = f"{self.legs} leg" + ("" if self.legs == 1 else "s")
        if self.sets is None:
            return f"first to {legs}"
        sets = f"{self.sets} set" + ("" if self.sets == 1 else "s")
        return f"first to {sets} of {legs}"


def _count(key: str, value: object, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise MatchFormatError(f'match "{key}" must be an integer from 1 to {most}, not {value!r}')


E = TypeVar("E", bound=StrEnum)


def _choice(key: str, value: object, kind: type[E]) -> E:
    for member in kind:
        if value == member.value:
            return member
    valid = ", ".join(member.value for member in kind)
    raise MatchFormatError(f'match "{key}" must be one of {valid}, not {value!r}')
