"""The scoreboard app: the pygame loop, the keys, screenshots.

:class:`DisplayApp` runs the loop (at most 60 frames a second): it hands
pygame events and the feed's MQTT events to the scene, switches scenes when
the game changes, advances the scene's clock, draws the scene, the
banners and the award moments (display/award_show.py) over them, and
flips. Keys (one table, :data:`KEYS`, for a game and the
setup): Esc or q quits, f toggles fullscreen, n, u and m send ``next``,
``undo`` and ``miss`` to the daemon, + and - set the volume and s mutes;
other keys go to the scene, and the commands a scene queues in its ``outbox`` (a tile picked with
a digit key in Domino Cribbage) are sent. The daemon's refusal of any of
these commands comes back among the feed's events and shows as a notice
(display/state_feed.py). With no game running (or a finished one), ``g``,
any other key or the board's GAME button opens the game setup
(:class:`SetupScene`); Esc leaves it, and the game's scene takes over once
the daemon's state shows the game started.

The operator menu (:class:`OperatorScene`, docs/display.md) opens, with no
game running, from the board's operator button, or from F12 or Ctrl+O and
then the PIN of ``[operator] pin_hash`` (:data:`OPERATOR_KEYS`). It takes
every key and board event while open, and closes with Esc, the operator
button, or when a game starts.

:func:`render_state` is the same drawing as a pure function of a state, a
size, the availability and a clock: it is what screenshots, tests and the
benchmark use. :func:`run_display` is ``oche display``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygame

from display.award_show import AwardShow
from display.banners import draw_banners
from display.cues import collapse, cues_for
from display.layout import Layout
from display.leaderboards import Snapshot
from display.lobby import parse_lobby
from display.operator_link import OperatorLink
from display.operator_pin import PinGate
from display.scenes import (
    MQTT_EVENT,
    Scene,
    SetupScene,
    as_view,
    can_set_up,
    scene_class_for,
    scene_for,
)
from display.scenes.operator import OPERATOR_BUTTON, OperatorScene
from display.sound_bank import Caller, SoundBank
from display.sprites import Sprites
from display.state_feed import StateFeed
from mqtt_contract import PayloadError, Phase, StateView
from mqtt_contract.lobby_payload import LobbyState, ResultLines
from mqtt_contract.pairing_payload import PairingState

__all__ = [
    "DEFAULT_SIZE",
    "EXIT_NO_STATE",
    "FPS",
    "KEYS",
    "KEY_COMMANDS",
    "OPERATOR_KEYS",
    "DisplayApp",
    "OperatorAccess",
    "open_app",
    "render_state",
    "run_display",
]

log = logging.getLogger(__name__)

FPS = 60
DEFAULT_SIZE = (1280, 720)
EXIT_NO_STATE = 2
VOLUME_STEP = 0.1

KEYS: dict[int, tuple[str | None, str | None]] = {
    pygame.K_ESCAPE: ("quit", "leave_setup"),
    pygame.K_q: ("quit", None),
    pygame.K_f: ("fullscreen", "fullscreen"),
    pygame.K_n: ("next", None),
    pygame.K_u: ("undo", None),
    pygame.K_m: ("miss", None),
    pygame.K_s: ("mute", None),
    pygame.K_PLUS: ("louder", "louder"),
    pygame.K_EQUALS: ("louder", "louder"),
    pygame.K_KP_PLUS: ("louder", "louder"),
    pygame.K_MINUS: ("softer", "softer"),
    pygame.K_KP_MINUS: ("softer", "softer"),
}
"""The app's own keys, the one place they are defined: what each does
``(in a game or the attract screen, in the setup)``; ``None`` leaves the key
to the screen (``q`` and ``s`` are letters of a name in the setup). In a game
the app's keys come first; the setup takes every key first and leaves these
to the app. ``n``, ``u`` and ``m`` send that command to the daemon."""

COMMAND_ACTIONS = ("next", "undo", "miss")
"""The actions that send the command of that name."""
SOUND_ACTIONS = ("mute", "louder", "softer")
"""The actions that need the sound bank (without one, the key is the screen's)."""

KEY_COMMANDS = {key: action for key, (action, _) in KEYS.items() if action in COMMAND_ACTIONS}
"""Keys that send a command to the daemon (from :data:`KEYS`)."""


OPERATOR_KEYS = "F12 or Ctrl+O"
"""The keys that open the operator menu's PIN entry (with a ``[operator]
pin_hash``, and no game running)."""


def is_operator_key(event: pygame.event.Event) -> bool:
    """F12, or Ctrl+O: the way to the operator menu's PIN entry."""
    ctrl = bool(getattr(event, "mod", 0) & pygame.KMOD_CTRL)
    return bool(event.key == pygame.K_F12 or (event.key == pygame.K_o and ctrl))


@dataclass(frozen=True)
class OperatorAccess:
    """What the operator menu needs from ``[operator]``: the PIN's hash (``""``:
    only the operator button opens the menu) and the operator's MQTT account
    (no ``username``: anonymous, as on a home broker). ``url``: the broker,
    when not the feed's (its account is the display's, never used here)."""

    pin_hash: str = ""
    username: str | None = None
    password: str | None = None
    url: str | None = None


_RUNNING = (Phase.THROWING, Phase.TAKEOUT, Phase.WAITING_REMOTE)
"""The phases of a game on: the setup gives way to the game's scene."""


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


def _is_button(payload: Mapping[str, Any], name: str) -> bool:
    return payload.get("type") == "button" and str(payload.get("button", "")).lower() == name


def _is_game_button(payload: Mapping[str, Any]) -> bool:
    return _is_button(payload, "game")


def no_game(state: StateView | None) -> bool:
    """No game runs (phase ``idle``): the daemon scores no hit and the
    operator menu may open."""
    return state is not None and state.phase is Phase.IDLE


def render_state(
    state: StateView | Mapping[str, Any] | None,
    size: tuple[int, int],
    availability: str = "online",
    clock: float = 0.0,
    layout: Layout | None = None,
    sprites: Sprites | None = None,
    leaderboards: tuple[Snapshot, ...] = (),
    joining: str | None = None,
    lobby: LobbyState | None = None,
    lines: ResultLines | None = None,
    pairing: PairingState | None = None,
) -> pygame.Surface:
    """The frame the display shows for ``state`` (an MQTT state payload, or
    or its parsed view, ``None`` before one arrived) in a ``size`` window, at animation time
    ``clock``, with the daemon ``availability`` (``online``, ``offline`` or
    ``no-broker``), the ``leaderboards`` snapshots (the attract screen's),
    the host the board waits to join (``oche play --join``), if any, the
    state's ``lobby`` (read from a state payload when not given), the
    leaderboard's after-game ``lines`` and the board's ``pairing``.
    Reads ``state`` only. Pass ``layout`` to see where text went, ``sprites``
    for a render cache of the caller's (none: the shared one, display/sprites.py)."""
    surface = pygame.Surface(size)
    layout = layout or Layout(*size)
    if lobby is None and isinstance(state, Mapping):
        try:
            lobby = parse_lobby(state)
        except PayloadError:
            lobby = None  # shown as a daemon without a lobby
    state = as_view(state)
    scene = scene_for(state, sprites)
    scene.leaderboards = leaderboards
    scene.joining = joining
    scene.set_lobby(lobby)
    scene.lines = lines
    scene.pairing = pairing
    scene.clock = clock
    scene.draw(surface, layout)
    draw_banners(surface, layout, state, availability, clock, lines)
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
        joining: str | None = None,
        operator: OperatorAccess | None = None,
    ) -> None:
        self.feed = feed
        self.operator = operator or OperatorAccess()
        self.gate = PinGate(self.operator.pin_hash)
        """The PIN entry's guard: its wrong tries and lockout outlive the menu."""
        self.joining = joining
        """The host this board waits to join (``oche play --join HOST``): the
        attract screen says so."""
        self.sound = sound
        self.caller = caller
        self.size = size
        self.fullscreen = fullscreen
        self.sprites = Sprites()
        """The render cache of every scene the app makes, for as long as it runs."""
        self.scene: Scene = scene_for(None, self.sprites)
        self.awards = AwardShow()
        """The award moments, drawn over the scene and its banners."""
        self.running = False
        self._serial = -1
        self._screen: pygame.Surface | None = None
        self._static: pygame.Surface | None = None
        self._static_for: tuple[object, object, object] = (None, None, None)

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
        scene = SetupScene(sprites=self.sprites)
        scene.set_state(self.scene.state)
        scene.set_lobby(self.scene.lobby)
        scene.size = self._window_size()
        self.scene = scene

    def close_setup(self) -> None:
        """Leave the setup for the scene of the daemon's state."""
        state = self.scene.state
        self.scene = scene_class_for(state)(self.sprites)
        self.scene.set_state(state)

    @property
    def in_operator(self) -> bool:
        """The operator menu is showing."""
        return isinstance(self.scene, OperatorScene)

    def _notice(self, text: str) -> None:
        self.scene.notices = [*self.scene.notices[-2:], (self.scene.clock, text)]

    def _operator_link(self) -> OperatorLink:
        feed, access = self.feed, self.operator
        return OperatorLink(
            access.url or feed.url,
            feed.board,
            feed.base,
            username=access.username,
            password=access.password,
        )

    def open_operator(self, pin: bool) -> None:
        """Open the operator menu: at the PIN entry (``pin``: the key), or
        straight in (the operator button). Only while no game runs."""
        if self.in_operator:
            return
        if not no_game(self.scene.state):
            self._notice("The operator menu opens only while no game runs")
            return
        if pin and not self.gate.enabled:
            self._notice("No operator PIN is set: use the operator button")
            return
        scene = OperatorScene(
            need_pin=pin,
            gate=self.gate,
            link_factory=self._operator_link,
            sound=self.sound,
            sprites=self.sprites,
        )
        scene.set_state(self.scene.state)
        self.scene = scene

    def close_operator(self, why: str | None = None) -> None:
        """Leave the operator menu (closing its connection) for the daemon's scene."""
        if not isinstance(self.scene, OperatorScene):
            return
        self.scene.close()
        self.close_setup()
        if why:
            self._notice(why)

    def _window_size(self) -> tuple[int, int]:
        return self._screen.get_size() if self._screen is not None else self.size

    def _send_outbox(self) -> None:
        """Send the commands the scene queued (any scene may queue some)."""
        while self.scene.outbox:
            self.feed.send_command(self.scene.outbox.pop(0))

    def _to_scene(self, event: pygame.event.Event) -> bool:
        """Hand ``event`` to the scene and send what it queued; whether it used it."""
        rest = self.scene.process_event(event)
        self._send_outbox()
        return rest is None

    def key_action(self, event: pygame.event.Event) -> str | None:
        """What the app does with key ``event`` on the screen showing now
        (:data:`KEYS`), ``open_setup`` for a key that opens the setup, or
        ``None`` when the key is the scene's."""
        in_game, in_setup = KEYS.get(event.key, (None, None))
        action = in_setup if self.in_setup else in_game
        if action in SOUND_ACTIONS and self.sound is None:
            action = None
        opens = not self.in_setup and can_set_up(self.scene.state) and _opens_setup(event)
        return "open_setup" if action is None and opens else action

    def do(self, action: str) -> None:
        """Carry out a key's ``action`` (see :meth:`key_action`)."""
        if action == "quit":
            self.running = False
        elif action == "fullscreen":
            self.toggle_fullscreen()
        elif action == "open_setup":
            self.open_setup()
        elif action == "leave_setup":
            self.close_setup()
        elif action in COMMAND_ACTIONS:
            self.feed.send_command({"command": action})
        elif self.sound is not None and action == "mute":
            self.sound.toggle_mute()
        elif self.sound is not None and action in ("louder", "softer"):
            step = VOLUME_STEP if action == "louder" else -VOLUME_STEP
            self.sound.set_volume(self.sound.volume + step)

    def handle(self, event: pygame.event.Event) -> None:
        """One pygame event: quit, window changes and the keys, for a game
        and the setup alike; the rest goes to the scene. The setup sees every
        event first (digits pick, letters spell names) and leaves the app
        what it does not use; in a game the app's keys come first."""
        if event.type == pygame.QUIT:
            self.running = False
            return
        if event.type == pygame.VIDEORESIZE and not self.fullscreen:
            self.size = (max(320, event.w), max(200, event.h))
        if isinstance(self.scene, OperatorScene):
            self.scene.process_event(event)  # every key is the menu's
            if self.scene.done:
                self.close_operator()
            return
        if event.type == pygame.KEYDOWN and is_operator_key(event):
            self.open_operator(pin=True)
            return
        if isinstance(self.scene, SetupScene):
            self.scene.size = self._window_size()  # to find the tile under a click
            if self._to_scene(event):
                return
        action = self.key_action(event) if event.type == pygame.KEYDOWN else None
        if action is not None:
            self.do(action)
        elif not self.in_setup:
            self._to_scene(event)

    def sync(self) -> tuple[StateView | None, str]:
        """Take the feed's latest state and events into the scene; returns the
        state and the availability to draw with."""
        state, serial, availability, connected = self.feed.snapshot()
        if serial != self._serial:
            self._serial = serial
            wanted = scene_class_for(state)
            running = state is not None and state.phase in _RUNNING
            if self.in_operator:
                if not no_game(state):  # its tests must not see a game's darts
                    self.scene.set_state(state)
                    self.close_operator("Operator menu closed: a game started")
            elif type(self.scene) is not wanted and (not self.in_setup or running):
                self.scene = wanted(self.sprites)
            self.scene.set_state(state)
        self.scene.leaderboards = self.feed.leaderboards
        self.scene.joining = self.joining
        self.scene.set_lobby(self.feed.lobby)
        self.scene.lines = self.feed.lines
        self.scene.pairing = self.feed.pairing
        events = self.feed.events()
        for payload in events:
            if not self.in_operator and _is_button(payload, OPERATOR_BUTTON):
                self.open_operator(pin=False)
                continue
            opens_setup = not (self.in_setup or self.in_operator) and can_set_up(state)
            if opens_setup and _is_game_button(payload):
                self.open_setup()
                continue
            mqtt_event = pygame.event.Event(MQTT_EVENT, payload=payload)
            self.awards.process_event(mqtt_event)
            self.scene.process_event(mqtt_event)
            if isinstance(self.scene, OperatorScene) and self.scene.done:
                self.close_operator()
        self._send_outbox()
        self._sound(events, state)
        return state, _availability(availability, connected)

    def _sound(self, events: list[dict[str, Any]], state: StateView | None) -> None:
        """Play the cues of the events that arrived since the last frame (each
        event says all its cues need), and let the caller speak."""
        if not events:
            return
        if self.sound is not None:
            self.sound.play_all(collapse(cue for event in events for cue in cues_for(event)))
        if self.caller is not None:
            for event in events:
                self.caller.announce(event, state)

    def frame(self, surface: pygame.Surface, dt: float) -> None:
        """Advance by ``dt`` seconds and draw one frame on ``surface``.

        The scene's static picture is drawn once per state, window size and
        :meth:`Scene.static_key`, and kept; a frame blits it and draws what
        moves and the banners over it. The pixels are the same as
        :func:`render_state`'s."""
        state, availability = self.sync()
        self.scene.update(dt)
        self.awards.update(dt)
        layout = Layout(*surface.get_size())
        static = self._static_picture(surface, layout)
        surface.blit(static, (0, 0))
        self.scene.draw_animated(surface, layout)
        draw_banners(surface, layout, state, availability, self.scene.clock, self.scene.lines)
        if not self.in_operator and not self.in_setup:
            self.awards.draw(surface, layout, state)

    def _static_picture(self, surface: pygame.Surface, layout: Layout) -> pygame.Surface:
        cached = self._static
        same_size = cached is not None and cached.get_size() == surface.get_size()
        scene, state, key = self._static_for
        now = self.scene.static_key()
        if (
            cached is not None
            and same_size
            and scene is self.scene
            and state is self.scene.state
            and key == now
        ):
            return cached
        if cached is None or not same_size:
            cached = pygame.Surface(surface.get_size(), 0, surface)
        self.scene.draw_static(cached, layout)
        self._static, self._static_for = cached, (self.scene, self.scene.state, now)
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
            self.close_operator()
            pygame.quit()
        return 0


