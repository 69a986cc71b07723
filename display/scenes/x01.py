"""X01 (301, 501, ...): each player's remaining score, big; the 3-dart
average; the darts of the visit; and, for the player to throw, a checkout
route once the remaining score is 170 or less.

The route is the player's ``checkout`` in the state: the engine's hint, from
its fixed table or, with the ``checkout_sigma_mm`` option, from the X01 plan
for the player's own sigma. A state without the key (an older daemon's) gets
the route from ``engine.checkout``. The scene keeps nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from display.darts import total_points
from display.layout import COLORS, Layout, bands, split
from display.scenes.base import Scene, State, format_value, is_winner
from display.scenes.registry import register_scene
from mqtt_contract.scoreboard import (
    MAX_CHECKOUT,
    checkout_route,
    handicap_words,
    route_to_show,
    x01_option_parts,
)

__all__ = ["MAX_CHECKOUT", "X01Scene", "checkout_route"]


@register_scene("x01")
class X01Scene(Scene):
    show_visit_total = True

    def subtitle(self, state: State) -> str:
        return "  ·  ".join(x01_option_parts(state)) if state.has_options else ""

    def route_for(self, state: State, index: int) -> list[str] | None:
        """The checkout route to show on player ``index``'s card, or ``None``."""
        return route_to_show(state) if index == state.current_player else None

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        self.draw_cards(surface, layout, rect, state, self.draw_card)

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        inner = card.inflate(-layout.px(20), -layout.px(16))
        parts = bands(inner, (("name", 0.16), ("score", 0.44), ("stats", 0.2)), "route")
        name_rect, score_rect = parts["name"], parts["score"]
        stats_rect, route_rect = parts["stats"], parts["route"]
        self.draw_name(surface, layout, name_rect, state, index)
        score = player.score
        won = is_winner(state, index)
        colour = COLORS.good if won else COLORS.text
        layout.text(
            surface,
            format_value(score),
            score_rect.inflate(0, layout.px(20)),
            layout.font_size(240),
            colour,
        )
        stats = player.stats
        items = [
            ("3-dart avg", format_value(stats.average or 0.0)),
            ("darts", format_value(stats.darts)),
        ]
        last = state.last_visit
        if last is not None and last.player == index and last.darts:
            total = total_points(last.darts, state.option("bull") or "split")
            items.append(("last", "bust" if last.visit_over == "bust" else str(total)))
        if player.start is not None:  # a handicap: "from 401"
            items.append(("handicap", handicap_words(player)))
        self.draw_stats(surface, layout, stats_rect, items, 26)
        if not player.opened:
            rule = state.option("in") or "double"
            layout.text(
                surface,
                f"needs a {rule} to open",
                route_rect,
                layout.font_size(26),
                COLORS.dim,
            )
            return
        route = self.route_for(state, index)
        if route:
            self.draw_route(surface, layout, route_rect, route)

    def draw_route(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, route: Sequence[str]
    ) -> None:
        """The checkout route: a caption and one box per dart."""
        inner = rect.inflate(0, -layout.px(6))
        caption = pygame.Rect(inner.x, inner.y, inner.width, round(inner.height * 0.36))
        boxes_rect = pygame.Rect(
            inner.x, caption.bottom, inner.width, inner.bottom - caption.bottom
        )
        layout.text(surface, "Checkout", caption, layout.font_size(26), COLORS.accent)
        gap = layout.px(10)
        slot = min((boxes_rect.width - 2 * gap) // 3, round(boxes_rect.height * 2.2))
        width = len(route) * slot + (len(route) - 1) * gap
        boxes_rect = pygame.Rect(0, boxes_rect.y, width, boxes_rect.height)
        boxes_rect.centerx = rect.centerx
        for dart, box in zip(route, split(boxes_rect, len(route), gap), strict=True):
            pygame.draw.rect(surface, COLORS.accent, box, layout.px(2), layout.px(6))
            layout.text(
                surface,
                dart,
                box.inflate(-layout.px(8), -layout.px(4)),
                layout.font_size(34),
                COLORS.accent,
            )
