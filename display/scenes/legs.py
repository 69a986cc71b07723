"""Legs: the score to beat (the previous visit's total, ``to_beat`` in the
state) and the running total of the visit in progress against it, above a
card per player with its lives (legs) as hearts. A side that is out is greyed.

Every dart of a Legs visit counts, so the visit's total is the sum of its
darts' points.
"""

from __future__ import annotations

import pygame

from display.darts import total_points
from display.layout import COLORS, Color, Layout, bands, split
from display.scenes.base import (
    Scene,
    State,
    format_value,
    is_winner,
    player_label,
)
from display.scenes.killer import draw_lives, lives_of, lives_text, max_lives, strike
from display.scenes.registry import register_scene

__all__ = ["LegsScene", "to_beat", "visit_total"]


def to_beat(state: State) -> int | None:
    """The total the visit in progress must exceed; ``None`` before the first visit ended."""
    return next((p.to_beat for p in state.players if p.to_beat is not None), None)


def visit_total(state: State) -> int:
    """The total of the visit in progress so far."""
    return total_points(state.visit)


@register_scene("legs")
class LegsScene(Scene):
    show_visit_total = True

    def target_share(self, players: int) -> float:
        """The share of the scoreboard's height for the score to beat (less
        with two rows of cards)."""
        return 0.3 if players <= 4 else 0.24

    def subtitle(self, state: State) -> str:
        return f"{lives_text(max_lives(state))}  ·  beat the last visit"

    # ----------------------------------------------------------- geometry

    def body_parts(self, layout: Layout, rect: pygame.Rect, players: int) -> dict[str, pygame.Rect]:
        """``target`` (the score to beat and the visit) above ``cards``."""
        gap = layout.px(14)
        height = round(rect.height * self.target_share(players))
        target = pygame.Rect(rect.x, rect.y, rect.width, height)
        cards = pygame.Rect(
            rect.x, target.bottom + gap, rect.width, rect.bottom - target.bottom - gap
        )
        return {"target": target, "cards": cards}

    def target_cells(self, layout: Layout, state: State) -> dict[str, pygame.Rect]:
        """In a window of ``layout``'s size: the cells of the score to beat
        (``to_beat``), the visit's running total (``visit``) and the verdict
        (``verdict``), each a value above its label."""
        players = len(state.players)
        target = self.body_parts(layout, self.regions(layout)["main"], players)["target"]
        inner = target.inflate(-layout.px(24), -layout.px(12))
        beat, visit, verdict = split(inner, 3, layout.px(16))
        beat.width = visit.width = round(inner.width * 0.27)
        visit.x = beat.right + layout.px(16)
        verdict.x = visit.right + layout.px(16)
        verdict.width = inner.right - verdict.x
        return {"to_beat": beat, "visit": visit, "verdict": verdict}

    @staticmethod
    def card_parts(layout: Layout, card: pygame.Rect) -> dict[str, pygame.Rect]:
        """Where a card's parts go: ``name``, ``lives`` (the hearts), ``count``, ``stats``."""
        inner = card.inflate(-layout.px(20), -layout.px(16))
        parts = bands(inner, (("name", 0.2), ("lives", 0.3), ("count", 0.16)), "stats")
        parts["lives"] = parts["lives"].inflate(0, -layout.px(8))
        return parts

    def card_part(self, layout: Layout, state: State, index: int, part: str) -> pygame.Rect:
        """Where ``part`` (see :meth:`card_parts`) of player ``index``'s card
        is in a window of ``layout``'s size."""
        count = len(state.players)
        cards = self.body_parts(layout, self.regions(layout)["main"], count)["cards"]
        return self.card_parts(layout, self.card_rects(layout, cards, count)[index])[part]

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        parts = self.body_parts(layout, rect, len(state.players))
        layout.panel(surface, parts["target"], COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            self.draw_target(surface, layout, state)
        self.draw_cards(surface, layout, parts["cards"], state, self.draw_card)

    def draw_target(self, surface: pygame.Surface, layout: Layout, state: State) -> None:
        cells = self.target_cells(layout, state)
        target = to_beat(state)
        visit = list(state.visit)
        total = visit_total(state)
        finished = state.finished
        if finished:
            tone = COLORS.dim
        elif target is None or total > target:
            tone = COLORS.good if visit else COLORS.text
        else:
            tone = COLORS.accent if visit else COLORS.text
        self.draw_value(surface, layout, cells["to_beat"], format_value(target), "to beat")
        self.draw_value(
            surface,
            layout,
            cells["visit"],
            str(total),
            "final visit" if finished else "this visit",
            tone,
        )
        layout.text(
            surface,
            self.verdict(state, target, total),
            cells["verdict"],
            layout.font_size(34),
            tone if visit and not finished else COLORS.dim,
        )

    def draw_value(
        self,
        surface: pygame.Surface,
        layout: Layout,
        cell: pygame.Rect,
        value: str,
        label: str,
        colour: Color = COLORS.text,
    ) -> None:
        value_rect, label_rect = split(cell, 2, 0, vertical=True)
        value_rect.height = round(cell.height * 0.7)
        label_rect.y, label_rect.height = value_rect.bottom, cell.bottom - value_rect.bottom
        layout.text(surface, value, value_rect, layout.font_size(110), colour)
        layout.text(surface, label, label_rect, layout.font_size(28), COLORS.dim)

    def verdict(self, state: State, target: int | None, total: int) -> str:
        """What the visit in progress needs (or has done)."""
        if state.finished:
            return "Game over"
        current = state.current_player
        name = player_label(state, current) if current is not None else "The thrower"
        if target is None:
            return f"{name}: the first visit sets the target"
        if not state.visit:
            return f"{name} needs {target + 1} or more"
        if total > target:
            return f"Beaten: {total} > {target}"
        return f"{target + 1 - total} more to beat {target}"

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        parts = self.card_parts(layout, card)
        out = player.out
        self.draw_name(surface, layout, parts["name"], state, index)
        left, total = lives_of(player), max_lives(state)
        draw_lives(surface, layout, parts["lives"], left, total, faded=out)
        won = is_winner(state, index)
        if out:
            placed = layout.text(surface, "OUT", parts["count"], layout.font_size(40), COLORS.faint)
            strike(surface, layout, placed)
        else:
            colour = COLORS.good if won else COLORS.text
            layout.text(
                surface, f"{lives_text(left)} left", parts["count"], layout.font_size(34), colour
            )
        stats = player.stats
        items = [
            ("legs lost", format_value(stats.legs_lost or 0)),
            ("darts", format_value(stats.darts)),
        ]
        self.draw_stats(surface, layout, parts["stats"], items, 22)
