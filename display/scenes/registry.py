"""Which scene shows a state: the registry of game scenes, filled by
:func:`register_scene` as the scene modules are imported.

It sits apart from :mod:`display.scenes.base` so the base class does not
import the scenes built on it: the imports inside ``display/`` form no
cycle (tests/display/test_structure.py checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from display.scenes.base import Scene, State, as_view
from display.scenes.generic import GenericScene
from display.scenes.idle import IdleScene
from display.sprites import Sprites
from mqtt_contract import Phase

__all__ = ["register_scene", "registered_scenes", "scene_class_for", "scene_for"]

_SCENES: dict[str, type[Scene]] = {}
"""Game id to scene class; written only while the scene modules are imported."""

S = TypeVar("S", bound="type[Scene]")


def register_scene(*game_ids: str) -> Callable[[S], S]:
    """Class decorator: the scene for these game ids."""

    def decorate(cls: S) -> S:
        for game_id in game_ids:
            _SCENES[game_id] = cls
        return cls

    return decorate


def registered_scenes() -> dict[str, type[Scene]]:
    """A copy of the registry: game id to the scene class registered for it."""
    return dict(_SCENES)


def scene_class_for(state: State | Mapping[str, Any] | None) -> type[Scene]:
    """The scene class that shows ``state``: idle without a game, the game's
    own scene, else the generic scoreboard."""
    view = as_view(state)
    if view is None or not view.game or view.phase is Phase.IDLE or not view.players:
        return IdleScene
    return _SCENES.get(view.game, GenericScene)


def scene_for(state: State | Mapping[str, Any] | None, sprites: Sprites | None = None) -> Scene:
    """A new scene showing ``state`` (see :func:`scene_class_for`), keeping
    its pictures in ``sprites`` (none: the shared render cache)."""
    view = as_view(state)
    scene = scene_class_for(view)(sprites)
    scene.set_state(view)
    return scene
