"""A QR code drawn with pygame: the lobby's join link, for a phone's camera.

segno makes the symbol (a regular QR code, error correction M or better, never a Micro
QR, which phones' cameras do not read); this module draws its modules as
black squares on white, a quiet zone of :data:`QUIET_ZONE` modules around
them, each module a whole number of pixels so a camera sees crisp edges.
:func:`qr_geometry` says where each module lands, so a test reads the
pixels back into the matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import pygame
import segno

from display.sprites import Sprites

__all__ = ["QUIET_ZONE", "QrGeometry", "draw_qr", "qr_geometry", "qr_matrix"]

QUIET_ZONE = 4
"""White modules around the symbol: the QR standard's quiet zone."""
_DARK = (0, 0, 0)
_LIGHT = (255, 255, 255)


@lru_cache(maxsize=16)
def qr_matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """The modules of ``text``'s QR code, row by row (``True``: dark), without the quiet zone."""
    symbol = segno.make_qr(text, error="m")
    return tuple(tuple(bool(module) for module in row) for row in symbol.matrix)


@dataclass(frozen=True, slots=True)
class QrGeometry:
    """Where a drawn QR code is: its white square, the top left of its first
    module, a module's side in pixels, and modules per side."""

    square: pygame.Rect
    origin: tuple[int, int]
    module: int
    count: int

    def centre(self, row: int, column: int) -> tuple[int, int]:
        """The pixel at the middle of module ``(row, column)``."""
        x, y = self.origin
        half = self.module // 2
        return x + column * self.module + half, y + row * self.module + half


def qr_geometry(rect: pygame.Rect, text: str) -> QrGeometry | None:
    """Where :func:`draw_qr` puts ``text``'s code in ``rect``: centred, as
    large as whole-pixel modules allow; ``None`` when ``rect`` is too small
    for modules of 2 pixels."""
    count = len(qr_matrix(text))
    module = min(rect.width, rect.height) // (count + 2 * QUIET_ZONE)
    if module < 2:
        return None
    side = module * (count + 2 * QUIET_ZONE)
    square = pygame.Rect(0, 0, side, side)
    square.center = rect.center
    origin = (square.x + QUIET_ZONE * module, square.y + QUIET_ZONE * module)
    return QrGeometry(square, origin, module, count)


def _picture(text: str, module: int) -> pygame.Surface:
    matrix = qr_matrix(text)
    side = module * (len(matrix) + 2 * QUIET_ZONE)
    picture = pygame.Surface((side, side))
    picture.fill(_LIGHT)
    for row, modules in enumerate(matrix):
        for column, dark in enumerate(modules):
            if dark:
                x = (column + QUIET_ZONE) * module
                y = (row + QUIET_ZONE) * module
                picture.fill(_DARK, pygame.Rect(x, y, module, module))
    return picture


def draw_qr(
    surface: pygame.Surface, rect: pygame.Rect, text: str, sprites: Sprites
) -> QrGeometry | None:
    """Draw ``text``'s QR code centred in ``rect`` (drawn once per text and
    module size into ``sprites``); returns where, or ``None`` when it does not fit."""
    geometry = qr_geometry(rect, text)
    if geometry is None:
        return None
    picture = sprites.get("qr", (text, geometry.module), lambda: _picture(text, geometry.module))
    surface.blit(picture, geometry.square.topleft)
    return geometry
