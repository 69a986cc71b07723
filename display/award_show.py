"""The award moment: "TON 80!", "HAT TRICK", "WHITE HORSE" over the scoreboard.

An ``award`` event (docs/mqtt.md) starts a moment: for :data:`FULL_SECONDS`
the award's name fills the screen (it pops in, rays turn behind it, the
thrower and the darts under it) while a strip at the bottom keeps saying
whose turn it is; then it shrinks, over :data:`SHRINK_SECONDS`, to a banner
at the top that stays until :data:`MOMENT_SECONDS`. So the scoreboard is
never hidden for more than two seconds, and the player to throw never at all.

The awards of one visit (T20 T20 T20 is a Ton 80 and Three in a Bed) arrive
together and make one moment: the most spectacular is the headline
(:func:`mqtt_contract.award_words.ranked_awards`), the others are named under
it. A new visit's awards start a new moment.

:class:`AwardShow` is a scene-like overlay (Tuxemon style): ``process_event``
takes the feed's MQTT events, ``update(dt)`` advances its clock and
``draw`` only draws (it returns what it drew, for tests and tools).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pygame

from display.cues import award_event
from display.layout import COLORS, Color, Layout
from display.scenes.base import MQTT_EVENT
from mqtt_contract import Phase, StateView
from mqtt_contract.award_words import award_title, ranked_awards
from mqtt_contract.scoreboard import player_label

__all__ = [
    "FULL_SECONDS",
    "MOMENT_SECONDS",
    "SHRINK_SECONDS",
    "AwardMoment",
    "AwardShow",
    "banner_rect",
    "moment_of",
    "panel_rect",
    "turn_rect",
    "turn_words",
]

FULL_SECONDS = 1.5
"""How long an award fills the screen."""
SHRINK_SECONDS = 0.3
"""How long it takes to shrink into the banner (the scoreboard shows again)."""
MOMENT_SECONDS = 5.0
"""How long after the award its banner goes."""
POP_SECONDS = 0.3
"""How long the title takes to pop in to its full size."""
SAME_VISIT_SECONDS = 0.5
"""Awards this close together with the same thrower and darts are one visit's."""

_RAYS = 12


@dataclass(frozen=True)
class AwardMoment:
    """One visit's awards as the screen shows them: ``awards`` ranked (the
    headline first), who threw them, the darts and the points (or marks)."""

    awards: tuple[str, ...]
    player: int | None
    name: str
    darts: tuple[str, ...]
    points: int | None = None
    marks: int | None = None
    started: float = 0.0

    @property
    def title(self) -> str:
        """The headline: the most spectacular award's name."""
        return award_title(self.awards[0]) if self.awards else ""

    @property
    def detail(self) -> str:
        """Who and what: ``Ann · T20 T20 T20 · 180``."""
        bits = [self.name, " ".join(self.darts)]
        if self.points is not None:
            bits.append(str(self.points))
        elif self.marks is not None:
            bits.append(f"{self.marks} marks")
        return "  ·  ".join(bit for bit in bits if bit)

    @property
    def also(self) -> str:
        """The visit's other awards, ``+ THREE IN A BED``, or ``""``."""
        return "  ".join(f"+ {award_title(award)}" for award in self.awards[1:])

    def same_visit(self, other: AwardMoment) -> bool:
        """Whether ``other`` came with the same visit as this moment."""
        return (
            other.player == self.player
            and other.darts == self.darts
            and 0 <= other.started - self.started <= SAME_VISIT_SECONDS
        )


def moment_of(payload: Mapping[str, Any], at: float = 0.0) -> AwardMoment | None:
    """The moment of an ``award`` event payload (the contract's
    :class:`~mqtt_contract.event_payload.Award`) at clock ``at``; ``None`` for
    any other event or a malformed one."""
    event = award_event(payload)
    if event is None:
        return None
    return AwardMoment(
        awards=(event.award,),
        player=event.player,
        name=event.name,
        darts=event.darts,
        points=event.points,
        marks=event.marks,
        started=at,
    )


def _ease_out(x: float) -> float:
    """0 to 1 with a little overshoot: the title's pop."""
    x = min(1.0, max(0.0, x))
    return 1 + 2.2 * (x - 1) ** 3 + 1.2 * (x - 1) ** 2


def _lerp_rect(a: pygame.Rect, b: pygame.Rect, t: float) -> pygame.Rect:
    return pygame.Rect(
        round(a.x + (b.x - a.x) * t),
        round(a.y + (b.y - a.y) * t),
        round(a.width + (b.width - a.width) * t),
        round(a.height + (b.height - a.height) * t),
    )


def _scaled(colour: Color, factor: float) -> Color:
    r, g, b = (min(255, max(0, round(c * factor))) for c in colour)
    return (r, g, b)


def turn_words(state: StateView | None) -> str | None:
    """Whose turn it is, as the moment keeps saying it: ``Bob to throw``
    (``None`` with no game on)."""
    if state is None or not state.game or state.finished:
        return None
    if state.phase not in (Phase.THROWING, Phase.TAKEOUT):
        return None
    if state.current_player is None:
        return None
    return f"{player_label(state, state.current_player)} to throw"


