"""Shanghai (the numbers game, not Cricket-Shanghai): the round's target
number, big, with the rounds' targets in a strip below it and how many rounds
are left; the single, double and triple of the target the visit in progress
has hit (all three in one visit is a Shanghai, and wins); and a card per
player with the side's total.
"""

from __future__ import annotations

import pygame

from display.darts import bed_of
from display.layout import COLORS, Layout, bands, split
from display.scenes.base import (
    Scene,
    State,
    format_value,
    is_winner,
    player_label,
)
from display.scenes.registry import register_scene
from engine.beds import RING_PREFIX
from engine.games.shanghai import SHANGHAI_RINGS
from mqtt_contract.scoreboard import round_targets, shanghai_options, target_of

__all__ = ["RINGS", "ShanghaiScene", "rings_hit", "round_targets"]

RINGS = tuple(RING_PREFIX[multiplier] for multiplier in sorted(SHANGHAI_RINGS))
"""The rings a Shanghai needs (the engine's), in the order of their boxes: S, D, T."""


def rings_hit(state: State) -> set[str]:
    """The rings of the target (``S``, ``D``, ``T``) hit in the visit in progress."""
    target = target_of(state)
    hit: set[str] = set()
    for dart in state.visit:
        bed = bed_of(dart)
        if bed is not None and bed.number == target and bed.multiplier in SHANGHAI_RINGS:
            hit.add(RING_PREFIX[bed.multiplier])
    return hit


