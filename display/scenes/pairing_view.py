"""The board's pairing code as the display shows it: a QR code of the board
page with the code in it and the code in text, for a phone to pair and
control the board from the venue's web page (docs/phone.md, docs/display.md).
The idle screen shows it small, the operator menu's "Pair a phone" page large."""

from __future__ import annotations

import pygame

from display.layout import COLORS, HAlign, Layout, bands, split
from display.qr import QrGeometry, draw_qr
from display.sprites import Sprites
from mqtt_contract.pairing_payload import PairingState

__all__ = ["PAIR_TITLE", "draw_pairing_code", "spaced_code"]

PAIR_TITLE = "Pair a phone"
"""The words over the code: what it is for."""


def spaced_code(code: str) -> str:
    """The six digits as two groups of three, as a person reads them out."""
    return f"{code[:3]} {code[3:]}"


def draw_pairing_code(
    surface: pygame.Surface,
    layout: Layout,
    rect: pygame.Rect,
    pairing: PairingState,
    sprites: Sprites,
    *,
    side_by_side: bool = True,
) -> QrGeometry | None:
    """In ``rect``, on a panel: the QR code of the pairing's board page (when
    the board knows one) and ``Pair a phone`` with the code in text, beside
    it (``side_by_side``, the idle screen's strip) or under it; where the QR
    code went."""
    layout.panel(surface, rect, COLORS.panel, COLORS.line, 1.5)
    inner = rect.inflate(-layout.px(12), -layout.px(10))
    if side_by_side:
        qr_rect = pygame.Rect(inner.x, inner.y, inner.height, inner.height)
        words = pygame.Rect(qr_rect.right + layout.px(16), inner.y, 0, inner.height)
        words.width = inner.right - words.x
        title, code_rect = split(words, 2, 0, vertical=True)
        sizes = (26, 36)
    else:
        parts = bands(inner, (("title", 0.1),), "rest")
        qr_rect, code_rect = bands(parts["rest"], (("code", 0.8),), "words").values()
        title = parts["title"]
        sizes = (36, 48)
    align: HAlign = "left" if side_by_side else "center"
    with layout.on(COLORS.panel):
        layout.text(surface, PAIR_TITLE, title, layout.font_size(sizes[0]), COLORS.accent, align)
        code = f"Code {spaced_code(pairing.code)}"
        layout.text(surface, code, code_rect, layout.font_size(sizes[1]), COLORS.text, align)
    if pairing.url is None:
        return None
    return draw_qr(surface, qr_rect, pairing.url, sprites)
