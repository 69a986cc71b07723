"""The daemon: board events and MQTT commands in, a journaled game out.

:class:`Daemon` is the core's wiring: it builds the core (the game and its
journal, :mod:`~firmware_bridge.daemon.board_game`; the board's input,
:mod:`~firmware_bridge.daemon.board_input`; the game commands,
:mod:`~firmware_bridge.daemon.game_commands`; the publish queue,
:mod:`~firmware_bridge.daemon.publisher`), hands each extension its
:class:`~firmware_bridge.daemon.extension_context.ExtensionContext`, and runs
them all. The core and its extensions speak over the typed bus of
:mod:`firmware_bridge.daemon.core_events`; no extension holds the core or
another extension (the operator commands alone are given the coin-op's).

The extensions: the coin-op's credits and books, the operator's commands,
Home Assistant discovery, the computer players, the takeout sensor's watch,
the lobby, the pairing of browsers (``firmware_bridge/daemon/extensions/``),
and a remote match's host and guest
(:mod:`~firmware_bridge.daemon.remote_host`,
:mod:`~firmware_bridge.daemon.remote_guest`).

A journal that refuses writes (a full SD card: docs/journal.md) stops
nothing but the counting: each input it does not take is refused as a whole
with an ``error`` event, the state's ``journal`` block says why
(:mod:`firmware_bridge.daemon.journal_health`), and the takeout timer and the
computer players wait until it writes again.

Results leave the journal's outbox only once a leaderboard has stored them
(:mod:`firmware_bridge.daemon.result_delivery`). A game finished again after
an undo publishes a new revision of its result (same ``game_key``), and a
reopened game abandoned after its result was sent publishes a withdrawal.
Each result says whether the board's clock was synchronised
(:mod:`firmware_bridge.daemon.clock_sync`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from drivers.card_readers import open_card_reader
from drivers.factory import open_board
from drivers.source import BoardSource
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.board_claim import BoardIdTaken
from firmware_bridge.daemon.board_game import BoardGame
from firmware_bridge.daemon.board_input import BoardInput
from firmware_bridge.daemon.clock_sync import clock_synced
from firmware_bridge.daemon.config import Config
from firmware_bridge.daemon.core_events import EventBus
from firmware_bridge.daemon.embedded_broker import EmbeddedBroker
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.extensions.bot_players import BotPlayers
from firmware_bridge.daemon.extensions.coin_op import CoinOp
from firmware_bridge.daemon.extensions.ha_discovery import HomeAssistantDiscovery
from firmware_bridge.daemon.extensions.lobby import Lobby
from firmware_bridge.daemon.extensions.operator_commands import OperatorCommands
from firmware_bridge.daemon.extensions.pairing import Pairing
from firmware_bridge.daemon.extensions.takeout_watch import TakeoutWatch
from firmware_bridge.daemon.game_commands import GameCommands
from firmware_bridge.daemon.game_session import Refusal, SessionSetup
from firmware_bridge.daemon.journal import Journal, JournalDamaged, JournalError
from firmware_bridge.daemon.journal_health import JournalHealth
from firmware_bridge.daemon.journal_salvage import salvage_in_place
from firmware_bridge.daemon.mqtt_link import LinkSettings, MqttLink
from firmware_bridge.daemon.off_loop import SolveWorker
from firmware_bridge.daemon.publisher import Publisher
from firmware_bridge.daemon.remote_guest import RemoteGuest
from firmware_bridge.daemon.remote_host import RemoteHost
from firmware_bridge.daemon.result_delivery import ResultDelivery
from mqtt_contract import ErrorReported, Phase, topic

__all__ = ["Daemon"]

log = logging.getLogger(__name__)


class Daemon:
    """One board's daemon. The constructor does no I/O; :meth:`run` runs until
    cancelled and then shuts down cleanly (availability offline, journal closed).
    ``first_game`` is started before the board is read unless a journaled game
    resumes (``oche play --demo`` uses it so no dart can beat the game's start),
    priced as ``new_game`` is. ``clock_synced`` says whether a time read from
    ``clock`` is a date (see :func:`firmware_bridge.daemon.clock_sync.clock_synced`).
    ``card_reader`` reads player cards beside the board; by default the one
    ``[cards] reader`` names (none unless set)."""

    def __init__(
        self,
        config: Config,
        clock: Callable[[], float] = time.time,
        source: BoardSource | None = None,
        first_game: SessionSetup | None = None,
        clock_synced: Callable[[float], bool] = clock_synced,
        card_reader: BoardSource | None = None,
        solve_worker: SolveWorker | None = None,
    ) -> None:
        """``solve_worker``: where slow solves run (:mod:`~firmware_bridge.daemon.off_loop`;
        a process of the daemon's own unless told otherwise)."""
        self.config = config
        self._first_game = first_game
        self.clock = clock
        self.clock_synced = clock_synced
        self.board_id = config.board.id
        self.publisher = Publisher(self.state, self._sent)
        self.journal_health = JournalHealth(self.publisher.request_state)
        """Whether the journal takes writes (the state's ``journal`` block)."""
        self.journal = Journal(config.journal.resolved_path(), on_write=self.journal_health.wrote)
        self.results = ResultDelivery(self.journal, self.board_id, config.mqtt.base, clock)
        """The outbox, delivered until a leaderboard has stored each result."""
        self.bus = EventBus()
        self.game = BoardGame(
            config,
            clock,
            clock_synced,
            self.journal,
            self.journal_health,
            self.results,
            self.bus,
            self.publisher,
            solve_worker or SolveWorker(),
        )
        self.commands = GameCommands(self.game)
        self.inputs = BoardInput(self.game, self.commands)
        self._source = source
        self._card_reader = card_reader
        self._tasks: set[asyncio.Task[None]] = set()
        self.broker: EmbeddedBroker | None = None
        self.context = ExtensionContext(self.game, self._background)
        context = self.context
        # The order counts where several answer one event: the guest takes
        # a board's input first, the host refuses a turn before a bot does.
        self.remote_guest = RemoteGuest(context)
        """The remote match this board is a guest in."""
        self.remote_host = RemoteHost(context)
        """The remote match this board hosts (docs/remote.md)."""
        self.coin_op = CoinOp(context)
        self.lobby = Lobby(context)
        """The players who joined the board's next game (docs/players.md)."""
        self.pairing = Pairing(context)
        """The browsers paired to control the board from the web (docs/phone.md)."""
        self.extensions: tuple[Extension, ...] = (
            self.remote_guest,
            self.remote_host,
            self.coin_op,
            OperatorCommands(context, self.coin_op),
            HomeAssistantDiscovery(context),
            BotPlayers(context),
            TakeoutWatch(context),
            self.lobby,
            self.pairing,
        )
        self._start_refusal: str | None = None
        """Why ``first_game`` did not start, until it is published."""
        self._salvage_message: str | None = None
        """A start's salvage of a damaged journal, for the first connection's ``error`` event."""

    @property
    def link(self) -> MqttLink | None:
        """The broker connection, once :meth:`run` made it."""
        return self.publisher.link

    # ------------------------------------------------------------------ run

    async def run(self) -> None:
        if not self.config.mqtt.url:
            EmbeddedBroker.require()  # a missing oche[broker] stops us before anything starts
        # So does a card reader's missing oche[cards]; once open, its failures stop nothing.
        card_reader = self._card_reader or open_card_reader(self.config.cards.reader_spec())
        self._log_start_up()
        self._open_journal()
        try:
            for extension in self.extensions:
                extension.opened()
            self.game.resume()
            session = self.game.session
            finished = session is None or session.is_finished
            if finished and self._first_game is not None:  # an unfinished game resumes instead
                self._start_first_game(self._first_game)
            url = self.config.mqtt.url
            if not url:
                self.broker = EmbeddedBroker(
                    self.config.mqtt.embedded_host, self.config.mqtt.embedded_port
                )
                await self.broker.start()
                url = self.broker.url
            log.info("MQTT broker: %s%s", url, " (embedded)" if self.broker else "")
            mqtt = self.config.mqtt
            operator_topic = topic(mqtt.base, self.board_id, "operator/cmd")

            async def on_operator(payload: bytes) -> None:
                await self._on_message(operator_topic, payload, False)

            link = MqttLink(
                LinkSettings(
                    url=url,
                    base=mqtt.base,
                    board=self.board_id,
                    username=mqtt.username or None,
                    password=mqtt.password() if mqtt.password_file else None,
                    ca_file=mqtt.ca_file or None,
                    client_id=self.config.client_id,
                    keepalive=mqtt.keepalive,
                ),
                on_command=self.commands.on_command,
                on_connect=self._on_connect,
                on_message=self._on_message,
                on_operator=on_operator,
            )
            self.publisher.link = link
            await self.results.subscribe(link)
            source = self._source or open_board(
                self.config.board.spec(), test_card=self.config.cards.test_card
            )
            self.context.board = source
            try:
                async with asyncio.TaskGroup() as tasks:
                    tasks.create_task(link.run())
                    tasks.create_task(self.inputs.read(source))
                    if card_reader is not None:
                        tasks.create_task(self.inputs.read_cards(card_reader))
                    tasks.create_task(self.game.ticker())
                    for extension in self.extensions:
                        tasks.create_task(self._outlive_the_journal(extension.run))
                    tasks.create_task(self.journal_health.retry(self.journal))
            except* BoardIdTaken as taken:
                # Another daemon holds this board id on the broker: stop, as it is.
                raise taken.exceptions[0] from None
            finally:
                for extension in self.extensions:
                    extension.close()
                await source.close()
                if card_reader is not None:
                    await card_reader.close()
                await link.close()
        finally:
            self.results.close()
            self.journal.close()
            await self.game.off_loop.close()  # no solving process outlives the daemon
            if self.broker is not None:
                await self.broker.stop()

    def _start_first_game(self, setup: SessionSetup) -> None:
        """Start the game asked for at start-up (``oche run --game``) as
        ``new_game`` would, its price included. Refused (a coin-operated
        board short of credits), the board runs idle: the refusal is logged,
        and published as an ``error`` event once the broker is reached."""
        try:
            self.game.start(setup, self.clock())
        except Refusal as refusal:
            players = ", ".join(setup.players)
            self._start_refusal = f"{setup.game} for {players} not started: {refusal}"
            log.warning("%s; the board waits for new_game", self._start_refusal)

    def _open_journal(self) -> None:
        """Open the journal. A damaged one does not stop the board: it is set
        aside and salvaged into a fresh one (docs/journal.md), with one ERROR
        line, the state's ``journal.salvaged`` until the next game, and an
        ``error`` event on the first connection."""
        try:
            self.journal.open()
            return
        except JournalDamaged as damaged:
            said = [line for text in damaged.problems for line in text.splitlines()]
            problem = next((line for line in said if not line.startswith("***")), "unreadable")
        report = salvage_in_place(self.journal.path, self.clock())
        self.journal.open()
        message = (
            f"journal {self.journal.path} is damaged ({problem}): set aside as {report.source}; "
            f"{report.summary()}"
        )
        log.error("%s", message)
        self.journal_health.salvage_done(f"the journal was damaged: {report.screen_line()}")
        self._salvage_message = message

    def _log_start_up(self) -> None:
        """One INFO line for each of the board, the journal and discovery (the
        broker's follows once it is known)."""
        board, ha = self.config.board, self.config.homeassistant
        where = {"serial": f" on {board.port}", "usb": f" {board.usb_vid}:{board.usb_pid}"}
        log.info("board %s: %s driver%s", self.board_id, board.driver, where.get(board.driver, ""))
        log.info("journal: %s", self.journal.path)
        log.info("Home Assistant discovery: %s", "on" if ha.enabled else "off")

    async def _outlive_the_journal(self, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run the loop ``run`` makes; stopped by a journal that refused a
        write, it starts again when the journal writes again."""
        while True:
            try:
                await run()
                return
            except JournalError as error:
                log.error("%s; starting again", error)
                await self.game.wait_for_journal()

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -------------------------------------------------------------- outputs

    def state(self) -> dict[str, Any]:
        """The ``state`` payload: the game's state JSON (or none: idle), the
        phase, the board and the journal's health, with what the extensions
        add (:class:`~firmware_bridge.daemon.core_events.StateBuilt`: the
        credits, the computer players, the remote match)."""
        board = self.inputs.state()
        if not self.clock_synced(self.clock()):
            board["clock_synced"] = False
        journal = self.journal_health.state()
        session = self.game.session
        idle = {"game": None, "phase": Phase.IDLE.value}
        game = idle if session is None else self.game.off_loop.state(session.state)
        state = {**game, "board": board, "credits": None, "journal": journal}
        self.bus.emit(core_events.StateBuilt(state))
        return state

    def _sent(self) -> None:
        self.bus.emit(core_events.StatePublished())

    async def _on_connect(self) -> None:
        """After every (re)connect: discovery, the retained state, owed results
        (a leaderboard's retained ``online`` then sends the unstored again),
        and each extension's own."""
        link = self.link
        assert link is not None
        if self._salvage_message is not None:
            message, self._salvage_message = self._salvage_message, None
            self.publisher.publish_event(ErrorReported(self.clock(), "journal-salvaged", message))
        for extension in self.extensions:
            if extension.CONNECT_BEFORE_STATE:
                await extension.on_connect()
        await link.publish("state", self.state())
        if self._start_refusal is not None:
            self.publisher.publish_event(
                ErrorReported(self.clock(), "refused", self._start_refusal)
            )
            self._start_refusal = None
        self.results.deliver()
        for extension in self.extensions:
            if not extension.CONNECT_BEFORE_STATE:
                await extension.on_connect()

    async def _on_message(self, topic: str, payload: bytes, retain: bool) -> None:
        """A message on a topic subscribed besides the commands: a
        leaderboard's ``result/stored`` or availability, the operator's
        commands, a remote match's (the guest's or the host's). One the
        journal refused is taken again when it is sent again."""
        try:
            if self.results.on_message(topic, payload):
                return
            for extension in self.extensions:
                if await extension.on_message(topic, payload, retain):
                    return
        except JournalError as error:
            self.game.not_journaled(f"a message on {topic}", error, self.clock())
