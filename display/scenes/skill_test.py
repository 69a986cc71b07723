"""Skill Test: a card per player. While they throw, the darts thrown and left,
the target and the hits so far lit on a small board. Once their darts are all
thrown, their spread sigma (mm) with its interval, the bot level that throws
alike, and their heat map (expected points per dart for every aim, from
``engine.throw_model``) over a faint board with their best aim marked, beside
the best aim and a few checkout routes for that sigma.

Once the test is over the cards stay the final panel: a line above them says
how it ended ("Practice complete" alone, else who hit the target most), and
no winner panel is drawn over them (:attr:`Scene.draws_result`).

The heat map is drawn from the state's sigma alone and kept in the scene's
:class:`display.sprites.Sprites`; numpy is imported only to draw it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pygame

from display.dartboard import BOARD_ORDER, FACE, draw_board, draw_lit_beds
from display.layout import COLORS, Color, Layout, bands, split
from display.scenes.base import (
    Scene,
    State,
    format_value,
    int_or_none,
    player_label,
)
from display.scenes.registry import register_scene
from display.sprites import Sprites
from engine.board_geometry import GEOMETRIES, SOFT, BoardGeometry
from mqtt_contract import PlayerView, SkillReport

__all__ = [
    "ADVICE_SCORES",
    "HEAT_KEPT",
    "HEAT_KIND",
    "HEAT_STOPS",
    "SIGMA",
    "SkillTestScene",
    "heat_colours",
    "heat_surface",
    "outcome",
    "skill_of",
]

ADVICE_SCORES = (40, 32, 50, 100)
"""The checkout routes a card lists, when the state has advice for them."""

HEAT_STOPS: tuple[tuple[float, Color], ...] = (
    (0.0, (20, 24, 60)),
    (0.35, (40, 90, 170)),
    (0.6, (60, 170, 120)),
    (0.8, (235, 200, 40)),
    (1.0, (250, 70, 40)),
)
"""The heat map's colour ramp: the share of the best aim's value -> colour."""

SIGMA = "\N{GREEK SMALL LETTER SIGMA}"
"""The letter the card writes before the spread."""

HEAT_KIND = "skill-heat"
"""The kind the heat maps are kept under in :class:`display.sprites.Sprites`."""
HEAT_KEPT = 16
"""The most heat maps kept: eight players at two sizes."""

_HEAT_ALPHA = 205
_MARK: Color = (255, 255, 255)
_WIRE = (225, 225, 230, 150)


def skill_of(player: PlayerView) -> SkillReport | None:
    """The player's ``skill`` report, or ``None`` while they throw (or for a bad one)."""
    skill = player.skill
    if skill is None or not 1 <= skill.sigma_mm <= 1000:
        return None
    return skill


def _geometry(state: State) -> BoardGeometry:
    return GEOMETRIES.get(str(state.game_option("geometry")), SOFT)


def outcome(state: State) -> tuple[str, str]:
    """How a finished test ended, as a headline and a detail: a practice
    (one player) is complete, with its estimate; otherwise who put most
    darts in the target, or a draw."""
    players = state.players
    target = (players[0].target or "the target") if players else "the target"
    if len(players) == 1 or state.result == "practice-complete":
        skill = skill_of(players[0]) if players else None
        darts = players[0].stats.darts if players else None
        parts = [f"{darts} darts at {target}" if darts else ""]
        if skill is not None:
            level = skill.level
            parts.append(f"{SIGMA} {skill.sigma_mm:.1f} mm")
            parts.append(f"level {level}" if level is not None else "")
        return "Practice complete", "  ·  ".join(part for part in parts if part)
    best = max((p.score or 0 for p in players), default=0)
    winner = state.winner
    if state.player(winner) is not None and winner is not None:
        return f"{player_label(state, winner)} wins", f"most darts in {target}: {best}"
    return "Draw", f"most darts in {target}: {best} each"


def heat_colours(shares: Any) -> Any:
    """RGB (uint8, shape ``shares.shape + (3,)``) for values 0-1 along :data:`HEAT_STOPS`."""
    import numpy as np

    points = [stop for stop, _ in HEAT_STOPS]
    channels = [
        np.interp(shares, points, [colour[channel] for _, colour in HEAT_STOPS])
        for channel in range(3)
    ]
    return np.stack(channels, axis=-1).astype(np.uint8)


