"""``oche display``: the pygame scoreboard for one board, fed over MQTT.

The display is a plain MQTT client of the daemon (docs/display.md): it needs
the broker's URL, the board id and the topic base. Any of them not given on
the command line is taken from the daemon's config file when there is one
(the same search as ``oche run``: $OCHE_CONFIG, $XDG_CONFIG_HOME/oche/oche.toml,
/etc/oche/oche.toml), else ``mqtt://127.0.0.1:1883``, ``board1`` and ``oche``.

``--screenshot PATH`` renders one frame of the retained state to a PNG and
exits (status 2 when no state arrives within ``--wait`` seconds). Without a
screen, and without ``--screenshot``, it exits with status 2 at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.daemon.config import (
    ConfigError,
    DisplayConfig,
    OperatorConfig,
    load_config,
)
from firmware_bridge.daemon.log_setup import DEFAULT_LOG_LEVEL, use_config_level

if TYPE_CHECKING:
    from display.app import OperatorAccess

__all__ = [
    "DEFAULT_BASE",
    "DEFAULT_BOARD",
    "DEFAULT_URL",
    "KEYS_HELP",
    "NO_SCREEN",
    "Target",
    "add_parser",
    "add_sound_arguments",
    "add_window_arguments",
    "find_screen",
    "off_screen",
    "operator_access",
    "parse_size",
    "prepare_pygame",
    "resolve_target",
    "run",
]

log = logging.getLogger(__name__)

KEYS_HELP = (
    "Keys: Esc/q quit, f fullscreen, n next, u undo, m miss, + and - volume, s sound on/off; "
    "with no game running, g (or any other key) opens the game setup, and F12 or Ctrl+O "
    "the operator menu (after the [operator] PIN)."
)
"""The scoreboard's keys, for the help of ``oche display`` and ``oche play``."""

DEFAULT_URL = "mqtt://127.0.0.1:1883"
DEFAULT_BOARD = "board1"
DEFAULT_BASE = "oche"
MIN_SIZE = (320, 200)
MAX_SIZE = (7680, 4320)
_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")
_OFF_SCREEN = ("dummy", "offscreen")
"""SDL video drivers that draw into memory only."""

NO_SCREEN = (
    "there is no screen here (DISPLAY and WAYLAND_DISPLAY are unset): run it on the "
    "desktop, set SDL_VIDEODRIVER (kmsdrm for a console), or use --screenshot PATH"
)


def _console_screen() -> bool:
    """Whether SDL can draw on the console (kmsdrm, a Raspberry Pi without a
    desktop); when it can, SDL_VIDEODRIVER is set to it for the display."""
    if not any(Path("/dev/dri").glob("card*")):
        return False
    import pygame

    os.environ["SDL_VIDEODRIVER"] = "kmsdrm"
    try:
        pygame.display.init()
    except pygame.error:
        del os.environ["SDL_VIDEODRIVER"]
        return False
    pygame.display.quit()
    return True


