"""What the daemon's core gives each extension: a narrow context, and the base class.

An extension (``firmware_bridge/daemon/extensions/``, the packages
``remote_host`` and ``remote_guest``) sees the core only through
:class:`ExtensionContext`: the clock and the configuration, the journal, the
game as it is (read only), starting a game (a called match), applying an
input, ignoring a contact, abandoning the game, publishing an ``event`` or
another message, asking for a state publish, background work, the lock it
must hold while it changes the game, and the bus
(:mod:`firmware_bridge.daemon.core_events`) to hear from the core and the
other extensions. It never holds the core itself, nor another
extension.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, TypeVar

from drivers.source import BoardSource
from engine import Event
from firmware_bridge.daemon.board_game import BoardGame
from firmware_bridge.daemon.bots import Bots
from firmware_bridge.daemon.config import Config
from firmware_bridge.daemon.core_events import CoreEvent
from firmware_bridge.daemon.game_commands import GameCommands
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from firmware_bridge.daemon.journal import Journal, JournalError
from firmware_bridge.daemon.mqtt_link import MqttLink
from mqtt_contract import DaemonEvent, NewGame

__all__ = ["Extension", "ExtensionContext"]

A = TypeVar("A")
T = TypeVar("T")
E = TypeVar("E", bound=CoreEvent[Any])


class ExtensionContext:
    """The core as an extension may use it. No I/O in the constructor."""

    def __init__(
        self, game: BoardGame, background: Callable[[Coroutine[Any, Any, None]], None]
    ) -> None:
        self._game = game
        self._background = background
        self.config: Config = game.config
        self.board_id: str = game.board_id
        self.clock: Callable[[], float] = game.clock
        self.journal: Journal = game.journal
        self.lock: asyncio.Lock = game.lock
        """Held while anything changes the game; an extension changing it (or
        what it keeps beside it) from its own task takes it first."""
        self.board: BoardSource | None = None
        """The board being read, once the daemon runs (the takeout sensor's watch)."""

    # -------------------------------------------------------------- the game

    @property
    def session(self) -> GameSession | None:
        """The game in progress (or finished, its winner shown); ``None``: idle."""
        return self._game.session

    @property
    def game_row(self) -> int | None:
        """The game's journal row."""
        return self._game.game_row

    @property
    def bots(self) -> Bots | None:
        """The game's computer players."""
        return self._game.bots

    @property
    def last_setup(self) -> SessionSetup | None:
        return self._game.last_setup

    def apply(
        self, planned: list[Event], source: str, taken: tuple[str, int] | None = None
    ) -> None:
        """Apply, journal and publish one input's events (see ``BoardGame.apply``)."""
        self._game.apply(planned, source, taken)

    def new_game(self, command: NewGame, now: float) -> None:
        """Start a game as a ``new_game`` command would (a called match its
        players confirmed); a ``Refusal`` or ``ValueError`` says why not.
        Under the lock, as every change of the game."""
        GameCommands(self._game).command(command, now)

    def ignore(
        self, segment: str, reason: str, now: float, taken: tuple[str, int] | None = None
    ) -> None:
        """A contact not scored: journaled with ``reason`` and published as ``ignored``."""
        self._game.ignore(segment, reason, now, taken)

    def abandon(self, now: float, reason: str) -> None:
        """End the game for good (a remote match abandoned, left)."""
        self._game.abandon(now, reason)

    def not_journaled(self, what: str, error: JournalError, now: float) -> str:
        """Refuse an input the journal did not take (an ``error`` event); its message."""
        return self._game.not_journaled(what, error, now)

    async def wait_for_journal(self) -> None:
        """Wait until a journal that refused a write writes again."""
        await self._game.wait_for_journal()

    # -------------------------------------------------------------- output

    @property
    def link(self) -> MqttLink | None:
        """The broker connection (``None`` until the daemon runs): for an
        extension's own topics (discovery, a remote match's channel)."""
        return self._game.publisher.link

    def publish(self, name: str, payload: dict[str, Any]) -> None:
        """Queue a message on the board's own topic ``name`` (``books``, ...)."""
        self._game.publisher.publish(name, payload)

    def publish_event(self, event: DaemonEvent) -> None:
        """Queue an ``event`` message."""
        self._game.publisher.publish_event(event)

    def request_state(self) -> None:
        """Queue a state publish (one for a burst of changes)."""
        self._game.publisher.request_state()

    async def off_loop(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)``, slow (a computer player's aim), computed off the
        loop by the daemon's solving process (``off_loop.SolveWorker``: both
        picklable), its exceptions raised here."""
        return await self._game.off_loop.worker.call(function, *args)

    def background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` as a task of the daemon's (kept until it is done)."""
        self._background(coroutine)

    # -------------------------------------------------------------- the bus

    def subscribe(self, kind: type[E], handler: Callable[[E], object], order: int = 0) -> None:
        """Hear of each ``kind`` (see ``EventBus.subscribe``)."""
        self._game.bus.subscribe(kind, handler, order)

    def emit(self, event: CoreEvent[A]) -> list[A]:
        """Every handler's answer (see ``EventBus.emit``)."""
        return self._game.bus.emit(event)

    def first(self, event: CoreEvent[A]) -> A | None:
        """The first handler's answer (see ``EventBus.first``)."""
        return self._game.bus.first(event)


class Extension:
    """One extension of the daemon: built with the context only (no I/O in
    its constructor, where it subscribes to the bus); the core calls these
    on every (re)connect and message, runs :meth:`run` as long as the daemon
    runs, and :meth:`close` as it stops."""

    CONNECT_BEFORE_STATE: ClassVar[bool] = False
    """:meth:`on_connect` runs before the retained state is published (discovery)."""

    def opened(self) -> None:
        """The journal is open, before the board's game resumes: read what
        the extension keeps there."""

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe, publish what is retained."""

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic subscribed; ``True`` when it was this extension's."""
        return False

    async def run(self) -> None:
        """The extension's own timers until cancelled (none by default)."""

    def close(self) -> None:
        """The daemon stops: cancel what is scheduled."""