class AwardShow:
    """The award moments over the scoreboard (see the module docstring)."""

    def __init__(self) -> None:
        self.clock = 0.0
        self.moment: AwardMoment | None = None
        """The moment showing (the latest visit's awards), ``None`` between them."""

    def process_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        """Take an MQTT ``award`` event (a visit's second award joins its
        moment); every event is passed on (returned): the scene sees it too."""
        if event.type != MQTT_EVENT:
            return event
        payload = getattr(event, "payload", None)
        moment = moment_of(payload, self.clock) if isinstance(payload, Mapping) else None
        if moment is None:
            return event
        current = self.moment
        if current is not None and current.same_visit(moment):
            awards = ranked_awards((*current.awards, *moment.awards))
            self.moment = replace(current, awards=tuple(awards))
        else:
            self.moment = moment
        return event

    def update(self, dt: float) -> None:
        """Advance the clock by ``dt`` seconds; a moment past its time goes."""
        self.clock += max(0.0, dt)
        if self.moment is not None and self.clock - self.moment.started >= MOMENT_SECONDS:
            self.moment = None

    def phase(self) -> str | None:
        """``full`` (the screen is the award's), ``shrink``, ``banner`` or ``None``."""
        if self.moment is None:
            return None
        age = self.clock - self.moment.started
        if age < FULL_SECONDS:
            return "full"
        if age < FULL_SECONDS + SHRINK_SECONDS:
            return "shrink"
        return "banner" if age < MOMENT_SECONDS else None

    def draw(
        self, surface: pygame.Surface, layout: Layout, state: StateView | None
    ) -> tuple[str, pygame.Rect] | None:
        """Draw the moment over ``surface`` (the scoreboard and its banners
        already drawn); returns its phase and where it went, ``None`` without one."""
        moment, phase = self.moment, self.phase()
        if moment is None or phase is None:
            return None
        age = self.clock - moment.started
        if phase == "full":
            return phase, self._draw_full(surface, layout, moment, state, age)
        banner = banner_rect(layout)
        if phase == "shrink":
            t = (age - FULL_SECONDS) / SHRINK_SECONDS
            rect = _lerp_rect(panel_rect(layout), banner, t)
            layout.panel(surface, rect, COLORS.panel, COLORS.accent, 3)
            with layout.on(COLORS.panel):
                inner = rect.inflate(-layout.px(16), -layout.px(8))
                layout.text(surface, moment.title, inner, layout.font_size(60), COLORS.accent)
            return phase, rect
        self._draw_banner(surface, layout, moment, banner)
        return phase, banner

    def _draw_full(
        self,
        surface: pygame.Surface,
        layout: Layout,
        moment: AwardMoment,
        state: StateView | None,
        age: float,
    ) -> pygame.Rect:
        surface.fill((70, 70, 78), special_flags=pygame.BLEND_MULT)
        centre = layout.bounds.center
        reach = math.hypot(layout.width, layout.height)
        spin = age * 0.6
        for ray in range(_RAYS):
            angle = spin + ray * 2 * math.pi / _RAYS
            half = math.pi / (_RAYS * 2.5)
            points = [centre] + [
                (centre[0] + reach * math.cos(edge), centre[1] + reach * math.sin(edge))
                for edge in (angle - half, angle + half)
            ]
            pygame.draw.polygon(surface, _scaled(COLORS.accent, 0.35), points)
        panel = panel_rect(layout)
        pop = _ease_out(age / POP_SECONDS)
        shown = panel.inflate(
            -round(panel.width * (1 - pop) * 0.6), -round(panel.height * (1 - pop) * 0.6)
        )
        glow = 0.85 + 0.15 * math.sin(age * 2 * math.pi * 2)
        layout.panel(surface, shown, COLORS.panel, _scaled(COLORS.accent, glow), 6)
        inner = shown.inflate(-layout.px(40), -layout.px(24))
        title_h = round(inner.height * 0.58)
        title = pygame.Rect(inner.x, inner.y, inner.width, title_h)
        detail = pygame.Rect(inner.x, title.bottom, inner.width, round(inner.height * 0.24))
        also = pygame.Rect(inner.x, detail.bottom, inner.width, inner.bottom - detail.bottom)
        with layout.on(COLORS.panel):
            size = layout.font_size(150 * max(0.3, pop))
            layout.text(surface, moment.title, title, size, _scaled(COLORS.accent, glow))
            layout.text(surface, moment.detail, detail, layout.font_size(44), COLORS.text)
            if moment.also:
                layout.text(surface, moment.also, also, layout.font_size(36), COLORS.dim)
        turn = turn_words(state)
        if turn is not None:
            strip = turn_rect(layout)
            pygame.draw.rect(surface, COLORS.info, strip)
            with layout.on(COLORS.info):
                inner = strip.inflate(-layout.px(24), 0)
                layout.text(surface, turn, inner, layout.font_size(44), COLORS.text)
        return shown

    def _draw_banner(
        self, surface: pygame.Surface, layout: Layout, moment: AwardMoment, rect: pygame.Rect
    ) -> None:
        layout.panel(surface, rect, COLORS.panel, COLORS.accent, 3)
        inner = rect.inflate(-layout.px(20), -layout.px(6))
        title = pygame.Rect(inner.x, inner.y, round(inner.width * 0.55), inner.height)
        who = pygame.Rect(title.right, inner.y, inner.right - title.right, inner.height)
        with layout.on(COLORS.panel):
            layout.text(surface, moment.title, title, layout.font_size(46), COLORS.accent, "left")
            layout.text(surface, moment.name, who, layout.font_size(32), COLORS.text, "right")


def panel_rect(layout: Layout) -> pygame.Rect:
    """Where the full-screen moment's panel goes (at its full size)."""
    return layout.rect(0.08, 0.2, 0.84, 0.56)


def turn_rect(layout: Layout) -> pygame.Rect:
    """The strip that keeps whose turn it is in sight during the moment."""
    return layout.rect(0, 0.86, 1, 0.1)


def banner_rect(layout: Layout) -> pygame.Rect:
    """The banner the moment shrinks to: in the middle of the header."""
    return layout.rect(0.25, 0.004, 0.5, 0.078)
