"""The scoreboard's scenes, one per kind of screen, picked by :func:`scene_for`.

Importing this package registers every scene: X01, Cricket and
Cricket-Shanghai have their own; any other game gets the generic scoreboard,
and no game the attract screen. The setup screen (setup.py) is opened by
the app, not picked by state.
"""

from display.scenes import cricket, generic, idle, setup, shanghai, x01
from display.scenes.base import (
    MQTT_EVENT,
    Scene,
    can_set_up,
    register_scene,
    scene_class_for,
    scene_for,
)
from display.scenes.cricket import CricketScene
from display.scenes.generic import GenericScene
from display.scenes.idle import IdleScene
from display.scenes.setup import SetupScene
from display.scenes.shanghai import ShanghaiScene
from display.scenes.x01 import X01Scene

__all__ = [
    "MQTT_EVENT",
    "CricketScene",
    "GenericScene",
    "IdleScene",
    "Scene",
    "SetupScene",
    "ShanghaiScene",
    "X01Scene",
    "can_set_up",
    "cricket",
    "generic",
    "idle",
    "register_scene",
    "scene_class_for",
    "scene_for",
    "setup",
    "shanghai",
    "x01",
]
