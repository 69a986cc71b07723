"""Around the World: a row per side with its course, 1 to 20 then the bull,
as a track of cells: the numbers done filled, the side's next target lit in
the accent colour, the rest to come outlined, and the numbers below the
``start`` option (not on the course) greyed. The header says whether
``multi`` is on (a double skips ahead two, a triple three) and where the
course starts.
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from display.layout import COLORS, Color, Layout, split
from display.scenes.base import State
from display.scenes.baseball import SideRowsScene, sides_of
from display.scenes.registry import register_scene
from engine.beds import BULL
from engine.games.around_the_world import LAST_NUMBER
from mqtt_contract.scoreboard import around_the_world_options, cell_kind

__all__ = ["BULL", "TRACK", "AroundTheWorldScene", "cell_kind"]

TRACK: tuple[int, ...] = (*range(1, LAST_NUMBER + 1), BULL)
"""The track's cells, left to right: 1 to 20, then the bull."""


@register_scene("around-the-world")
class AroundTheWorldScene(SideRowsScene):
    max_row_share = 0.26

    def subtitle(self, state: State) -> str:
        multi, start = around_the_world_options(state)
        return f"start {start}  ·  " + ("multi on: D +2, T +3" if multi else "multi off")

    # ----------------------------------------------------------- geometry

    def row_parts(
        self, layout: Layout, row: pygame.Rect
    ) -> tuple[pygame.Rect, pygame.Rect, list[pygame.Rect]]:
        """In a side's row: the label line, the figures at its right and a
        rect per cell of :data:`TRACK`."""
        inner = row.inflate(-layout.px(16), -layout.px(10))
        top = pygame.Rect(inner.x, inner.y, inner.width, round(inner.height * 0.42))
        label = pygame.Rect(top.x, top.y, round(top.width * 0.4), top.height)
        figures = pygame.Rect(label.right, top.y, top.right - label.right, top.height)
        track = pygame.Rect(
            inner.x,
            top.bottom + layout.px(4),
            inner.width,
            inner.bottom - top.bottom - layout.px(4),
        )
        return label, figures, split(track, len(TRACK), layout.px(3))

    def track_cell(self, layout: Layout, state: State, side: int, number: int) -> pygame.Rect:
        """Where side ``side``'s track cell of ``number`` (25 the bull) is drawn
        in a window of ``layout``."""
        rows = self.row_rects(layout, self.regions(layout)["main"], len(sides_of(state)))
        if not 0 <= side < len(rows) or number not in TRACK:
            return pygame.Rect(0, 0, 0, 0)
        return self.row_parts(layout, rows[side])[2][TRACK.index(number)]

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        self.draw_rows(surface, layout, rect, state)

    def draw_row(
        self,
        surface: pygame.Surface,
        layout: Layout,
        row: pygame.Rect,
        state: State,
        side: int,
        members: Sequence[int],
    ) -> None:
        players = state.players
        player = players[members[0]]
        _, start = around_the_world_options(state)
        target = player.target_number
        won = self.side_won(state, members)
        label, figures, cells = self.row_parts(layout, row)
        self.draw_side_label(surface, layout, label, state, side, members, 32, stacked=False)
        course = len([n for n in TRACK if n >= start])
        score = player.score or 0
        hits = sum(players[m].stats.hits or 0 for m in members)
        darts = sum(players[m].stats.darts for m in members)
        rate = f"{round(100 * hits / darts)}%" if darts else "-"
        next_text = "won" if won else ("next Bull" if target == BULL else f"next {target}")
        next_rect, done_rect = split(figures, 2, layout.px(8))
        layout.text(
            surface,
            next_text,
            next_rect,
            layout.font_size(32),
            COLORS.good if won else COLORS.accent,
            "right",
        )
        layout.text(
            surface,
            f"{score}/{course}  ·  hits {rate}",
            done_rect,
            layout.font_size(26),
            COLORS.dim,
            "right",
        )
        for number, cell in zip(TRACK, cells, strict=True):
            kind = cell_kind(number, target, start, won)
            self.draw_cell(surface, layout, cell, number, kind)

    def draw_cell(
        self, surface: pygame.Surface, layout: Layout, cell: pygame.Rect, number: int, kind: str
    ) -> None:
        """One cell of the track."""
        label = "Bull" if number == BULL else str(number)
        radius = layout.px(4)
        fill: Color | None = None
        if kind == "done":
            fill, colour = COLORS.good, COLORS.background
        elif kind == "target":
            fill, colour = COLORS.accent, COLORS.background
        elif kind == "todo":
            colour = COLORS.text
            pygame.draw.rect(surface, COLORS.line, cell, layout.px(1.5), radius)
        else:
            colour = COLORS.faint
        if fill is not None:
            pygame.draw.rect(surface, fill, cell, border_radius=radius)
        with layout.on(fill or layout.background):
            layout.text(
                surface,
                label,
                cell.inflate(-layout.px(4), -layout.px(4)),
                layout.font_size(30),
                colour,
            )
