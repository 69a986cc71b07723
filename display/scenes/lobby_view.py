"""The lobby between games, as the attract screen shows it: who joined the
next game (how, and their average when the roster knows it), and the QR
code of the board's join link with its join code in text beside it, for a
phone (docs/display.md, docs/players.md)."""

from __future__ import annotations

import pygame

from display.layout import COLORS, Layout, bands, split
from display.lobby import average_text
from display.qr import QrGeometry, draw_qr
from display.scenes.base import short_name
from display.sprites import Sprites
from mqtt_contract.lobby_payload import JoinedBy, LobbyState

__all__ = [
    "HOW_JOINED",
    "MAX_SHOWN",
    "draw_join_code",
    "draw_lobby_players",
    "join_code_rects",
]

MAX_SHOWN = 8
"""The most players the list shows (a game takes eight)."""

HOW_JOINED = {
    JoinedBy.CARD: "card",
    JoinedBy.PHONE: "phone",
    JoinedBy.ROSTER: "picked here",
    JoinedBy.NAME: "by name",
}
"""How a player joined, in the list's words."""


def draw_join_code(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, lobby: LobbyState, sprites: Sprites
) -> QrGeometry | None:
    """``Scan to join`` (``Scan to link the card you tapped`` while an unknown
    card waits to be linked from a phone), the QR code of the lobby's
    ``join_url`` and the join code in text beside it, in ``rect``; returns
    where the code went."""
    url = lobby.join_url
    if not url:
        return None
    layout.panel(surface, rect, COLORS.panel, COLORS.line, 1.5)
    title, code_rect, words = join_code_rects(layout, rect)
    with layout.on(COLORS.panel):
        words_above = "Scan to link the card you tapped" if lobby.card_waiting else "Scan to join"
        layout.text(surface, words_above, title, layout.font_size(36), COLORS.accent)
        code = lobby.join_code or ""
        if code:
            layout.text(surface, f"Code {code}", words, layout.font_size(40), COLORS.text)
    return draw_qr(surface, code_rect, url, sprites)


def join_code_rects(
    layout: Layout, rect: pygame.Rect
) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect]:
    """Where :func:`draw_join_code` puts its title, the QR code and the join code in ``rect``."""
    inner = rect.inflate(-layout.px(20), -layout.px(16))
    parts = bands(inner, (("title", 0.1),), "rest")
    code_rect, words = bands(parts["rest"], (("code", 0.8),), "words").values()
    return parts["title"], code_rect, words


def draw_lobby_players(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, lobby: LobbyState
) -> None:
    """The players who joined the next game, one row each: their number, the
    name, how they joined and their average this month."""
    label, body = bands(rect, (("label", 0.12),), "body").values()
    count = len(lobby.players)
    title = f"Next game: {count} player{'s' if count != 1 else ''}" if count else "Next game"
    layout.text(surface, title, label, layout.font_size(36), COLORS.accent, "left")
    if not lobby.players:
        hint = "Scan the code, tap a card, or pick your name in the setup"
        layout.text(surface, hint, body.inflate(0, -body.height // 2), layout.font_size(28),
                    COLORS.dim, "left")  # fmt: skip
        return
    rows = split(body, max(MAX_SHOWN // 2, min(count, MAX_SHOWN)), layout.px(6), vertical=True)
    for number, (player, row) in enumerate(zip(lobby.players, rows, strict=False), start=1):
        layout.panel(surface, row, COLORS.panel, COLORS.line, 1.5)
        cells = split(row.inflate(-layout.px(16), -layout.px(4)), 8, layout.px(8))
        name_cell = cells[1].union(cells[4])
        how_cell = cells[5].union(cells[6])
        with layout.on(COLORS.panel):
            layout.text(surface, str(number), cells[0], layout.font_size(30), COLORS.dim)
            layout.text(surface, short_name(player.name), name_cell, layout.font_size(36),
                        COLORS.text, "left")  # fmt: skip
            layout.text(surface, HOW_JOINED.get(player.joined_by, ""), how_cell,
                        layout.font_size(24), COLORS.dim, "left")  # fmt: skip
            layout.text(surface, average_text(player.average), cells[7], layout.font_size(26),
                        COLORS.text, "right")  # fmt: skip
