"""``oche play``: the one command for a home setup. It runs the daemon (with
its embedded broker unless one is configured) and the display in one process.

``--demo`` plays a scripted game on the simulated board, so a newcomer sees the
whole pipeline work with no hardware. On a machine without a screen the
display renders off-screen: the demo runs to its end, then writes a
screenshot (``oche-demo.png``, or ``--screenshot PATH``) and prints the
scoreboard. Without a screen and without ``--demo``, ``--screenshot PATH``
saves the scoreboard (``--join``: once the host's match is over) and stops;
with neither, the board is served, its daemon and broker running, until
Ctrl-C.

By default it also runs the venue's web service (``leaderboard.service``) on
the daemon's event loop, on the same broker, so a home user has the board
page on a phone (docs/phone.md) with no extra command: every finished game is
stored (``[leaderboard] db``, else the default SQLite file; the demo's goes to
a throwaway one) and the pages are served on ``--http`` (0.0.0.0:8080, so a
phone on the network reaches them), which become the lobby's join page and
the board page of the pairing code unless ``[lobby] web_url`` names another
(:func:`with_lobby_page`). The terminal prints the board page, the pairing
code and a QR code of it, again whenever the code changes. A taken port or a
missing ``oche[leaderboard]`` is a warning and play goes on without the web;
``--no-web`` turns it off. ``--leaderboard`` asks for it outright: then it
must start, and without a screen the command keeps serving
the pages after a ``--demo`` or ``--screenshot`` until interrupted.

``--join HOST`` plays this board as a guest of HOST's remote matches
(docs/remote.md): HOST (``pub1`` or ``base/pub1``) is added to ``[remote]
allow`` for this run, as a ``--set`` override would, and the idle scoreboard
says it waits for HOST. Both boards must reach one broker, so it needs
``[mqtt] url``: the embedded broker is this machine's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import dataclasses
import http.client
import importlib
import io
import json
import logging
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from drivers.errors import DriverError
from engine import X01, EngineError
from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.display_command import (
    KEYS_HELP,
    add_sound_arguments,
    add_window_arguments,
    find_screen,
    off_screen,
    operator_access,
    prepare_pygame,
)
from firmware_bridge.cli.leaderboard_command import parse_http_address, venue_map
from firmware_bridge.cli.run_command import broker_error
from firmware_bridge.cli.scoreboard_text import render_scoreboard
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import Config, ConfigError, load_config
from firmware_bridge.daemon.embedded_broker import (
    EmbeddedBroker,
    EmbeddedBrokerError,
    address_in_use,
)
from firmware_bridge.daemon.game_session import SessionSetup
from firmware_bridge.daemon.log_setup import use_config_level
from mqtt_contract import BoardAddress, host_allowed
from mqtt_contract.pairing_payload import PairingState

if TYPE_CHECKING:
    from leaderboard.service import ServiceSettings

__all__ = [
    "DEMO_GAME",
    "DEMO_SCRIPT",
    "PLAY_HTTP",
    "LeaderboardTask",
    "add_parser",
    "join_overrides",
    "pairing_banner",
    "with_lobby_page",
]

PLAY_HTTP = "0.0.0.0:8080"
"""Where ``oche play`` serves the web pages unless ``--http`` says: every
address, so a phone on the network opens the board page."""

DEMO_GAME = SessionSetup(X01.id, {"start": 301}, ("Ann", "Bob"))
"""Started by the daemon itself before it reads the board, so the script's
first dart can never arrive before the game does."""
DEMO_SCRIPT = (
    "+2 T20 S20 S5 button:next S20 S1 S18 button:next T20 T19 S1 button:next "
    "T20 T20 S20 button:next T20 S18 S20 button:next T20 S2 D20 button:next T20 D19"
)
"""A 301 game on the simulated board: Ann busts on 98 (S20 leaves zero on a
single), then checks out 98 with T20 D19. The pause lets the display connect first."""

log = logging.getLogger(__name__)

DEMO_SECONDS_PER_DART = 0.6
HEADLESS_TIMEOUT_S = 90.0


def _free_loopback_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _free_broker_port(config: Config) -> Config:
    """The config, with the embedded broker on a free port when its own is
    taken (say by a Mosquitto installed on this machine): a home user need not
    know about ports. ``oche run``, a service, does not move; it says why."""
    mqtt = config.mqtt
    if not mqtt.embedded:
        return config
    host = EmbeddedBroker(mqtt.embedded_host, mqtt.embedded_port).host
    if not address_in_use(host, mqtt.embedded_port):
        return config
    port = _free_loopback_port(host)
    log.info(
        "port %d is taken (another MQTT broker?): the embedded broker uses port %d instead",
        mqtt.embedded_port,
        port,
    )
    return dataclasses.replace(config, mqtt=dataclasses.replace(mqtt, embedded_port=port))


def _demo_config(config: Config) -> Config:
    """The configured daemon, but on the simulated board with the demo script, a
    throwaway journal, free play (a coin board's demo costs nothing) and (when
    embedded) a free port, so it touches nothing."""
    journal = Path(tempfile.mkdtemp(prefix="oche-demo-")) / "journal.sqlite3"
    mqtt = config.mqtt
    if mqtt.embedded:
        host = EmbeddedBroker(mqtt.embedded_host, mqtt.embedded_port).host
        mqtt = dataclasses.replace(mqtt, embedded_port=_free_loopback_port(host))
    return dataclasses.replace(
        config,
        board=dataclasses.replace(
            config.board, driver="simulated", script=DEMO_SCRIPT, delay=DEMO_SECONDS_PER_DART
        ),
        mqtt=mqtt,
        journal=dataclasses.replace(config.journal, path=str(journal)),
        credits=dataclasses.replace(config.credits, mode="free"),
    )


class DaemonThread:
    """The daemon on its own event loop in a background thread, so pygame can
    own the main thread."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.loop = asyncio.new_event_loop()
        self.error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._main, name="oche-daemon", daemon=True)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._task = self.loop.create_task(self.daemon.run())
        try:
            self.loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        except BaseException as error:  # reported by the main thread
            self.error = error
        finally:
            self.loop.close()

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        """Whether the daemon still runs (it stops only when told, or on an error)."""
        return self._thread.is_alive()

    def wait_for_state(self, timeout: float = 15.0) -> bool:
        """Wait until the broker holds this daemon's state: once connected, the
        daemon publishes it once more and the broker acknowledges it. So the
        display, which subscribes after this, never shows a state retained
        from before (another daemon's). False when the daemon failed (see
        :attr:`error`) or ``timeout`` s passed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._thread.is_alive():
            link = self.daemon.link
            if link is not None and link.connected:
                try:
                    published = asyncio.run_coroutine_threadsafe(self._publish_state(), self.loop)
                    if published.result(max(0.1, deadline - time.monotonic())):
                        return True
                except (RuntimeError, concurrent.futures.TimeoutError):  # loop closed, or slow
                    pass
            time.sleep(0.02)
        return False

    async def _publish_state(self) -> bool:
        link = self.daemon.link
        return link is not None and await link.publish("state", self.daemon.state())

    def stop(self, timeout: float = 10.0) -> None:
        if self._task is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(timeout)


class LeaderboardTask:
    """The leaderboard service on the daemon's event loop, next to the daemon:
    started once the daemon (and its broker) is up, stopped before it."""

    def __init__(self, daemon: DaemonThread, settings: ServiceSettings) -> None:
        self.daemon = daemon
        self.settings = settings
        self.error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._done = threading.Event()

    @property
    def url(self) -> str:
        from leaderboard.service import http_url

        return http_url(self.settings)

    def start(self, timeout: float = 15.0) -> None:
        """Start the service and wait until its HTTP port answers; a
        :class:`UsageError` says why it did not (a taken port, a bad database URL)."""
        address = (self.settings.http_host, self.settings.http_port)
        if address_in_use(*address):  # else the probe below would find the other server
            raise UsageError(
                f"the leaderboard cannot listen on {address[0]}:{address[1]}: something else "
                "does (--http HOST:PORT picks another)"
            )
        asyncio.run_coroutine_threadsafe(self._serve(), self.daemon.loop)
        deadline = time.monotonic() + timeout
        while not self._done.is_set():
            # The service listens before it has opened the database: only an
            # HTTP answer says that it is up.
            try:
                with urllib.request.urlopen(f"{self.url}openapi.json", timeout=2):
                    return
            except urllib.error.HTTPError:
                return
            except (OSError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        self.stop()
        why = (
            f"{self.error}" if self.error else f"nothing answers on {self.url} after {timeout:g} s"
        )
        raise UsageError(f"the leaderboard did not start: {why} (--http HOST:PORT picks another)")

    async def _serve(self) -> None:
        from leaderboard.service import run_service

        self._task = asyncio.current_task()
        try:
            await run_service(self.settings)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # reported by start(), or logged
            while isinstance(error, ExceptionGroup) and error.exceptions:
                error = error.exceptions[0]  # the TaskGroup's first failure says why
            self.error = error
            log.error("the leaderboard stopped: %s", error, exc_info=error)
        finally:
            self._done.set()

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel the service and wait until it has closed its port and database."""
        task = self._task
        if task is not None and not self.daemon.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.daemon.loop.call_soon_threadsafe(task.cancel)
        self._done.wait(timeout)


