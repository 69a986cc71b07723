"""A dartboard drawn to scale in any square, lighting the beds of a visit.

The board is the soft-tip face: twenty sectors in board order (20 at the
top, then clockwise 1, 18, 4, ...), each cut into an inner single, a triple,
an outer single and a double, around the outer bull (``SB``) and the inner
bull (``DB``), with the numbers on a ring outside. Beds are named in the
engine's notation: ``S20`` lights both single beds of the 20, ``T20`` its
triple, ``SB``/``DB`` the bulls; ``M`` lights nothing.

The plain board is drawn once per size, supersampled twice for smooth edges,
and kept in the caller's :class:`display.sprites.Sprites`; so is each lit
bed's overlay. A frame blits the kept board and the overlays of the beds to
light, which keeps the dartboard well under a millisecond per frame. This
module keeps nothing itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial

import pygame

from display.darts import bed_of
from display.layout import Color, render_text
from display.sprites import Sprites
from engine import DB, SB, Bed

__all__ = [
    "BOARD_ORDER",
    "LIT",
    "RINGS",
    "bed_centre",
    "bed_polygons",
    "draw_board",
    "draw_dartboard",
    "draw_lit_beds",
    "lit_beds",
]

BOARD_ORDER = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)
"""The numbers clockwise from the top."""

# Radii as fractions of the playing face (the double ring's outer edge).
INNER_BULL = 0.05
OUTER_BULL = 0.115
TRIPLE_IN, TRIPLE_OUT = 0.55, 0.635
DOUBLE_IN, DOUBLE_OUT = 0.90, 1.0
FACE = 0.80
"""The playing face's radius as a fraction of half the square; the numbers
ring takes the rest."""

RINGS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((OUTER_BULL, TRIPLE_IN), (TRIPLE_OUT, DOUBLE_IN)),
    3: ((TRIPLE_IN, TRIPLE_OUT),),
    2: ((DOUBLE_IN, DOUBLE_OUT),),
}
"""The radial extent of a numbered bed by its multiplier (a single has two parts)."""

DARK: Color = (26, 26, 28)
LIGHT: Color = (232, 220, 190)
RED: Color = (200, 36, 42)
GREEN: Color = (20, 138, 72)
WIRE: Color = (150, 152, 158)
SURROUND: Color = (8, 8, 10)
NUMBER: Color = (235, 235, 235)
LIT: Color = (255, 226, 40)
"""The colour of a lit bed, unlike any of the board's own."""
LIT_EDGE: Color = (150, 96, 0)
"""The outline of a lit bed, so two lit neighbours stay apart."""

_FACE_BEDS = (
    *(Bed(number, multiplier) for number in BOARD_ORDER for multiplier in (1, 3, 2)),
    SB,
    DB,
)
"""The beds in the order they are painted: each number's single, triple and
double, then the bulls over the middle."""

_SUPERSAMPLE = 2
_ARC_STEPS = 8


def _sector_angle(number: int) -> float:
    """The centre angle of ``number``'s sector, radians, screen coordinates (y down)."""
    return math.radians(-90 + 18 * BOARD_ORDER.index(number))


def _annular_sector(
    cx: float, cy: float, r_in: float, r_out: float, a0: float, a1: float
) -> list[tuple[float, float]]:
    outer = [
        (
            cx + r_out * math.cos(a0 + (a1 - a0) * i / _ARC_STEPS),
            cy + r_out * math.sin(a0 + (a1 - a0) * i / _ARC_STEPS),
        )
        for i in range(_ARC_STEPS + 1)
    ]
    inner = [
        (
            cx + r_in * math.cos(a1 - (a1 - a0) * i / _ARC_STEPS),
            cy + r_in * math.sin(a1 - (a1 - a0) * i / _ARC_STEPS),
        )
        for i in range(_ARC_STEPS + 1)
    ]
    return outer + inner


def _board_bed(notation: str | Bed) -> Bed | None:
    """The bed ``notation`` names when it is on the board; ``None`` for a
    miss or what the engine cannot read."""
    bed = notation if isinstance(notation, Bed) else bed_of(notation)
    return None if bed is None or bed.is_miss else bed


