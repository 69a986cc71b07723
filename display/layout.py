"""Relative layout, colours and text for the scoreboard.

Every position and size on screen is a fraction of the window, so the same
scene fits any window from 800x480 to 3840x2160. :class:`Layout` turns
fractions into pixel rects and design sizes into pixel font sizes: designs
are drawn for a 1600x900 canvas and scaled by :attr:`Layout.unit`, the
largest factor at which that canvas fits the window.

Text goes through :meth:`Layout.text`, which shrinks a string until it fits
its rect and clips it there, so nothing is ever drawn outside the rect it was
given. Rendered strings are cached (by text, size and colours): a scoreboard
frame shows the same few dozen strings again and again, and rendering them
anew each frame would cost more than drawing the rest of the frame. This text
cache (with the fonts, by size) is the one module-level cache the drawing
fills, on purpose: it is a render cache, not state. Its key is everything the
picture depends on, it is bounded, and it decides nothing about what is
drawn: a frame drawn with it empty has the same pixels. (The other pictures
drawn once, the dartboard and the like, go to a :class:`display.sprites.Sprites`
the scene is given.)

Fonts are pygame's default font (``freesansbold.ttf``, shipped with
pygame-ce), loaded once per pixel size.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import pygame
import pygame.font

__all__ = [
    "COLORS",
    "Color",
    "HAlign",
    "Layout",
    "Palette",
    "bands",
    "font",
    "grid",
    "render_text",
    "split",
]

Color = tuple[int, int, int]


@dataclass(frozen=True)
class Palette:
    """The display's colours by role, read as attributes (``COLORS.accent``)."""

    background: Color = (16, 18, 24)
    panel: Color = (30, 34, 44)
    panel_current: Color = (40, 46, 62)
    panel_out: Color = (24, 26, 32)
    line: Color = (62, 68, 82)
    text: Color = (236, 238, 242)
    dim: Color = (140, 146, 160)
    faint: Color = (84, 90, 104)
    accent: Color = (255, 196, 0)
    good: Color = (70, 200, 110)
    bad: Color = (230, 60, 60)
    info: Color = (60, 150, 240)
    stale: Color = (120, 120, 130)
    mark: Color = (240, 240, 240)
    pending: Color = (255, 196, 0)
    here: Color = (34, 128, 72)
    wait: Color = (150, 96, 14)


COLORS = Palette()
"""The palette. ``accent`` marks the player to throw; ``pending`` the
Cricket-Shanghai boxes a visit will fill; ``here`` and ``wait`` are the
remote match's strips (the player is up at this board; the match waits)."""

DESIGN_WIDTH = 1600
DESIGN_HEIGHT = 900
MIN_FONT_PX = 6

_FONTS: dict[int, pygame.font.Font] = {}
_QUIT_HOOK: list[bool] = []
_TEXT_CACHE: OrderedDict[tuple[str, int, Color, Color | None], pygame.Surface] = OrderedDict()
_TEXT_CACHE_SIZE = 1024

HAlign = Literal["left", "center", "right"]
VAlign = Literal["top", "middle", "bottom"]


def font(size: int) -> pygame.font.Font:
    """pygame's default font at ``size`` pixels, loaded once per size."""
    size = max(MIN_FONT_PX, int(size))
    if not pygame.font.get_init():
        pygame.font.init()
        _FONTS.clear()
    if not _QUIT_HOOK:
        # Fonts die with the font module: forget them when pygame.quit() runs,
        # even if something initialises pygame again before the next frame.
        pygame.register_quit(_FONTS.clear)
        _QUIT_HOOK.append(True)
    cached = _FONTS.get(size)
    if cached is None:
        cached = _FONTS[size] = pygame.font.Font(None, size)
    return cached


def render_text(text: str, size: int, color: Color, bg: Color | None = None) -> pygame.Surface:
    """``text`` rendered antialiased in ``color``, cached. Without ``bg`` it
    has per-pixel alpha; with ``bg`` it is opaque on that colour, in the
    frame's pixel format, and blits three times faster. The returned surface
    is shared: blit it, never draw on it."""
    key = (text, max(MIN_FONT_PX, int(size)), color, bg)
    cached = _TEXT_CACHE.get(key)
    if cached is not None:
        _TEXT_CACHE.move_to_end(key)
        return cached
    if bg is None:
        image = font(key[1]).render(text, True, color)
    else:
        image = font(key[1]).render(text, True, color, bg).convert(_frame_format())
    _TEXT_CACHE[key] = image
    if len(_TEXT_CACHE) > _TEXT_CACHE_SIZE:
        _TEXT_CACHE.popitem(last=False)
    return image


_FORMAT: list[pygame.Surface] = []


def _frame_format() -> pygame.Surface:
    """A surface in the pixel format frames are drawn in (``pygame.Surface(size)``)."""
    if not _FORMAT:
        _FORMAT.append(pygame.Surface((1, 1)))
    return _FORMAT[0]