def _broker_url(config: Config, daemon: DaemonThread) -> str:
    """The URL of the daemon's broker, with the account in it when there is one
    (the leaderboard service reads its credentials from the URL)."""
    broker = daemon.daemon.broker
    if broker is not None:
        return broker.url
    mqtt = config.mqtt
    if not mqtt.username:
        return mqtt.url
    password = mqtt.password() if mqtt.password_file else None
    account = quote(mqtt.username, safe="") + (f":{quote(password, safe='')}" if password else "")
    scheme, _, rest = mqtt.url.partition("://")
    return f"{scheme}://{account}@{rest}"


def _leaderboard_settings(
    args: argparse.Namespace, config: Config, daemon: DaemonThread
) -> ServiceSettings:
    from leaderboard.database import Database, default_url
    from leaderboard.service import ServiceSettings

    if args.demo:  # the demo's games go with its throwaway journal
        db = f"sqlite:///{Path(config.journal.path).parent / 'leaderboard.sqlite3'}"
    else:
        db = config.leaderboard.db or default_url()
    Database(db)  # a ValueError names a URL it cannot use (no I/O yet)
    host, port = parse_http_address(args.http or PLAY_HTTP)
    section = config.leaderboard
    return ServiceSettings(
        db_url=db, mqtt_url=_broker_url(config, daemon), base=config.mqtt.base,
        http_host=host, http_port=port, venues=venue_map(config),
        admin_password_hash=section.admin_password_hash,
        max_live_streams=section.max_live_streams,
        max_live_streams_per_client=section.max_live_streams_per_client,
    )  # fmt: skip


