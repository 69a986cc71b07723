"""Which scene shows a state: the registry of game scenes, filled by
:func:`register_scene` as the scene modules are imported.

It sits apart from :mod:`display.scenes.base` so the base class does not
import the scenes built on it: the imports inside ``display/`` form no
cycle (tests/display/test_structure.py checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from display.scenes.base import Scene, State
from display.scenes.generic import GenericScene
from display.scenes.idle import IdleScene
from display.sprites import Sprites

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


def scene_class_for(state: State | None) -> type[Scene]:
    """The scene class that shows ``state``: idle without a game, the game's
    own scene, else the generic scoreboard."""
    if not state or not state.get("game") or state.get("phase") == "idle":
        return IdleScene
    if not isinstance(state.get("players"), list) or not state["players"]:
        return IdleScene
    return _SCENES.get(str(state["game"]), GenericScene)


def scene_for(state: State | None, sprites: Sprites | None = None) -> Scene:
    """A new scene showing ``state`` (see :func:`scene_class_for`), keeping
    its pictures in ``sprites`` (none: the shared render cache)."""
    scene = scene_class_for(state)(sprites)
    scene.set_state(state)
    return scene
