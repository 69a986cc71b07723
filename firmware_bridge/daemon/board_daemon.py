"""The daemon: board events and MQTT commands in, a journaled game out.

Every accepted input becomes engine events (a dart, ``NEXT``, ``UNDO``,
``BOUNCE``). The game applies them, and what they decide (the tokens, and
the game's finish with its result, or its reopening by an undo or a
bounce-out) is committed to the journal in
one transaction *before* anything is published, so a crash loses nothing and
never splits a dart from its consequences: on start the board's last game is
replayed from its tokens, any finish or reopening a journal from an older
Oche left undone is completed, and the state republished unchanged. All
changes go through one lock, one at a time; publishing is left to a queue,
sent on the loop's next turn without waiting for the broker, so a slow broker
never holds up a dart.

A computer player's darts (:mod:`firmware_bridge.daemon.bots`) take the same
path as a board's: the bot task waits ``[bot] dart_interval_s``, aims off the
event loop, then plans, applies, journals and publishes the dart under the
lock (``source: "cpu"``); after its visit it waits ``[bot] takeout_s`` and
presses NEXT. While a computer player's visit is on, board hits are ignored
(reason ``cpu-turn``) and darts, misses and NEXT by hand are refused.

A board with a takeout sensor (``[board] sensors`` has ``ultrasonic``: a
DaSCR board) is told to watch while this board's visit is in its takeout,
and after a win until the darts are seen taken out; the sensor seeing them
during the takeout ends it as NEXT does (``takeout_sensed``, docs/mqtt.md).

A journal that refuses writes (a full SD card: docs/journal.md) stops
nothing but the counting: each input it does not take is refused as a whole
with an ``error`` event, the state's ``journal`` block says why
(:mod:`firmware_bridge.daemon.journal_health`), and the takeout timer and the
computer players wait until it writes again.

A coin-operated board (``[credits] mode = "coin"``, docs/credits.md) keeps
its credits in the journal's ledger: a coin is journaled (with the
firmware's running count) before it counts, a game's price is spent in the
transaction that starts it, and a game short of credits is refused naming
the shortfall (``new_game``, ``rematch`` and the start-up game alike). The
operator's commands come on ``operator/cmd``; every change of the credits
is a ``credits`` event, and the retained ``books`` snapshot follows each
change of the books.

Results leave the journal's outbox only once a leaderboard has stored them
(:mod:`firmware_bridge.daemon.result_delivery`). A game finished again after
an undo publishes a new revision of its result (same ``game_key``), and a
reopened game abandoned after its result was sent publishes a withdrawal.
Each result says whether the board's clock was synchronised
(:mod:`firmware_bridge.daemon.clock_sync`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from drivers.board_decoder import DIAGNOSES
from drivers.board_events import (
    BatteryEvent,
    BoardEvent,
    ButtonEvent,
    CoinEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
    TakeoutEvent,
)
from drivers.factory import open_board
from drivers.source import BoardSource
from engine import (
    BOUNCE,
    UNDO,
    Bed,
    Bounce,
    EngineError,
    Event,
    NotationError,
    Undo,
    parse_event,
)
from engine.board_geometry import GEOMETRIES, BoardGeometry
from engine.registry import game_class
from firmware_bridge.daemon.board_claim import BoardIdTaken
from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.bots import Bots, resolve_bots
from firmware_bridge.daemon.clock_sync import clock_synced
from firmware_bridge.daemon.config import Config
from firmware_bridge.daemon.credits import (
    HappyHour,
    PriceList,
    active_happy_hour,
    game_cost,
    local_time,
    paid_options,
    price_per_player,
    pulse_credits,
    shortfall,
)
from firmware_bridge.daemon.embedded_broker import EmbeddedBroker
from firmware_bridge.daemon.events import (
    BatteryLevel,
    BoardConnected,
    BoardDisconnected,
    ButtonPressed,
    CreditsChanged,
    DaemonEvent,
    Dart,
    ErrorReported,
    GameOver,
    GameStarted,
    Ignored,
    Released,
    Stuck,
    TakeoutSensed,
)
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.home_assistant import discovery_messages, discovery_removals
from firmware_bridge.daemon.journal import (
    Charge,
    Finish,
    Journal,
    JournalDamaged,
    JournalError,
    JournalGame,
    Withdrawal,
)
from firmware_bridge.daemon.journal_health import RETRY_S, JournalHealth
from firmware_bridge.daemon.journal_salvage import salvage_in_place
from firmware_bridge.daemon.mqtt_link import LinkSettings, MqttLink, to_json
from firmware_bridge.daemon.off_loop import OffLoop
from firmware_bridge.daemon.remote_guest import RemoteGuest
from firmware_bridge.daemon.remote_host import RemoteHost
from firmware_bridge.daemon.result_delivery import ResultDelivery
from mqtt_contract import (
    CommandError,
    Phase,
    parse_command,
    parse_operator_command,
    response_payload,
    result_document,
    topic,
)

__all__ = ["COMMAND_HANDLERS", "CPU_TURN", "GAME_BUTTONS", "OPERATOR_HANDLERS", "Daemon"]

log = logging.getLogger(__name__)

CPU_TURN = "cpu-turn"
"""The reason of a board hit ignored because a computer player is throwing."""

_UNDERSTOOD = (HitEvent, ButtonEvent, TakeoutEvent, CoinEvent, StuckEvent, ReleasedEvent)
"""Board events that show the board is read as it should be (they end a
diagnosed ``board.problem``)."""


class Daemon:
    """One board's daemon. The constructor does no I/O; :meth:`run` runs until
    cancelled and then shuts down cleanly (availability offline, journal closed).
    ``first_game`` is started before the board is read unless a journaled game
    resumes (``oche play --demo`` uses it so no dart can beat the game's start),
    priced as ``new_game`` is. ``clock_synced`` says whether a time read from
    ``clock`` is a date (see :func:`firmware_bridge.daemon.clock_sync.clock_synced`)."""

    DISCOVERY_STATE_DELAY = 1.0
    """Seconds after a Home Assistant discovery round before the state is
    published again: Home Assistant sets up the sensors a round created a
    moment after their configuration arrives, and only then reads the state."""

    def __init__(
        self,
        config: Config,
        clock: Callable[[], float] = time.time,
        source: BoardSource | None = None,
        first_game: SessionSetup | None = None,
        clock_synced: Callable[[float], bool] = clock_synced,
    ) -> None:
        self.config = config
        self._first_game = first_game
        self.clock = clock
        self.clock_synced = clock_synced
        self.board_id = config.board.id
        self.journal_health = JournalHealth(self._publish_state)
        """Whether the journal takes writes (the state's ``journal`` block)."""
        self.journal = Journal(config.journal.resolved_path(), on_write=self.journal_health.wrote)
        self.session: GameSession | None = None
        self.game_row: int | None = None
        self.started_at: float | None = None
        self.last_setup: SessionSetup | None = None
        self.board_connected = False
        self.board_problem: str | None = None
        """What is wrong with the board, for the state's ``board.problem``: why
        it is disconnected, or what its source diagnosed (docs/drivers.md)."""
        self.stuck_cells: set[tuple[int, int]] = set()
        self._source = source
        self._board: BoardSource | None = None
        """The board being read, once :meth:`run` has opened it."""
        self._ultrasonic = "ultrasonic" in config.board.sensors
        self._watch_asked: bool | None = None
        """The takeout watch last asked of the board (``None``: not yet)."""
        self._finish_watched: tuple[GameSession, int] | None = None
        """The finished game (its session, its events applied) whose takeout was seen."""
        self._lock = asyncio.Lock()
        self.off_loop = OffLoop(self._lock, self._publish_state, lambda: self.session)
        """Slow solves (a skill test's report) done off the loop, then published."""
        self._outgoing: deque[tuple[str, dict[str, Any] | None]] = deque()
        self._flush_due = False
        self._state_queued = False
        self._timer_changed = asyncio.Event()
        self._ticker_deadline: float | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.results = ResultDelivery(self.journal, self.board_id, config.mqtt.base, clock)
        """The outbox, delivered until a leaderboard has stored each result."""
        self._discovering = asyncio.Lock()
        self._discovered_players: int | None = None
        self._discovered_credits: bool | None = None
        """Whether the credits sensors were last published (True) or removed."""
        self._discovery_state: asyncio.TimerHandle | None = None
        self.link: MqttLink | None = None
        self.broker: EmbeddedBroker | None = None
        self.bots: Bots | None = None
        self.last_bots: Bots | None = None
        self._bot_due: float | None = None
        self._bot_wake = asyncio.Event()
        self.remote_host = RemoteHost(self)
        """The remote match this board hosts (docs/remote.md)."""
        self.remote_guest = RemoteGuest(self)
        """The remote match this board is a guest in."""
        self.credits_held = 0
        """The credits the board holds (the journal's ledger, read at start)."""
        self.operator_settings: dict[str, Any] = {}
        """What the operator set (free_play, price, price.<game>), from the journal."""
        self._coins_today: tuple[float, int] | None = None
        """(the local midnight, the coin pulses since): the state's ``coins_today``."""
        self._start_refusal: str | None = None
        """Why ``first_game`` did not start, until it is published."""
        self._salvage_message: str | None = None
        """A start's salvage of a damaged journal, for the first connection's ``error`` event."""

    # ------------------------------------------------------------------ run

    async def run(self) -> None:
        if not self.config.mqtt.url:
            EmbeddedBroker.require()  # a missing oche[broker] stops us before anything starts
        self._log_start_up()
        self._open_journal()
        try:
            self.credits_held = self.journal.credit_balance(self.board_id)
            self.operator_settings = self.journal.operator_settings(self.board_id)
            self._resume()
            self.remote_guest.resume()
            finished = self.session is None or self.session.game.is_finished
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
            self.link = MqttLink(
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
                on_command=self._on_command,
                on_connect=self._on_connect,
                on_message=self._on_message,
                on_operator=self._on_operator,
            )
            await self.results.subscribe(self.link)
            source = self._source or open_board(self.config.board.spec())
            self._board = source
            try:
                async with asyncio.TaskGroup() as tasks:
                    tasks.create_task(self.link.run())
                    tasks.create_task(self._read_board(source))
                    tasks.create_task(self._ticker())
                    tasks.create_task(self._bot_player())
                    tasks.create_task(self._outlive_the_journal(self.remote_host.run))
                    tasks.create_task(self._outlive_the_journal(self.remote_guest.run))
                    tasks.create_task(self.journal_health.retry(self.journal))
            except* BoardIdTaken as taken:
                # Another daemon holds this board id on the broker: stop, as it is.
                raise taken.exceptions[0] from None
            finally:
                if self._discovery_state is not None:
                    self._discovery_state.cancel()
                await source.close()
                await self.link.close()
        finally:
            self.results.close()
            self.journal.close()
            if self.broker is not None:
                await self.broker.stop()

    def _start_first_game(self, setup: SessionSetup) -> None:
        """Start the game asked for at start-up (``oche run --game``) as
        ``new_game`` would, its price included. Refused (a coin-operated
        board short of credits), the board runs idle: the refusal is logged,
        and published as an ``error`` event once the broker is reached."""
        try:
            self._start(setup, self.clock())
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

    def _resume(self) -> None:
        """Bring back the board's last game from the journal: replay it, and
        complete a finish or an undo of the win that the journal did not record
        (a journal written by an Oche that recorded them in two steps). A
        finished game comes back finished, its winner shown until the next game."""
        latest = self.journal.latest_game(self.board_id)
        if latest is None or latest.status == "ended":
            return
        self.last_setup = SessionSetup(latest.game, latest.options, latest.players, latest.teams)
        self.started_at = latest.started_at
        self.last_bots = None
        if latest.bots is not None:
            try:
                self.last_bots = Bots.from_json(latest.game, latest.bots)
            except ValueError as error:
                log.error("journal game %d: %s; no computer player throws", latest.id, error)
        try:
            session = self._replay(latest)
        except EngineError as error:  # say a name an older Oche took and the rule now refuses
            log.error("journal game %d cannot be resumed: %s; no game runs", latest.id, error)
            return
        if latest.status == "finished" and session.game.is_finished:
            # The winner stays on screen until the next game, as it did before
            # the restart (its match, if remote, is over: not resumed).
            self.session, self.game_row, self.bots = session, latest.id, self.last_bots
            log.info("game %d (%s) is finished: its result is shown", latest.id, latest.game)
            return
        if latest.status == "finished" and latest.events[-1:] not in ([str(UNDO)], [str(BOUNCE)]):
            # Its events do not give its finish (a salvaged journal kept the result
            # of a game whose darts were lost): the board idles until the next.
            log.warning("journal game %d: its events do not finish it; not resumed", latest.id)
            return
        if latest.status == "finished":
            log.warning("journal game %d: its win was undone; reopening it", latest.id)
            self.journal.reopen_game(latest.id)
        elif session.game.is_finished:
            log.warning("journal game %d: its last dart won; recording the result", latest.id)
            at = latest.last_event_at if latest.last_event_at is not None else self.clock()
            finish = self._finish_record(
                session, at, row=latest.id, clock_synced=self._dates(at, latest.started_at)
            )
            self.journal.record(latest.id, [], finish=finish)
        self.session, self.game_row, self.bots = session, latest.id, self.last_bots
        self.remote_host.resumed(latest)
        self._bot_schedule(self.clock())
        log.info(
            "resumed game %d (%s) after %d journaled events",
            latest.id,
            latest.game,
            len(latest.events),
        )

    def _replay(self, journaled: JournalGame) -> GameSession:
        """A session with the journaled game's events applied, as they were live."""
        setup = SessionSetup(journaled.game, journaled.options, journaled.players, journaled.teams)
        session = self._new_session(setup)
        now = self.clock()
        for token in journaled.events:
            try:
                session.apply(parse_event(token), now)
            except EngineError as error:
                # An older Oche journaled a token before applying it, so a token
                # the engine refused then may be in the journal: skip it here too.
                log.warning("journal game %d: token %r skipped: %s", journaled.id, token, error)
        return session

    def _new_session(self, setup: SessionSetup) -> GameSession:
        visit = self.config.visit
        return GameSession(setup, coalesce_ms=visit.coalesce_ms, takeout_s=visit.takeout_s)

    # -------------------------------------------------------------- outputs

    def state(self) -> dict[str, Any]:
        """The ``state`` payload: the game's state JSON, the phase, the board,
        the credits and the journal's health."""
        board = {
            "id": self.board_id,
            "name": self.config.board.name,
            "connected": self.board_connected,
            "status": (
                "disconnected"
                if not self.board_connected
                else ("stuck" if self.stuck_cells else "connected")
            ),
            "stuck_cells": [list(cell) for cell in sorted(self.stuck_cells)],
            "problem": self.board_problem,
        }
        now = self.clock()
        if not self.clock_synced(now):
            board["clock_synced"] = False
        credits = self.credits_state(now)
        journal = self.journal_health.state()
        idle = {
            "game": None,
            "phase": Phase.IDLE.value,
            "board": board,
            "credits": credits,
            "journal": journal,
        }
        if self.remote_guest.active:  # the host's state, with this board's own journal
            return {**self.remote_guest.state(idle), "journal": journal}
        if self.session is None:
            return idle
        state = {**self.off_loop.state(self.session.state), "board": board, "credits": credits}
        state["journal"] = journal
        if self.bots is not None:
            for player in state["players"]:
                cpu = self.bots.players.get(player["name"])
                if cpu is not None:
                    player["cpu"] = cpu.as_json()
        return self.remote_host.state(state)

    def _publish(self, name: str, payload: dict[str, Any] | None) -> None:
        """Queue a message; :meth:`_publisher` sends the queue on the loop's next turn."""
        self._outgoing.append((name, payload))
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._publisher)

    def _publish_state(self) -> None:
        """Queue a state publish; the publisher sends the state as it is then, so
        a burst of changes costs one message."""
        if not self._state_queued:
            self._state_queued = True
            self._publish("state", None)

    def _publish_event(self, event: DaemonEvent) -> None:
        self._publish("event", event.to_json())

    def _publisher(self) -> None:
        """Send the queued messages in order (a dart's events, then its state),
        each handed to paho and left to it: fire-and-forget at QoS 1, no task
        and no wait for a PUBACK per message (only results wait, in
        :class:`ResultDelivery`). While the broker is away they are dropped:
        the retained state is republished on reconnect."""
        self._flush_due = False
        outgoing = self._outgoing
        while outgoing:
            name, payload = outgoing.popleft()
            if name == "state":
                self._state_queued = False
            if self.link is None or not self.link.connected:
                continue
            try:
                self.link.send(name, self.state() if payload is None else payload)
            except Exception:
                log.exception("could not publish on %s", name)
        self._sync_takeout_watch()

    # ----------------------------------------------------------- takeout watch

    def _sync_takeout_watch(self) -> None:
        """Ask a board with a takeout sensor to watch, or to stop, when what it
        should do has changed (after every change: it runs with each publish)."""
        board = self._board
        if board is None or not self._ultrasonic:
            return
        try:
            wanted = self._takeout_watch_wanted()
        except Exception:  # a bug here must not stop the publishing it rides on
            log.exception("could not tell whether the board should watch for the takeout")
            return
        if wanted != self._watch_asked:
            self._watch_asked = wanted
            self._background(board.watch_takeout(wanted))

    def _takeout_watch_wanted(self) -> bool:
        """Whether the board should watch for its darts being taken out: in
        this board's takeout (a remote guest's local one), and after a win
        until they were seen taken out. Never while someone throws (a DaSCR
        board scans no hits while it watches), nor for a computer player's
        visit or a visit thrown at another board of a remote match."""
        if self.remote_guest.active:
            return self.remote_guest.in_takeout
        session = self.session
        if session is None:
            return False
        if session.phase == Phase.FINISHED:
            return (
                self._finish_watched != (session, session.applied)
                and self.remote_host.takeout_here()
                and not self._cpu_threw_last()
            )
        return self._in_own_takeout()

    def _in_own_takeout(self) -> bool:
        """This board's visit is over and its player pulls the darts out: what
        a sensed takeout ends (not a computer player's, nor another board's)."""
        session = self.session
        return (
            session is not None
            and session.phase == Phase.TAKEOUT
            and self.remote_host.takeout_here()
            and self._cpu_visit() is None
        )

    def _cpu_threw_last(self) -> bool:
        """The player whose visit is (or was, at a win) on the board is a computer player."""
        session, bots = self.session, self.bots
        if session is None or bots is None:
            return False
        return session.game.lineup.players[session.thrower()] in bots.players

    def _takeout(self, now: float) -> None:
        """The board's sensor saw the darts being taken out: in this board's
        takeout it ends the visit as NEXT does (on a remote guest: NEXT is
        forwarded); at any other time it is only published."""
        ended = False
        session = self.session
        try:
            if self.remote_guest.active:
                if self.remote_guest.in_takeout:
                    self.remote_guest.action("next", None, now)
                    ended = True
            elif session is not None and self._in_own_takeout():
                self._apply(session.plan_next(), "board")
                ended = True
            elif session is not None and session.phase == Phase.FINISHED:
                self._finish_watched = (session, session.applied)  # seen: the watch stops
        except (Refusal, EngineError) as refusal:
            self._publish_event(ErrorReported(now, "refused", str(refusal)))
        self._publish_event(TakeoutSensed(now, ended))

    async def _publish_discovery(self) -> None:
        """Home Assistant discovery for the current game's players (and the
        credits sensors while the board charges for games), then the removal
        of the score sensors the game before had and this one has not (all of
        them after a restart, when that is not known) and of the credits
        sensors on free play. One message at a time, each awaiting its PUBACK,
        and one run at a time: a new game never piles up publishes, and two
        quick games cannot interleave. A round that went through publishes the
        state :attr:`DISCOVERY_STATE_DELAY` later again, for the sensors it
        created (Home Assistant gives a new sensor no retained copy of a topic
        it already reads)."""
        if self.link is None or not self.config.homeassistant.enabled:
            return
        async with self._discovering:
            players = len(self.session.setup.players) if self.session else 0
            credits = self.config.credits.mode == "coin" and not self.free_play()
            prefix = self.config.homeassistant.discovery_prefix
            messages: list[tuple[str, dict[str, Any] | str]] = [
                *discovery_messages(
                    prefix,
                    self.config.mqtt.base,
                    self.board_id,
                    self.config.board.name,
                    players,
                    credits=credits,
                ),
                *discovery_removals(
                    prefix,
                    self.board_id,
                    players,
                    self._discovered_players,
                    credits=not credits and self._discovered_credits is not False,
                ),
            ]
            for topic, config in messages:
                if not await self.link.publish_raw(topic, config, retain=True):
                    # What the broker keeps is unknown.
                    self._discovered_players = self._discovered_credits = None
                    return
            self._discovered_players, self._discovered_credits = players, credits
        if self._discovery_state is not None:
            self._discovery_state.cancel()
        loop = asyncio.get_running_loop()
        self._discovery_state = loop.call_later(self.DISCOVERY_STATE_DELAY, self._publish_state)

    async def _on_connect(self) -> None:
        """After every (re)connect: discovery, the retained state, owed results
        (a leaderboard's retained ``online`` then sends the unstored again)."""
        assert self.link is not None
        if self._salvage_message is not None:
            message, self._salvage_message = self._salvage_message, None
            self._publish_event(ErrorReported(self.clock(), "journal-salvaged", message))
        await self._publish_discovery()
        await self.link.publish("state", self.state())
        if self._start_refusal is not None:
            self._publish_event(ErrorReported(self.clock(), "refused", self._start_refusal))
            self._start_refusal = None
        if self._books_kept():
            await self.link.publish("books", self._books_snapshot())
        self.results.deliver()
        await self.remote_host.on_connect()
        await self.remote_guest.on_connect()

    async def _on_message(self, topic: str, payload: bytes, retain: bool) -> None:
        """A message on a topic subscribed besides the commands: a
        leaderboard's ``result/stored`` or availability, or a remote match's
        (the guest's or the host's). One the journal refused is taken again
        when it is sent again."""
        try:
            if self.results.on_message(topic, payload):
                return
            if not await self.remote_guest.on_message(topic, payload, retain):
                await self.remote_host.on_message(topic, payload, retain)
        except JournalError as error:
            self._not_journaled(f"a message on {topic}", error, self.clock())

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _withdrawal(self, row: int | None) -> Withdrawal | None:
        """What abandoning the game ``row`` now must publish: its result that
        was sent before it was reopened, ``withdrawn``, with a new id and the
        next revision; ``None`` when no result of it was sent."""
        found = None if row is None else self.journal.withdrawable(row)
        if row is None or found is None:
            return None
        payload, game_key, revision = found
        try:
            document = json.loads(payload)
        except ValueError as error:
            log.error("journal game %d: its result is damaged (%s); not withdrawn", row, error)
            return None
        result_id = str(uuid.uuid4())
        document.update(
            result_id=result_id, game_key=game_key, revision=revision + 1, withdrawn=True
        )
        return Withdrawal(row, result_id, revision + 1, to_json(document))

    # --------------------------------------------------------------- inputs

    async def _read_board(self, source: BoardSource) -> None:
        async for event in source:
            async with self._lock:
                try:
                    self._board_event(event)
                except JournalError as error:  # refused as a whole: nothing of it counted
                    self._not_journaled(_input_name(event), error, self.clock())
            self._publish_state()

    def _not_journaled(self, what: str, error: JournalError, now: float) -> str:
        """An input the journal did not take: refused, with an ``error`` event
        saying so (the journal's health, logged once, is in the state).
        Returns the event's message (a refused command's answer)."""
        kind, message = self.journal_health.refusal(what, error)
        if kind == "journal":  # not the storage: a bug, logged every time
            log.error("%s", message)
        self._publish_event(ErrorReported(now, kind, message))
        return message

    async def _outlive_the_journal(self, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run the loop ``run`` makes; stopped by a journal that refused a
        write, it starts again when the journal writes again."""
        while True:
            try:
                await run()
                return
            except JournalError as error:
                log.error("%s; starting again", error)
                await self._journal_retry()

    async def _ticker(self) -> None:
        """Ends takeout when its timer runs out. Sleeps until the deadline (or
        until the session changes), so an idle daemon does not wake up."""
        while True:
            deadline = self._takeout_deadline()
            self._ticker_deadline = deadline
            self._timer_changed.clear()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._timer_changed.wait()
            if self.session is None:
                continue
            refused: JournalError | None = None
            async with self._lock:
                due = self.session.due(self.clock()) if self._takeout_deadline() is not None else []
                if due:
                    try:
                        self._apply(due, "board")
                    except JournalError as error:  # the visit ends once the journal takes it
                        refused = error
                    self._publish_state()
            if refused is not None:
                log.debug("the takeout timer's NEXT waits for the journal: %s", refused)
                await self._journal_retry()

    async def _journal_retry(self) -> None:
        """After the journal refused what a loop of the daemon's own did (the
        takeout timer's NEXT, a computer player's dart): wait until it writes
        again (for a refusal that was not the storage's, :data:`RETRY_S`)."""
        if self.journal_health.writable.is_set():
            await asyncio.sleep(RETRY_S)
        await self.journal_health.writable.wait()

    def _board_event(self, event: BoardEvent) -> None:
        now = self.clock()
        if isinstance(event, _UNDERSTOOD):
            self.board_problem = None  # the board is read: nothing is wrong with its setup
        if isinstance(event, HitEvent):
            self._hit(event, now)
        elif isinstance(event, ButtonEvent):
            self._button(event.button, now)
        elif isinstance(event, TakeoutEvent):
            self._takeout(now)
        elif isinstance(event, CoinEvent):
            self._coin(event, now)
        elif isinstance(event, ConnectedEvent):
            self.board_connected, self.board_problem = True, None
            self._publish_event(BoardConnected(now, event.source))
        elif isinstance(event, DisconnectedEvent):
            self.board_connected = False
            self.board_problem = f"{event.source}: {event.reason}"
            self._publish_event(BoardDisconnected(now, event.source, event.reason))
        elif isinstance(event, StuckEvent):
            self.stuck_cells.add((event.row, event.col))
            self._publish_event(Stuck(now, event.row, event.col))
        elif isinstance(event, ReleasedEvent):
            self.stuck_cells.discard((event.row, event.col))
            self._publish_event(Released(now, event.row, event.col))
        elif isinstance(event, ErrorEvent):
            if event.kind in DIAGNOSES:
                self.board_problem = event.message
            self._publish_event(ErrorReported(now, event.kind, event.message))
        elif isinstance(event, BatteryEvent):
            self._publish_event(BatteryLevel(now, event.percent))

    def _hit(self, event: HitEvent, now: float) -> None:
        bed = event.segment
        if bed is None:
            message = f"cell {event.row},{event.col}: no matrix map is loaded"
            self._publish_event(ErrorReported(now, "unmapped-cell", message))
            return
        if self.remote_guest.active:
            self.remote_guest.hit(bed, now)
            return
        if self.session is None:
            self._ignored(bed.notation, "no game", now)
            return
        remote = self.remote_host.refusal(None, "a dart")
        if remote is not None:  # "not-your-turn: Cy is throwing at Pub 2": the token
            self._ignored(bed.notation, remote.partition(":")[0], now)
            return
        if self._cpu_visit() is not None:
            self._ignored(bed.notation, CPU_TURN, now)
            return
        try:
            planned = self.session.plan_hit(bed, now)
        except Refusal as refusal:
            self._ignored(bed.notation, str(refusal), now)
            return
        self._apply(planned, "board")

    def _ignored(
        self, segment: str, reason: str, now: float, taken: tuple[str, int] | None = None
    ) -> None:
        """A contact that is not scored: journaled for audit and shown (a display
        picks menu items by throwing while idle); a remote guest's action with
        its ``taken`` seq, in the same transaction."""
        self.journal.note_ignored(self.game_row, segment, reason, now, taken=taken)
        self._publish_event(Ignored(now, segment, reason))

    def _button(self, name: str, now: float) -> None:
        self._publish_event(ButtonPressed(now, name))
        if name in GAME_BUTTONS and self.remote_guest.active:
            try:
                self.remote_guest.action(name, None, now)
            except Refusal as refusal:
                self._publish_event(ErrorReported(now, "refused", str(refusal)))
        elif name in GAME_BUTTONS and self.session is not None:
            try:
                COMMAND_HANDLERS[name](self, {}, now)
            except (Refusal, EngineError) as refusal:
                self._publish_event(ErrorReported(now, "refused", str(refusal)))

    def _session(self) -> GameSession:
        """The game in progress; a :class:`Refusal` when there is none."""
        if self.session is None:
            raise Refusal("no game: start one with new_game")
        return self.session

    def _apply(
        self, planned: list[Event], source: str, taken: tuple[str, int] | None = None
    ) -> None:
        """Apply the events of one input, journal their tokens together with the
        finish or the reopening they cause (and a remote guest's ``taken``
        seq) in one transaction, then publish what they caused (its darts
        marked with ``source``: board, manual or cpu).
        Events after the one that ends the game are dropped. If the
        engine or the journal refuses, the game is rebuilt from the journal:
        the input is lost as a whole, and nothing of it was published."""
        session, row = self.session, self.game_row
        assert session is not None and row is not None
        was_finished = session.game.is_finished
        # A bounce-out of a finished game's last dart re-decides it: reopened,
        # and finished again with the new result when it still ends the game.
        redecided = was_finished and any(isinstance(event, Bounce) for event in planned)
        applied: list[tuple[str, float]] = []
        events: list[DaemonEvent] = []
        now = self.clock()
        try:
            for event in planned:
                if applied and session.game.is_finished:
                    dropped = ", ".join(map(str, planned[len(applied) :]))
                    log.debug("game %d is over: %s dropped", row, dropped)
                    break
                now = self.clock()
                events += session.apply(event, now)
                applied.append((str(event), now))
            finished = session.game.is_finished and (redecided or not was_finished)
            finish = None
            if finished:
                synced = self._dates(now, self.started_at)
                build = partial(self._finish_record, session, now, row=row, clock_synced=synced)
                finish = self.off_loop.finish(session, build, partial(self._finished, row))
            self.journal.record(
                row,
                applied,
                finish=finish,
                reopen=was_finished and (redecided or not session.game.is_finished),
                taken=taken,
            )
        except (EngineError, JournalError):
            self.session = self._replay(self.journal.game(row))
            raise
        finally:
            self._deadline_moved()
            undone = any(isinstance(event, Undo | Bounce) for event in planned)
            self._bot_schedule(self.clock(), pause=undone)
        for caused in events:
            if isinstance(caused, Dart):
                caused = dataclasses.replace(caused, source=source)
            self._publish_event(caused)
        if finish is not None:
            self.results.deliver()
            self._publish_books()

    def _finished(self, row: int, finish: Finish) -> None:
        """A finish held back for its solves (:mod:`firmware_bridge.daemon.off_loop`): journaled."""
        self.journal.record(row, [], finish=finish)
        self.results.deliver()
        self._publish_books()

    def _deadline_moved(self) -> None:
        """Wake the ticker only when the takeout deadline it sleeps until has
        changed: most darts leave it as it was, and a wake-up costs a task step."""
        if self._takeout_deadline() != self._ticker_deadline:
            self._timer_changed.set()

    def _takeout_deadline(self) -> float | None:
        """When this board's takeout timer ends the visit: ``None`` without
        one, and for a visit thrown at a remote guest (its own ``next`` ends it)."""
        if self.session is None or not self.remote_host.takeout_here():
            return None
        return self.session.takeout_deadline

    def _dates(self, *times: float | None) -> bool:
        """Whether the board's clock gave ``times`` as dates (a result's
        ``clock_synced``): each must be (a game started at 1970 and finished
        after NTP answered has no start date either)."""
        return all(at is None or self.clock_synced(at) for at in times)

    def _finish_record(
        self,
        session: GameSession,
        now: float,
        *,
        row: int | None = None,
        clock_synced: bool = True,
    ) -> Finish:
        """The journal's record of ``session``'s finished game: the result kept
        with the game and the ``result`` payload for the outbox. A game
        ``row`` that had results before (finished, reopened by an undo, now
        finished again) keeps their ``game_key`` and takes the next revision."""
        result_id = str(uuid.uuid4())
        game_key, revision = (None, 0) if row is None else self.journal.result_revision(row)
        cpu: dict[int, dict[str, Any]] = {}
        if self.bots is not None:
            for seat, player in enumerate(session.game.state()["players"]):
                bot = self.bots.players.get(player["name"])
                if bot is not None:
                    cpu[seat] = bot.as_json()
        result = result_document(
            session.game,
            result_id=result_id,
            board=self.board_id,
            started_at=self.started_at,
            finished_at=now,
            cpu=cpu,
            game_key=game_key,
            revision=revision + 1,
            clock_synced=clock_synced,
        )
        result = self.remote_host.result(result)
        return Finish(
            {"winner": result["winner"], "result": result["result"]},
            now,
            result["result_id"],
            to_json(result),
            game_key=result["game_key"],
            revision=result["revision"],
        )

    # ------------------------------------------------------------- commands

    async def _on_command(self, payload: bytes) -> None:
        command_id: str | int | None = None
        what = "the command"
        try:
            command = parse_command(payload, self._operator_topic)
            command_id = command.id
            args = command.args
            what = " ".join([command.name, *([args["segment"]] if "segment" in args else [])])
            if command.name == "new_game" and args.get("cpu"):
                # Solving a spread from an average takes a moment: not on the loop.
                bots = await asyncio.to_thread(
                    resolve_bots, args["game"], args["cpu"], self._geometry
                )
                args = {**args, "cpu": bots}
            if command.name in ("new_game", "rematch"):
                await self.off_loop.settled()  # the game won before is journaled first
            async with self._lock:
                self._command(command.name, args)
            response = response_payload(command_id, True)
        except JournalError as error:
            message = self._not_journaled(what, error, self.clock())
            response = response_payload(command_id, False, message)
        except (CommandError, Refusal, EngineError, ValueError) as error:
            command_id = getattr(error, "id", command_id)
            response = response_payload(command_id, False, str(error))
        self._publish("cmd/response", response)
        self._publish_state()

    @property
    def _operator_topic(self) -> str:
        return topic(self.config.mqtt.base, self.board_id, "operator/cmd")

    def _command(self, name: str, args: dict[str, Any]) -> None:
        now = self.clock()
        if self.remote_guest.active:
            if name in GAME_BUTTONS or name == "dart":
                self.remote_guest.action(name, args.get("segment"), now)
            elif name == "end_game":
                self.remote_guest.leave(now)
            else:
                raise Refusal(
                    f"this board is playing a remote match: {name} is for its host; "
                    "end_game leaves the match"
                )
            return
        COMMAND_HANDLERS[name](self, args, now)

    def _new_game(self, args: dict[str, Any], now: float) -> None:
        setup = SessionSetup(
            args["game"], args.get("options") or {}, args["players"], args.get("teams")
        )
        cpu = args.get("cpu")
        bots = None
        if isinstance(cpu, Bots):
            bots = cpu
        elif cpu:
            bots = resolve_bots(setup.game, cpu, self._geometry)  # ValueError: refused
        remote = self.remote_host.start(setup, args["boards"], now) if args.get("boards") else None
        self._start(setup, now, bots, remote)

    def _rematch(self, args: dict[str, Any], now: float) -> None:
        if self.last_setup is None:
            raise Refusal("no game to rematch yet")
        bots = self.last_bots.reseeded() if self.last_bots is not None else None
        self._start(self.last_setup, now, bots, self.remote_host.rematch())

    def _end_game(self, args: dict[str, Any], now: float) -> None:
        if self.session is None or self.game_row is None:
            raise Refusal("no game is running")
        self._abandon(now, "ended")

    def _abandon(self, now: float, reason: str) -> None:
        """The game is over for good: ended (abandoned) unless it was won, and
        its remote match ended with ``reason`` (``mqtt_contract.END_REASONS``)."""
        assert self.session is not None and self.game_row is not None
        if not self.session.game.is_finished:
            withdrawal = self._withdrawal(self.game_row)
            self.journal.end_game(self.game_row, now, withdrawal)
            self._publish_event(GameOver(now, "ended", None))
            if withdrawal is not None:
                self.results.deliver()
        self.remote_host.ended(reason, now)
        self.session, self.game_row, self.bots = None, None, None
        self._bot_schedule(now)
        self._publish_books()
        self._background(self._publish_discovery())  # no game: no score sensors

    def _dart(self, args: dict[str, Any], now: float) -> None:
        session = self._session()
        try:
            bed = Bed.parse(args["segment"])
        except NotationError as error:
            raise Refusal(f"segment {error}") from None
        self._refuse_remote("a dart")
        self._refuse_on_cpu_visit("a dart")
        self._apply(session.plan_manual_dart(bed), "manual")

    def _next(self, args: dict[str, Any], now: float) -> None:
        session = self._session()
        self._refuse_remote("NEXT")
        if session.phase != Phase.TAKEOUT:  # NEXT may cut a computer player's takeout short
            self._refuse_on_cpu_visit("NEXT")
        self._apply(session.plan_next(), "manual")

    def _undo(self, args: dict[str, Any], now: float) -> None:
        session = self._session()
        self._refuse_remote("an undo")
        self._apply(session.plan_undo(), "manual")

    def _bounce(self, args: dict[str, Any], now: float) -> None:
        """BOUNCE (button or command): the visit's last dart bounced out."""
        session = self._session()
        self._refuse_remote("a bounce-out")
        self._refuse_on_cpu_visit("bounce-out")
        self._apply(session.plan_bounce(), "manual")

    def _miss(self, args: dict[str, Any], now: float) -> None:
        session = self._session()
        self._refuse_remote("a miss")
        self._refuse_on_cpu_visit("a miss")
        self._apply(session.plan_miss(), "manual")

    def _refuse_remote(self, what: str) -> None:
        """This board's own input refused in a remote match (not its turn, waiting)."""
        reason = self.remote_host.refusal(None, what)
        if reason is not None:
            raise Refusal(reason)

    # -------------------------------------------------------- computer players

    @property
    def _geometry(self) -> BoardGeometry:
        """The board a computer player's darts land on (``[bot] geometry``)."""
        return GEOMETRIES[self.config.bot.geometry]

    def _cpu_visit(self) -> str | None:
        """The computer player whose visit is on the board (throwing, or in
        the takeout after it), as the screens name it; ``None`` otherwise."""
        session, bots = self.session, self.bots
        if session is None or bots is None or session.phase == Phase.FINISHED:
            return None
        if self.remote_host.paused:  # a remote match waits for a board: so does the bot
            return None
        name = session.game.lineup.players[session.thrower()]
        cpu = bots.players.get(name)
        return None if cpu is None else f"{name} (CPU {cpu.level})"

    def _refuse_on_cpu_visit(self, what: str) -> None:
        label = self._cpu_visit()
        if label is not None:
            raise Refusal(f"{label} is throwing: no {what} by hand until its visit is over")

    def _bot_schedule(self, now: float, pause: bool = False) -> None:
        """When the computer player whose visit it is acts next: its next dart
        after ``dart_interval_s``, NEXT after ``takeout_s`` once its visit is
        over (and, after an undo, ``takeout_s`` before it throws again, so a
        run of undos is not raced). ``None`` when no computer player is due."""
        bot = self.config.bot
        due: float | None = None
        if self._cpu_visit() is not None and self.session is not None:
            takeout = self.session.phase == Phase.TAKEOUT
            due = now + (bot.takeout_s if takeout or pause else bot.dart_interval_s)
        if due != self._bot_due:
            self._bot_due = due
            self._bot_wake.set()

    async def _bot_player(self) -> None:
        """Throws for the computer players: sleeps until the next action is due
        (or the schedule changes), then takes it."""
        while True:
            self._bot_wake.clear()
            due = self._bot_due
            timeout = None if due is None else max(0.0, due - self.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._bot_wake.wait()
            if self._bot_due is None or self._bot_wake.is_set() or self.clock() < self._bot_due:
                continue
            self._bot_due = None
            try:
                await self._bot_act()
            except JournalError as error:  # it throws again once the journal takes it
                log.debug("the computer player waits for the journal: %s", error)
                self._publish_state()
                await self._journal_retry()
                continue
            except Exception:  # a bug must not stop the board: the bot misses instead
                log.exception("the computer player could not throw; it misses")
                async with self._lock:
                    self._bot_fallback()
            self._publish_state()

    async def _bot_act(self) -> None:
        """One action of the computer player: NEXT after its takeout, or a dart,
        aimed off the loop and applied only if nothing changed meanwhile."""
        session, bots = self.session, self.bots
        if session is None or bots is None or self._cpu_visit() is None:
            return
        if session.phase == Phase.TAKEOUT:
            async with self._lock:
                if self.session is session and self._cpu_visit() is not None:
                    self._apply(session.plan_next(), "cpu")
            return
        applied = session.applied
        bed = await asyncio.to_thread(bots.throw, self.off_loop.state(session.game.state), applied)
        async with self._lock:
            if self.session is not session or session.applied != applied:
                return  # an undo, a new game: that change scheduled the bot again
            self._apply(session.plan_manual_dart(bed), "cpu")

    def _bot_fallback(self) -> None:
        """The computer player's dart when aiming failed: a miss (or its NEXT)."""
        session = self.session
        if session is None or self._cpu_visit() is None:
            return
        try:
            planned = session.plan_next() if session.phase == Phase.TAKEOUT else session.plan_miss()
            self._apply(planned, "cpu")
        except (Refusal, EngineError, JournalError) as error:
            log.error("the computer player is stuck: %s", error)

    def _start(
        self,
        setup: SessionSetup,
        now: float,
        bots: Bots | None = None,
        remote: dict[str, Any] | None = None,
    ) -> None:
        """Start ``setup``'s game: every start (new_game, rematch, ``oche run
        --game``) goes through here, so on a coin-operated board every game
        costs its price: refused naming the shortfall, else spent in the
        journal's transaction that starts it."""
        charge = self._charge(setup, bots, remote, now)
        if charge is not None and charge.source == "game":
            rounds = self.config.credits.rounds
            setup = dataclasses.replace(
                setup, options=paid_options(rounds, setup.game, setup.options)
            )
        setup = setup.on_board(self.config.bot.geometry)
        session = self._new_session(setup.shuffled())  # bad game, options or players raise here
        # The journal ends the board's unfinished game, if any, as this one
        # starts, with the withdrawal of its result if it was reopened.
        withdrawal = self._withdrawal(self.game_row)
        self.game_row = self.journal.start_game(
            setup.game,
            dict(session.game.options),
            list(session.game.lineup.players),
            {k: list(v) for k, v in setup.teams.items()} if setup.teams else None,
            self.board_id,
            now,
            None if bots is None else bots.as_json(),
            remote,
            charge,
            withdrawal,
        )
        if withdrawal is not None:
            self.results.deliver()
        if charge is not None:
            self._credited(-charge.credits, charge.source, now, game=True)
        self.journal_health.game_started()
        self.session, self.last_setup, self.started_at = session, setup, now
        self.remote_host.started(self.game_row, remote, now)
        self.bots = self.last_bots = bots
        self._publish_event(
            GameStarted(
                now,
                setup.game,
                dict(session.game.options),
                list(session.game.lineup.players),
                self.off_loop.state(session.game.state)["teams"],
            )
        )
        self._background(self._publish_discovery())
        self._bot_schedule(now)
        self._publish_books()

    # -------------------------------------------------------------- credits

    def free_play(self) -> bool:
        """Every game is free now: ``[credits] mode = "free"``, or the operator's free play."""
        return self.config.credits.mode == "free" or bool(self.operator_settings.get("free_play"))

    def happy_hour(self, now: float) -> HappyHour | None:
        """The happy-hour window on at ``now``, if any."""
        credits = self.config.credits
        return active_happy_hour(credits.happy_hour, now, credits.timezone)

    def price_list(self) -> PriceList:
        """``[credits]`` prices with the operator's ``set_price`` on top."""
        credits, settings = self.config.credits, self.operator_settings
        operator_price = settings.get("price")
        return PriceList(
            price=credits.price,
            prices=credits.prices,
            player_prices={int(n): price for n, price in credits.player_prices.items()},
            operator_price=operator_price if isinstance(operator_price, int) else None,
            operator_prices={
                key.removeprefix("price."): value
                for key, value in settings.items()
                if key.startswith("price.") and isinstance(value, int)
            },
        )

    def credits_state(self, now: float) -> dict[str, Any]:
        """The state's ``credits`` block: mode, free play, credits held, the
        price per player now, and whether happy hour is on."""
        happy = self.happy_hour(now)
        free = self.free_play()
        prices = self.price_list()
        block: dict[str, Any] = {
            "mode": self.config.credits.mode,
            "free_play": free,
            "credits": self.credits_held,
            "price": 0 if free else price_per_player(prices, None, 1, happy),
            "happy_hour": happy is not None,
        }
        if self.config.credits.mode == "coin":
            block["coins_today"] = self._coins_since_midnight(now)
            if not free:
                # What a screen needs to say what the game it sets up costs:
                # per game, else per number of players, else ``price`` (the
                # operator's board-wide price overrides the player counts).
                games = {*prices.prices, *prices.operator_prices}
                block["game_prices"] = {
                    game: price_per_player(prices, game, 1, happy) for game in sorted(games)
                }
                block["player_prices"] = (
                    {}
                    if prices.operator_price is not None
                    else {
                        str(n): price_per_player(prices, None, n, happy)
                        for n in sorted(prices.player_prices)
                    }
                )
        return block

    def _midnight(self, now: float) -> float:
        """The local midnight (``[credits] timezone``) that began ``now``'s day."""
        local = local_time(now, self.config.credits.timezone)
        return local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()

    def _coins_since_midnight(self, now: float) -> int:
        """Coin pulses since the local midnight: summed from the journal once a
        day, then kept up as coins come (the state is published for every dart)."""
        midnight = self._midnight(now)
        if self._coins_today is None or self._coins_today[0] != midnight:
            try:
                totals = self.journal.credit_totals(self.board_id, midnight, None)
            except JournalError as error:
                log.error("the day's coins not read: %s", error)
                return 0
            pulses = sum(p for source, _, _, p in totals if source == "coin")
            self._coins_today = (midnight, pulses)
        return self._coins_today[1]

    def _paying_players(
        self, setup: SessionSetup, bots: Bots | None, remote: dict[str, Any] | None
    ) -> int:
        """The players a game at this board costs: not computer players, not
        players throwing at another board of a remote match."""
        own = f"{self.config.mqtt.base}/{self.board_id}"
        boards = remote.get("boards") if isinstance(remote, dict) else None
        cpu = bots.players if bots is not None else {}
        return sum(
            1
            for name in setup.players
            if name not in cpu and (not isinstance(boards, dict) or boards.get(name, own) == own)
        )

    def _charge(
        self, setup: SessionSetup, bots: Bots | None, remote: dict[str, Any] | None, now: float
    ) -> Charge | None:
        """What starting ``setup``'s game costs now; a :class:`Refusal` naming
        the shortfall when the credits held are short. ``None`` in free mode."""
        if self.config.credits.mode == "free":
            return None
        if self.free_play():
            return Charge(0, "free-play", "free play")
        game_class(setup.game)  # an unknown game is named before its price
        players = self._paying_players(setup, bots, remote)
        each, total = game_cost(self.price_list(), setup.game, players, self.happy_hour(now))
        problem = shortfall(players, each, self.credits_held)
        if problem is not None:
            raise Refusal(problem)
        return Charge(total, "game")

    def _credited(
        self,
        change: int,
        source: str,
        now: float,
        coin_input: int | None = None,
        reason: str | None = None,
        game: bool = False,
    ) -> None:
        """A ledger line was journaled: the credits held follow it and it is
        published as a ``credits`` event (a free-play game's 0 line too)."""
        if not change and not game:
            return
        self.credits_held += change
        self._publish_event(
            CreditsChanged(now, change, self.credits_held, source, coin_input, reason)
        )
        if not game:
            self._publish_books()

    def _coin(self, event: CoinEvent, now: float) -> None:
        """A coin pulse (or the firmware's running count): journaled and
        credited in one transaction before anything shows it. One the journal
        refuses is refused as any input (the firmware's next count credits it)."""
        happy = self.happy_hour(now)
        per_pulse, bonus = pulse_credits(self.config.credits.credits_per_pulse, event.input, happy)
        credit = self.journal.record_coin(
            self.board_id, event.input, event.count, event.boot, now, per_pulse, bonus
        )
        if not credit.pulses:
            log.debug("coin count %s on input %d already journaled", event.count, event.input)
            return
        log.info(
            "coin input %d: %d pulse(s), %d credit(s)", event.input, credit.pulses, credit.credits
        )
        if self._coins_today is not None and self._coins_today[0] == self._midnight(now):
            self._coins_today = (self._coins_today[0], self._coins_today[1] + credit.pulses)
        self._credited(credit.credits, "coin", now, event.input)
        self._credited(credit.bonus, "happy-hour", now, event.input, "happy hour bonus")
        self.credits_held = credit.balance  # the journal's sum is the truth

    def _books_kept(self) -> bool:
        """Whether the daemon publishes the books: a coin-operated board, or
        one whose ledger has lines (credits were added while in free mode)."""
        return self.config.credits.mode == "coin" or self.credits_held != 0

    def _books_snapshot(self) -> dict[str, Any]:
        """The retained ``books`` payload: :func:`books` (the customer and
        security books, as ``oche books`` prints them), with the credits held
        and ``today``'s books (since the local midnight of ``[credits] timezone``)."""
        now = self.clock()
        snapshot = books(self.journal, self.board_id, now=now)
        snapshot["today"] = books(self.journal, self.board_id, self._midnight(now), now=now)[
            "security"
        ]
        snapshot["credits"] = self.credits_held
        return snapshot

    def _publish_books(self, force: bool = False) -> None:
        """Queue the retained ``books`` snapshot (summed now from the journal)."""
        if not (force or self._books_kept()) or self.link is None or not self.link.connected:
            return
        try:
            self._publish("books", self._books_snapshot())
        except JournalError as error:
            log.error("books not published: %s", error)

    # ------------------------------------------------------ operator commands

    async def _on_operator(self, payload: bytes) -> None:
        """One ``operator/cmd`` payload: run it and answer on ``operator/cmd/response``."""
        command_id: str | int | None = None
        try:
            command = parse_operator_command(payload)
            command_id = command.id
            async with self._lock:
                OPERATOR_HANDLERS[command.name](self, command.args, self.clock())
            response = response_payload(command_id, True)
        except JournalError as error:
            message = self._not_journaled(f"operator {command.name}", error, self.clock())
            response = response_payload(command_id, False, message)
        except (CommandError, Refusal, ValueError) as error:
            command_id = getattr(error, "id", command_id)
            response = response_payload(command_id, False, str(error))
        self._publish("operator/cmd/response", response)
        self._publish_state()

    def _add_credits(self, args: dict[str, Any], now: float) -> None:
        count, reason = args["count"], args.get("reason")
        self.credits_held = self.journal.add_credits(self.board_id, count, "remote", now, reason)
        self.credits_held -= count  # _credited adds it back as it publishes
        self._credited(count, "remote", now, None, reason)

    def _set_free_play(self, args: dict[str, Any], now: float) -> None:
        if self.config.credits.mode == "free":
            raise Refusal(
                'this board\'s [credits] mode is "free": every game is free already; '
                'set mode = "coin" to charge for games'
            )
        self.journal.set_operator_setting(self.board_id, "free_play", bool(args["on"]), now)
        self.operator_settings["free_play"] = bool(args["on"])
        log.info("operator: free play %s", "on" if args["on"] else "off")
        self._background(self._publish_discovery())  # the credits sensors come or go

    def _reset_books(self, args: dict[str, Any], now: float) -> None:
        self.journal.reset_books(self.board_id, now, args.get("reason"))
        log.info("operator: customer books reset")
        self._publish_books(force=True)

    def _set_price(self, args: dict[str, Any], now: float) -> None:
        game, price = args.get("game"), args["price"]
        if game is not None:
            try:
                game = game_class(game).id
            except EngineError as error:
                raise Refusal(f"set_price: {error}") from None
        key = "price" if game is None else f"price.{game}"
        self.journal.set_operator_setting(self.board_id, key, price, now)
        if price is None:
            self.operator_settings.pop(key, None)
        else:
            self.operator_settings[key] = price
        log.info("operator: %s = %s", key, "the config's" if price is None else price)


def _input_name(event: BoardEvent) -> str:
    """How a refused board input is named to the players: its bed, its button."""
    if isinstance(event, HitEvent):
        return event.segment.notation if event.segment is not None else "a hit"
    if isinstance(event, ButtonEvent):
        return event.button.upper()
    if isinstance(event, TakeoutEvent):
        return "the takeout"
    if isinstance(event, CoinEvent):
        return f"a coin on input {event.input}"
    return "a board input"


COMMAND_HANDLERS: dict[str, Callable[[Daemon, dict[str, Any], float], None]] = {
    "new_game": Daemon._new_game,
    "rematch": Daemon._rematch,
    "end_game": Daemon._end_game,
    "dart": Daemon._dart,
    "next": Daemon._next,
    "undo": Daemon._undo,
    "miss": Daemon._miss,
    "bounce": Daemon._bounce,
}
"""Each command name (``mqtt_contract.COMMANDS``) -> its handler, given the
command's arguments and the time; the board's NEXT, UNDO, MISS and BOUNCE
buttons use the same handlers."""

OPERATOR_HANDLERS: dict[str, Callable[[Daemon, dict[str, Any], float], None]] = {
    "add_credits": Daemon._add_credits,
    "set_free_play": Daemon._set_free_play,
    "reset_books": Daemon._reset_books,
    "set_price": Daemon._set_price,
}
"""Each operator command (``mqtt_contract.OPERATOR_COMMANDS``) -> its handler."""

GAME_BUTTONS = ("next", "undo", "miss", "bounce")
"""The board buttons that act on the game, by their command's name."""
