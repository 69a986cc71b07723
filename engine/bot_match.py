"""Bots playing whole games through the engine: the simulation that ``oche bot
simulate``, the tests and the benchmark share. Pure and seeded: the same
arguments give the same games.

Each game is one bot alone or two bots, the second throwing first in every
other game. Every dart is aimed by the game's policy (``strategy_for``) and
landed by the throw model with one numpy generator seeded by ``seed``; a visit
a game ends early (bust, a number chosen) is closed with NEXT, as the daemon
does. A game still on after ``max_darts`` darts is stopped and counted as
unfinished (no policy loops for ever that way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.board_geometry import STEEL, BoardGeometry
from engine.bot_levels import level
from engine.errors import EngineError
from engine.events import END_VISIT
from engine.game import Game, Outcome, PickingGame
from engine.registry import game_class, new_game
from engine.strategy import Strategy, StrategyError, strategy_for
from engine.throw_model import sample_throw

__all__ = [
    "MARKS_GAMES",
    "MAX_DARTS",
    "NEEDS_OPPONENT",
    "BotRecord",
    "MatchResult",
    "SimulationError",
    "simulate",
]

MAX_DARTS = 10_000
"""Darts (all players') after which a simulated game is stopped as unfinished."""

MARKS_GAMES = frozenset({"cricket", "cricket-shanghai"})
"""Games whose figure is marks per round (MPR)."""

NEEDS_OPPONENT = frozenset({"killer", "legs"})
"""Games a side can win only by outlasting another: not simulated solo."""


class SimulationError(ValueError):
    """Arguments a simulation cannot run with; the message names the bad one."""


@dataclass(frozen=True, slots=True)
class BotRecord:
    """One bot's results over the games: wins, darts, and its points (X01) or
    marks (cricket family) with the visits they took."""

    level: int
    sigma_mm: float
    games: int
    wins: int
    darts: int
    visits: int
    points: int
    marks: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def three_dart_average(self) -> float:
        """3 x points per dart (busted visits score nothing), as the X01 stats."""
        return 3 * self.points / self.darts if self.darts else 0.0

    @property
    def mpr(self) -> float:
        """Marks per round: marks per visit, as the cricket family's stats."""
        return self.marks / self.visits if self.visits else 0.0

    def figures(self, game_id: str) -> dict[str, Any]:
        """The JSON figures for this game: its average or MPR, and the win rate."""
        figures: dict[str, Any] = {"level": self.level}
        if game_id == "x01":
            figures["three_dart_average"] = round(self.three_dart_average, 2)
        if game_id in MARKS_GAMES:
            figures["mpr"] = round(self.mpr, 2)
        figures["win_rate"] = round(self.win_rate, 3)
        figures["darts_per_game"] = round(self.darts / self.games, 1) if self.games else 0.0
        return figures


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What :func:`simulate` played: the game, the seed, each bot's record,
    the draws and the games stopped unfinished."""

    game_id: str
    games: int
    seed: int
    bots: tuple[BotRecord, ...]
    draws: int
    unfinished: int

    def as_json(self) -> dict[str, Any]:
        """``oche bot simulate --json``: the first bot's figures at the top level."""
        first = self.bots[0].figures(self.game_id)
        result: dict[str, Any] = {
            "game": self.game_id,
            "games": self.games,
            "seed": self.seed,
            "level": first.pop("level"),
            "against": self.bots[1].level if len(self.bots) > 1 else None,
            **first,
        }
        if len(self.bots) > 1:
            result["opponent"] = self.bots[1].figures(self.game_id)
        result["draws"] = self.draws
        result["unfinished"] = self.unfinished
        return result


def simulate(
    game_id: str,
    levels: Sequence[int],
    games: int,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    geometry: BoardGeometry = STEEL,
    max_darts: int = MAX_DARTS,
    sigmas: Sequence[float] | None = None,
) -> MatchResult:
    """Play ``games`` games of ``game_id`` between bots of ``levels`` (one
    level: solo games); bad arguments raise SimulationError naming them.
    ``sigmas`` (mm, one a bot) throw with those spreads instead of the
    levels' (what the levels' calibration measures)."""
    cls = _check(game_id, levels, games, seed, max_darts)
    if sigmas is None:
        sigmas = [level(number, geometry).sigma_mm for number in levels]
    elif len(sigmas) != len(levels):
        raise SimulationError(f"one sigma a bot: {len(levels)} bots, {len(sigmas)} sigmas")
    bots = [_Bot(number, sigma) for number, sigma in zip(levels, sigmas, strict=True)]
    try:
        new_game(cls.id, _names(len(bots)), options)
    except EngineError as error:
        raise SimulationError(str(error)) from None
    policy = strategy_for(cls.id, geometry)
    rng = np.random.default_rng(seed)
    draws = unfinished = 0
    for index in range(games):
        order = bots if index % 2 == 0 else bots[::-1]
        game = new_game(cls.id, _names(len(order)), options)
        _play(game, policy, [bot.sigma for bot in order], rng, geometry, max_darts)
        outcome = game.outcome()
        if outcome is None:
            unfinished += 1
        elif outcome.winner is None:
            draws += 1
        for player, bot in enumerate(order):
            bot.add(game.state()["players"][player]["stats"], outcome, player)
    return MatchResult(
        cls.id, games, seed, tuple(bot.record(games) for bot in bots), draws, unfinished
    )


def _check(
    game_id: str, levels: Sequence[int], games: int, seed: int, max_darts: int
) -> type[Game]:
    try:
        cls = game_class(game_id)
    except EngineError as error:
        raise SimulationError(str(error)) from None
    if issubclass(cls, PickingGame):
        raise SimulationError(
            f"{cls.name} is played by picking, not throwing: its computer player plays inside "
            "the game (option computer), so there is nothing to simulate"
        )
    if not 1 <= len(levels) <= 2:
        raise SimulationError(f"a simulation is one bot or two, not {len(levels)}")
    for number in levels:
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 10:
            raise SimulationError(f"a bot level is 1 to 10, not {number!r}")
    if len(levels) == 1 and (cls.id in NEEDS_OPPONENT or cls.sides_range[0] > 1):
        raise SimulationError(f"{cls.name} needs an opponent: give a second level (--against)")
    for name, value, low, high in (
        ("games", games, 1, 100_000),
        ("seed", seed, 0, 2**63 - 1),
        ("max darts", max_darts, 1, 10_000_000),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise SimulationError(
                f"{name} must be a whole number from {low} to {high}, not {value!r}"
            )
    return cls


def _names(count: int) -> tuple[str, ...]:
    return tuple(f"Bot {index + 1}" for index in range(count))


def _play(
    game: Game,
    policy: Strategy,
    sigmas: list[float],
    rng: np.random.Generator,
    geometry: BoardGeometry,
    max_darts: int,
) -> None:
    """Throw the game's darts until it is over or ``max_darts`` are thrown."""
    darts = 0
    while not game.is_finished and darts < max_darts:
        state = game.state()
        if state["visit_over"] is not None:
            game.push(END_VISIT)
            continue
        sigma = sigmas[game.current_player]
        try:
            aim = policy.aim(state, sigma)
        except StrategyError as error:  # a policy bug: say where, do not loop
            raise SimulationError(f"the {game.id} policy failed: {error}") from error
        game.push(sample_throw((aim.x_mm, aim.y_mm), sigma, rng, geometry).bed)
        darts += 1


class _Bot:
    """A bot's running totals over the games it plays."""

    def __init__(self, number: int, sigma: float) -> None:
        self.number, self.sigma = number, sigma
        self.wins = self.darts = self.visits = self.points = self.marks = 0

    def add(self, stats: Mapping[str, Any], outcome: Outcome | None, player: int) -> None:
        self.darts += int(stats["darts"])
        self.visits += int(stats["visits"])
        self.points += int(stats.get("points", 0))
        self.marks += int(stats.get("marks", 0))
        if outcome is not None and outcome.winner == player:
            self.wins += 1

    def record(self, games: int) -> BotRecord:
        return BotRecord(
            self.number,
            self.sigma,
            games,
            self.wins,
            self.darts,
            self.visits,
            self.points,
            self.marks,
        )
