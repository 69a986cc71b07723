"""The web app's icons, drawn in pure Python (zlib and struct, no image
library, no binary file in the repository): a dartboard-like target of rings
in the pages' colours, as RGBA PNGs. ``any`` icons are a round badge on a
transparent ground; ``maskable`` ones fill the square with the page's
background and keep the target inside the safe zone (the centred circle of
40 % of the size that every launcher's mask leaves whole). Also the
``favicon.ico`` (a PNG inside an ICO), which browsers ask for by themselves."""

from __future__ import annotations

import math
import struct
import zlib
from functools import cache
from typing import Literal

__all__ = [
    "ICON_SIZES",
    "MASKABLE_SAFE_RADIUS",
    "Purpose",
    "favicon_ico",
    "icon_png",
]

Purpose = Literal["any", "maskable"]
RGBA = tuple[int, int, int, int]

ICON_SIZES = (192, 512)
"""The sizes the manifest lists, for each purpose."""
MASKABLE_SAFE_RADIUS = 0.4
"""A maskable icon's safe zone: a centred circle of this radius, as a share of the size."""

BACKGROUND: RGBA = (0x0D, 0x11, 0x17, 255)
"""The pages' background (``--bg`` in leaderboard.css), the manifest's colours."""
ACCENT: RGBA = (0xF2, 0xCC, 0x60, 255)
GREEN: RGBA = (0x3F, 0xB9, 0x50, 255)
RED: RGBA = (0xF8, 0x51, 0x49, 255)
CLEAR: RGBA = (0, 0, 0, 0)

RINGS: tuple[tuple[float, RGBA], ...] = (
    (1.0, ACCENT),
    (0.84, BACKGROUND),
    (0.66, ACCENT),
    (0.5, BACKGROUND),
    (0.3, GREEN),
    (0.14, RED),
)
"""The target from the outside in: each ring's radius as a share of the target's, and its colour."""


def _blend(row: bytearray, x: int, colour: RGBA, cover: float) -> None:
    """Paint ``colour`` over pixel ``x`` of ``row`` with ``cover`` (0..1), straight alpha."""
    at = 4 * x
    below_alpha = row[at + 3] / 255
    alpha = cover + below_alpha * (1 - cover)
    if alpha <= 0:
        return
    for channel in range(3):
        mixed = colour[channel] * cover + row[at + channel] * below_alpha * (1 - cover)
        row[at + channel] = round(mixed / alpha)
    row[at + 3] = round(alpha * 255)


def _disc(row: bytearray, size: int, y: float, radius: float, colour: RGBA) -> None:
    """Paint the part of a centred disc of ``radius`` (pixels) on the row whose
    centre is at ``y``: solid inside, edge pixels by their covered share."""
    centre = size / 2
    dy = y - centre
    reach = radius + 1
    if abs(dy) >= reach:
        return
    half_out = math.sqrt(reach * reach - dy * dy)
    solid = radius - 1
    half_in = math.sqrt(solid * solid - dy * dy) if solid > abs(dy) else 0.0
    solid_from = math.ceil(centre - half_in) if half_in else size
    solid_to = math.floor(centre + half_in) if half_in else size
    if solid_from < solid_to:
        row[4 * solid_from : 4 * solid_to] = bytes(colour) * (solid_to - solid_from)
    for x in range(max(0, math.floor(centre - half_out)), min(size, math.ceil(centre + half_out))):
        if solid_from <= x < solid_to:
            continue
        distance = math.hypot(x + 0.5 - centre, dy)
        cover = min(1.0, max(0.0, radius - distance + 0.5))
        if cover > 0:
            _blend(row, x, colour, cover)


def _png(size: int, rows: list[bytes]) -> bytes:
    """An 8-bit RGBA PNG of ``size`` x ``size`` from its rows of pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    pixels = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels, 9))
        + chunk(b"IEND", b"")
    )


@cache
def icon_png(size: int, purpose: Purpose = "any") -> bytes:
    """The icon of ``size`` px for ``purpose`` as PNG bytes (drawn once, then kept).
    A size outside 16..1024 is a ``ValueError``."""
    if not 16 <= size <= 1024:
        raise ValueError(f"an icon is 16 to 1024 px, not {size}")
    if purpose == "maskable":
        ground, target = BACKGROUND, MASKABLE_SAFE_RADIUS * size * 0.95
    else:
        ground, target = CLEAR, size * 0.44
    rows = []
    for y in range(size):
        row = bytearray(bytes(ground) * size)
        if purpose == "any":
            _disc(row, size, y + 0.5, size * 0.5, BACKGROUND)
        for share, colour in RINGS:
            _disc(row, size, y + 0.5, target * share, colour)
        rows.append(bytes(row))
    return _png(size, rows)


@cache
def favicon_ico(size: int = 32) -> bytes:
    """``/favicon.ico``: the ``any`` icon of ``size`` px as a PNG inside an ICO file."""
    png = icon_png(size, "any")
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png