def bed_polygons(
    centre: tuple[float, float], face: float, notation: str | Bed
) -> list[list[tuple[float, float]]]:
    """The outline(s) of bed ``notation`` on a board whose playing face has
    radius ``face`` pixels around ``centre``; ``[]`` for a miss. The bulls are
    polygons with many sides."""
    bed = _board_bed(notation)
    if bed is None:
        return []
    cx, cy = centre
    if bed.is_bull:
        r_in, r_out = (0.0, INNER_BULL) if bed.is_double else (INNER_BULL, OUTER_BULL)
        steps = 48
        outer = [
            (
                cx + face * r_out * math.cos(2 * math.pi * i / steps),
                cy + face * r_out * math.sin(2 * math.pi * i / steps),
            )
            for i in range(steps + 1)
        ]
        if r_in == 0:
            return [outer[:-1]]
        inner = [
            (
                cx + face * r_in * math.cos(-2 * math.pi * i / steps),
                cy + face * r_in * math.sin(-2 * math.pi * i / steps),
            )
            for i in range(steps + 1)
        ]
        return [outer + inner]
    angle = _sector_angle(bed.number)
    half = math.radians(9)
    return [
        _annular_sector(cx, cy, face * r_in, face * r_out, angle - half, angle + half)
        for r_in, r_out in RINGS[bed.multiplier]
    ]


