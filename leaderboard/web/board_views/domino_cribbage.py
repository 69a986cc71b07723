"""Domino Cribbage: played by picking, not throwing (a dart at N picks the
N-th tile of the hand). The cribbage board as a peg track per player (score
out of the target, the back peg at the previous score), what the player to
move must do, the mover's hand with each tile's number (a tile past 31 in
the play dimmed), the count and the tiles laid, the starter and the crib,
each count of the show, and what the last move scored."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.cribbage_scoring import THIRTY_ONE
from leaderboard.web.board_views.base import GameView, player_label
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["DominoCribbageView", "HandTile", "scoring_caption", "status_text", "tile_value"]


def tile_value(tile: str) -> int | None:
    """A tile's pips (``3-5``: 8), ``None`` for text that is no tile."""
    ends = tile.split("-")
    if len(ends) != 2 or not all(end.isdigit() for end in ends):
        return None
    return int(ends[0]) + int(ends[1])


@dataclass(frozen=True)
class HandTile:
    """A tile of the mover's hand: its number to hit, the tile, whether it may be played."""

    number: int
    tile: str
    playable: bool


def scoring_caption(state: StateView) -> str:
    """The points the last move scored: ``Bob: fifteen 2, pair 2``."""
    groups: list[tuple[int | None, list[str]]] = []
    for line in state.cribbage.scoring:
        item = f"{line.reason or '?'} {'?' if line.points is None else line.points}"
        if groups and groups[-1][0] == line.player:
            groups[-1][1].append(item)
        else:
            groups.append((line.player, [item]))
    return " · ".join(f"{player_label(state, p)}: {', '.join(items)}" for p, items in groups)


def status_text(state: StateView) -> str:
    """What to do now."""
    table, mover = state.cribbage, state.current_player
    name = player_label(state, mover)
    if table.stage == "over" or state.finished:
        if state.winner is None:
            return "Game over"
        scores = "-".join(str(p.score or 0) for p in state.players)
        return f"{player_label(state, state.winner)} wins {scores}"
    if table.stage == "show":
        return "NEXT deals the next hand"
    if table.stage == "discard":
        whose = "your" if table.dealer == mover else f"{player_label(state, table.dealer)}'s"
        tiles = "tile" if table.to_discard == 1 else "tiles"
        return f"{name}: choose {table.to_discard} {tiles} for {whose} crib"
    if table.stage == "play":
        player = state.player(mover)
        hand = player.cribbage.hand if player is not None else ()
        if hand and not any(_fits(tile, table.count) for tile in hand):
            return f"{name}: no tile fits the count, NEXT says Go"
        return f"{name} to play: hit a tile's number"
    return ""


def _fits(tile: str, count: int) -> bool:
    value = tile_value(tile)
    return value is not None and count + value <= THIRTY_ONE


@register_view("domino-cribbage")
class DominoCribbageView(GameView):
    template = "board_views/domino_cribbage.html"

    def subtitle(self, state: StateView) -> str:
        return f"to {state.cribbage.target or 61}"

    def round_label(self, state: StateView) -> str:
        return "" if state.hand is None else f"Hand {state.hand}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        table = state.cribbage
        mover = state.player(state.current_player)
        hand = []
        if mover is not None and table.stage in ("discard", "play") and not state.finished:
            hand = [
                HandTile(n, tile, table.stage != "play" or _fits(tile, table.count))
                for n, tile in enumerate(mover.cribbage.hand, start=1)
            ]
        target = max(1, table.target or 61)
        return {
            "table": table,
            "status": status_text(state),
            "hand": hand,
            "pegs": [
                (min(100, round(100 * (p.score or 0) / target)), p.cribbage.previous_score)
                for p in state.players
            ],
            "target": target,
            "scoring": scoring_caption(state),
            "counts": [
                (player_label(state, c.player), c.what, " ".join(c.tiles), c.total)
                for c in table.counts
            ],
        }