@register_scene("shanghai")
class ShanghaiScene(Scene):
    target_share = 0.4
    """The share of the scoreboard's height for the target panel."""

    def subtitle(self, state: State) -> str:
        rounds, start = shanghai_options(state)
        return f"{rounds} rounds  ·  start {start}"

    # ----------------------------------------------------------- geometry

    def panel_rects(self, layout: Layout, rect: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
        """The target panel and the players' cards area in ``rect``."""
        gap = layout.px(14)
        top = pygame.Rect(rect.x, rect.y, rect.width, round(rect.height * self.target_share))
        cards = pygame.Rect(rect.x, top.bottom + gap, rect.width, rect.bottom - top.bottom - gap)
        return top, cards

    def target_rects(
        self, layout: Layout, panel: pygame.Rect
    ) -> tuple[pygame.Rect, pygame.Rect, list[pygame.Rect], pygame.Rect, pygame.Rect]:
        """In the target panel: the number, the caption over the boxes, the
        S, D and T boxes, the rounds strip and the rounds-left line."""
        inner = panel.inflate(-layout.px(24), -layout.px(16))
        number = pygame.Rect(inner.x, inner.y, round(inner.width * 0.26), inner.height)
        right = pygame.Rect(
            number.right + layout.px(16), inner.y, inner.right - number.right - layout.px(16), 0
        )
        caption = pygame.Rect(right.x, inner.y, right.width, round(inner.height * 0.18))
        boxes_rect = pygame.Rect(right.x, caption.bottom, right.width, round(inner.height * 0.44))
        width = min(boxes_rect.width, round(boxes_rect.height * 1.5 * 3))
        boxes_rect.width = width
        boxes = split(boxes_rect.inflate(0, -layout.px(8)), 3, layout.px(12))
        strip_top = boxes_rect.bottom + layout.px(4)
        strip = pygame.Rect(right.x, strip_top, round(right.width * 0.74), inner.bottom - strip_top)
        left = pygame.Rect(
            strip.right + layout.px(12),
            strip_top,
            right.right - strip.right - layout.px(12),
            strip.height,
        )
        return number, caption, boxes, strip, left

    def target_rect(self, layout: Layout) -> pygame.Rect:
        """Where the round's target number is written in a window of ``layout``."""
        panel, _ = self.panel_rects(layout, self.regions(layout)["main"])
        return self.target_rects(layout, panel)[0]

    def ring_boxes(self, layout: Layout) -> list[pygame.Rect]:
        """The S, D and T boxes in a window of ``layout``."""
        panel, _ = self.panel_rects(layout, self.regions(layout)["main"])
        return self.target_rects(layout, panel)[2]

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        panel, cards = self.panel_rects(layout, rect)
        layout.panel(surface, panel, COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            self.draw_target(surface, layout, panel, state)
        self.draw_cards(surface, layout, cards, state, self.draw_card)

    def draw_target(
        self, surface: pygame.Surface, layout: Layout, panel: pygame.Rect, state: State
    ) -> None:
        target = target_of(state)
        number, caption, boxes, strip, left = self.target_rects(layout, panel)
        label = pygame.Rect(number.x, number.y, number.width, round(number.height * 0.2))
        big = pygame.Rect(number.x, label.bottom, number.width, number.bottom - label.bottom)
        layout.text(surface, "Target", label, layout.font_size(26), COLORS.dim)
        layout.text(surface, str(target), big, layout.font_size(220), COLORS.accent)

        hit = rings_hit(state)
        current = state.current_player
        if state.result == "shanghai":
            text, colour = "Shanghai!", COLORS.good
        elif state.finished:
            text, colour = "Game over", COLORS.dim
        elif current is not None:
            verb = "'s visit" if state.visit else " to throw"
            text = f"{player_label(state, current)}{verb}: single, double and triple of {target}"
            colour = COLORS.dim
        else:
            text, colour = "", COLORS.dim
        layout.text(surface, text, caption, layout.font_size(26), colour, "left")
        for ring, box in zip(RINGS, boxes, strict=True):
            done = ring in hit
            fill = COLORS.good if done else COLORS.panel_out
            layout.panel(surface, box, fill, COLORS.good if done else COLORS.line, 2)
            with layout.on(fill):
                layout.text(
                    surface,
                    f"{ring}{target}",
                    box.inflate(-layout.px(10), -layout.px(8)),
                    layout.font_size(48),
                    COLORS.background if done else COLORS.faint,
                )
        self.draw_rounds(surface, layout, strip, left, state)

    def draw_rounds(
        self,
        surface: pygame.Surface,
        layout: Layout,
        strip: pygame.Rect,
        left: pygame.Rect,
        state: State,
    ) -> None:
        """A cell per round with its target, the round being played
        outlined, rounds done dimmed; and how many rounds are left."""
        targets = round_targets(state)
        played = state.round or 1
        finished = state.finished
        cells = split(strip.inflate(0, -layout.px(6)), len(targets), layout.px(3))
        height = max(round(min(cell.width for cell in cells) * 1.3), layout.font_size(26))
        for number, (target, cell) in enumerate(zip(targets, cells, strict=True), start=1):
            cell = cell.inflate(0, min(0, height - cell.height))
            is_current = number == played and not finished
            done = number < played or (finished and number <= played)
            if is_current:
                pygame.draw.rect(surface, COLORS.accent, cell, layout.px(2), layout.px(4))
            colour = COLORS.accent if is_current else COLORS.faint if done else COLORS.dim
            layout.text(
                surface,
                str(target),
                cell.inflate(-layout.px(4), -layout.px(4)),
                layout.font_size(26),
                colour,
            )
        if finished:
            text = f"{played} of {len(targets)} rounds played"
        else:
            rounds_left = len(targets) - played + 1
            text = "last round" if rounds_left <= 1 else f"{rounds_left} rounds left"
        layout.text(surface, text, left, layout.font_size(28), COLORS.text, "right")

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        inner = card.inflate(-layout.px(20), -layout.px(12))
        parts = bands(inner, (("name", 0.22), ("score", 0.48)), "stats")
        name_rect, score_rect, stats_rect = parts["name"], parts["score"], parts["stats"]
        self.draw_name(surface, layout, name_rect, state, index)
        won = is_winner(state, index)
        layout.text(
            surface,
            format_value(player.score),
            score_rect,
            layout.font_size(200),
            COLORS.good if won else COLORS.text,
        )
        stats = player.stats
        items = [
            ("points", format_value(stats.points or 0)),
            ("per visit", format_value(stats.points_per_visit or 0.0)),
        ]
        self.draw_stats(surface, layout, stats_rect, items, 20)
