"""Where a computer player aims, one policy per game: given the engine's state
JSON and the bot's spread sigma, a :class:`Strategy` returns the aim point.

Policies use the throw model (``engine.throw_model``), so they import numpy;
``engine`` itself never imports this package. Every registered game has one
(docs/bots.md); an unknown id is refused by :func:`strategy_for` with a clear
error. Domino cribbage's policy throws at the tile its computer player picks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any, Protocol

from engine.board_geometry import STEEL, BoardGeometry
from engine.throw_model import Aim, SpreadLike

__all__ = ["STRATEGIES", "Strategy", "StrategyError", "strategy_for"]


class StrategyError(ValueError):
    """A state a policy cannot aim in (wrong game, finished game, dead visit)."""


class Strategy(Protocol):
    """A game's policy: the aim for the player to throw in ``state``."""

    @property
    def game_id(self) -> str:
        """The registry id of the game this policy plays."""
        ...

    @property
    def geometry(self) -> BoardGeometry:
        """The board it aims at."""
        ...

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        """The aim point for the next dart of ``state``'s current player."""
        ...


def _policy(module: str, name: str) -> Callable[[BoardGeometry], Strategy]:
    """A factory that imports the policy's module only when asked for it."""

    def make(geometry: BoardGeometry) -> Strategy:
        policy: Strategy = getattr(import_module(f"engine.strategy.{module}"), name)(geometry)
        return policy

    return make


STRATEGIES: dict[str, Callable[[BoardGeometry], Strategy]] = {
    "x01": _policy("x01", "X01Strategy"),
    "cricket": _policy("cricket", "CricketStrategy"),
    "cricket-shanghai": _policy("cricket_shanghai", "CricketShanghaiStrategy"),
    "baseball": _policy("baseball", "BaseballStrategy"),
    "killer": _policy("killer", "KillerStrategy"),
    "shanghai": _policy("shanghai", "ShanghaiStrategy"),
    "legs": _policy("legs", "LegsStrategy"),
    "fifty-one-by-fives": _policy("fifty_one_by_fives", "FiftyOneByFivesStrategy"),
    "around-the-world": _policy("around_the_world", "AroundTheWorldStrategy"),
    "english-cricket": _policy("english_cricket", "EnglishCricketStrategy"),
    "domino-cribbage": _policy("domino_cribbage", "DominoCribbageStrategy"),
    "skill-test": _policy("skill_test", "SkillTestStrategy"),
    "count-up": _policy("count_up", "CountUpStrategy"),
    "cricket-count-up": _policy("cricket_count_up", "CricketCountUpStrategy"),
}
"""Policy factories by game id: one for every registered game."""


def strategy_for(game_id: str, geometry: BoardGeometry = STEEL) -> Strategy:
    """The policy for ``game_id`` on ``geometry``; StrategyError if it has none."""
    factory = STRATEGIES.get(game_id)
    if factory is None:
        known = ", ".join(sorted(STRATEGIES))
        raise StrategyError(f"no computer policy for game {game_id!r} (have: {known})")
    return factory(geometry)
