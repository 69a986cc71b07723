"""Killer: a card per player with the side's number (``choosing`` until its
first dart on a free number picks one), its lives as hearts out of the
``lives`` option, a KILLER badge once the side has hit its own double (any
ring of its number with ``any_ring_kills``), and, for a side still to become
a killer, the bed that makes it one. A side that is out is greyed and its
number struck through.

:func:`draw_lives` draws a row of hearts; :mod:`display.scenes.legs` uses it too.
"""

from __future__ import annotations

from typing import Any

import pygame

from display.layout import COLORS, Color, Layout, bands, split
from display.scenes.base import Scene, State, format_value, is_winner
from display.scenes.registry import register_scene
from mqtt_contract import PlayerView

__all__ = [
    "KillerScene",
    "draw_heart",
    "draw_lives",
    "lives_of",
    "lives_text",
    "max_lives",
    "strike",
]

MIN_HEART_PX = 8
"""Below this a heart is not drawn: the lives are written as ``left/total``."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def lives_of(player: PlayerView) -> int:
    """The side's lives left (0 when the state has none)."""
    return max(0, player.lives or 0)


def max_lives(state: State) -> int:
    """The lives every side started with: the ``lives`` option (at least the
    most lives any side has left)."""
    start = _count(state.option("lives"))
    return max([start, *(lives_of(p) for p in state.players)])


def lives_text(count: int) -> str:
    """``1 life``, ``3 lives``."""
    return f"{count} li{'fe' if count == 1 else 'ves'}"


def draw_heart(surface: pygame.Surface, rect: pygame.Rect, colour: Color) -> None:
    """A filled heart in the middle of ``rect``, with a little room around it."""
    size = min(rect.width, rect.height) * 0.86
    cx, cy = rect.center
    radius = size * 0.26
    top = cy - size * 0.18
    for dx in (-radius, radius):
        pygame.draw.circle(surface, colour, (round(cx + dx), round(top)), max(1, round(radius)))
    points = [
        (cx - 2 * radius + size * 0.005, top + radius * 0.35),
        (cx + 2 * radius - size * 0.005, top + radius * 0.35),
        (cx, cy + size * 0.45),
    ]
    pygame.draw.polygon(surface, colour, points)
    pygame.draw.rect(
        surface,
        colour,
        pygame.Rect(round(cx - radius), round(top), round(2 * radius), round(radius)),
    )


def draw_lives(
    surface: pygame.Surface,
    layout: Layout,
    rect: pygame.Rect,
    left: int,
    total: int,
    faded: bool = False,
) -> None:
    """``total`` hearts centred in ``rect``, the first ``left`` of them full
    (red, or grey when ``faded``) and the rest lost (dark). When they
    would be too small to read, ``left/total`` is written instead."""
    total = max(total, left, 0)
    if total == 0:
        return
    gap = layout.px(6)
    size = min(rect.height, (rect.width - gap * (total - 1)) // total)
    if size < max(MIN_HEART_PX, layout.px(MIN_HEART_PX)):
        colour = COLORS.faint if faded or left == 0 else COLORS.bad
        layout.text(surface, f"{left}/{total}", rect, layout.font_size(34), colour)
        return
    row = pygame.Rect(0, rect.y, total * size + (total - 1) * gap, rect.height)
    row.centerx = rect.centerx
    full = COLORS.faint if faded else COLORS.bad
    for number, slot in enumerate(split(row, total, gap)):
        draw_heart(surface, slot, full if number < left else COLORS.line)


def strike(surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
    """A line through the middle of ``rect`` (a side that is out)."""
    if rect.width:
        y = rect.centery
        pygame.draw.line(
            surface,
            COLORS.dim,
            (rect.x - layout.px(6), y),
            (rect.right + layout.px(6), y),
            layout.px(4),
        )


@register_scene("killer")
class KillerScene(Scene):
    def subtitle(self, state: State) -> str:
        any_ring = bool(state.option("any_ring_kills"))
        variant = "any ring kills" if any_ring else "doubles kill"
        return f"{lives_text(max_lives(state))}  ·  {variant}"

    # ----------------------------------------------------------- geometry

    @staticmethod
    def card_parts(layout: Layout, card: pygame.Rect) -> dict[str, pygame.Rect]:
        """Where a card's parts go: ``name``, ``number``, ``badge``, ``lives``, ``stats``."""
        inner = card.inflate(-layout.px(20), -layout.px(16))
        shares = (("name", 0.16), ("number", 0.32), ("badge", 0.14), ("lives", 0.16))
        return bands(inner, shares, "stats")

    def card_part(self, layout: Layout, state: State, index: int, part: str) -> pygame.Rect:
        """Where ``part`` (see :meth:`card_parts`) of player ``index``'s card
        is in a window of ``layout``'s size."""
        main = self.regions(layout)["main"]
        card = self.card_rects(layout, main, len(state.players))[index]
        return self.card_parts(layout, card)[part]

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        self.draw_cards(surface, layout, rect, state, self.draw_card)

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        parts = self.card_parts(layout, card)
        out = player.out
        self.draw_name(surface, layout, parts["name"], state, index)
        number = player.number
        won = is_winner(state, index)
        if number is not None:
            colour = COLORS.faint if out else COLORS.good if won else COLORS.text
            placed = layout.text(
                surface,
                str(number),
                parts["number"].inflate(0, layout.px(16)),
                layout.font_size(180),
                colour,
            )
            if out:
                strike(surface, layout, placed)
        else:
            colour = COLORS.faint if out else COLORS.dim
            layout.text(surface, "choosing", parts["number"], layout.font_size(60), colour)
        self.draw_badge(surface, layout, parts["badge"], state, player)
        draw_lives(surface, layout, parts["lives"], lives_of(player), max_lives(state), faded=out)
        stats = player.stats
        items = [
            ("lives", f"{lives_of(player)}/{max_lives(state)}"),
            ("lives taken", format_value(stats.lives_taken or 0)),
            ("darts", format_value(stats.darts)),
        ]
        self.draw_stats(surface, layout, parts["stats"], items, 22)

    def draw_badge(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        player: PlayerView,
    ) -> None:
        """KILLER on a red plate for a killer, OUT for a side that is out,
        else what makes the side a killer."""
        if player.out:
            layout.text(surface, "OUT", rect, layout.font_size(40), COLORS.faint)
            return
        if player.killer:
            plate = pygame.Rect(0, rect.y, min(rect.width, round(rect.height * 3.4)), rect.height)
            plate.centerx = rect.centerx
            layout.panel(surface, plate, COLORS.bad, COLORS.text, 2)
            with layout.on(COLORS.bad):
                layout.text(
                    surface,
                    "KILLER",
                    plate.inflate(-layout.px(12), -layout.px(6)),
                    layout.font_size(40),
                    COLORS.text,
                )
            return
        number = player.number
        if number is not None:
            any_ring = bool(state.option("any_ring_kills"))
            hint = f"any {number} makes a killer" if any_ring else f"D{number} makes a killer"
            layout.text(surface, hint, rect, layout.font_size(26), COLORS.dim)