def _square(rect: pygame.Rect) -> tuple[int, tuple[int, int]]:
    size = max(1, min(rect.width, rect.height))
    return size, (rect.centerx - size // 2, rect.centery - size // 2)


def bed_centre(rect: pygame.Rect, notation: str) -> tuple[int, int] | None:
    """The pixel at the middle of bed ``notation`` on the board drawn in
    ``rect`` (for a single, of its outer part); ``None`` for a miss."""
    bed = _board_bed(notation)
    if bed is None:
        return None
    size, (left, top) = _square(rect)
    face = size / 2 * FACE
    cx, cy = left + size / 2, top + size / 2
    if bed == DB:
        return round(cx), round(cy)
    if bed == SB:
        radius, angle = (INNER_BULL + OUTER_BULL) / 2, -math.pi / 2
    else:
        r_in, r_out = RINGS[bed.multiplier][-1]
        radius, angle = (r_in + r_out) / 2, _sector_angle(bed.number)
    return round(cx + face * radius * math.cos(angle)), round(cy + face * radius * math.sin(angle))


def _colour(bed: Bed) -> Color:
    if bed == DB:
        return RED
    if bed == SB:
        return GREEN
    even = BOARD_ORDER.index(bed.number) % 2 == 0
    if bed.multiplier == 1:
        return DARK if even else LIGHT
    return RED if even else GREEN


def _draw_board(size: int) -> pygame.Surface:
    big = size * _SUPERSAMPLE
    canvas = pygame.Surface((big, big), pygame.SRCALPHA)
    centre = (big / 2, big / 2)
    face = big / 2 * FACE
    pygame.draw.circle(canvas, SURROUND, (round(centre[0]), round(centre[1])), big // 2)
    for bed in _FACE_BEDS:
        for polygon in bed_polygons(centre, face, bed):
            pygame.draw.polygon(canvas, _colour(bed), polygon)
    wire = max(1, round(big / 400))
    for number in BOARD_ORDER:
        angle = _sector_angle(number) - math.radians(9)
        start = (
            centre[0] + face * OUTER_BULL * math.cos(angle),
            centre[1] + face * OUTER_BULL * math.sin(angle),
        )
        end = (centre[0] + face * math.cos(angle), centre[1] + face * math.sin(angle))
        pygame.draw.line(canvas, WIRE, start, end, wire)
    for radius in (INNER_BULL, OUTER_BULL, TRIPLE_IN, TRIPLE_OUT, DOUBLE_IN, DOUBLE_OUT):
        pygame.draw.circle(
            canvas, WIRE, (round(centre[0]), round(centre[1])), round(face * radius), wire
        )
    board = pygame.transform.smoothscale(canvas, (size, size))
    number_px = max(6, round(size * 0.075))
    ring = size / 2 * (FACE + 1.0) / 2
    for number in BOARD_ORDER:
        label = render_text(str(number), number_px, NUMBER)
        angle = _sector_angle(number)
        x = size / 2 + ring * math.cos(angle)
        y = size / 2 + ring * math.sin(angle)
        board.blit(label, label.get_rect(center=(round(x), round(y))))
    return board


def _draw_overlay(size: int, notation: str) -> tuple[pygame.Surface, tuple[int, int]] | None:
    """Bed ``notation`` lit, on a transparent surface as small as the bed, and
    where it goes on a board of ``size``; ``None`` for a miss."""
    big = size * _SUPERSAMPLE
    polygons = bed_polygons((big / 2, big / 2), big / 2 * FACE, notation)
    if not polygons:
        return None
    xs = [x for polygon in polygons for x, _ in polygon]
    ys = [y for polygon in polygons for _, y in polygon]
    left, top = max(0, math.floor(min(xs)) - 2), max(0, math.floor(min(ys)) - 2)
    right, bottom = min(big, math.ceil(max(xs)) + 2), min(big, math.ceil(max(ys)) + 2)
    left -= left % _SUPERSAMPLE
    top -= top % _SUPERSAMPLE
    width = max(_SUPERSAMPLE, right - left + (-(right - left)) % _SUPERSAMPLE)
    height = max(_SUPERSAMPLE, bottom - top + (-(bottom - top)) % _SUPERSAMPLE)
    canvas = pygame.Surface((width, height), pygame.SRCALPHA)
    edge = max(1, round(big / 300))
    for polygon in polygons:
        shifted = [(x - left, y - top) for x, y in polygon]
        pygame.draw.polygon(canvas, LIT, shifted)
        pygame.draw.polygon(canvas, LIT_EDGE, shifted, edge)
    overlay = pygame.transform.smoothscale(canvas, (width // _SUPERSAMPLE, height // _SUPERSAMPLE))
    return overlay, (left // _SUPERSAMPLE, top // _SUPERSAMPLE)


def lit_beds(visit: Iterable[str]) -> tuple[str, ...]:
    """The distinct beds of ``visit`` to light, in order; misses dropped."""
    seen: list[str] = []
    for notation in visit:
        bed = _board_bed(str(notation))
        if bed is not None and bed.notation not in seen:
            seen.append(bed.notation)
    return tuple(seen)


def draw_dartboard(
    surface: pygame.Surface,
    rect: pygame.Rect,
    lit: Iterable[str] = (),
    clock: float = 0.0,
    sprites: Sprites | None = None,
) -> pygame.Rect:
    """Draw the board in the largest square centred in ``rect``, with the beds
    in ``lit`` (notation) lit; they pulse gently with ``clock`` (seconds).
    Returns the square drawn in. The same as :func:`draw_board` then
    :func:`draw_lit_beds`."""
    sprites = sprites if sprites is not None else Sprites()
    square = draw_board(surface, rect, sprites)
    draw_lit_beds(surface, rect, lit, clock, sprites)
    return square


def draw_board(
    surface: pygame.Surface, rect: pygame.Rect, sprites: Sprites | None = None
) -> pygame.Rect:
    """The plain board in the largest square centred in ``rect``; returns the
    square. The face is kept in ``sprites`` (none: drawn afresh)."""
    size, (left, top) = _square(rect)
    if size < 8:
        return pygame.Rect(left, top, 0, 0)
    sprites = sprites if sprites is not None else Sprites()
    surface.blit(sprites.get("board", size, partial(_draw_board, size)), (left, top))
    return pygame.Rect(left, top, size, size)


def draw_lit_beds(
    surface: pygame.Surface,
    rect: pygame.Rect,
    lit: Iterable[str],
    clock: float = 0.0,
    sprites: Sprites | None = None,
) -> None:
    """Light the beds in ``lit`` on a board drawn in ``rect`` (by
    :func:`draw_board`). The lit beds are kept in ``sprites`` (none: drawn afresh)."""
    size, (left, top) = _square(rect)
    if size < 8:
        return
    sprites = sprites if sprites is not None else Sprites()
    alpha = 215 + round(40 * (0.5 + 0.5 * math.sin(clock * 2 * math.pi)))
    for notation in lit_beds(lit):
        overlay = sprites.get("bed", (size, notation), partial(_draw_overlay, size, notation))
        if overlay is None:
            continue
        image, (dx, dy) = overlay
        image.set_alpha(alpha)
        surface.blit(image, (left + dx, top + dy))
