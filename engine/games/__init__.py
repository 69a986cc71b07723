"""The games of the engine, one module each; importing this registers them.

The import order is the order games are listed in (``oche games``, the
display's setup screen): the 01 games and cricket first, then the seed's list,
then the practice games (the skill test, Count-Up and Cricket Count-Up).
"""

# ruff: noqa: I001
from engine.games.x01 import X01
from engine.games.cricket import Cricket
from engine.games.cricket_shanghai import CricketShanghai
from engine.games.baseball import Baseball
from engine.games.killer import Killer
from engine.games.shanghai import Shanghai
from engine.games.legs import Legs
from engine.games.fifty_one_by_fives import FiftyOneByFives
from engine.games.around_the_world import AroundTheWorld
from engine.games.english_cricket import EnglishCricket
from engine.games.domino_cribbage import DominoCribbage
from engine.games.skill_test import SkillTest
from engine.games.count_up import CountUp
from engine.games.cricket_count_up import CricketCountUp

__all__ = [
    "X01",
    "AroundTheWorld",
    "Baseball",
    "CountUp",
    "Cricket",
    "CricketCountUp",
    "CricketShanghai",
    "DominoCribbage",
    "EnglishCricket",
    "FiftyOneByFives",
    "Killer",
    "Legs",
    "Shanghai",
    "SkillTest",
]