def find_screen() -> bool:
    """Whether there is a screen to open a window on: a desktop (X11, Wayland),
    the video driver the user chose in SDL_VIDEODRIVER, or the console. Without
    one SDL would draw off-screen, unseen, for ever."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    return _console_screen()


def off_screen() -> bool:
    """Whether pygame is to draw into memory only (SDL_VIDEODRIVER dummy or offscreen)."""
    return os.environ.get("SDL_VIDEODRIVER") in _OFF_SCREEN


def _sound_device() -> bool:
    """Whether there is something to play sound on: a PulseAudio or PipeWire
    server, or an ALSA playback device."""
    if os.environ.get("PULSE_SERVER"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and any((Path(runtime) / name).exists() for name in ("pulse/native", "pipewire-0")):
        return True
    return any(Path("/dev/snd").glob("pcmC*p"))


def prepare_pygame(render_only: bool) -> None:
    """The environment pygame starts with: no greeting on stdout; SDL's dummy
    drivers when rendering only; the dummy audio driver when there is no
    sound device, so ALSA does not print errors on stderr."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if render_only:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    elif "SDL_AUDIODRIVER" not in os.environ and not _sound_device():
        log.info("no sound device: the scoreboard is silent")
        os.environ["SDL_AUDIODRIVER"] = "dummy"


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` (e.g. ``1920x1080``) as ``(width, height)``; an argparse type."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720")
    width, height = int(match[1]), int(match[2])
    if not (MIN_SIZE[0] <= width <= MAX_SIZE[0] and MIN_SIZE[1] <= height <= MAX_SIZE[1]):
        raise argparse.ArgumentTypeError(
            f"{width}x{height} is out of range: {MIN_SIZE[0]}x{MIN_SIZE[1]} "
            f"to {MAX_SIZE[0]}x{MAX_SIZE[1]}"
        )
    return width, height


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: wait 0 to 3600 seconds")
    return value


@dataclass(frozen=True)
class Target:
    """Where the display connects and which board it shows."""

    url: str
    board: str
    base: str
    username: str | None = None
    password: str | None = None
    display: DisplayConfig = field(default_factory=DisplayConfig)
    log_level: str = DEFAULT_LOG_LEVEL
    operator: OperatorConfig = field(default_factory=OperatorConfig)
    operator_password: str | None = None
    """The operator account's password, read from ``[operator] password_file``."""


def resolve_target(
    url: str | None, board: str | None, base: str | None, config: str | None = None
) -> Target:
    """The options given, the rest from the daemon's config file (when one
    is found) or the defaults. A broken config file is a :class:`UsageError`
    only when it is needed and was named with ``config``."""
    if url is not None and board is not None and base is not None and config is None:
        return Target(url, board, base)
    try:
        loaded = load_config(config)
    except ConfigError as error:
        if config is not None:
            raise UsageError(str(error)) from None
        loaded = None
    if loaded is None or loaded.source == "defaults":
        return Target(url or DEFAULT_URL, board or DEFAULT_BOARD, base or DEFAULT_BASE)
    username = password = None
    if url is None:
        url = loaded.mqtt.address().url
        username = loaded.mqtt.username or None
        try:
            password = loaded.mqtt.password()
        except ConfigError as error:
            raise UsageError(str(error)) from None
    try:
        operator_password = loaded.operator.password()
    except ConfigError as error:
        raise UsageError(str(error)) from None
    return Target(
        url=url,
        board=board or loaded.board.id,
        base=base or loaded.mqtt.base,
        username=username,
        password=password,
        display=loaded.display,
        log_level=loaded.log.level,
        operator=loaded.operator,
        operator_password=operator_password,
    )


def run(args: argparse.Namespace) -> int:
    """Run ``oche display`` for parsed ``args``; returns the exit status."""
    target = resolve_target(args.mqtt, args.board, args.base, args.config)
    use_config_level(getattr(args, "log_level", None), target.log_level)  # oche's own option
    screen = find_screen()
    if args.screenshot is None and not screen:
        raise UsageError(NO_SCREEN)
    # pygame loads only for this command, once its environment is set.
    prepare_pygame(render_only=not screen)
    from display.app import run_display

    operator = target.operator
    try:
        return run_display(
            target.url,
            target.board,
            target.base,
            size=args.size,
            fullscreen=args.fullscreen or target.display.fullscreen,
            screenshot=Path(args.screenshot) if args.screenshot else None,
            wait=args.wait,
            username=target.username,
            password=target.password,
            sound=not (args.no_sound or target.display.muted),
            caller=args.caller or target.display.caller,
            volume=target.display.volume,
            operator=operator_access(operator, target.operator_password),
        )
    except ValueError as error:  # a bad URL, board id or base
        raise UsageError(str(error)) from None


def operator_access(operator: OperatorConfig, password: str | None) -> OperatorAccess:
    """The operator menu's access from ``[operator]``: the PIN's hash and the
    operator's MQTT account (display/app.py). Imports the display: call it
    only in the commands that show it."""
    from display.app import OperatorAccess

    return OperatorAccess(operator.pin_hash, operator.username or None, password)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "display",
        help="show the scoreboard (pygame window, or --screenshot to a PNG)",
        description="Show one board's scoreboard, fed by the daemon over MQTT. "
        f"{KEYS_HELP} Options not given come from the daemon's config file when there is "
        "one (see docs/display.md).",
    )
    parser.add_argument("--mqtt", metavar="URL", help=f"broker URL (default {DEFAULT_URL})")
    parser.add_argument("--board", metavar="ID", help=f"board id (default {DEFAULT_BOARD})")
    parser.add_argument("--base", metavar="BASE", help=f"topic base (default {DEFAULT_BASE})")
    parser.add_argument("--config", metavar="FILE", help="read the defaults from this config")
    add_window_arguments(parser, "render the current state to a PNG and exit")
    parser.add_argument(
        "--wait",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help="with --screenshot: how long to wait for the state (default 5)",
    )
    add_sound_arguments(parser)
    parser.set_defaults(run=run)


def add_window_arguments(parser: argparse.ArgumentParser, screenshot_help: str) -> None:
    """``--fullscreen``, ``--size`` and ``--screenshot``, shared by ``oche display``
    and ``oche play`` (which say differently what a screenshot is)."""
    parser.add_argument("--fullscreen", action="store_true", help="start fullscreen")
    parser.add_argument(
        "--size",
        type=parse_size,
        default=(1280, 720),
        metavar="WxH",
        help="window or screenshot size (default 1280x720)",
    )
    parser.add_argument("--screenshot", metavar="PATH", help=screenshot_help)


def add_sound_arguments(parser: argparse.ArgumentParser) -> None:
    """``--no-sound`` and ``--caller``, shared by ``oche display`` and ``oche play``."""
    parser.add_argument("--no-sound", action="store_true", help="start muted")
    parser.add_argument(
        "--caller", action="store_true", help="speak scores with espeak-ng (when installed)"
    )
