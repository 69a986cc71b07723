"""The game setup screen: the current step of a :class:`SetupModel` as a
numbered grid of large tiles, a summary bar of the choices so far and the
keys and buttons that work.

Inputs (:meth:`SetupScene.process_event`): digits 1-9 pick a tile, the
arrows move the highlight, Enter confirms it, Backspace goes back, ``g`` and
``p`` are the GAME and PLAYER buttons, Space is START, Tab edits the players'
names (type, Tab for the next, Enter to finish). A click or a touch on a tile
picks it. In the Players step (a daemon with a lobby) a pick sends ``join``
or ``leave`` at once, PLAYER (``p``) turns the page, and Tab types a name
to join (Enter sends it, Esc stops typing). The daemon's MQTT
events arrive as :data:`MQTT_EVENT`: ``button``
events (game, player, start, next) and ``hit`` events (a dart in any bed of
number n picks tile n). A command the model returns is put in
:attr:`SetupScene.outbox` for the app to send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pygame

from display.layout import COLORS, Layout, grid, split
from display.scenes.base import MQTT_EVENT, Scene, State
from display.scenes.credits import credits_line
from display.setup_model import BUTTONS, MAX_NAME, SetupModel, segment_number
from display.sprites import Sprites
from mqtt_contract import StateView
from mqtt_contract.lobby_payload import LobbyState

__all__ = ["SetupScene", "tile_rects"]

_ARROWS_NEXT = (pygame.K_RIGHT, pygame.K_DOWN)
_ARROWS_PREVIOUS = (pygame.K_LEFT, pygame.K_UP)
_ENTER = (pygame.K_RETURN, pygame.K_KP_ENTER)
_DIGITS = {getattr(pygame, f"K_{n}"): n for n in range(1, 10)} | {
    getattr(pygame, f"K_KP{n}"): n for n in range(1, 10)
}


def _columns(count: int) -> int:
    if count <= 3:
        return max(1, count)
    if count <= 8:
        return (count + 1) // 2
    return (count + 2) // 3


def tile_rects(layout: Layout, count: int) -> list[pygame.Rect]:
    """Where the ``count`` tiles of a step go in a window of ``layout``'s size."""
    body = layout.rect(0.03, 0.24, 0.94, 0.62)
    return grid(body, count, _columns(count), layout.px(18)) if count > 0 else []


