"""Realistic result documents without a board: simulated players throw X01 and
Cricket games through the engine, and each finished game becomes the payload a
daemon publishes on ``{base}/{board}/result`` (the same keys, log and state).
A match's result (:func:`sample_match_result`, :func:`match_document`) has
every leg in it, each leg's log, starter and winner, as a board's match result.
For the benchmark, demos and tests; seeded, so every run makes the same games."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from typing import Any

from engine import MISS, X01, Bed, Cricket, Game, checkout, new_game
from engine.events import END_VISIT
from engine.game_log import format_game_log
from engine.match import Match
from engine.match_format import MatchFormat
from leaderboard.match_tally import tally_legs
from mqtt_contract import result_document

__all__ = [
    "SAMPLE_GAMES",
    "SimulatedPlayer",
    "format_json",
    "match_document",
    "new_leg",
    "sample_match_result",
    "sample_result",
]

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


def new_leg(
    game_id: str,
    players: Sequence[str],
    options: dict[str, Any] | None = None,
    first_side: int = 0,
) -> Game:
    """A fresh game (a match's leg), ``first_side``'s side throwing first."""
    return new_game(game_id, players, options, first_side=first_side)


def _sample_options(game_id: str, rng: random.Random) -> dict[str, Any]:
    if game_id == X01.id:
        return {"start": rng.choice((301, 501)), "out": "double"}
    if game_id == Cricket.id:
        return {"rounds": 20}
    raise ValueError(f"no simulated {game_id!r}; sample games: {', '.join(SAMPLE_GAMES)}")


def _play(
    game_id: str,
    players: Sequence[SimulatedPlayer],
    rng: random.Random,
    options: dict[str, Any] | None = None,
    first_side: int = 0,
) -> Game:
    names = [p.name for p in players]
    if options is None:
        options = _sample_options(game_id, rng)
    game = new_leg(game_id, names, options, first_side)
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


def match_document(
    legs: Sequence[Game],
    starters: Sequence[int],
    match_format: MatchFormat,
    *,
    result_id: str,
    board: str,
    started_at: float | None,
    finished_at: float,
    revision: int = 1,
) -> dict[str, Any]:
    """The ``result`` payload of a match whose finished ``legs`` (each leg a
    game, its first player ``starters[i]``) make it won: the document a board
    publishes for a match (docs/matches.md), built by hand from the legs. The
    players' ``stats`` are the last leg's (the leaderboard reads none)."""
    last = legs[-1]
    document = result_document(
        last, result_id=result_id, board=board, started_at=started_at, finished_at=finished_at
    )
    sides = last.lineup.sides
    side_names = [last.lineup.players[members[0]] for members in sides]
    winners = []
    for leg in legs:
        outcome = leg.outcome()
        winner = None if outcome is None else outcome.winner
        winners.append(
            None if winner is None else next(i for i, m in enumerate(sides) if winner in m)
        )
    tally = tally_legs(match_format, winners, side_names)
    entries = []
    for number, (leg, starter, in_set) in enumerate(
        zip(legs, starters, tally.set_of_leg, strict=True), start=1
    ):
        state = leg.state()
        entries.append(
            {
                "leg": number,
                "set": in_set,
                "starter": starter,
                "winner": state["winner"],
                "winner_team": state["winner_team"],
                "result": state["result"],
                "log": format_game_log(leg),
                "players": [{"score": p["score"], "stats": p["stats"]} for p in state["players"]],
            }
        )
    del document["log"]
    document.update(
        match_format=format_json(match_format),
        match_id=document["game_key"],
        legs=entries,
        legs_won=list(tally.legs_won),
        revision=revision,
    )
    if tally.sets_won is not None:
        document["sets_won"] = list(tally.sets_won)
    return document


def format_json(match_format: MatchFormat) -> dict[str, Any]:
    """A format as a result's ``match_format``: its keys with a value (the
    contract's ``decider`` is absent for the game's default)."""
    return {key: value for key, value in match_format.to_json().items() if value is not None}


def sample_match_result(
    rng: random.Random,
    board: str,
    players: Sequence[SimulatedPlayer],
    game_id: str,
    finished_at: float,
    legs: int = 2,
    duration: float = 600.0,
) -> dict[str, Any]:
    """Play a match of ``game_id`` (first to ``legs`` legs, the throw
    alternating) through the engine's :class:`~engine.match.Match` and return
    its result document (``result_id`` from ``rng``)."""
    match_format = MatchFormat(legs)
    options = _sample_options(game_id, rng)
    match = Match(game_id, [p.name for p in players], options, format=match_format)
    out = str(match.options.get("out", "double"))
    for _ in range(_MAX_DARTS * 4 * legs):
        if match.is_finished:
            break
        thrower = match.cork_thrower
        game = match.leg
        if thrower is not None:
            match.push(players[thrower].throw(Bed(25, 2)))
        elif match.leg_over or game.visit_over is not None:
            match.push(END_VISIT)
        else:
            aim = _x01_aim(game, out) if game_id == X01.id else _cricket_aim(game)
            match.push(players[game.current_player].throw(aim))
    else:
        raise RuntimeError(f"a simulated {game_id} match did not finish")
    return result_document(
        match,
        result_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        board=board,
        started_at=finished_at - duration * len(match.legs),
        finished_at=finished_at,
    )
