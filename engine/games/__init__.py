"""The games of the engine, one module each; importing this registers them."""

from engine.games.cricket import Cricket
from engine.games.cricket_shanghai import CricketShanghai
from engine.games.x01 import X01

__all__ = ["X01", "Cricket", "CricketShanghai"]