class SetupScene(Scene):
    """The setup screen for ``model`` (a new :class:`SetupModel` by default)."""

    title = "New game"
    show_board = False

    def __init__(self, model: SetupModel | None = None, sprites: Sprites | None = None) -> None:
        super().__init__(sprites)
        self.model = model or SetupModel()
        self.editing: int | None = None
        """The player whose name is being typed, or ``None``."""
        self.typed: str | None = None
        """The name being typed to join the lobby (the Players step's Tab), or ``None``."""
        self.size: tuple[int, int] = (1280, 720)
        """The window's size, to find the tile under a click (the app keeps it current)."""
        self.sent = False

    # ------------------------------------------------------------ inputs

    def tile_rects(self, layout: Layout) -> list[pygame.Rect]:
        """The current step's tiles in ``layout``."""
        return tile_rects(layout, len(self.model.choices()))

    def set_lobby(self, lobby: LobbyState | None) -> None:
        super().set_lobby(lobby)
        self.model.set_lobby(lobby)

    def _result(self, command: dict[str, Any] | None) -> None:
        if command is not None:
            self.outbox.append(command)
            self.sent = self.sent or command.get("command") == "new_game"

    def process_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        if event.type == MQTT_EVENT:
            return self._mqtt(event)
        if event.type == pygame.KEYDOWN:
            return self._key(event)
        if event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
            return self._point(event, *event.pos)
        if event.type == pygame.FINGERDOWN:
            return self._point(event, round(event.x * self.size[0]), round(event.y * self.size[1]))
        return event

    def _mqtt(self, event: pygame.event.Event) -> pygame.event.Event | None:
        payload = getattr(event, "payload", None)
        if not isinstance(payload, Mapping):
            return event
        kind = payload.get("type")
        if kind == "button" and str(payload.get("button", "")).lower() in BUTTONS:
            self._result(self.model.press(str(payload["button"])))
            return None
        if kind == "hit":
            number = segment_number(payload.get("segment"))
            if number is not None:
                self._result(self.model.select(number))
            return None  # a throw in setup is a choice, not a notice
        return super().process_event(event)

    def _key(self, event: pygame.event.Event) -> pygame.event.Event | None:
        key = event.key
        if self.editing is not None:
            return self._typing(event)
        if self.typed is not None:
            return self._typing_join(event)
        if key in _DIGITS:
            self._result(self.model.select(_DIGITS[key]))
        elif key in _ARROWS_NEXT:
            self.model.next_item()
        elif key in _ARROWS_PREVIOUS:
            self.model.previous_item()
        elif key in _ENTER:
            self._result(self.model.confirm())
        elif key == pygame.K_BACKSPACE:
            self.model.back()
        elif key == pygame.K_g:
            self.model.press("game")
        elif key == pygame.K_p:
            self.model.press("player")
        elif key == pygame.K_SPACE:
            self._result(self.model.press("start"))
        elif key == pygame.K_TAB and self.model.step == "lobby":
            self.typed = ""
        elif key == pygame.K_TAB:
            self.editing = 0
        else:
            return event
        return None

    def _typing_join(self, event: pygame.event.Event) -> pygame.event.Event | None:
        """A key while a name to join is typed: Enter sends ``join``, Esc stops."""
        typed = self.typed or ""
        key = event.key
        if key == pygame.K_ESCAPE:
            self.typed = None
        elif key in _ENTER:
            self.typed = None
            self._result(self.model.join_by_name(typed))
        elif key == pygame.K_BACKSPACE:
            self.typed = typed[:-1]
        else:
            text = getattr(event, "unicode", "")
            if text and text.isprintable() and len(typed) < MAX_NAME:
                self.typed = typed + text
        return None

    def _typing(self, event: pygame.event.Event) -> pygame.event.Event | None:
        index = self.editing
        assert index is not None
        key = event.key
        name = self.model.names[index]
        if key == pygame.K_ESCAPE:
            return event  # the app leaves the setup
        if key == pygame.K_TAB:
            self.editing = (index + 1) % self.model.player_count
        elif key in _ENTER:
            self.editing = None
        elif key == pygame.K_BACKSPACE:
            self.model.set_name(index, name[:-1])
        else:
            text = getattr(event, "unicode", "")
            if text and text.isprintable():
                if name == f"Player {index + 1}":
                    name = ""  # typing replaces the default name
                self.model.set_name(index, name + text)
        return None

    def _point(self, event: pygame.event.Event, x: int, y: int) -> pygame.event.Event | None:
        for number, rect in enumerate(self.tile_rects(Layout(*self.size)), start=1):
            if rect.collidepoint(x, y):
                self._result(self.model.select(number))
                return None
        return event

    # ----------------------------------------------------------- drawing

    def subtitle(self, state: State) -> str:
        return "Throw at a number, press it, or click its tile"

    def draw_static(self, surface: pygame.Surface, layout: Layout) -> None:
        # The model changes without a new state: everything is drawn in draw_animated.
        surface.fill(COLORS.background)

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        surface.fill(COLORS.background)
        state = self.state or StateView()
        with layout.on(COLORS.panel):
            self.draw_header(surface, layout, self.regions(layout)["header"], state)
        with layout.on(COLORS.background):
            self.draw_setup(surface, layout)
        with layout.on(COLORS.panel):
            self.draw_notices(surface, layout)

    def draw_setup(self, surface: pygame.Surface, layout: Layout) -> None:
        """The summary bar, the step's question, the tiles and the hints."""
        model = self.model
        summary = layout.rect(0.03, 0.1, 0.94, 0.06)
        layout.panel(surface, summary, COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            items = model.summary()
            for (what, value), cell in zip(
                items,
                split(summary.inflate(-layout.px(16), 0), len(items), layout.px(8)),
                strict=True,
            ):
                layout.text(surface, f"{what}: {value}", cell, layout.font_size(24), COLORS.text)
        question = layout.rect(0.03, 0.17, 0.94, 0.06)
        if self.typed is not None:
            cursor = "_" if int(self.clock * 2) % 2 == 0 else ""
            text, colour = f"Type a name to join: {self.typed}{cursor}", COLORS.text
        elif self.sent:
            text, colour = "Starting the game...", COLORS.good
        elif model.error:
            text, colour = model.error, COLORS.bad
        else:
            text, colour = model.title(), COLORS.accent
        layout.text(surface, text, question, layout.font_size(40), colour, "left")
        paying = model.player_count - (1 if model.computer is not None else 0)
        credits = credits_line(self.state, model.game, paying)
        if credits is not None:
            layout.text(surface, credits, question, layout.font_size(28), COLORS.accent, "right")
        if self.editing is not None:
            self.draw_names(surface, layout)
        else:
            self.draw_tiles(surface, layout)
        hints = layout.rect(0.03, 0.88, 0.94, 0.08)
        if self.editing is not None:
            hint = (
                "Type a name  ·  Tab next player  ·  Backspace delete  ·  "
                "Enter done  ·  Esc cancel setup"
            )
        elif self.typed is not None:
            hint = "Type a name  ·  Backspace delete  ·  Enter joins  ·  Esc stop typing"
        elif model.step == "lobby":
            hint = (
                "1-9 or throw: join or leave  ·  P/PLAYER next page  ·  Tab type a name  ·  "
                "arrows + Enter  ·  Backspace back  ·  Space/START start  ·  Esc cancel"
            )
        else:
            hint = (
                "1-9 or throw: pick  ·  arrows + Enter  ·  Backspace back  ·  Tab names  ·  "
                "G/GAME game  ·  P/PLAYER +player  ·  Space/START start  ·  Esc cancel"
            )
        layout.text(surface, hint, hints, layout.font_size(24), COLORS.dim)

    def draw_tiles(self, surface: pygame.Surface, layout: Layout) -> None:
        choices = self.model.choices()
        for index, (choice, rect) in enumerate(zip(choices, self.tile_rects(layout), strict=True)):
            lit = index == self.model.highlight
            colour = COLORS.panel_current if lit else COLORS.panel
            border = COLORS.accent if lit else (COLORS.good if choice.current else COLORS.line)
            layout.panel(surface, rect, colour, border, 4 if lit else 1.5)
            badge = min(rect.height // 3, rect.width // 4)
            centre = (rect.x + layout.px(12) + badge // 2, rect.y + layout.px(12) + badge // 2)
            pygame.draw.circle(surface, COLORS.accent if lit else COLORS.line, centre, badge // 2)
            badge_rect = pygame.Rect(0, 0, badge, badge)
            badge_rect.center = centre
            tone = COLORS.accent if lit else COLORS.line
            with layout.on(tone):
                layout.text(surface, str(index + 1), badge_rect.inflate(-badge // 4, -badge // 4),
                            layout.font_size(40), COLORS.background)  # fmt: skip
            inner = rect.inflate(-layout.px(24), -layout.px(12))
            label_rect = pygame.Rect(
                inner.x, inner.y + inner.height // 4, inner.width, inner.height // 2
            )
            detail_rect = pygame.Rect(inner.x, label_rect.bottom, inner.width, inner.height // 4)
            with layout.on(colour):
                layout.text(surface, choice.label, label_rect, layout.font_size(56), COLORS.text)
                if choice.detail:
                    layout.text(
                        surface, choice.detail, detail_rect, layout.font_size(22), COLORS.dim
                    )

    def draw_names(self, surface: pygame.Surface, layout: Layout) -> None:
        count = self.model.player_count
        for index, rect in enumerate(tile_rects(layout, count)):
            lit = index == self.editing
            colour = COLORS.panel_current if lit else COLORS.panel
            layout.panel(
                surface,
                rect,
                colour,
                COLORS.accent if lit else COLORS.line,
                4 if lit else 1.5,
            )
            top, bottom = split(rect.inflate(-layout.px(16), -layout.px(12)), 2, 0, vertical=True)
            name = self.model.names[index] + ("_" if lit and int(self.clock * 2) % 2 == 0 else "")
            with layout.on(colour):
                layout.text(surface, f"Player {index + 1}", top, layout.font_size(24), COLORS.dim)
                layout.text(surface, name, bottom, layout.font_size(44), COLORS.text)
