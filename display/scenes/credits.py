"""What the screen says about a coin-operated board's credits (docs/credits.md),
read from the state's ``credits`` block.

Pure functions over the MQTT state, no pygame: the attract screen
(display/scenes/idle.py) and the game setup (display/scenes/setup.py) draw
the words. A board on free play by config (``mode`` free) says nothing, as
before credits existed.
"""

from __future__ import annotations

from mqtt_contract import CreditsView, StateView

__all__ = ["credits_line", "price_per_player"]


def _block(state: StateView | None) -> CreditsView | None:
    block = state.credits if state is not None else None
    if block is None or block.mode != "coin":
        return None
    return block


def price_per_player(block: CreditsView, game: str | None, players: int) -> int:
    """Credits per player for ``game`` with ``players`` paying players, as the
    daemon charges them now: the game's own price, else the price for that
    many players, else the board's price (happy hour already applied)."""
    games = dict(block.game_prices or {})
    if game is not None and game in games:
        return games[game]
    by_count = dict(block.player_prices or {})
    if str(players) in by_count:
        return by_count[str(players)]
    return block.price


def credits_line(
    state: StateView | None, game: str | None = None, players: int | None = None
) -> str | None:
    """``Credits: 3  ·  1 per player`` (with a game and its paying players:
    what it costs and what is missing), ``Free play`` when the operator set
    it, ``None`` for a board that is not coin-operated."""
    block = _block(state)
    if block is None:
        return None
    happy = "  ·  Happy hour" if block.happy_hour else ""
    if block.free_play:
        return f"Free play{happy}"
    held = block.credits
    if game is None or not players:
        each = block.price
        return f"Credits: {held}  ·  {each} per player{happy}"
    each = price_per_player(block, game, players)
    total = each * players
    cost = f"{players} x {each} = {total} credit{'s' if total != 1 else ''}"
    short = f": insert {total - held} more" if total > held else ""
    return f"Credits: {held}  ·  this game {cost}{short}{happy}"
