"""The scoreboard for any game from the state schema alone: a card per
player with the name, the score, every key the game adds and every figure.
A game without a view of its own (a newer daemon's) shows here, plainly."""

from __future__ import annotations

from leaderboard.web.board_views.base import GameView, format_value
from mqtt_contract import PlayerView

__all__ = ["GenericView", "details"]


def details(player: PlayerView) -> list[tuple[str, str]]:
    """The keys a game adds to its players, then their figures, as ``(label, value)``."""
    items = [(key.replace("_", " "), format_value(value)) for key, value in player.extras]
    items += [(key.replace("_", " "), format_value(value)) for key, value in player.stats.items]
    return items


class GenericView(GameView):
    """Cards with name, score and every other key of each player."""

    template = "board_views/generic.html"