def open_app(
    feed: StateFeed,
    size: tuple[int, int] = DEFAULT_SIZE,
    fullscreen: bool = False,
    sound: bool = True,
    caller: bool = False,
    volume: float = 0.8,
    joining: str | None = None,
    operator: OperatorAccess | None = None,
) -> DisplayApp:
    """A display app with its sound bank (silent when there is no audio device
    or ``sound`` is off), optionally the spoken caller, the host the board
    waits to join (``oche play --join``) and the operator menu's access."""
    bank = SoundBank(volume=volume, muted=not sound)
    if sound:
        bank.init()
    spoken = Caller(enabled=caller) if caller else None
    return DisplayApp(feed, size, fullscreen, bank, spoken, joining, operator)


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
    operator: OperatorAccess | None = None,
) -> int:
    """``oche display``: the scoreboard for ``board`` from the broker at
    ``url``. With ``screenshot``, wait up to ``wait`` seconds for the
    retained state, save one frame as PNG and return 0; without a state in
    time, say so on stderr and return :data:`EXIT_NO_STATE`."""
    feed = StateFeed(url, board, base, username=username, password=password)
    feed.start()
    try:
        if screenshot is None:
            return open_app(feed, size, fullscreen, sound, caller, volume, operator=operator).run()
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
        available = _availability(availability, connected)
        surface = render_state(
            state, size, available, lobby=feed.lobby, lines=feed.lines, pairing=feed.pairing
        )
        screenshot = Path(os.fspath(screenshot))
        if screenshot.parent and not screenshot.parent.exists():
            screenshot.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(screenshot))
        return 0
    finally:
        feed.close()
