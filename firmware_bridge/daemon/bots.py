"""A game's computer players, as the daemon throws for them.

``new_game`` names a computer player by level or by average
(``mqtt_contract``); :func:`resolve_bots` turns those into a :class:`Bots`:
each player's spread sigma on the configured board geometry, and a seed for
the game. The record is journaled with the game (:meth:`Bots.as_json`), so a
restart throws with the same spread even if the config or the level table
changed. Each dart is aimed by the game's policy (``engine.strategy``) and
drawn from the throw model with a generator seeded by the game's seed and the
number of journal events applied so far (a match's cork dart is aimed at the
double bull): the dart the bot throws follows from
the journal alone, so after a ``kill -9`` it throws exactly the dart it would
have, and an undo (one more event) gives a fresh dart.

The model's modules (numpy) are imported only when a game has a computer
player: a daemon without one never loads numpy.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import Bed, PickingGame, game_class
from engine.board_geometry import GEOMETRIES, BoardGeometry

if TYPE_CHECKING:
    from engine.strategy import Strategy

__all__ = ["Bots", "CpuPlayer", "resolve_bots"]


@dataclass(frozen=True, slots=True)
class CpuPlayer:
    """One computer player: its level, its spread (mm) and the whole-leg 501
    average that spread plays (on the game's geometry)."""

    level: int
    sigma_mm: float
    average: float

    def as_json(self) -> dict[str, Any]:
        """The state's ``players[i].cpu`` object (and the journal's record)."""
        return {
            "level": self.level,
            "sigma_mm": round(self.sigma_mm, 3),
            "average": round(self.average, 1),
        }


@dataclass(frozen=True)
class Bots:
    """The computer players of one game (by name), the board geometry their
    darts land on and the game's seed."""

    game: str
    players: Mapping[str, CpuPlayer]
    geometry: BoardGeometry
    seed: int

    def reseeded(self) -> Bots:
        """The same players with a fresh seed (a rematch throws differently)."""
        return dataclasses.replace(self, seed=secrets.randbits(63))

    def as_json(self) -> dict[str, Any]:
        """What the journal keeps with the game."""
        return {
            "seed": self.seed,
            "geometry": self.geometry.name,
            "players": {name: cpu.as_json() for name, cpu in self.players.items()},
        }

    @classmethod
    def from_json(cls, game: str, record: Mapping[str, Any]) -> Bots:
        """The bots of a journaled game (:meth:`as_json`); a ValueError names
        what is damaged."""
        try:
            players = {
                str(name): CpuPlayer(
                    int(cpu["level"]), float(cpu["sigma_mm"]), float(cpu["average"])
                )
                for name, cpu in record["players"].items()
            }
            return cls(game, players, GEOMETRIES[record["geometry"]], int(record["seed"]))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"the journaled computer players are damaged: {error!r}") from None

    @property
    def strategy(self) -> Strategy:
        """The game's policy on this geometry."""
        from engine.strategy import strategy_for

        return strategy_for(self.game, self.geometry)

    def throw(self, state: Mapping[str, Any], applied: int) -> Bed:
        """The bed the current player of ``state`` (a computer player) hits with
        its next dart, the game having applied ``applied`` journal events.
        Aiming may take a while the first time (the X01 plan is solved and
        cached per spread): call it off the event loop."""
        from engine.throw_model import sample_throw

        name = state["players"][state["current_player"]]["name"]
        sigma = self.players[name].sigma_mm
        rng = random.Random(f"oche-bot:{self.seed}:{applied}")
        if _corking(state):  # a match's cork: one dart at the double bull
            return sample_throw((0.0, 0.0), sigma, rng, self.geometry).bed
        aim = self.strategy.aim(state, sigma)
        return sample_throw((aim.x_mm, aim.y_mm), sigma, rng, self.geometry).bed


def _corking(state: Mapping[str, Any]) -> bool:
    """Whether ``state`` is a match's cork (docs/matches.md): its current
    player throws one dart at the bull to win the deciding leg's first throw."""
    match = state.get("match")
    return isinstance(match, Mapping) and match.get("cork") is not None


def resolve_bots(game: str, cpu: Mapping[str, Mapping[str, Any]], geometry: BoardGeometry) -> Bots:
    """The :class:`Bots` for ``new_game``'s ``cpu`` argument (name ->
    ``{"level": n}``, ``{"average": x}`` or ``{"mpr": m}``) with a fresh seed. A game played
    by picking, or one without a computer policy yet, is a ValueError saying so.
    Solving the levels takes seconds the first time: call it off the event loop."""
    from engine.bot_levels import (
        average_for_sigma,
        level,
        level_for_sigma,
        sigma_for_average,
        sigma_for_mpr,
    )
    from engine.strategy import strategy_for

    if issubclass(game_class(game), PickingGame):
        raise ValueError(f"{game} is played by picking: it has its own computer player option")
    strategy_for(game, geometry)  # a StrategyError (a ValueError) names the games that have one
    players: dict[str, CpuPlayer] = {}
    for name, spec in cpu.items():
        if "level" in spec:
            chosen = level(int(spec["level"]), geometry)
            players[name] = CpuPlayer(chosen.level, chosen.sigma_mm, chosen.leg_average)
        else:
            if "mpr" in spec:
                sigma = sigma_for_mpr(float(spec["mpr"]), geometry)
            else:
                sigma = sigma_for_average(float(spec["average"]), geometry)
            players[name] = CpuPlayer(
                level_for_sigma(sigma, geometry), sigma, average_for_sigma(sigma, geometry)
            )
    return Bots(game, players, geometry, secrets.randbits(63))
