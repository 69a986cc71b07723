"""Domino cribbage for a bot: the game's own computer player
(``engine.cribbage_computer``) chooses the tile, and the bot throws at its
number, as a player picks on the board (a dart at number N picks the N-th tile
of the hand shown). The aim is where that number (any ring) is likeliest.

NEXT is not a dart: when the move is Go (no tile fits) or the deal after the
count, :meth:`DominoCribbageStrategy.aim` raises :class:`NextMoveError`. A
seat played wholly by the computer needs no darts at all: the game's
``computer`` option plays it inside the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.cribbage_computer import choose_discards, choose_play, discard_value
from engine.cribbage_scoring import THIRTY_ONE
from engine.strategy import StrategyError
from engine.strategy.aims import aim_table, bed_values
from engine.strategy.reading import thrower
from engine.throw_model import Aim, SpreadLike
from engine.tiles import DOUBLE_SIX, Tile

__all__ = ["DominoCribbageStrategy", "NextMoveError", "choose_tile"]


class NextMoveError(StrategyError):
    """The computer's move is NEXT (Go, or the next deal), not a dart."""


def choose_tile(state: Mapping[str, Any]) -> int:
    """The 1-based position in the thrower's hand of the tile the computer picks."""
    if state.get("game") != "domino-cribbage":
        raise StrategyError(f"the domino-cribbage policy got a {state.get('game')!r} game")
    if state.get("finished"):
        raise StrategyError("the game is over")
    stage = state["stage"]
    player = thrower(state)
    hand = [Tile.parse(text) for text in player["hand"]]
    if stage == "show":
        raise NextMoveError("the hand is counted: the move is NEXT (the next deal)")
    if stage == "discard":
        own_crib = state["current_player"] == state["dealer"]
        if len(hand) == 6:
            pick = choose_discards(hand, own_crib)[0]
        else:
            unseen = [tile for tile in DOUBLE_SIX if tile not in hand]

            def worth(tile: Tile) -> float:
                kept = [t for t in hand if t != tile][:4]
                return discard_value(kept, (tile,), own_crib, unseen)

            pick = max(hand, key=worth)
        return hand.index(pick) + 1
    count = int(state["count"])
    laid = [Tile.parse(entry["tile"]).value for entry in state["count_tiles"]]
    seen = {
        *hand,
        *(Tile.parse(t) for t in player["kept"]),
        *(Tile.parse(t) for t in state["crib"]),
    }
    seen |= {Tile.parse(entry["tile"]) for entry in state["played"]}
    if state.get("starter"):
        seen.add(Tile.parse(state["starter"]))
    unseen = [tile for tile in DOUBLE_SIX if tile not in seen]
    play = choose_play(hand, count, laid, unseen)
    if play is None or count + play.value > THIRTY_ONE:
        raise NextMoveError(f"no tile fits the count of {count}: the move is NEXT (Go)")
    return hand.index(play) + 1


@dataclass(frozen=True, slots=True)
class DominoCribbageStrategy:
    """Throws at the number of the tile the cribbage computer picks."""

    geometry: BoardGeometry = STEEL
    game_id: str = "domino-cribbage"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        number = choose_tile(state)

        def value(bed: Bed) -> float:
            return float(not bed.is_miss and bed.number == number)

        return aim_table(spread, self.geometry).best(bed_values(value))
