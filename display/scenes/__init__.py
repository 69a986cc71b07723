"""The scoreboard's scenes, one per kind of screen, picked by :func:`scene_for`.

Importing this package registers every scene: X01, Cricket and
Cricket-Shanghai have their own; any other game gets the generic scoreboard,
and no game the attract screen.
"""

from display.scenes import cricket, generic, idle, shanghai, x01
from display.scenes.base import MQTT_EVENT, Scene, register_scene, scene_class_for, scene_for
from display.scenes.cricket import CricketScene
from display.scenes.generic import GenericScene
from display.scenes.idle import IdleScene
from display.scenes.shanghai import ShanghaiScene
from display.scenes.x01 import X01Scene

__all__ = [
    "MQTT_EVENT",
    "CricketScene",
    "GenericScene",
    "IdleScene",
    "Scene",
    "ShanghaiScene",
    "X01Scene",
    "cricket",
    "generic",
    "idle",
    "register_scene",
    "scene_class_for",
    "scene_for",
    "shanghai",
    "x01",
]