def _until_stopped(daemon: DaemonThread, leaderboard: LeaderboardTask | None, said: str) -> None:
    """Without a screen: print ``said``, then keep the daemon (and the stats
    pages) up until Ctrl-C or SIGTERM; a :class:`UsageError` if either stops first."""
    stop = threading.Event()
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in signals}
    sys.stdout.write(said)
    sys.stdout.flush()
    try:
        while daemon.running and (leaderboard is None or leaderboard.running):
            if stop.wait(0.2):
                return
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if leaderboard is not None and leaderboard.error is not None:
        raise UsageError(f"the leaderboard stopped: {leaderboard.error}")
    raise UsageError(f"the daemon stopped: {daemon.error or 'without an error'}")


def with_lobby_page(config: Config, http: str) -> Config:
    """``config`` with ``[lobby] web_url`` on the in-process service's pages
    at ``http`` (``HOST:PORT``), unless it names one itself: the lobby's join
    code and QR code then open this service's join page. A wildcard host is
    named by this machine's name, which a phone on the network can reach."""
    if config.lobby.web_url:
        return config
    host, port = parse_http_address(http)
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    lobby = dataclasses.replace(config.lobby, web_url=f"http://{shown}:{port}")
    return dataclasses.replace(config, lobby=lobby)


def _daemon_failed(daemon: DaemonThread, config: Config) -> UsageError:
    """Why the daemon published no state, in one line."""
    error = daemon.error
    if isinstance(error, EmbeddedBrokerError):
        return broker_error(error, config)
    if isinstance(error, EngineError | DriverError | ConfigError | UsageError):
        return UsageError(str(error))
    why = f": {error}" if error else f" (is the broker at {config.mqtt.url} running?)"
    return UsageError(f"the daemon did not publish its state{why}")