def heat_surface(sigma_mm: float, geometry: BoardGeometry, size: int) -> pygame.Surface:
    """The heat map of ``sigma_mm`` on a ``size`` square drawn like
    :func:`display.dartboard.draw_board` (the double ring's outside at
    ``FACE`` of the half size): the face only, half transparent, with the
    wires drawn on top."""
    from engine.throw_model import expected_score_map

    score_map = expected_score_map(sigma_mm, geometry)
    values = score_map.values
    top = float(values.max()) or 1.0
    rgb = heat_colours(values / top)
    # values[row, col] is the aim (xs[col], ys[row]) with y up; a surface is [x, y] with y down.
    image = pygame.surfarray.make_surface(rgb[::-1, :, :].transpose(1, 0, 2))
    cell = float(score_map.xs[1] - score_map.xs[0])
    extent = (float(score_map.xs[-1]) - float(score_map.xs[0]) + cell) / 2
    px_per_mm = size / 2 * FACE / geometry.double_outer
    side = max(1, round(2 * extent * px_per_mm))
    scaled = pygame.transform.smoothscale(image, (side, side))
    square = pygame.Surface((size, size), pygame.SRCALPHA)
    offset = round(size / 2 - side / 2)
    square.blit(scaled, (offset, offset))
    centre, face = (size // 2, size // 2), round(size / 2 * FACE)
    mask = pygame.Surface((size, size), pygame.SRCALPHA)
    pygame.draw.circle(mask, (255, 255, 255, _HEAT_ALPHA), centre, face)
    square.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)  # the face only
    wire = max(1, size // 300)
    g = geometry
    rings = (g.inner_bull, g.outer_bull, g.treble_inner, g.treble_outer, g.double_inner)
    for radius in (*rings, g.double_outer):  # the model's wires, where its map has its edges
        pygame.draw.circle(square, _WIRE, centre, round(face * radius / g.double_outer), wire)
    for index in range(len(BOARD_ORDER)):
        angle = math.radians(index * 18 - 99)  # the wire 9 degrees anticlockwise of each number
        inner, outer = face * g.outer_bull / g.double_outer, face
        start = (centre[0] + inner * math.cos(angle), centre[1] + inner * math.sin(angle))
        end = (centre[0] + outer * math.cos(angle), centre[1] + outer * math.sin(angle))
        pygame.draw.line(square, _WIRE, start, end, wire)
    return square


def aim_pixel(
    square: pygame.Rect, geometry: BoardGeometry, x_mm: float, y_mm: float
) -> tuple[int, int]:
    """The pixel of the point (x, y) mm on a board drawn in ``square``."""
    scale = square.width / 2 * FACE / geometry.double_outer
    return round(square.centerx + x_mm * scale), round(square.centery - y_mm * scale)


def _square_in(rect: pygame.Rect) -> pygame.Rect:
    size = max(0, min(rect.width, rect.height))
    square = pygame.Rect(0, 0, size, size)
    square.center = rect.center
    return square


@register_scene("skill-test")
class SkillTestScene(Scene):
    """A card per player: progress and hits while throwing, the estimate after;
    once the test is over, how it ended above the cards."""

    draws_result = True

    def subtitle(self, state: State) -> str:
        darts = int_or_none(state.game_option("darts"))
        target = str(state.game_option("target") or "").upper()
        parts = [f"target {target}" if target else "", f"{darts} darts" if darts else ""]
        parts.append("steel board" if _geometry(state).name == "steel" else "soft-tip board")
        return "  ·  ".join(part for part in parts if part)

    def body_parts(self, layout: Layout, rect: pygame.Rect, state: State) -> dict[str, pygame.Rect]:
        """The body's ``cards`` and, once the test is over, the ``outcome`` line above them."""
        if not state.finished:
            return {"cards": rect}
        parts = bands(rect, (("outcome", 0.1),), "cards")
        cards = parts["cards"]
        gap = layout.px(10)
        parts["cards"] = pygame.Rect(cards.x, cards.y + gap, cards.width, cards.height - gap)
        return parts

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        parts = self.body_parts(layout, rect, state)
        if "outcome" in parts:
            self.draw_outcome(surface, layout, parts["outcome"], state)
        self.draw_cards(surface, layout, parts["cards"], state, self.draw_card)

    def draw_outcome(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        """The finished test's headline (left, large) and detail (right)."""
        headline, detail = outcome(state)
        left, right = split(rect, 2, layout.px(16))
        layout.text(surface, headline, left, layout.font_size(60), COLORS.accent, "left")
        layout.text(surface, detail, right, layout.font_size(34), COLORS.text, "right")

    def card_parts(self, layout: Layout, card: pygame.Rect) -> dict[str, pygame.Rect]:
        """A card's ``name`` line, its ``board`` square and its ``figures`` column."""
        inner = card.inflate(-layout.px(20), -layout.px(16))
        parts = bands(inner, (("name", 0.14),), "rest")
        rest = parts["rest"]
        board, figures = split(rest, 2, layout.px(12))
        if rest.width < rest.height * 0.9:  # a narrow card: the board above the figures
            board, figures = split(rest, 2, layout.px(8), vertical=True)
        return {"name": parts["name"], "board": _square_in(board), "figures": figures}

    def board_square(self, layout: Layout, state: State, index: int) -> pygame.Rect:
        """Where player ``index``'s small board (or heat map) is drawn."""
        players = state.players
        main = self.body_parts(layout, self.regions(layout)["main"], state)["cards"]
        cards = self.card_rects(layout, main, len(players))
        if not 0 <= index < len(cards):
            return pygame.Rect(0, 0, 0, 0)
        return self.card_parts(layout, cards[index])["board"]

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        parts = self.card_parts(layout, card)
        self.draw_name(surface, layout, parts["name"], state, index, 36)
        skill = skill_of(player)
        if skill is None:
            self.draw_progress(surface, layout, parts, state, player)
        else:
            self.draw_skill(surface, layout, parts, state, skill)

    def draw_progress(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
        player: PlayerView,
    ) -> None:
        """While the player throws: the darts thrown of the total and the
        hits, beside a small board with every bed hit so far lit."""
        thrown = player.stats.darts
        total = int_or_none(state.game_option("darts")) or thrown
        hits = player.score or 0
        target = player.target or ""
        big, rest = split(parts["figures"], 2, layout.px(6), vertical=True)
        layout.text(surface, f"{thrown}/{total}", big, layout.font_size(110), COLORS.text)
        items = [
            ("left", format_value(max(0, total - thrown))),
            (f"in {target}" if target else "hits", format_value(hits)),
        ]
        self.draw_stats(surface, layout, rest, items, 22)
        lit = [bed for bed, _ in player.beds]
        square = draw_board(surface, parts["board"], self.sprites)
        draw_lit_beds(surface, square, lit, 0.25, self.sprites)

    def draw_skill(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
        skill: SkillReport,
    ) -> None:
        """Once the player is done: the heat map with the best aim marked, and
        sigma, its interval, the level, the best aim and checkout routes."""
        geometry = _geometry(state)
        sigma = skill.sigma_mm
        square = draw_board(surface, parts["board"], self.sprites)
        if square.width >= 8:
            heat = _heat(self.sprites, round(sigma, 2), geometry, square.width)
            surface.blit(heat, square.topleft)
            if skill.best_aim_mm is not None:
                self.mark_aim(surface, layout, square, geometry, skill.best_aim_mm)
        sigma_rect, rest = split(parts["figures"], 2, layout.px(4), vertical=True)
        interval = skill.interval
        band = ""
        if interval is not None:
            band = f"  ({format_value(interval[0])}-{format_value(interval[1])})"
        top, sub = split(sigma_rect, 2, 0, vertical=True)
        layout.text(surface, f"{SIGMA} {sigma:.1f} mm", top, layout.font_size(60), COLORS.accent)
        level = skill.level
        level_text = f"level {level}" if level is not None else ""
        layout.text(surface, f"{level_text}{band}", sub, layout.font_size(26), COLORS.dim)
        lines = self.advice_lines(skill)
        for line, row in zip(
            lines, split(rest, max(1, len(lines)), 0, vertical=True), strict=False
        ):
            layout.text(surface, line, row, layout.font_size(24), COLORS.text, "left")

    def advice_lines(self, skill: SkillReport) -> list[str]:
        """The lines beside the heat map: the best aim, then the routes for
        :data:`ADVICE_SCORES`."""
        lines = []
        if skill.best_aim_bed:
            average = skill.best_average
            per_visit = f" ({format_value(average)} a visit)" if average is not None else ""
            lines.append(f"aim {skill.best_aim_bed}{per_visit}")
        for advice in skill.checkouts:
            if advice.score not in ADVICE_SCORES:
                continue
            darts = " ".join(advice.route)
            if not advice.finishes:
                darts = f"{advice.aim} first"
            lines.append(f"{advice.score}: {darts}")
        return lines

    def mark_aim(
        self,
        surface: pygame.Surface,
        layout: Layout,
        square: pygame.Rect,
        geometry: BoardGeometry,
        aim: tuple[float, float],
    ) -> None:
        """A ring and a cross at the aim point (x, y mm) on the board in ``square``."""
        centre = aim_pixel(square, geometry, *aim)
        radius = max(4, square.width // 24)
        width = max(2, layout.px(3))
        pygame.draw.circle(surface, _MARK, centre, radius, width)
        cx, cy = centre
        pygame.draw.line(surface, _MARK, (cx - radius, cy), (cx + radius, cy), width)
        pygame.draw.line(surface, _MARK, (cx, cy - radius), (cx, cy + radius), width)


def _heat(sprites: Sprites, sigma: float, geometry: BoardGeometry, size: int) -> pygame.Surface:
    """The heat map surface, kept in ``sprites`` per sigma, board and size (at
    most :data:`HEAT_KEPT` of them: a big screen's maps are megabytes each)."""
    sprites.limits.setdefault(HEAT_KIND, HEAT_KEPT)
    return sprites.get(
        HEAT_KIND, (sigma, geometry.name, size), lambda: heat_surface(sigma, geometry, size)
    )
