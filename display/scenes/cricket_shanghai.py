"""Cricket-Shanghai: the cricket grid with three stage boxes per target and
player, S, D and T (the bull: 25, 25, 50), filled as the chain is completed.

Cricket-Shanghai judges a visit's darts together when the visit ends, so
during a visit the boxes it will fill (``marks_after_visit`` beyond
``marks``) are drawn as pending: outlined in the accent colour, pulsing,
and filled only once the visit ends.
"""

from __future__ import annotations

import math
from functools import partial

import pygame

from display.layout import COLORS, Layout, split
from display.scenes.base import State
from display.scenes.cricket import BULL_KEY, ROWS, CricketScene, mark_count, marks_of
from display.scenes.registry import register_scene
from engine.beds import BULL, RING_PREFIX, Bed
from engine.games.cricket import CRICKET_TARGETS, MARKS_TO_CLOSE
from engine.games.cricket_shanghai import BULL_CHAIN, NUMBER_CHAIN
from mqtt_contract import PlayerView, StateView

__all__ = ["BULL_STAGES", "STAGES", "CricketShanghaiScene", "box_states"]

STAGES = tuple(RING_PREFIX[multiplier] for multiplier in NUMBER_CHAIN)
"""The labels of a number's stage boxes, the engine's chain: S, D, T."""
BULL_STAGES = tuple(str(Bed(BULL, multiplier).points) for multiplier in BULL_CHAIN)
"""The labels of the bull's stage boxes, by points: 25, 25, 50."""
ELEMENTS = len(CRICKET_TARGETS) * MARKS_TO_CLOSE
"""Stage boxes per side: the score to complete (21)."""


def box_states(player: PlayerView, target: str) -> list[str]:
    """For each stage box of ``target``: ``"done"``, ``"pending"`` (the visit
    in progress will fill it) or ``"open"``."""
    done = mark_count(marks_of(player), target)
    after = marks_of(player, after_visit=True)
    pending = mark_count(after, target) if after else done
    return [
        "done" if stage < done else "pending" if stage < pending else "open"
        for stage in range(MARKS_TO_CLOSE)
    ]


@register_scene("cricket-shanghai")
class CricketShanghaiScene(CricketScene):
    def subtitle(self, state: State) -> str:
        order = state.game_option("bull_order")
        return "S-D-T, bull 25-25-50" + ("  ·  bull in throw order" if order == "strict" else "")

    def score_text(self, player: PlayerView) -> str:
        score = player.score
        return f"{score}/{ELEMENTS}" if score is not None else "-"

    def footer_text(self, player: PlayerView) -> str:
        after = marks_of(player, after_visit=True)
        gained = sum(mark_count(after, k) for k in after) - sum(
            mark_count(marks_of(player), k) for k in after
        )
        base = super().footer_text(player)
        return f"{base}  ·  +{gained} this visit" if gained > 0 else base

    def draw_cell(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        index: int,
        target: str,
    ) -> None:
        player = state.players[index]
        labels = BULL_STAGES if target == BULL_KEY else STAGES
        closed_row = self.row_closed(state, target)
        radius = layout.px(6)
        for label, kind, box in zip(
            labels, box_states(player, target), self.box_rects(layout, rect), strict=True
        ):
            if kind == "pending":  # drawn again, pulsing, by draw_animated
                self.draw_pending(surface, layout, box, label, 0.0)
                continue
            key = (
                box.size,
                kind,
                label,
                closed_row,
                layout.background,
                layout.font_size(30),
                radius,
            )
            sprite = self.sprites.get(
                "box", key, partial(_box_sprite, layout, box.size, kind, label, closed_row, radius)
            )
            surface.blit(sprite, box)
            layout.drawn_text.append((label, box.inflate(-layout.px(6), -layout.px(6))))

    def box_rects(self, layout: Layout, cell: pygame.Rect) -> list[pygame.Rect]:
        """The S, D and T boxes in a cell."""
        width = min(cell.width, round(cell.height * 1.6 * 3))
        boxes = pygame.Rect(0, cell.y, width, cell.height)
        boxes.centerx = cell.centerx
        return split(boxes, 3, layout.px(6))

    def draw_pending(
        self, surface: pygame.Surface, layout: Layout, box: pygame.Rect, label: str, pulse: float
    ) -> None:
        """A box the visit in progress will fill, glowing with ``pulse`` (0-1)."""
        radius = layout.px(6)
        glow = tuple(
            round(a + (b - a) * (0.35 + 0.3 * pulse))
            for a, b in zip(COLORS.panel, COLORS.pending, strict=True)
        )
        pygame.draw.rect(surface, glow, box, border_radius=radius)
        pygame.draw.rect(surface, COLORS.pending, box, layout.px(3), radius)
        with layout.on(None):
            layout.text(
                surface,
                label,
                box.inflate(-layout.px(6), -layout.px(6)),
                layout.font_size(30),
                COLORS.text,
            )

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        """The pending boxes pulse: they are drawn again over the static picture."""
        super().draw_animated(surface, layout)
        state = self.state or StateView()
        pulse = 0.5 + 0.5 * math.sin(self.clock * 2 * math.pi * 1.2)
        for index, player in enumerate(state.players):
            if player.marks == player.marks_after_visit:
                continue
            for target, _ in ROWS:
                kinds = box_states(player, target)
                if "pending" not in kinds:
                    continue
                labels = BULL_STAGES if target == BULL_KEY else STAGES
                boxes = self.box_rects(layout, self.cell_rect(layout, state, index, target))
                for label, kind, box in zip(labels, kinds, boxes, strict=True):
                    if kind == "pending":
                        self.draw_pending(surface, layout, box, label, pulse)


def _box_sprite(
    layout: Layout, size: tuple[int, int], kind: str, label: str, closed_row: bool, radius: int
) -> pygame.Surface:
    """A done or open stage box, drawn once and blitted after: 42 boxes a
    frame cost a blit each instead of two rects and a string."""
    background = layout.background
    sprite = pygame.Surface(size, 0 if background is not None else pygame.SRCALPHA)
    sprite.fill(background if background is not None else (0, 0, 0, 0))
    box = sprite.get_rect()
    scratch = Layout(layout.width, layout.height)
    inner = box.inflate(-layout.px(6), -layout.px(6))
    if kind == "done":
        fill = COLORS.faint if closed_row else COLORS.good
        pygame.draw.rect(sprite, fill, box, border_radius=radius)
        with scratch.on(fill):
            scratch.text(sprite, label, inner, layout.font_size(30), COLORS.background)
    else:
        pygame.draw.rect(sprite, COLORS.line, box, layout.px(2), radius)
        with scratch.on(background):
            scratch.text(sprite, label, inner, layout.font_size(30), COLORS.faint)
    return sprite
