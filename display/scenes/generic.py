"""The scoreboard for any game, from the state schema alone.

Every game's state has players with a name, a score, ``out`` and ``stats``;
this scene shows those for each player, marks the player to throw, and lists
the keys a game adds to its players (and their statistics) as plain values.
A game without a scene of its own is shown correctly, if plainly, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pygame

from display.layout import COLORS, Layout, bands
from display.scenes.base import Scene, State, format_value
from mqtt_contract import PlayerView

__all__ = ["GenericScene", "extra_items", "stat_items"]


def _compact(value: Any) -> str:
    if isinstance(value, Mapping):
        return " ".join(f"{key}:{format_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(format_value(item) for item in value)
    return format_value(value)


def stat_items(player: PlayerView) -> list[tuple[str, str]]:
    """The player's statistics as ``(label, value)`` pairs, in the state's order."""
    return [(key.replace("_", " "), _compact(value)) for key, value in player.stats.items]


def extra_items(player: PlayerView) -> list[tuple[str, str]]:
    """The keys a game adds to its players (``opened``, ``marks``, ...)."""
    return [(key.replace("_", " "), _compact(value)) for key, value in player.extras]


class GenericScene(Scene):
    """Cards with name, score and every other key of each player."""

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        self.draw_cards(surface, layout, rect, state, self.draw_card)

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        inner = card.inflate(-layout.px(20), -layout.px(16))
        parts = bands(inner, (("name", 0.17), ("score", 0.38)), "details")
        name_rect, score_rect, details = parts["name"], parts["score"], parts["details"]
        self.draw_name(surface, layout, name_rect, state, index)
        out = player.out
        score_colour = COLORS.faint if out else COLORS.text
        layout.text(
            surface,
            format_value(player.score),
            score_rect,
            layout.font_size(150),
            score_colour,
        )
        items = extra_items(player) + stat_items(player)
        if out:
            items.insert(0, ("status", "out"))
        self.draw_stats(surface, layout, details, items, 22)
