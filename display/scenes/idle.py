"""The attract screen: no game is running (phase ``idle``) or no state has
arrived yet. A dartboard with a lit sector going round, the board's and the
daemon's status, and how to start a game."""

from __future__ import annotations

import pygame

from display.dartboard import BOARD_ORDER, draw_board, draw_lit_beds
from display.layout import COLORS, Layout, split
from display.scenes.base import SETUP_HINT, Scene, State, board_status
from engine import Bed, game_class, game_ids

__all__ = ["IdleScene"]

SECTORS_PER_SECOND = 2.0
"""How fast the lit sector goes round the attract board."""


class IdleScene(Scene):
    title = "Oche"
    show_board = False

    def subtitle(self, state: State) -> str:
        return "Soft-tip dartboard"

    def board_and_text(self, layout: Layout, rect: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
        board_rect, text_rect = split(rect, 2, layout.px(32))
        board_rect.width = min(board_rect.width, board_rect.height)
        text_rect.x = board_rect.right + layout.px(32)
        text_rect.width = rect.right - text_rect.x
        return board_rect, text_rect

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        board_rect, _ = self.board_and_text(layout, self.regions(layout)["main"])
        step = int(self.clock * SECTORS_PER_SECOND) % len(BOARD_ORDER)
        number = BOARD_ORDER[step]
        sector = tuple(Bed(number, multiplier).notation for multiplier in (1, 3, 2))
        draw_lit_beds(surface, board_rect, sector, self.clock, self.sprites)
        super().draw_animated(surface, layout)

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        board_rect, text_rect = self.board_and_text(layout, rect)
        draw_board(surface, board_rect, self.sprites)
        lines = split(text_rect.inflate(0, -text_rect.height // 5), 5, layout.px(8), vertical=True)
        if self.state is None:
            headline, hint = "Waiting for the daemon...", "No state from the MQTT broker yet"
        else:
            headline = "Start a game"
            hint = f"{SETUP_HINT} (or send new_game over MQTT)"
        layout.text(surface, headline, lines[0], layout.font_size(72), COLORS["text"], "left")
        layout.text(surface, hint, lines[1], layout.font_size(26), COLORS["dim"], "left")
        status, colour = board_status(self.state)
        dot = layout.px(12)
        status_rect = lines[3].inflate(-4 * dot, 0).move(2 * dot, 0)
        placed = layout.text(surface, status, status_rect, layout.font_size(36), colour, "left")
        if placed.width:
            pygame.draw.circle(surface, colour, (placed.x - 2 * dot, placed.centery), dot)
        games = "Games: " + ", ".join(game_class(game_id).name for game_id in game_ids())
        layout.text(surface, games, lines[4], layout.font_size(28), COLORS["dim"], "left")