def join_overrides(host_text: str, config: Config, overrides: list[str]) -> list[str]:
    """The ``--set`` overrides that make this run a guest of ``host_text``
    (``--join HOST``): ``overrides`` plus ``remote.allow`` with the host added
    (unless the config already allows it). A :class:`UsageError` names a HOST
    that is not one board, this board itself, or a config without a broker
    the host can reach."""
    shown = f"--join {host_text!r}"
    try:  # one board: no [remote] allow wildcards (the override is checked as allow is)
        host = BoardAddress.parse(host_text, config.mqtt.base)
    except ValueError as error:
        raise UsageError(
            f"{shown}: {error}; give one board, as its id (pub1) or base/board (league/pub1)"
        ) from None
    if host == BoardAddress(config.mqtt.base, config.board.id):
        raise UsageError(f"{shown} names this board itself ({host}): give the host's board")
    if config.mqtt.embedded:
        raise UsageError(
            f"{shown}: the host must reach the same MQTT broker as this board, and mqtt.url "
            "is empty (this board's own embedded broker, which only this machine reaches): "
            "set [mqtt] url to the broker the host uses, e.g. mqtts://broker.example.org:8883 "
            "with an account (mqtt.username, mqtt.password_file), or --set mqtt.url=URL"
        )
    allow = list(config.remote.allow)
    if host_allowed(host, allow, config.mqtt.base):
        return list(overrides)
    return [*overrides, f"remote.allow={json.dumps([*allow, str(host)])}"]


def _load(args: argparse.Namespace) -> Config:
    """The config of this run: ``--config``, ``--set`` and, with ``--join``,
    the host allowed."""
    try:
        config = load_config(args.config, args.set)
        if args.join is not None:
            config = load_config(args.config, join_overrides(args.join, config, args.set))
    except ConfigError as error:
        raise UsageError(str(error)) from None
    return config


