"""The scoreboard app: the pygame loop, the keys, screenshots.

:class:`DisplayApp` runs the loop (at most 60 frames a second): it hands
pygame events and the feed's MQTT events to the scene, switches scenes when
the game changes, advances the scene's clock, draws the scene and the
banners, and flips. Keys: Esc or q quits, f toggles fullscreen, n, u and m
send ``next``, ``undo`` and ``miss`` to the daemon; other keys go to the
scene, and the commands a scene queues in its ``outbox`` (a tile picked with
a digit key in Domino Cribbage) are sent. The daemon's refusal of any of
these commands comes back among the feed's events and shows as a notice
(display/state_feed.py). With no game running (or a finished one), ``g``,
any other key or the board's GAME button opens the game setup
(:class:`SetupScene`); Esc leaves it, and the game's scene takes over once
the daemon's state shows the game started.

:func:`render_state` is the same drawing as a pure function of a state, a
size, the availability and a clock: it is what screenshots, tests and the
benchmark use. :func:`run_display` is ``oche display``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pygame

from display.banners import draw_banners
from display.cues import collapse, cues_for
from display.layout import Layout
from display.scenes import (
    MQTT_EVENT,
    Scene,
    SetupScene,
    can_set_up,
    scene_class_for,
    scene_for,
)
from display.sound_bank import Caller, SoundBank
from display.state_feed import StateFeed

__all__ = [
    "DEFAULT_SIZE",
    "EXIT_NO_STATE",
    "FPS",
    "KEY_COMMANDS",
    "DisplayApp",
    "open_app",
    "render_state",
    "run_display",
]

log = logging.getLogger(__name__)

FPS = 60
DEFAULT_SIZE = (1280, 720)
EXIT_NO_STATE = 2
KEY_COMMANDS = {pygame.K_n: "next", pygame.K_u: "undo", pygame.K_m: "miss"}
"""Keys that send a command to the daemon."""
QUIT_KEYS = (pygame.K_ESCAPE, pygame.K_q)
VOLUME_STEP = 0.1
SOUND_KEYS = {
    pygame.K_PLUS: VOLUME_STEP,
    pygame.K_EQUALS: VOLUME_STEP,
    pygame.K_KP_PLUS: VOLUME_STEP,
    pygame.K_MINUS: -VOLUME_STEP,
    pygame.K_KP_MINUS: -VOLUME_STEP,
}
"""Keys that change the volume; ``s`` mutes and unmutes (``m`` is MISS)."""


def _availability(feed_availability: str | None, connected: bool) -> str:
    if not connected:
        return "no-broker"
    return "offline" if feed_availability == "offline" else "online"


_MODIFIERS = frozenset(
    (
        pygame.K_LSHIFT, pygame.K_RSHIFT, pygame.K_LCTRL, pygame.K_RCTRL, pygame.K_LALT,
        pygame.K_RALT, pygame.K_LGUI, pygame.K_RGUI, pygame.K_CAPSLOCK, pygame.K_NUMLOCK,
        pygame.K_MODE,
    )
)  # fmt: skip


def _opens_setup(event: pygame.event.Event) -> bool:
    """``g`` or any key but the modifiers opens the setup (when it may open)."""
    return bool(event.key == pygame.K_g or event.key not in _MODIFIERS)


def _is_game_button(payload: Mapping[str, Any]) -> bool:
    return payload.get("type") == "button" and str(payload.get("button", "")).lower() == "game"


def render_state(
    state: Mapping[str, Any] | None,
    size: tuple[int, int],
    availability: str = "online",
    clock: float = 0.0,
    layout: Layout | None = None,
) -> pygame.Surface:
    """The frame the display shows for ``state`` (an MQTT state payload, or
    ``None`` before one arrived) in a ``size`` window, at animation time
    ``clock``, with the daemon ``availability`` (``online``, ``offline`` or
    ``no-broker``). Reads ``state`` only. Pass ``layout`` to see where text went."""
    surface = pygame.Surface(size)
    layout = layout or Layout(*size)
    scene = scene_for(state)
    scene.clock = clock
    scene.draw(surface, layout)
    draw_banners(surface, layout, state, availability, clock)
    return surface


class DisplayApp:
    """The scoreboard window, fed by ``feed`` (a started :class:`StateFeed`)."""

    def __init__(
        self,
        feed: StateFeed,
        size: tuple[int, int] = DEFAULT_SIZE,
        fullscreen: bool = False,
        sound: SoundBank | None = None,
        caller: Caller | None = None,
    ) -> None:
        self.feed = feed
        self.sound = sound
        self.caller = caller
        self._heard: Mapping[str, Any] | None = None
        self.size = size
        self.fullscreen = fullscreen
        self.scene: Scene = scene_for(None)
        self.running = False
        self._serial = -1
        self._screen: pygame.Surface | None = None
        self._static: pygame.Surface | None = None
        self._static_for: tuple[object, object] = (None, None)

    def _open_window(self) -> pygame.Surface:
        if self.fullscreen:
            screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        else:
            screen = pygame.display.set_mode(self.size, pygame.RESIZABLE)
        pygame.display.set_caption("Oche")
        pygame.mouse.set_visible(not self.fullscreen)
        self._screen = screen
        return screen

    def toggle_fullscreen(self) -> None:
        self.fullscreen = not self.fullscreen
        self._open_window()

    @property
    def in_setup(self) -> bool:
        """The game setup screen is showing."""
        return isinstance(self.scene, SetupScene)

    def open_setup(self) -> None:
        """Show the game setup screen."""
        scene = SetupScene()
        scene.set_state(self.scene.state)
        scene.size = self._window_size()
        self.scene = scene

    def close_setup(self) -> None:
        """Leave the setup for the scene of the daemon's state."""
        state = self.scene.state
        self.scene = scene_class_for(state)()
        self.scene.set_state(state)

    def _window_size(self) -> tuple[int, int]:
        return self._screen.get_size() if self._screen is not None else self.size

    def _send_outbox(self) -> None:
        """Send the commands the scene queued (any scene may queue some)."""
        while self.scene.outbox:
            self.feed.send_command(self.scene.outbox.pop(0))

    def _handle_setup(self, event: pygame.event.Event) -> None:
        assert isinstance(self.scene, SetupScene)
        self.scene.size = self._window_size()
        rest = self.scene.process_event(event)
        self._send_outbox()
        if rest is None or event.type != pygame.KEYDOWN:
            return
        if event.key == pygame.K_ESCAPE:
            self.close_setup()
        elif event.key == pygame.K_f:
            self.toggle_fullscreen()
        elif self.sound is not None and event.key in SOUND_KEYS:
            self.sound.set_volume(self.sound.volume + SOUND_KEYS[event.key])

    def handle(self, event: pygame.event.Event) -> None:
        """One pygame event: quit, keys, window changes; the rest goes to the scene."""
        if event.type == pygame.QUIT:
            self.running = False
            return
        if event.type == pygame.VIDEORESIZE and not self.fullscreen:
            self.size = (max(320, event.w), max(200, event.h))
        if self.in_setup:
            self._handle_setup(event)
            return
        if event.type == pygame.KEYDOWN:
            if event.key in QUIT_KEYS:
                self.running = False
                return
            if event.key == pygame.K_f:
                self.toggle_fullscreen()
                return
            if self.sound is not None and event.key in SOUND_KEYS:
                self.sound.set_volume(self.sound.volume + SOUND_KEYS[event.key])
                return
            if self.sound is not None and event.key == pygame.K_s:
                self.sound.toggle_mute()
                return
            command = KEY_COMMANDS.get(event.key)
            if command is not None:
                self.feed.send_command({"command": command})
                return
            if can_set_up(self.scene.state) and _opens_setup(event):
                self.open_setup()
                return
        self.scene.process_event(event)
        self._send_outbox()

    def sync(self) -> tuple[Mapping[str, Any] | None, str]:
        """Take the feed's latest state and events into the scene; returns the
        state and the availability to draw with."""
        state, serial, availability, connected = self.feed.snapshot()
        if serial != self._serial:
            self._serial = serial
            wanted = scene_class_for(state)
            running = (state or {}).get("phase") in ("throwing", "takeout")
            if type(self.scene) is not wanted and (not self.in_setup or running):
                self.scene = wanted()
            self.scene.set_state(state)
        events = self.feed.events()
        for payload in events:
            if not self.in_setup and _is_game_button(payload) and can_set_up(state):
                self.open_setup()
                continue
            self.scene.process_event(pygame.event.Event(MQTT_EVENT, payload=payload))
        self._send_outbox()
        self._sound(events, state)
        return state, _availability(availability, connected)

    def _sound(self, events: list[dict[str, Any]], state: Mapping[str, Any] | None) -> None:
        """Play the cues of the events that arrived since the last frame (the
        state before them is the one heard last), and let the caller speak."""
        before, self._heard = self._heard, state
        if not events:
            return
        if self.sound is not None:
            before_dict = dict(before) if before is not None else None
            after_dict = dict(state) if state is not None else None
            cues = [cue for event in events for cue in cues_for(event, before_dict, after_dict)]
            self.sound.play_all(collapse(cues))
        if self.caller is not None:
            for event in events:
                self.caller.announce(event, state)

    def frame(self, surface: pygame.Surface, dt: float) -> None:
        """Advance by ``dt`` seconds and draw one frame on ``surface``.

        The scene's static picture is drawn once per state (and window size)
        and kept; a frame blits it and draws what moves and the banners over
        it. The pixels are the same as :func:`render_state`'s."""
        state, availability = self.sync()
        self.scene.update(dt)
        layout = Layout(*surface.get_size())
        static = self._static_picture(surface, layout)
        surface.blit(static, (0, 0))
        self.scene.draw_animated(surface, layout)
        draw_banners(surface, layout, state, availability, self.scene.clock)

    def _static_picture(self, surface: pygame.Surface, layout: Layout) -> pygame.Surface:
        cached = self._static
        same_size = cached is not None and cached.get_size() == surface.get_size()
        scene, state = self._static_for
        if cached is not None and same_size and scene is self.scene and state is self.scene.state:
            return cached
        if cached is None or not same_size:
            cached = pygame.Surface(surface.get_size(), 0, surface)
        self.scene.draw_static(cached, layout)
        self._static, self._static_for = cached, (self.scene, self.scene.state)
        return cached

    def run(self) -> int:
        """The loop, until Esc, q or the window closes; returns the exit status."""
        pygame.display.init()  # fonts start on first use; sound is display/sound_bank.py's
        try:
            screen = self._open_window()
            clock = pygame.time.Clock()
            self.running = True
            dt = 0.0
            while self.running:
                for event in pygame.event.get():
                    self.handle(event)
                if not self.running:
                    break
                screen = pygame.display.get_surface() or screen
                self.frame(screen, dt)
                pygame.display.flip()
                dt = clock.tick(FPS) / 1000.0
        finally:
            pygame.quit()
        return 0


