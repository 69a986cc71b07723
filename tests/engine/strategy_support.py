"""Helpers for the policy tests: a game pushed from notation, and aims read back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine import END_VISIT, Bed, Game, new_game
from engine.strategy import strategy_for

__all__ = ["aimed_bed", "played"]


def played(
    game_id: str,
    darts: Iterable[str],
    options: Mapping[str, object] | None = None,
    players: tuple[str, ...] = ("Robo", "Ann"),
) -> Game:
    """A game after ``darts`` (bed notations; ``N`` ends the visit)."""
    game = new_game(game_id, players, options)
    for dart in darts:
        game.push(END_VISIT if dart == "N" else Bed.parse(dart))
    return game


def aimed_bed(game: Game, sigma: float) -> str:
    """The bed under the policy's aim for the player to throw."""
    return strategy_for(game.id).aim(game.state(), sigma).bed.notation
