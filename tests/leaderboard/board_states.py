"""Board states as a daemon publishes them, made by playing real games: a
:class:`GameSession` (the daemon's own) driven by each game's computer
policy with seeded throws (``engine.strategy``, ``engine.throw_model``),
then the daemon's ``board`` block and, for a computer player, its ``cpu``
block (``bots.CpuPlayer``). For the web views' tests: no hand-written JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine import END_VISIT, PickingGame
from engine.beds import Bed
from engine.board_geometry import STEEL
from engine.bot_levels import level
from engine.strategy import StrategyError, strategy_for
from engine.throw_model import sample_throw
from firmware_bridge.daemon.bots import CpuPlayer
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from mqtt_contract import Phase

__all__ = ["live_board_state", "played_session"]

SIGMA_MM = 9.0
"""The spread the policies throw with: a good pub player."""


def played_session(
    game_id: str,
    players: Sequence[str] = ("Ann", "Bob"),
    darts: int = 14,
    seed: int = 7,
    options: Mapping[str, Any] | None = None,
    stop_in_takeout: bool = False,
    teams: Mapping[str, Sequence[str]] | None = None,
) -> GameSession:
    """A session of ``game_id`` after about ``darts`` moves of its policy, as
    the daemon plays it (NEXT after a visit; a picking game's Go when no pick
    fits). ``stop_in_takeout`` plays on until the board is in takeout."""
    session = GameSession(SessionSetup(game_id, dict(options or {}), list(players), teams))
    policy = strategy_for(game_id)
    rng = np.random.default_rng(seed)
    now = 1000.0
    moves = 0
    while session.phase is not Phase.FINISHED:
        if moves >= darts and (not stop_in_takeout or session.phase is Phase.TAKEOUT):
            break
        now += 1.0
        moves += 1
        if session.phase is Phase.TAKEOUT:
            _apply(session, [END_VISIT], now)
            continue
        state = session.game.state()
        try:
            aim = policy.aim(state, SIGMA_MM)
        except StrategyError:
            _apply(session, session.plan_next(), now)
            continue
        bed: Bed = (
            aim.bed
            if isinstance(session.game, PickingGame)
            else sample_throw((aim.x_mm, aim.y_mm), SIGMA_MM, rng, STEEL).bed
        )
        try:
            _apply(session, session.plan_hit(bed, now), now)
        except Refusal:
            _apply(session, session.plan_next(), now)
    return session


def _apply(session: GameSession, events: Sequence[Any], now: float) -> None:
    for event in events:
        session.apply(event, now)


def live_board_state(
    game_id: str,
    board: str = "pub",
    name: str = "Pub board",
    cpu: Mapping[str, int] | None = None,
    players: Sequence[str] = ("Ann", "Bob"),
    **play: Any,
) -> dict[str, Any]:
    """The retained ``state`` of a board playing ``game_id``: the played
    session's state, the ``board`` block, and ``cpu`` (name to level) blocks."""
    state = played_session(game_id, players, **play).state()
    state["board"] = {
        "id": board,
        "name": name,
        "connected": True,
        "status": "connected",
        "stuck_cells": [],
    }
    for player in state["players"]:
        if cpu and player["name"] in cpu:
            found = level(cpu[player["name"]])
            bot = CpuPlayer(found.level, found.sigma_mm, found.leg_average)
            player["cpu"] = bot.as_json()
    return state
