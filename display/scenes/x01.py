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
from display.scenes.base import Scene, State, format_value, game_option, is_winner
from display.scenes.registry import register_scene
from engine import checkout
from engine.game import DARTS_PER_VISIT
from mqtt_contract import Phase

__all__ = ["MAX_CHECKOUT", "X01Scene", "checkout_route"]

MAX_CHECKOUT = 170
"""The highest score finished in three darts (double out): routes are shown at or below it."""


def checkout_route(
    remaining: int, darts: int = DARTS_PER_VISIT, out: str = "double"
) -> list[str] | None:
    """The suggested darts that finish ``remaining`` in at most ``darts``
    darts under the ``out`` rule, in notation (``["T20", "T20", "DB"]``),
    from ``engine.checkout``; ``None`` when there is none or above
    :data:`MAX_CHECKOUT`."""
    if not 0 < remaining <= MAX_CHECKOUT or not 1 <= darts <= DARTS_PER_VISIT:
        return None
    try:
        route = checkout(remaining, darts, out)
    except ValueError:  # an out rule the table does not know
        return None
    if not route:
        return None
    return [dart.notation for dart in route]


@register_scene("x01")
class X01Scene(Scene):
    show_visit_total = True

    def subtitle(self, state: State) -> str:
        if not state.has_options:
            return ""
        start, ring_in, out = state.option("start"), state.option("in"), state.option("out")
        parts = ["" if start is None else str(start)]
        if ring_in not in (None, "straight"):
            parts.append(f"{ring_in} in")
        parts.append(f"{'double' if out is None else out} out")
        rounds = state.option("rounds")
        if isinstance(rounds, int) and rounds > 0:
            parts.append(f"{rounds} rounds")
        return "  ·  ".join(part for part in parts if part)

    def route_for(self, state: State, index: int) -> list[str] | None:
        """The checkout route to show on player ``index``'s card, or ``None``."""
        if state.finished or index != state.current_player:
            return None
        if state.visit_over is not None or state.phase is Phase.TAKEOUT:
            return None
        player = state.players[index]
        if not player.opened:
            return None
        remaining = player.score
        if remaining is None or remaining > MAX_CHECKOUT:
            return None
        if player.has_checkout:  # the engine's hint: the table, or the player's own sigma
            hint = player.checkout
            if hint is None or not 1 <= len(hint) <= DARTS_PER_VISIT:
                return None
            return list(hint)
        darts_left = DARTS_PER_VISIT - len(state.visit)
        return checkout_route(remaining, darts_left, str(game_option(state, "out")))

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
            total = total_points(last.darts)
            items.append(("last", "bust" if last.visit_over == "bust" else str(total)))
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
