"""Where a computer player aims, one policy per game: given the engine's state
JSON and the bot's spread sigma, a :class:`Strategy` returns the aim point.

Policies use the throw model (``engine.throw_model``), so they import numpy;
``engine`` itself never imports this package. Games without a policy yet are
refused by :func:`strategy_for` with a clear error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


def _x01(geometry: BoardGeometry) -> Strategy:
    from engine.strategy.x01 import X01Strategy

    return X01Strategy(geometry)


STRATEGIES: dict[str, Callable[[BoardGeometry], Strategy]] = {"x01": _x01}
"""Policy factories by game id; other games' policies register here."""


def strategy_for(game_id: str, geometry: BoardGeometry = STEEL) -> Strategy:
    """The policy for ``game_id`` on ``geometry``; StrategyError if it has none."""
    factory = STRATEGIES.get(game_id)
    if factory is None:
        known = ", ".join(sorted(STRATEGIES))
        raise StrategyError(f"no computer policy for game {game_id!r} yet (have: {known})")
    return factory(geometry)
