"""The registry of games, looked up by id (``x01``, ``cricket``, ...)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from engine.errors import UnknownGameError
from engine.game import Game
from engine.lineup import Lineup

__all__ = ["game_class", "game_ids", "game_name", "new_game", "register"]

_GAMES: dict[str, type[Game]] = {}

G = TypeVar("G", bound=type[Game])


def register(cls: G) -> G:
    """Class decorator: make a game available under its ``id``."""
    if cls.id in _GAMES:
        raise ValueError(f"game id {cls.id!r} is registered twice")
    _GAMES[cls.id] = cls
    return cls


def game_ids() -> tuple[str, ...]:
    """Every registered game id, in registration order."""
    return tuple(_GAMES)


def game_class(game_id: str) -> type[Game]:
    """The game class for ``game_id``; an unknown id lists the valid ones."""
    try:
        return _GAMES[game_id.strip().lower()]
    except KeyError:
        valid = ", ".join(_GAMES)
        raise UnknownGameError(f"unknown game {game_id!r}; the games are: {valid}") from None


def game_name(game_id: str | None) -> str:
    """The game's name from the registry (``X01``), else its id in words
    (``Foo Bar``), ``Game`` for none: what every scoreboard's header says."""
    game_id = game_id or ""
    try:
        return game_class(game_id).name
    except UnknownGameError:
        return game_id.replace("-", " ").replace("_", " ").title() or "Game"


def new_game(
    game_id: str,
    players: Sequence[str] | Lineup,
    options: Mapping[str, object] | None = None,
    teams: Mapping[str, Sequence[str | int]] | None = None,
    *,
    first_side: int = 0,
) -> Game:
    """A new game of ``game_id`` for these players, options and teams, the
    side ``first_side`` throwing first."""
    return game_class(game_id)(players, options, teams, first_side=first_side)