@dataclass
class Layout:
    """Fractions of a ``width`` x ``height`` window as pixels.

    ``drawn_text`` lists ``(text, rect)`` for every string :meth:`text` drew
    since the layout was made; it is a record for tests and tools, not state
    the scene depends on.
    """

    width: int
    height: int
    drawn_text: list[tuple[str, pygame.Rect]] = field(default_factory=list, repr=False)
    background: Color | None = field(default=None, repr=False)
    """The solid colour text is being drawn on (see :meth:`on`), or ``None``."""

    unit: float = field(init=False, repr=False)
    """Pixels per design pixel: the 1600x900 design canvas fitted to the window."""
    _font_scale: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise ValueError(f"a layout needs a positive size, got {self.width}x{self.height}")
        self.unit = min(self.width / DESIGN_WIDTH, self.height / DESIGN_HEIGHT)
        self._font_scale = max(self.unit, 0.4 + 0.5 * self.unit)

    @property
    def bounds(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width, self.height)

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        """The rect at fractions ``x``, ``y`` of the window, ``w`` by ``h`` fractions."""
        left = round(x * self.width)
        top = round(y * self.height)
        right = round((x + w) * self.width)
        bottom = round((y + h) * self.height)
        return pygame.Rect(left, top, max(0, right - left), max(0, bottom - top))

    def px(self, design: float) -> int:
        """A length in design pixels (of the 1600x900 canvas) in window pixels, at least 1."""
        return max(1, round(design * self.unit))

    def font_size(self, design: float) -> int:
        """A font size given in design pixels, in window pixels. Below the
        design size text shrinks less than the window, to stay readable on
        small screens (and shrinks further only where it does not fit)."""
        return max(MIN_FONT_PX, round(design * self._font_scale))

    @contextmanager
    def on(self, colour: Color | None) -> Iterator[None]:
        """Text drawn inside the block sits on solid ``colour``: it is rendered
        opaque on it (faster to blit). ``None``: on anything (alpha blended)."""
        saved, self.background = self.background, colour
        try:
            yield
        finally:
            self.background = saved

    def text(
        self,
        surface: pygame.Surface,
        text: str,
        rect: pygame.Rect,
        size: int,
        color: Color,
        align: HAlign = "center",
        valign: VAlign = "middle",
    ) -> pygame.Rect:
        """Draw ``text`` at ``size`` pixels inside ``rect`` (clipped to the
        surface), shrunk until it fits; returns the rect it covers (empty when
        nothing fits)."""
        area = rect.clip(surface.get_rect())
        if not text or area.width < 1 or area.height < 1:
            return pygame.Rect(area.x, area.y, 0, 0)
        bg = self.background
        image = render_text(text, size, color, bg)
        width, height = image.get_size()
        while (width > area.width or height > area.height) and size > MIN_FONT_PX:
            scale = min(area.width / width, area.height / height)
            size = max(MIN_FONT_PX, min(size - 1, int(size * scale)))
            image = render_text(text, size, color, bg)
            width, height = image.get_size()
        width, height = min(width, area.width), min(height, area.height)
        if align == "left":
            x = area.x
        elif align == "right":
            x = area.right - width
        else:
            x = area.x + (area.width - width) // 2
        if valign == "top":
            y = area.y
        elif valign == "bottom":
            y = area.bottom - height
        else:
            y = area.y + (area.height - height) // 2
        placed = pygame.Rect(x, y, width, height)
        surface.blit(image, placed.topleft, pygame.Rect(0, 0, width, height))
        self.drawn_text.append((text, placed))
        return placed

    def panel(
        self,
        surface: pygame.Surface,
        rect: pygame.Rect,
        color: Color,
        border: Color | None = None,
        border_width: float = 0,
    ) -> None:
        """A rounded panel, with an optional border ``border_width`` design pixels wide."""
        radius = self.px(10)
        pygame.draw.rect(surface, color, rect, border_radius=radius)
        if border is not None and border_width > 0:
            pygame.draw.rect(surface, border, rect, self.px(border_width), border_radius=radius)


def split(rect: pygame.Rect, count: int, gap: int = 0, vertical: bool = False) -> list[pygame.Rect]:
    """``rect`` cut into ``count`` equal parts side by side (or stacked), ``gap`` apart."""
    if count < 1:
        return []
    total = (rect.height if vertical else rect.width) - gap * (count - 1)
    parts: list[pygame.Rect] = []
    for index in range(count):
        start = index * total // count + index * gap
        end = (index + 1) * total // count + index * gap
        if vertical:
            parts.append(pygame.Rect(rect.x, rect.y + start, rect.width, end - start))
        else:
            parts.append(pygame.Rect(rect.x + start, rect.y, end - start, rect.height))
    return parts


def bands(
    rect: pygame.Rect, shares: Sequence[tuple[str, float]], rest: str
) -> dict[str, pygame.Rect]:
    """``rect`` cut into named bands stacked from the top, each ``share`` of
    its height, and the ``rest`` below them: a card's name, score, stats..."""
    parts: dict[str, pygame.Rect] = {}
    y = rect.y
    for name, share in shares:
        parts[name] = pygame.Rect(rect.x, y, rect.width, round(rect.height * share))
        y = parts[name].bottom
    parts[rest] = pygame.Rect(rect.x, y, rect.width, max(0, rect.bottom - y))
    return parts


def grid(rect: pygame.Rect, count: int, columns: int, gap: int = 0) -> list[pygame.Rect]:
    """``count`` cells in rows of ``columns``, filling ``rect`` row by row."""
    if count < 1:
        return []
    columns = max(1, min(columns, count))
    rows = (count + columns - 1) // columns
    cells: list[pygame.Rect] = []
    for row_rect in split(rect, rows, gap, vertical=True):
        cells.extend(split(row_rect, columns, gap))
    return cells[:count]
