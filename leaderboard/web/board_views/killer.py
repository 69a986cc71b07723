"""Killer: a card per player with the side's number (``choosing`` until its
first dart picks one), its lives as hearts out of the ``lives`` option, a
KILLER badge once the side has hit its own double (any ring of its number
with ``any_ring_kills``), else the bed that makes it one; a side that is out
is greyed and its number struck through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.web.board_views.base import GameView, Seat
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import PlayerView, StateView

__all__ = ["KillerView", "badge", "hearts", "max_lives"]


def max_lives(state: StateView) -> int:
    """The most lives a side can have: the option, or the most any side holds."""
    start = state.option("lives")
    start = start if isinstance(start, int) and not isinstance(start, bool) else 0
    return max([start, *(max(0, p.lives or 0) for p in state.players)])


def hearts(lives: int, most: int) -> str:
    """Lives as hearts: ``♥♥♡`` for 2 of 3."""
    lives = max(0, lives)
    return "♥" * lives + "♡" * max(0, most - lives)


def badge(state: StateView, player: PlayerView) -> str:
    """OUT, KILLER, or what makes the side a killer."""
    if player.out:
        return "OUT"
    if player.killer:
        return "KILLER"
    if player.number is None:
        return ""
    any_ring = bool(state.option("any_ring_kills"))
    return f"any {player.number} makes a killer" if any_ring else f"D{player.number} makes a killer"


@register_view("killer")
class KillerView(GameView):
    template = "board_views/killer.html"

    def subtitle(self, state: StateView) -> str:
        variant = "any ring kills" if state.option("any_ring_kills") else "doubles kill"
        return f"{max_lives(state)} lives · {variant}"

    def card_score(self, state: StateView, seat: Seat) -> str:
        number = seat.player.number
        lives = hearts(seat.player.lives or 0, max_lives(state))
        return f"{'?' if number is None else number} {lives}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        most = max_lives(state)
        return {
            "most": most,
            "hearts": [hearts(p.lives or 0, most) for p in state.players],
            "badges": [badge(state, p) for p in state.players],
        }
