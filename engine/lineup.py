"""Who plays: 1-8 named players, optionally split into teams that alternate.

Every name, a player's or a team's, takes :func:`check_name`: every way a
game is made (the daemon's commands, ``oche run -p``, ``oche replay``, the
leaderboard's re-scoring) builds a :class:`Lineup`, so they share one rule.

A *side* is what keeps a score: a team, or a player on their own. Sides
throw in turn; within a team the members take the team's visits in turn
(team A player 1, team B player 1, team A player 2, ...).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.errors import LineupError

__all__ = ["MAX_NAME_LENGTH", "MAX_PLAYERS", "Lineup", "Team", "check_name"]

MAX_PLAYERS = 8

MAX_NAME_LENGTH = 24
"""The longest player or team name a board takes: it has to fit a scoreboard."""

_FORBIDDEN_CATEGORIES = {"Cc": "a control character", "Cs": "a lone surrogate"}


def check_name(name: str, what: str = "player name") -> str:
    """``name`` stripped, if a board can take it: not empty, at most
    :data:`MAX_NAME_LENGTH` characters, no control characters or lone
    surrogates. A :class:`LineupError` quotes the name (shortened) and says why."""
    stripped = name.strip()
    quoted = repr(
        stripped if len(stripped) <= MAX_NAME_LENGTH else stripped[:MAX_NAME_LENGTH] + "…"
    )
    if not stripped:
        raise LineupError(f"{what} {name!r} is empty")
    if len(stripped) > MAX_NAME_LENGTH:
        raise LineupError(
            f"{what} {quoted} is {len(stripped)} characters long; the limit is {MAX_NAME_LENGTH}"
        )
    for character in stripped:
        kind = _FORBIDDEN_CATEGORIES.get(unicodedata.category(character))
        if kind is not None:
            code = f"U+{ord(character):04X}"
            raise LineupError(f"{what} {quoted} contains {kind} ({code})")
    return stripped


@dataclass(frozen=True, slots=True)
class Team:
    """A named team and the indices of its players, in throwing order."""

    name: str
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Lineup:
    """The players of a game in order, and its teams (empty when none)."""

    players: tuple[str, ...]
    teams: tuple[Team, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= len(self.players) <= MAX_PLAYERS:
            raise LineupError(f"a game needs 1 to {MAX_PLAYERS} players, got {len(self.players)}")
        seen: set[str] = set()
        for name in self.players:
            check_name(name)  # every game's names: what a board, and a result, takes
            if name.strip().casefold() in seen:
                raise LineupError(f"player name {name!r} is given twice")
            seen.add(name.strip().casefold())
        if self.teams:
            self._check_teams()

    def _check_teams(self) -> None:
        if len(self.teams) < 2:
            raise LineupError("teams need at least two teams")
        names: set[str] = set()
        placed: dict[int, str] = {}
        for team in self.teams:
            check_name(team.name, "team name")
            if team.name.casefold() in names:
                raise LineupError(f"team name {team.name!r} is given twice")
            names.add(team.name.casefold())
            if not team.members:
                raise LineupError(f"team {team.name!r} has no players")
            for index in team.members:
                if not 0 <= index < len(self.players):
                    raise LineupError(
                        f"team {team.name!r} names player {index}, who is not playing"
                    )
                if index in placed:
                    raise LineupError(
                        f"player {self.players[index]!r} is in teams {placed[index]!r} "
                        f"and {team.name!r}"
                    )
                placed[index] = team.name
        missing = [self.players[i] for i in range(len(self.players)) if i not in placed]
        if missing:
            raise LineupError(f"players {missing!r} are in no team")

    @classmethod
    def build(
        cls,
        players: Sequence[str],
        teams: Mapping[str, Sequence[str | int]] | None = None,
    ) -> Lineup:
        """A lineup from player names and, optionally, ``{team name: members}``
        where members are player names or indices. Names are stripped of
        surrounding spaces."""
        players = tuple(name.strip() for name in players)
        if not teams:
            return cls(players)
        index = {name.casefold(): i for i, name in enumerate(players)}
        built = []
        for team_name, members in teams.items():
            resolved = []
            for member in members:
                if isinstance(member, int):
                    resolved.append(member)
                elif member.strip().casefold() in index:
                    resolved.append(index[member.strip().casefold()])
                else:
                    raise LineupError(f"team {team_name!r} names {member!r}, who is not playing")
            built.append(Team(team_name.strip(), tuple(resolved)))
        return cls(players, tuple(built))

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """Player indices of each side in throwing order: the teams, or one per player."""
        if self.teams:
            return tuple(team.members for team in self.teams)
        return tuple((i,) for i in range(len(self.players)))
