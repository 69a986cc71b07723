"""The scoreboard's scenes, one per kind of screen, picked by :func:`scene_for`.

Importing this package registers every scene: each game of the engine has
its own; a game without one (a newer daemon's) gets the generic scoreboard,
and no game the attract screen. The setup screen (setup.py) is opened by
the app, not picked by state, and so is the operator menu (operator.py).
"""

from display.scenes import (
    around_the_world,
    baseball,
    count_up,
    cricket,
    cricket_count_up,
    cricket_shanghai,
    domino_cribbage,
    english_cricket,
    fifty_one_by_fives,
    generic,
    idle,
    killer,
    legs,
    setup,
    shanghai,
    skill_test,
    x01,
)
from display.scenes.around_the_world import AroundTheWorldScene
from display.scenes.base import MQTT_EVENT, Scene, as_view, can_set_up
from display.scenes.baseball import BaseballScene
from display.scenes.count_up import CountUpScene
from display.scenes.cricket import CricketScene
from display.scenes.cricket_count_up import CricketCountUpScene
from display.scenes.cricket_shanghai import CricketShanghaiScene
from display.scenes.domino_cribbage import DominoCribbageScene
from display.scenes.english_cricket import EnglishCricketScene
from display.scenes.fifty_one_by_fives import FiftyOneByFivesScene
from display.scenes.generic import GenericScene
from display.scenes.idle import IdleScene
from display.scenes.killer import KillerScene
from display.scenes.legs import LegsScene
from display.scenes.registry import register_scene, scene_class_for, scene_for
from display.scenes.setup import SetupScene
from display.scenes.shanghai import ShanghaiScene
from display.scenes.skill_test import SkillTestScene
from display.scenes.x01 import X01Scene

__all__ = [
    "MQTT_EVENT",
    "AroundTheWorldScene",
    "BaseballScene",
    "CountUpScene",
    "CricketCountUpScene",
    "CricketScene",
    "CricketShanghaiScene",
    "DominoCribbageScene",
    "EnglishCricketScene",
    "FiftyOneByFivesScene",
    "GenericScene",
    "IdleScene",
    "KillerScene",
    "LegsScene",
    "Scene",
    "SetupScene",
    "ShanghaiScene",
    "SkillTestScene",
    "X01Scene",
    "around_the_world",
    "as_view",
    "baseball",
    "can_set_up",
    "count_up",
    "cricket",
    "cricket_count_up",
    "cricket_shanghai",
    "domino_cribbage",
    "english_cricket",
    "fifty_one_by_fives",
    "generic",
    "idle",
    "killer",
    "legs",
    "register_scene",
    "scene_class_for",
    "scene_for",
    "setup",
    "shanghai",
    "skill_test",
    "x01",
]