def _play(args: argparse.Namespace) -> int:
    if args.join is not None and args.demo:
        raise UsageError(
            "--join plays this board in a host's remote match; --demo plays a scripted game "
            "on a simulated board alone: use one or the other"
        )
    config = _load(args)
    use_config_level(args.log_level, config.log.level)
    if args.join is not None:
        allowed = ", ".join(config.remote.allow)
        log.info("a guest of %s's remote matches: [remote] allow = %s", args.join, allowed)
    # Asked for outright, the web service must start, or play stops saying why.
    asked = bool(args.leaderboard)
    if args.no_web and (asked or args.http is not None):
        raise UsageError("--no-web turns the web pages off: not with --leaderboard or --http")
    http = args.http or PLAY_HTTP
    parse_http_address(http)  # a bad one says so before anything starts
    try:
        operator_password = config.operator.password()
    except ConfigError as error:
        raise UsageError(str(error)) from None
    config = _demo_config(config) if args.demo else _free_broker_port(config)
    headless = args.screenshot is not None or not find_screen() or off_screen()
    prepare_pygame(render_only=headless)
    from display.app import open_app, render_state
    from display.state_feed import StateFeed

    web = not args.no_web and _web_can_start(http, asked)
    if web:
        config = with_lobby_page(config, http)

    daemon = DaemonThread(Daemon(config, first_game=DEMO_GAME if args.demo else None))
    daemon.start()
    if not daemon.wait_for_state():
        daemon.stop()
        if isinstance(daemon.error, ModuleNotFoundError):  # the embedded broker's amqtt
            raise daemon.error  # the CLI names the extra to install
        raise _daemon_failed(daemon, config)
    leaderboard: LeaderboardTask | None = None
    if web:
        try:
            leaderboard = _start_web(args, config, daemon, asked)
        except UsageError:
            daemon.stop()
            raise
    if leaderboard is not None:
        _print_pairing(config, daemon)
    mqtt = config.mqtt
    feed = StateFeed(
        daemon.daemon.broker.url if daemon.daemon.broker else mqtt.url,
        config.board.id,
        mqtt.base,
        username=mqtt.username or None,
        password=mqtt.password() if mqtt.password_file else None,
    )
    feed.start()
    try:
        state = feed.wait_for_state(15.0)
        if state is None:
            raise UsageError(f"the scoreboard cannot read the daemon's state at {feed.address}")
        if not headless:
            shown = config.display
            return open_app(
                feed,
                args.size,
                args.fullscreen or shown.fullscreen,
                sound=not (args.no_sound or shown.muted),
                caller=args.caller or shown.caller,
                volume=shown.volume,
                joining=args.join,
                operator=operator_access(config.operator, operator_password),
            ).run()
        if not args.demo and args.screenshot is None:  # nothing to wait for: serve the board
            _until_stopped(daemon, leaderboard, _serving(config, daemon, leaderboard))
            return 0
        status = _play_headless(feed, args, render_state)
        if leaderboard is not None and asked:
            said = f"Leaderboard: {leaderboard.url} (Ctrl-C stops it)\n"
            _until_stopped(daemon, leaderboard, said)
        return status
    finally:
        feed.close()
        if leaderboard is not None:
            leaderboard.stop()
        daemon.stop()
        if args.demo:  # the demo's journal was a throwaway
            shutil.rmtree(Path(config.journal.path).parent, ignore_errors=True)


def _web_can_start(http: str, asked: bool) -> bool:
    """Whether the web pages can be served at ``http``: its extra installed
    and its port free. Asked for outright (``asked``), a missing extra
    raises (the CLI names it) and a taken port is left to
    :meth:`LeaderboardTask.start` to refuse; by default each is a warning, and
    play goes on without the web."""
    try:
        importlib.import_module("leaderboard.service")
    except ModuleNotFoundError as error:
        if asked:
            raise
        log.warning(
            "no board page: the web service needs %s (pip install 'oche[leaderboard]'); "
            "play goes on without it",
            error.name,
        )
        return False
    host, port = parse_http_address(http)
    if not asked and address_in_use(host, port):
        log.warning(
            "no board page: port %d on %s is taken (another web server?); play goes on "
            "without the web (--http HOST:PORT picks another port, --no-web turns this off)",
            port,
            host,
        )
        return False
    return True


def _start_web(
    args: argparse.Namespace, config: Config, daemon: DaemonThread, asked: bool
) -> LeaderboardTask | None:
    """The web service started beside the daemon; ``None`` (a warning said
    why) when it did not and was not asked for outright, else a :class:`UsageError`."""
    try:
        try:
            settings = _leaderboard_settings(args, config, daemon)
        except ValueError as error:  # the database URL
            raise UsageError(f"leaderboard.db: {error}") from None
        leaderboard = LeaderboardTask(daemon, settings)
        leaderboard.start()
    except UsageError as error:
        if asked:
            raise
        log.warning("no board page: %s; play goes on without the web", error)
        return None
    return leaderboard


def pairing_banner(board_page: str, pairing: PairingState) -> str:
    """What the terminal shows of the board page: its URL, the pairing code
    and a QR code of the page with the code in it (a phone's camera opens it)."""
    import segno

    code = pairing.code
    lines = [
        f"Board page: {board_page} (a phone on this network opens it)",
        f"Pairing code: {code[:3]} {code[3:]} (type it on the page to control the board)",
    ]
    if pairing.url is None:
        return "\n".join(lines) + "\n"
    drawn = io.StringIO()
    segno.make_qr(pairing.url, error="m").terminal(out=drawn, compact=True)
    return "\n".join(lines) + "\n" + drawn.getvalue()


