"""Realistic result documents without a board: simulated players throw X01 and
Cricket games through the engine, and each finished game becomes the payload a
daemon publishes on ``{base}/{board}/result`` (the same keys, log and state).
For the benchmark, demos and tests; seeded, so every run makes the same games."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from typing import Any

from engine import MISS, X01, Bed, Cricket, Game, checkout, new_game
from mqtt_contract import result_document

__all__ = ["SAMPLE_GAMES", "SimulatedPlayer", "sample_result"]

SAMPLE_GAMES = (X01.id, Cricket.id)
"""The games :func:`sample_result` plays."""

_BOARD_ORDER = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)
_CRICKET_ORDER = (20, 19, 18, 17, 16, 15, 25)
_MAX_DARTS = 600


class SimulatedPlayer:
    """A player who hits the aimed bed with probability ``skill``; a miss lands
    in the single of the same number, a neighbour's single, or off the board."""

    def __init__(self, name: str, skill: float, rng: random.Random) -> None:
        self.name = name
        self.skill = skill
        self._rng = rng

    def throw(self, aim: Bed) -> Bed:
        """Where a dart aimed at ``aim`` lands."""
        rng = self._rng
        if rng.random() < self.skill:
            return aim
        roll = rng.random()
        if aim.number == 25:
            return Bed(25, 1) if roll < 0.5 else Bed(rng.choice(_BOARD_ORDER), 1)
        if roll < 0.6:
            return Bed(aim.number, 1)
        if roll < 0.95:
            at = _BOARD_ORDER.index(aim.number)
            return Bed(_BOARD_ORDER[(at + rng.choice((-1, 1))) % len(_BOARD_ORDER)], 1)
        return MISS


def _x01_aim(game: Game, out: str) -> Bed:
    remaining = game.score(game.current_player)
    darts_left = 3 - len(game.visit)
    route = checkout(remaining, darts_left, out)
    if route:
        return route[0]
    if remaining <= 60 and remaining > 1:  # set up a finish
        for bed in (Bed(20, 1), Bed(16, 1), Bed(8, 1), Bed(remaining % 20 or 20, 1)):
            if remaining - bed.points in (40, 32, 16, 8, 36, 24, 20, 12, 10, 4, 2):
                return bed
        return Bed(1, 1)
    return Bed(20, 3)


def _cricket_aim(game: Game) -> Bed:
    state = game.state()
    side = game.current_side
    sides = state["teams"] or state["players"]
    mine = sides[side]["marks"]
    for number in _CRICKET_ORDER:
        key = "bull" if number == 25 else str(number)
        if mine[key] < 3:
            return Bed(number, 1 if number == 25 else 3)
    for number in _CRICKET_ORDER:
        key = "bull" if number == 25 else str(number)
        if any(other["marks"][key] < 3 for i, other in enumerate(sides) if i != side):
            return Bed(number, 1 if number == 25 else 3)
    return Bed(25, 2)


def _play(game_id: str, players: Sequence[SimulatedPlayer], rng: random.Random) -> Game:
    names = [p.name for p in players]
    if game_id == X01.id:
        start = rng.choice((301, 501))
        game = new_game(X01.id, names, {"start": start, "out": "double"})
    elif game_id == Cricket.id:
        game = new_game(Cricket.id, names, {"rounds": 20})
    else:
        raise ValueError(f"no simulated {game_id!r}; sample games: {', '.join(SAMPLE_GAMES)}")
    out = str(game.state()["options"].get("out", "double"))
    for _ in range(_MAX_DARTS):
        if game.is_finished:
            return game
        if game.visit_over is not None:
            game.end_visit()
            continue
        thrower = players[game.current_player]
        aim = _x01_aim(game, out) if game_id == X01.id else _cricket_aim(game)
        game.dart(thrower.throw(aim))
    raise RuntimeError(f"a simulated {game_id} did not finish in {_MAX_DARTS} darts")


def sample_result(
    rng: random.Random,
    board: str,
    players: Sequence[SimulatedPlayer],
    game_id: str,
    finished_at: float,
    duration: float = 600.0,
) -> dict[str, Any]:
    """Play ``game_id`` (one of :data:`SAMPLE_GAMES`) and return its result
    document, as the daemon builds it (``result_id`` from ``rng``)."""
    game = _play(game_id, players, rng)
    return result_document(
        game,
        result_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        board=board,
        started_at=finished_at - duration,
        finished_at=finished_at,
    )
