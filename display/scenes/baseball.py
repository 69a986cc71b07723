"""Baseball: the line score. A row per side, a column per inning with the
runs scored in it, the runs in total at the end; the inning being played is
outlined, and extra innings (on the bull) get columns of their own, ``X1``,
``X2``, ... A line under the grid says what scores in the inning.

:class:`SideRowsScene`, a scoreboard with one row per side (a team, or a
player on their own), is shared with
:class:`display.scenes.around_the_world.AroundTheWorldScene`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from display.layout import COLORS, Color, HAlign, Layout, grid, split
from display.scenes.base import Scene, State, format_value, int_or_none, short_name
from display.scenes.registry import register_scene
from engine.beds import NUMBERS
from mqtt_contract import PlayerView

__all__ = [
    "MAX_INNING_COLUMNS",
    "BaseballScene",
    "SideRowsScene",
    "inning_columns",
    "inning_label",
    "sides_of",
]

MAX_INNING_COLUMNS = 12
"""At most this many inning columns are shown; longer games show the ones
around the inning being played (the total counts every inning)."""

MIN_INNING_SLOTS = 9
"""The inning columns are as wide as nine would be, however few innings there are."""

LAST_NUMBER = NUMBERS[-1]
"""Innings above this have no number to score on (see docs/games/baseball.md)."""


def sides_of(state: State) -> list[list[int]]:
    """The player indices of each side, in throwing order: the teams' members,
    or one side per player."""
    players = state.players
    if state.teams:
        sides = []
        for team in state.teams:
            sides.append([i for i in team.players if 0 <= i < len(players)])
        if all(sides):
            return sides
    return [[index] for index in range(len(players))]


def _player(state: State, index: int) -> PlayerView:
    return state.player(index) or PlayerView(index)


class SideRowsScene(Scene):
    """A scoreboard with one row per side: the side's label (the player's
    name, or the team's name over its members') and what the game draws in
    the rest of the row (:meth:`draw_row`)."""

    max_row_share = 0.22
    """The tallest a row may be, as a share of the scoreboard's height."""
    label_share = 0.24
    """The share of a row's width for the side's name (a grid's first column)."""
    total_share = 0.1
    """The share of a row's width for a grid's total."""
    min_column_slots = 1
    """The fewest column widths a grid's row is split into."""

    def current_side(self, state: State) -> int | None:
        """The side whose member throws next, ``None`` once the game is over."""
        current = state.current_player
        if current is None or state.finished:
            return None
        for side, members in enumerate(sides_of(state)):
            if current in members:
                return side
        return None

    def side_won(self, state: State, members: Sequence[int]) -> bool:
        winner = state.winner
        return winner is not None and winner in members

    def row_rects(self, layout: Layout, rect: pygame.Rect, count: int) -> list[pygame.Rect]:
        """``count`` rows from the top of ``rect``, none taller than :attr:`max_row_share`."""
        if count <= 0:
            return []
        gap = layout.px(8)
        height = min(
            (rect.height - gap * (count - 1)) // count, round(rect.height * self.max_row_share)
        )
        column = pygame.Rect(rect.x, rect.y, rect.width, height * count + gap * (count - 1))
        return split(column, count, gap, vertical=True)

    def grid_rects(
        self, layout: Layout, rect: pygame.Rect, state: State
    ) -> tuple[pygame.Rect, pygame.Rect, list[pygame.Rect], pygame.Rect]:
        """The headings' strip, the rows' area, one rect per side's row and
        the footer line, in ``rect``."""
        gap = layout.px(8)
        heading_h = round(rect.height * 0.1)
        footer_h = round(rect.height * 0.1)
        heading = pygame.Rect(rect.x, rect.y, rect.width, heading_h)
        body = pygame.Rect(
            rect.x, heading.bottom + gap, rect.width, rect.height - heading_h - footer_h - 2 * gap
        )
        rows = self.row_rects(layout, body, len(sides_of(state)))
        footer_top = (rows[-1].bottom if rows else body.y) + gap
        footer = pygame.Rect(rect.x, footer_top, rect.width, footer_h)
        return heading, body, rows, footer

    def column_rects(
        self, layout: Layout, row: pygame.Rect, columns: int
    ) -> tuple[pygame.Rect, list[pygame.Rect], pygame.Rect]:
        """The label, one rect per column (at least :attr:`min_column_slots`
        wide each, so few columns keep their size) and the total, across ``row``."""
        pad = layout.px(12)
        label = pygame.Rect(
            row.x + pad, row.y, round(row.width * self.label_share) - pad, row.height
        )
        total = pygame.Rect(0, row.y, round(row.width * self.total_share), row.height)
        total.right = row.right - pad
        middle = pygame.Rect(label.right + pad, row.y, total.x - label.right - 2 * pad, row.height)
        slots = max(columns, self.min_column_slots)
        return label, split(middle, slots, layout.px(4))[:columns], total

    def draw_column_band(
        self,
        surface: pygame.Surface,
        layout: Layout,
        cell: pygame.Rect,
        heading: pygame.Rect,
        rows: Sequence[pygame.Rect],
    ) -> None:
        """The accent outline down the current column, from its heading cell
        to the last row (the inning or round being thrown)."""
        band = pygame.Rect(cell.x, heading.y, cell.width, rows[-1].bottom - heading.y)
        pygame.draw.rect(
            surface, COLORS.accent, band.inflate(layout.px(4), 0), layout.px(2), layout.px(6)
        )

    def draw_rule_line(
        self, surface: pygame.Surface, layout: Layout, footer: pygame.Rect, text: str
    ) -> None:
        """The game's rule in a dim line under the grid."""
        rect = footer.inflate(-layout.px(12), 0)
        layout.text(surface, text, rect, layout.font_size(28), COLORS.dim, "left")

    def draw_rows(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        """A panel per side in ``rect``, filled by :meth:`draw_row`."""
        sides = sides_of(state)
        current = self.current_side(state)
        for side, row in enumerate(self.row_rects(layout, rect, len(sides))):
            is_current = side == current
            out = all(_player(state, i).out for i in sides[side])
            colour = COLORS.panel_current if is_current else COLORS.panel
            if out:
                colour = COLORS.panel_out
            border = COLORS.accent if is_current else COLORS.line
            layout.panel(surface, row, colour, border, 4 if is_current else 1.5)
            with layout.on(colour):
                self.draw_row(surface, layout, row, state, side, sides[side])

    def draw_row(
        self,
        surface: pygame.Surface,
        layout: Layout,
        row: pygame.Rect,
        state: State,
        side: int,
        members: Sequence[int],
    ) -> None:
        """The inside of side ``side``'s row; subclasses draw it."""

    def draw_side_label(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        side: int,
        members: Sequence[int],
        size: float = 40,
        stacked: bool = True,
    ) -> None:
        """The side's name in ``rect``: a player's name (marked when they
        throw next), or the team's name with its members' names beside
        (``stacked`` False) or below it, the next thrower's in the accent
        colour."""
        team = state.team(side)
        if team is None or not members:
            if members:
                self.draw_name(surface, layout, rect, state, members[0], size)
            return
        align: HAlign = "center" if stacked else "left"
        if stacked:
            name_rect, members_rect = split(rect, 2, 0, vertical=True)
            name_rect.height = round(rect.height * 0.45)
            members_rect.y, members_rect.height = name_rect.bottom, rect.bottom - name_rect.bottom
            columns = 1 if len(members) == 1 else 2
        else:
            name_rect, members_rect = split(rect, 2, layout.px(8))
            name_rect.width = round(rect.width * 0.3)
            members_rect.x = name_rect.right + layout.px(8)
            members_rect.width = rect.right - members_rect.x
            columns = len(members)
        layout.text(
            surface,
            short_name(team.name),
            name_rect,
            layout.font_size(size),
            COLORS.text,
            align,
        )
        current = state.current_player
        finished = state.finished
        cells = grid(members_rect, len(members), columns, layout.px(4))
        for member, cell in zip(members, cells, strict=True):
            is_current = member == current and not finished
            layout.text(
                surface,
                short_name(_player(state, member).name or f"Player {member + 1}"),
                cell,
                layout.font_size(size * (0.7 if stacked else 0.8)),
                COLORS.accent if is_current else COLORS.dim,
                align,
            )


def inning_label(inning: int, innings: int) -> str:
    """A column's heading: the inning's number, ``X1``, ``X2``, ... for extra innings."""
    return str(inning) if inning <= innings else f"X{inning - innings}"


def inning_columns(state: State) -> list[int]:
    """The innings (from 1) that get a column: every regular inning and every
    extra inning begun, at most :data:`MAX_INNING_COLUMNS` of them around the
    inning being played."""
    innings = _innings(state)
    played = max([state.round or 1] + [len(_runs_of(p)) for p in state.players])
    total = max(innings, played)
    if total <= MAX_INNING_COLUMNS:
        return list(range(1, total + 1))
    current = state.round or 1
    last = max(MAX_INNING_COLUMNS, min(total, current + 1))
    return list(range(last - MAX_INNING_COLUMNS + 1, last + 1))


def _innings(state: State) -> int:
    value = int_or_none(state.option("innings"))
    return value if value is not None and value > 0 else 9


def _runs_of(player: PlayerView) -> list[int]:
    return list(player.innings_runs)


@register_scene("baseball")
class BaseballScene(SideRowsScene):
    label_share = 0.24
    """The share of a row's width for the side's name."""
    min_column_slots = MIN_INNING_SLOTS
    total_share = 0.1
    """The share of a row's width for the total runs."""

    def subtitle(self, state: State) -> str:
        innings = _innings(state)
        return f"{innings} inning{'s' if innings != 1 else ''}  ·  extra innings on the bull"

    # ----------------------------------------------------------- geometry

    def cell_rect(self, layout: Layout, state: State, side: int, inning: int) -> pygame.Rect:
        """Where side ``side``'s runs of ``inning`` are written in a window of
        ``layout`` (an empty rect when that inning has no column)."""
        columns = inning_columns(state)
        _, _, rows, _ = self.grid_rects(layout, self.regions(layout)["main"], state)
        if inning not in columns or not 0 <= side < len(rows):
            return pygame.Rect(0, 0, 0, 0)
        _, cells, _ = self.column_rects(layout, rows[side], len(columns))
        return cells[columns.index(inning)].inflate(0, -layout.px(8))

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        columns = inning_columns(state)
        innings = _innings(state)
        current = state.round if not state.finished else None
        heading, body, rows, footer = self.grid_rects(layout, rect, state)
        label, cells, total = self.column_rects(layout, heading, len(columns))
        if columns[0] > 1:
            layout.text(
                surface,
                f"innings 1-{columns[0] - 1} in R",
                label,
                layout.font_size(24),
                COLORS.faint,
                "left",
            )
        for inning, cell in zip(columns, cells, strict=True):
            colour = COLORS.accent if inning == current else COLORS.dim
            if inning > innings and inning != current:
                colour = COLORS.faint if inning > (current or 0) else COLORS.dim
            layout.text(surface, inning_label(inning, innings), cell, layout.font_size(34), colour)
        layout.text(surface, "R", total, layout.font_size(34), COLORS.text)
        self.draw_rows(surface, layout, body, state)
        if current in columns and rows:
            self.draw_column_band(surface, layout, cells[columns.index(current)], heading, rows)
        self.draw_rule_line(surface, layout, footer, self.inning_rule(state))

    def draw_row(
        self,
        surface: pygame.Surface,
        layout: Layout,
        row: pygame.Rect,
        state: State,
        side: int,
        members: Sequence[int],
    ) -> None:
        columns = inning_columns(state)
        player = _player(state, members[0])
        runs = _runs_of(player)
        label, cells, total = self.column_rects(layout, row, len(columns))
        self.draw_side_label(
            surface, layout, label.inflate(0, -layout.px(8)), state, side, members, 34
        )
        current_inning = state.round
        is_current = side == self.current_side(state)
        for inning, cell in zip(columns, cells, strict=True):
            if inning > len(runs):
                continue
            value = runs[inning - 1]
            colour: Color = COLORS.text if value else COLORS.faint
            if is_current and inning == current_inning:
                colour = COLORS.accent
            layout.text(
                surface,
                str(value),
                cell.inflate(0, -layout.px(8)),
                layout.font_size(44),
                colour,
            )
        won = self.side_won(state, members)
        layout.text(
            surface,
            format_value(player.score),
            total.inflate(0, -layout.px(8)),
            layout.font_size(52),
            COLORS.good if won else COLORS.text,
        )

    def inning_rule(self, state: State) -> str:
        """What scores in the inning being played."""
        inning = state.round or 1
        innings = _innings(state)
        if state.finished:
            extras = inning - innings
            if extras > 0:
                return f"Final after {extras} extra inning{'s' if extras != 1 else ''}"
            return "Final"
        if inning > innings:
            return f"Extra inning {inning - innings}: only the bull scores  ·  SB 1 run, DB 2"
        if inning > LAST_NUMBER:
            return f"Inning {inning}: there is no {inning}, nothing scores"
        return f"Inning {inning}: only the {inning} scores  ·  S{inning} 1 run, D 2, T 3"