def _print_pairing(config: Config, daemon: DaemonThread) -> None:
    """Print :func:`pairing_banner` now and whenever the pairing code changes."""
    board_page = f"{config.lobby.web_url.rstrip('/')}/boards/{config.board.id}"
    pairing = daemon.daemon.pairing
    shown: list[str] = []

    def show(state: PairingState) -> None:
        if shown and shown[-1] == state.code:
            return
        shown.append(state.code)
        sys.stdout.write(pairing_banner(board_page, state))
        sys.stdout.flush()

    def watch() -> None:
        pairing.watch(show)
        show(pairing.current)

    with contextlib.suppress(RuntimeError):  # the daemon's loop is closed: it stopped
        daemon.loop.call_soon_threadsafe(watch)


def _serving(config: Config, daemon: DaemonThread, leaderboard: LeaderboardTask | None) -> str:
    """What a headless ``oche play`` without ``--demo`` or ``--screenshot`` says:
    the board is served, where a scoreboard can find it, how to stop it."""
    broker = daemon.daemon.broker
    url = broker.url if broker is not None else config.mqtt.url
    pages = f" (leaderboard: {leaderboard.url})" if leaderboard is not None else ""
    return (
        f"No screen here: the board runs without a scoreboard until Ctrl-C{pages}; "
        f"a screen shows it with: oche display --mqtt {url} --board {config.board.id}\n"
    )


def _play_headless(feed: Any, args: argparse.Namespace, render_state: Any) -> int:
    """No screen: wait for the game to end (the demo's, or with ``--join`` the
    host's match; or the timeout), then save a screenshot of the last state
    and print the scoreboard."""
    import pygame

    waits = args.demo or args.join is not None
    deadline = time.monotonic() + (HEADLESS_TIMEOUT_S if waits else 0.0)
    state = feed.state
    while time.monotonic() < deadline:
        state = feed.state
        over = bool(state and state.get("game") and state.get("finished"))
        if over and (args.join is None or state.get("remote")):
            break
        time.sleep(0.1)
    path = Path(args.screenshot or "oche-demo.png")
    shot = render_state(state, args.size, joining=args.join, pairing=feed.pairing)
    pygame.image.save(shot, str(path))
    if state and state.get("game"):
        sys.stdout.write(render_scoreboard(state))
    sys.stdout.write(f"No screen here: the scoreboard was saved to {path}\n")
    return 0


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "play",
        help="home setup: daemon, broker and display in one command (--demo: no board)",
        description="Run the daemon (with its own broker unless mqtt.url is set) and the "
        "scoreboard together. --demo plays a scripted game on a simulated board. --join HOST "
        "plays this board as a guest in HOST's remote matches (docs/remote.md). Without a "
        "screen, --demo saves its last scoreboard as a PNG (oche-demo.png, or --screenshot), "
        "--screenshot saves the scoreboard, and without either the board is served until "
        f"Ctrl-C. {KEYS_HELP}",
    )
    parser.add_argument("--demo", action="store_true", help="play a scripted demo game")
    parser.add_argument(
        "--join",
        metavar="HOST",
        help="play as a guest of HOST (pub1, or base/pub1 on another base): HOST is added to "
        "[remote] allow for this run, and the idle scoreboard waits for HOST to start a "
        "match; both boards need the same broker, so [mqtt] url must be set (not the "
        "embedded broker); not with --demo",
    )
    parser.add_argument(
        "--leaderboard",
        action="store_true",
        help="the web service must start (it runs by default, a warning when it cannot): "
        "every game stored ([leaderboard] db), the board page and the stats pages on --http; "
        "without a screen, served until Ctrl-C after --demo or --screenshot",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help=f"where the web pages are served (default {PLAY_HTTP}: a phone on the network "
        "reaches them)",
    )
    parser.add_argument(
        "--no-web",
        action="store_true",
        help="no web service: no board page, no pairing code, no stats pages",
    )
    parser.add_argument("--config", metavar="FILE", help="the config file (TOML)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="SECTION.KEY=VALUE", help="override a key"
    )
    add_window_arguments(parser, "render off-screen and save the last state here")
    add_sound_arguments(parser)
    parser.set_defaults(run=_play)
