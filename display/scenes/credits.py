"""What the screen says about a coin-operated board's credits (docs/credits.md),
read from the state's ``credits`` block.

Pure functions over the MQTT state, no pygame: the attract screen
(display/scenes/idle.py) and the game setup (display/scenes/setup.py) draw
the words. A board on free play by config (``mode`` free) says nothing, as
before credits existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["credits_line", "price_per_player"]


def _block(state: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    block = (state or {}).get("credits")
    if not isinstance(block, Mapping) or block.get("mode") != "coin":
        return None
    return block


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def price_per_player(block: Mapping[str, Any], game: str | None, players: int) -> int:
    """Credits per player for ``game`` with ``players`` paying players, as the
    daemon charges them now: the game's own price, else the price for that
    many players, else the board's price (happy hour already applied)."""
    games = block.get("game_prices")
    if game is not None and isinstance(games, Mapping) and game in games:
        return _count(games[game])
    by_count = block.get("player_prices")
    if isinstance(by_count, Mapping) and str(players) in by_count:
        return _count(by_count[str(players)])
    return _count(block.get("price"))


def credits_line(
    state: Mapping[str, Any] | None, game: str | None = None, players: int | None = None
) -> str | None:
    """``Credits: 3  ·  1 per player`` (with a game and its paying players:
    what it costs and what is missing), ``Free play`` when the operator set
    it, ``None`` for a board that is not coin-operated."""
    block = _block(state)
    if block is None:
        return None
    happy = "  ·  Happy hour" if block.get("happy_hour") else ""
    if block.get("free_play"):
        return f"Free play{happy}"
    held = _count(block.get("credits"))
    if game is None or not players:
        each = _count(block.get("price"))
        return f"Credits: {held}  ·  {each} per player{happy}"
    each = price_per_player(block, game, players)
    total = each * players
    cost = f"{players} x {each} = {total} credit{'s' if total != 1 else ''}"
    short = f": insert {total - held} more" if total > held else ""
    return f"Credits: {held}  ·  this game {cost}{short}{happy}"
