"""Cricket: the marks grid. A row per target (20 down to 15, then the bull),
a column per player with its marks drawn the pub way (``/`` one, ``X`` two,
a circled ``X`` closed), the points above and the marks per round below.

With two players the targets sit between them, as on a chalk board; with
more they form the first column. A target every side has closed is greyed.
:class:`display.scenes.cricket_shanghai.CricketShanghaiScene` reuses the grid and draws its
cells differently.
"""

from __future__ import annotations

from collections.abc import Mapping

import pygame

from display.layout import COLORS, Color, Layout, split
from display.scenes.base import Scene, State, format_value, is_winner
from display.scenes.registry import register_scene
from engine.beds import BULL
from engine.games.cricket import CRICKET_TARGETS, MARKS_KEYS, MARKS_TO_CLOSE
from mqtt_contract import PlayerView
from mqtt_contract.scoreboard import cricket_option_parts, handicap_words

__all__ = ["BULL_KEY", "ROWS", "CricketScene", "draw_mark", "mark_count", "marks_of"]

BULL_KEY = MARKS_KEYS[CRICKET_TARGETS.index(BULL)]
"""The bull's key in ``marks``."""

ROWS: tuple[tuple[str, str], ...] = (
    *((key, key) for key in reversed(MARKS_KEYS) if key != BULL_KEY),
    (BULL_KEY, "Bull"),
)
"""The grid's rows top to bottom, the engine's targets high to low with the
bull last: ``(marks key, label)``."""


def marks_of(player: PlayerView, after_visit: bool = False) -> Mapping[str, int]:
    """A player's ``marks`` (or, ``after_visit``, ``marks_after_visit``), by target."""
    return dict(player.marks_after_visit if after_visit else player.marks)


def mark_count(marks: Mapping[str, int], target: str) -> int:
    """The marks on ``target`` (a ``marks`` key), 0 to :data:`MARKS_TO_CLOSE`."""
    return max(0, min(MARKS_TO_CLOSE, marks.get(target, 0)))


def draw_mark(surface: pygame.Surface, rect: pygame.Rect, count: int, colour: Color) -> None:
    """Cricket marks in the middle of ``rect``: 1 ``/``, 2 ``X``, 3 a circled ``X``."""
    if count <= 0:
        return
    size = min(rect.width, rect.height) * 0.72
    if size < 4:
        return
    width = max(1, round(size / 9))
    cx, cy = rect.center
    half = size / 2 * (0.62 if count >= MARKS_TO_CLOSE else 0.8)
    pygame.draw.line(surface, colour, (cx - half, cy + half), (cx + half, cy - half), width)
    if count >= 2:
        pygame.draw.line(surface, colour, (cx - half, cy - half), (cx + half, cy + half), width)
    if count >= MARKS_TO_CLOSE:
        pygame.draw.circle(surface, colour, (cx, cy), round(size / 2), width)


class _Columns:
    """Where the grid's parts go: one rect per player column and the labels'."""

    def __init__(self, rect: pygame.Rect, players: int, gap: int) -> None:
        self.labels: pygame.Rect
        self.players: list[pygame.Rect]
        if players == 2:
            label_width = round(rect.width * 0.16)
            side = (rect.width - label_width - 2 * gap) // 2
            left = pygame.Rect(rect.x, rect.y, side, rect.height)
            self.labels = pygame.Rect(left.right + gap, rect.y, label_width, rect.height)
            right = pygame.Rect(self.labels.right + gap, rect.y, side, rect.height)
            self.players = [left, right]
        else:
            label_width = round(rect.width * (0.14 if players <= 4 else 0.1))
            self.labels = pygame.Rect(rect.x, rect.y, label_width, rect.height)
            rest = pygame.Rect(
                self.labels.right + gap, rect.y, rect.width - label_width - gap, rect.height
            )
            self.players = split(rest, max(players, 1), gap)


