"""Count-Up: a row per side with its points in each of the eight rounds, the
total and the side's points per dart; the round being played is outlined. A
line under the grid says how the darts score (the bull option).

:class:`RoundsScene` is the grid itself, shared with
:class:`display.scenes.cricket_count_up.CricketCountUpScene` (marks instead
of points).
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from display.layout import COLORS, Color, Layout, split
from display.scenes.base import State, format_value, int_or_none
from display.scenes.baseball import SideRowsScene
from display.scenes.registry import register_scene
from engine.games.count_up import COUNT_UP_ROUNDS
from mqtt_contract import PlayerView

__all__ = ["CountUpScene", "RoundsScene", "rounds_of"]


def rounds_of(state: State) -> int:
    """The game's rounds (the ``rounds`` option, 8 without one)."""
    value = int_or_none(state.option("rounds"))
    return value if value is not None and value > 0 else COUNT_UP_ROUNDS


def _player(state: State, index: int) -> PlayerView:
    return state.player(index) or PlayerView(index)


class RoundsScene(SideRowsScene):
    """A grid of rounds: a column per round with the side's score in it, the
    total and the side's figure (:meth:`figure_text`) at the right."""

    label_share = 0.22
    """The share of a row's width for the side's name."""
    total_share = 0.14
    """The share of a row's width for the total and the figure."""

    def figure_text(self, state: State, members: Sequence[int]) -> str:
        """The side's figure under its total (PPD, MPR); subclasses say which."""
        return ""

    def rule_text(self, state: State) -> str:
        """What scores, for the line under the grid; subclasses say."""
        return ""

    # ----------------------------------------------------------- geometry

    def cell_rect(
        self, layout: Layout, main: pygame.Rect, state: State, side: int, round_number: int
    ) -> pygame.Rect:
        """Where side ``side``'s score of round ``round_number`` is written when
        the body is drawn in ``main`` (the scene's main region; an empty rect
        when there is no such cell)."""
        rounds = rounds_of(state)
        _, _, rows, _ = self.grid_rects(layout, main, state)
        if not 1 <= round_number <= rounds or not 0 <= side < len(rows):
            return pygame.Rect(0, 0, 0, 0)
        _, cells, _ = self.column_rects(layout, rows[side], rounds)
        return cells[round_number - 1].inflate(0, -layout.px(8))

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        rounds = rounds_of(state)
        current = state.round if not state.finished else None
        heading, body, rows, footer = self.grid_rects(layout, rect, state)
        _, cells, total = self.column_rects(layout, heading, rounds)
        for number, cell in enumerate(cells, start=1):
            colour = COLORS.accent if number == current else COLORS.dim
            layout.text(surface, str(number), cell, layout.font_size(34), colour)
        layout.text(surface, "Total", total, layout.font_size(30), COLORS.text)
        self.draw_rows(surface, layout, body, state)
        if current is not None and 1 <= current <= rounds and rows:
            self.draw_column_band(surface, layout, cells[current - 1], heading, rows)
        self.draw_rule_line(surface, layout, footer, self.rule_text(state))

    def draw_row(
        self,
        surface: pygame.Surface,
        layout: Layout,
        row: pygame.Rect,
        state: State,
        side: int,
        members: Sequence[int],
    ) -> None:
        rounds = rounds_of(state)
        player = _player(state, members[0])
        scores = player.round_scores
        label, cells, total = self.column_rects(layout, row, rounds)
        self.draw_side_label(
            surface, layout, label.inflate(0, -layout.px(8)), state, side, members, 34
        )
        is_current = side == self.current_side(state)
        for number, cell in enumerate(cells, start=1):
            if number > len(scores):
                continue
            value = scores[number - 1]
            colour: Color = COLORS.text if value else COLORS.faint
            if is_current and number == state.round:
                colour = COLORS.accent
            layout.text(
                surface, str(value), cell.inflate(0, -layout.px(8)), layout.font_size(40), colour
            )
        total_rect, figure_rect = split(total.inflate(0, -layout.px(8)), 2, 0, vertical=True)
        total_rect.height = round(total.height * 0.6)
        figure_rect.y, figure_rect.height = total_rect.bottom, total.bottom - total_rect.bottom
        won = self.side_won(state, members)
        layout.text(
            surface,
            format_value(player.score),
            total_rect,
            layout.font_size(52),
            COLORS.good if won else COLORS.text,
        )
        layout.text(
            surface,
            self.figure_text(state, members),
            figure_rect.inflate(0, -layout.px(4)),
            layout.font_size(24),
            COLORS.dim,
        )


@register_scene("count-up")
class CountUpScene(RoundsScene):
    def subtitle(self, state: State) -> str:
        rounds = rounds_of(state)
        bull = "fat bull" if state.option("bull") != "split" else "split bull"
        return f"{rounds} round{'s' if rounds != 1 else ''}  ·  {bull}  ·  highest total wins"

    def figure_text(self, state: State, members: Sequence[int]) -> str:
        players = [_player(state, m) for m in members]
        darts = sum(p.stats.darts for p in players)
        points = sum(p.stats.points or 0 for p in players)
        return f"PPD {points / darts:.2f}" if darts else "PPD -"

    def rule_text(self, state: State) -> str:
        if state.finished:
            return "Final"
        bulls = "SB 25, DB 50" if state.option("bull") == "split" else "SB and DB 50"
        return f"Round {state.round or 1} of {rounds_of(state)}: every dart scores  ·  {bulls}"