def open_app(
    feed: StateFeed,
    size: tuple[int, int] = DEFAULT_SIZE,
    fullscreen: bool = False,
    sound: bool = True,
    caller: bool = False,
    volume: float = 0.8,
) -> DisplayApp:
    """A display app with its sound bank (silent when there is no audio device
    or ``sound`` is off) and, optionally, the spoken caller."""
    bank = SoundBank(volume=volume, muted=not sound)
    if sound:
        bank.init()
    return DisplayApp(feed, size, fullscreen, bank, Caller(enabled=caller) if caller else None)


def run_display(
    url: str,
    board: str = "board1",
    base: str = "oche",
    size: tuple[int, int] = DEFAULT_SIZE,
    fullscreen: bool = False,
    screenshot: Path | None = None,
    wait: float = 5.0,
    *,
    username: str | None = None,
    password: str | None = None,
    sound: bool = True,
    caller: bool = False,
    volume: float = 0.8,
) -> int:
    """``oche display``: the scoreboard for ``board`` from the broker at
    ``url``. With ``screenshot``, wait up to ``wait`` seconds for the
    retained state, save one frame as PNG and return 0; without a state in
    time, say so on stderr and return :data:`EXIT_NO_STATE`."""
    feed = StateFeed(url, board, base, username=username, password=password)
    feed.start()
    try:
        if screenshot is None:
            return open_app(feed, size, fullscreen, sound, caller, volume).run()
        state = feed.wait_for_state(wait)
        if state is None:
            where = f"{base}/{board}/state on {feed.address}"
            why = "" if feed.connected else " (could not connect to the broker)"
            sys.stderr.write(
                f"oche display: no state on {where} within {wait:g} s{why}; "
                "is the daemon (oche run) running for this board?\n"
            )
            return EXIT_NO_STATE
        _, _, availability, connected = feed.snapshot()
        surface = render_state(state, size, _availability(availability, connected))
        screenshot = Path(os.fspath(screenshot))
        if screenshot.parent and not screenshot.parent.exists():
            screenshot.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(screenshot))
        return 0
    finally:
        feed.close()
