"""Reading the engine's state JSON for a policy: is there a dart to throw, and
who are the thrower's side and its opponents (teams share a side's keys)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.beds import Bed
from engine.strategy import StrategyError

__all__ = ["check_playing", "opponents", "thrower", "visit_darts"]


def check_playing(state: Mapping[str, Any], game_id: str) -> None:
    """StrategyError unless ``state`` is a ``game_id`` game waiting for a live dart."""
    if state.get("game") != game_id:
        raise StrategyError(f"the {game_id} policy got a {state.get('game')!r} game")
    if state.get("finished"):
        raise StrategyError("the game is over")
    if state.get("visit_over") is not None:
        raise StrategyError(f"the visit is over ({state['visit_over']}): no dart to throw")


def _side(state: Mapping[str, Any], index: int) -> int:
    team = state["players"][index].get("team")
    return index if team is None else int(team)


def thrower(state: Mapping[str, Any]) -> dict[str, Any]:
    """The current player's entry (their side's keys: score, marks, ...)."""
    player: dict[str, Any] = state["players"][state["current_player"]]
    return player


def opponents(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One entry per other side (its first member's), sides still in only."""
    mine = _side(state, state["current_player"])
    seen: set[int] = {mine}
    found: list[dict[str, Any]] = []
    for index, player in enumerate(state["players"]):
        side = _side(state, index)
        if side in seen:
            continue
        seen.add(side)
        if not player.get("out"):
            found.append(player)
    return found


def visit_darts(state: Mapping[str, Any]) -> list[Bed]:
    """The darts of the visit in progress."""
    return [Bed.parse(notation) for notation in state.get("visit") or []]