@register_scene("cricket")
class CricketScene(Scene):
    header_share = 0.2
    """The share of the grid's height for the names and scores."""
    footer_share = 0.08

    def subtitle(self, state: State) -> str:
        return "  ·  ".join(cricket_option_parts(state)) if state.has_options else ""

    # ------------------------------------------------------------ hooks

    def score_text(self, player: PlayerView) -> str:
        return format_value(player.score)

    def footer_text(self, player: PlayerView) -> str:
        handicap = handicap_words(player)  # spot marks: "spot 20:3 bull:2"
        if not player.stats.present:
            return handicap
        mpr = f"MPR {format_value(player.stats.mpr or 0.0)}"
        return f"{mpr} · {handicap}" if handicap else mpr

    def row_closed(self, state: State, target: str) -> bool:
        """Every side has closed ``target``: the row is greyed."""
        players = state.players
        return bool(players) and all(
            mark_count(marks_of(p), target) >= MARKS_TO_CLOSE for p in players
        )

    def draw_cell(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        index: int,
        target: str,
    ) -> None:
        """Player ``index``'s marks on ``target``."""
        player = state.players[index]
        count = mark_count(marks_of(player), target)
        colour = COLORS.faint if self.row_closed(state, target) else COLORS.mark
        draw_mark(surface, rect, count, colour)

    # ----------------------------------------------------------- geometry

    def grid_rects(
        self, layout: Layout, rect: pygame.Rect, players: int
    ) -> tuple[_Columns, int, int, list[pygame.Rect]]:
        """The grid in ``rect``: its columns, the header's and the footer's
        heights, and one rect per row of :data:`ROWS`."""
        gap = layout.px(10)
        columns = _Columns(rect, players, gap)
        header_h = round(rect.height * self.header_share)
        footer_h = round(rect.height * self.footer_share)
        rows_rect = pygame.Rect(
            rect.x, rect.y + header_h + gap, rect.width, rect.height - header_h - footer_h - 2 * gap
        )
        return columns, header_h, footer_h, split(rows_rect, len(ROWS), layout.px(4), vertical=True)

    def cell_rect(self, layout: Layout, state: State, index: int, target: str) -> pygame.Rect:
        """Where player ``index``'s marks on ``target`` are drawn in a window of ``layout``."""
        players = len(state.players)
        columns, _, _, rows = self.grid_rects(layout, self.regions(layout)["main"], players)
        row = rows[[key for key, _ in ROWS].index(target)]
        column = columns.players[index]
        return pygame.Rect(column.x, row.y, column.width, row.height).inflate(
            -layout.px(10), -layout.px(4)
        )

    # ----------------------------------------------------------- drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        players = state.players
        count = len(players)
        columns, header_h, footer_h, row_rects = self.grid_rects(layout, rect, count)
        current = state.current_player
        finished = state.finished
        colours: list[Color] = []
        for index, column in enumerate(columns.players[:count]):
            player = players[index]
            is_current = index == current and not finished
            body = pygame.Rect(column.x, column.y, column.width, column.height)
            colour = COLORS.panel_current if is_current else COLORS.panel
            colours.append(colour)
            layout.panel(
                surface,
                body,
                colour,
                COLORS.accent if is_current else COLORS.line,
                4 if is_current else 1.5,
            )
            with layout.on(colour):
                header = pygame.Rect(column.x, column.y, column.width, header_h)
                name_rect, score_rect = split(
                    header.inflate(-layout.px(12), -layout.px(8)), 2, 0, vertical=True
                )
                name_rect.height = round(header.height * 0.36)
                score_rect.y = name_rect.bottom
                score_rect.height = header.bottom - name_rect.bottom
                self.draw_name(surface, layout, name_rect, state, index, 34)
                won = is_winner(state, index)
                layout.text(
                    surface,
                    self.score_text(player),
                    score_rect,
                    layout.font_size(84),
                    COLORS.good if won else COLORS.text,
                )
                footer = pygame.Rect(column.x, rect.bottom - footer_h, column.width, footer_h)
                layout.text(
                    surface,
                    self.footer_text(player),
                    footer.inflate(-layout.px(12), 0),
                    layout.font_size(26),
                    COLORS.dim,
                )
        labels = columns.labels
        for (target, label), row in zip(ROWS, row_rects, strict=True):
            closed = self.row_closed(state, target)
            stripe = pygame.Rect(rect.x, row.y, rect.width, row.height)
            line_y = stripe.bottom + layout.px(2)
            if row is not row_rects[-1]:
                pygame.draw.line(
                    surface,
                    COLORS.line,
                    (rect.x + layout.px(8), line_y),
                    (rect.right - layout.px(8), line_y),
                    1,
                )
            label_rect = pygame.Rect(labels.x, row.y, labels.width, row.height)
            layout.text(
                surface,
                label,
                label_rect.inflate(-layout.px(6), -layout.px(6)),
                layout.font_size(60),
                COLORS.faint if closed else COLORS.text,
            )
            for index, column in enumerate(columns.players[:count]):
                cell = pygame.Rect(column.x, row.y, column.width, row.height).inflate(
                    -layout.px(10), -layout.px(4)
                )
                with layout.on(colours[index]):
                    self.draw_cell(surface, layout, cell, state, index, target)
