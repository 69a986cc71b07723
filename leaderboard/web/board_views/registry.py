"""Which view shows a game: the registry by game id, filled by
:func:`register_view` as the game modules are imported, with the generic
view for a game without one (as display/scenes/registry.py does for the
pygame scenes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from leaderboard.web.board_views.base import GameView
from leaderboard.web.board_views.generic import GenericView

__all__ = ["GENERIC", "register_view", "registered_views", "view_for"]

GENERIC = GenericView()
"""The view of a game no module registered."""

_VIEWS: dict[str, GameView] = {}
"""Game id to its view; written only while the game modules are imported."""

V = TypeVar("V", bound=type[GameView])


def register_view(*game_ids: str) -> Callable[[V], V]:
    """Class decorator: the view for these game ids (one instance, it keeps nothing)."""

    def decorate(cls: V) -> V:
        for game_id in game_ids:
            _VIEWS[game_id] = cls()
        return cls

    return decorate


def registered_views() -> dict[str, GameView]:
    """A copy of the registry: game id to its view."""
    return dict(_VIEWS)


def view_for(game_id: str | None) -> GameView:
    """The view of ``game_id``: its own, else the generic one."""
    return _VIEWS.get(game_id or "", GENERIC)
