"""The core's game: one board's session, journaled before anything is published.

Every accepted input becomes engine events (a dart, ``NEXT``, ``UNDO``,
``BOUNCE``, a correction). :meth:`BoardGame.apply` applies them, and what they decide (the
tokens, and the game's finish with its result, or its reopening by an undo
or a bounce-out) is committed to the journal in one transaction *before*
anything is published, so a crash loses nothing and never splits a dart from
its consequences: on start the board's last game is replayed from its tokens
(:meth:`BoardGame.resume`), any finish or reopening a journal from an older
Oche left undone is completed, and the state republished unchanged.

The extensions hear of it on the bus (:mod:`firmware_bridge.daemon.core_events`):
a game starting (its price), started, resumed, finished or abandoned, an
input planned (refused by a remote match's turns or a computer player's
visit) and applied, the result being built.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from engine import Bounce, Correct, EngineError, Event, Undo, parse_event
from engine.match_format import MatchFormat
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.bots import Bots
from firmware_bridge.daemon.config import Config
from firmware_bridge.daemon.core_events import EventBus
from firmware_bridge.daemon.credits import paid_options
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.journal import (
    Finish,
    Journal,
    JournalError,
    JournalGame,
    Withdrawal,
)
from firmware_bridge.daemon.journal_health import RETRY_S, JournalHealth
from firmware_bridge.daemon.mqtt_link import to_json
from firmware_bridge.daemon.off_loop import OffLoop, SolveWorker
from firmware_bridge.daemon.publisher import Publisher
from firmware_bridge.daemon.result_delivery import ResultDelivery
from mqtt_contract import (
    Corrected,
    DaemonEvent,
    Dart,
    ErrorReported,
    GameOver,
    GameStarted,
    Ignored,
    RemoteAction,
    event_teams,
    result_document,
)

__all__ = ["BoardGame", "journaled_setup"]

log = logging.getLogger(__name__)


class BoardGame:
    """The board's game and what changes it: start, apply, abandon, resume,
    and the takeout timer. All changes go through :attr:`lock`, one at a
    time. No I/O in the constructor."""

    def __init__(
        self,
        config: Config,
        clock: Callable[[], float],
        clock_synced: Callable[[float], bool],
        journal: Journal,
        journal_health: JournalHealth,
        results: ResultDelivery,
        bus: EventBus,
        publisher: Publisher,
        solve_worker: SolveWorker,
    ) -> None:
        self.config = config
        self.clock = clock
        self.clock_synced = clock_synced
        self.board_id = config.board.id
        self.journal = journal
        self.journal_health = journal_health
        self.results = results
        self.bus = bus
        self.publisher = publisher
        self.lock = asyncio.Lock()
        """Held by every change of the game (and of what extensions keep beside it)."""
        self.off_loop = OffLoop(
            self.lock, publisher.request_state, lambda: self.session, solve_worker
        )
        """Slow solves (a skill test's report) done off the loop, then published."""
        self.session: GameSession | None = None
        self.game_row: int | None = None
        self.started_at: float | None = None
        self.last_setup: SessionSetup | None = None
        self.bots: Bots | None = None
        """The game's computer players (journaled with it)."""
        self.last_bots: Bots | None = None
        self._timer_changed = asyncio.Event()
        self._ticker_deadline: float | None = None
        bus.subscribe(core_events.PresenceChanged, lambda _: self.deadline_moved())

    # ------------------------------------------------------------- starting

    def start(
        self,
        setup: SessionSetup,
        now: float,
        bots: Bots | None = None,
        remote: dict[str, Any] | None = None,
    ) -> None:
        """Start ``setup``'s game: every start (new_game, rematch, ``oche run
        --game``) goes through here, so on a coin-operated board every game
        costs its price (:class:`~core_events.GameStarting`): refused naming
        the shortfall, else spent in the journal's transaction that starts it."""
        charge = self.bus.first(core_events.GameStarting(setup, bots, remote, now))
        if charge is not None and charge.source == "game":
            setup = dataclasses.replace(setup, options=self._paid_options(setup))
        setup = setup.on_board(self.config.bot.geometry)
        session = self.new_session(setup.shuffled())  # bad game, options or players raise here
        # The journal ends the board's unfinished game, if any, as this one
        # starts, with the withdrawal of its result if it was reopened.
        withdrawal = self._withdrawal(self.game_row)
        row = self.journal.games.start_game(
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
            None if setup.match is None else setup.match.to_json(),
        )
        self.game_row = row
        if withdrawal is not None:
            self.results.deliver()
        self.journal_health.game_started()
        self.session, self.last_setup, self.started_at = session, setup, now
        self.bots = self.last_bots = bots
        self.bus.emit(core_events.GameStarted(row, session, remote, charge, now))
        self.publisher.publish_event(
            GameStarted(
                now,
                setup.game,
                tuple(session.game.lineup.players),
                event_teams(self.off_loop.state(session.game.state)["teams"]),
                options=dict(session.game.options),
            )
        )

    def _paid_options(self, setup: SessionSetup) -> dict[str, Any]:
        """A paid game's options: ``[credits] rounds`` limits its rounds."""
        return paid_options(self.config.credits.rounds, setup.game, setup.options)

    def new_session(self, setup: SessionSetup) -> GameSession:
        visit = self.config.visit
        return GameSession(setup, coalesce_ms=visit.coalesce_ms, takeout_s=visit.takeout_s)

    def current(self) -> GameSession:
        """The game in progress; a :class:`Refusal` when there is none."""
        if self.session is None:
            raise Refusal("no game: start one with new_game")
        return self.session

    # ------------------------------------------------------------- resuming

    def resume(self) -> None:
        """Bring back the board's last game from the journal: replay it, and
        complete a finish or an undo of the win that the journal did not record
        (a journal written by an Oche that recorded them in two steps). A
        finished game comes back finished, its winner shown until the next game."""
        latest = self.journal.games.latest_game(self.board_id)
        if latest is None or latest.status == "ended":
            return
        self.started_at = latest.started_at
        self.last_bots = None
        if latest.bots is not None:
            try:
                self.last_bots = Bots.from_json(latest.game, latest.bots)
            except ValueError as error:
                log.error("journal game %d: %s; no computer player throws", latest.id, error)
        try:
            self.last_setup = journaled_setup(latest)
            session = self._replay(latest)
        except EngineError as error:  # say a name an older Oche took and the rule now refuses
            log.error("journal game %d cannot be resumed: %s; no game runs", latest.id, error)
            return
        if latest.status == "finished" and session.is_finished:
            # The winner stays on screen until the next game, as it did before
            # the restart (its match, if remote, is over: not resumed).
            self.session, self.game_row, self.bots = session, latest.id, self.last_bots
            log.info("game %d (%s) is finished: its result is shown", latest.id, latest.game)
            return
        if latest.status == "finished" and not _may_reopen(latest.events[-1:]):
            # Its events do not give its finish (a salvaged journal kept the result
            # of a game whose darts were lost): the board idles until the next.
            log.warning("journal game %d: its events do not finish it; not resumed", latest.id)
            return
        if latest.status == "finished":
            log.warning("journal game %d: its win was undone; reopening it", latest.id)
            self.journal.games.reopen_game(latest.id)
        elif session.is_finished:
            log.warning("journal game %d: its last dart won; recording the result", latest.id)
            at = latest.last_event_at if latest.last_event_at is not None else self.clock()
            finish = self.finish_record(
                session, at, row=latest.id, clock_synced=self._dates(at, latest.started_at)
            )
            self.journal.games.record(latest.id, [], finish=finish)
        self.session, self.game_row, self.bots = session, latest.id, self.last_bots
        self.bus.emit(core_events.GameResumed(latest, self.clock()))
        log.info(
            "resumed game %d (%s) after %d journaled events",
            latest.id,
            latest.game,
            len(latest.events),
        )

    def _replay(self, journaled: JournalGame) -> GameSession:
        """A session with the journaled game's events applied, as they were live."""
        session = self.new_session(journaled_setup(journaled))
        now = self.clock()
        for token in journaled.events:
            try:
                session.apply(parse_event(token), now)
            except EngineError as error:
                # An older Oche journaled a token before applying it, so a token
                # the engine refused then may be in the journal: skip it here too.
                log.warning("journal game %d: token %r skipped: %s", journaled.id, token, error)
        return session

    # ------------------------------------------------------------- applying

    def apply(
        self, planned: list[Event], source: str, taken: tuple[str, int] | None = None
    ) -> None:
        """Apply the events of one input, journal their tokens together with the
        finish or the reopening they cause (and a remote guest's ``taken``
        seq) in one transaction, then publish what they caused (its darts
        marked with ``source``: board, manual or cpu).
        Events after the one that ends the game (a match's leg) are dropped:
        a NEXT's misses that end a leg do not start the next. If the
        engine or the journal refuses, the game is rebuilt from the journal:
        the input is lost as a whole, and nothing of it was published."""
        session, row = self.session, self.game_row
        assert session is not None and row is not None
        was_finished = session.is_finished
        # A bounce-out or a correction of a finished game's last visit
        # re-decides it: reopened, and finished again with the new result when
        # it still ends the game.
        redecided = was_finished and any(isinstance(event, Bounce | Correct) for event in planned)
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
            finished = session.is_finished and (redecided or not was_finished)
            finish = None
            if finished:
                synced = self._dates(now, self.started_at)
                build = partial(self.finish_record, session, now, row=row, clock_synced=synced)
                finish = self.off_loop.finish(session, build, partial(self._finished, row))
            self.journal.games.record(
                row,
                applied,
                finish=finish,
                reopen=was_finished and (redecided or not session.is_finished),
                taken=taken,
            )
        except (EngineError, JournalError):
            self.session = self._replay(self.journal.games.game(row))
            raise
        finally:
            self.deadline_moved()
            undone = any(isinstance(event, Undo | Bounce | Correct) for event in planned)
            self.bus.emit(core_events.InputApplied(undone, self.clock()))
        for caused in events:
            if isinstance(caused, Dart):
                caused = dataclasses.replace(caused, source=source)
            elif isinstance(caused, Corrected):
                _log_correction(row, session.game.lineup.players[caused.player], caused, source)
            self.publisher.publish_event(caused)
        if finish is not None:
            self.results.deliver()
            self.bus.emit(core_events.GameFinished(row, now))

    def _finished(self, row: int, finish: Finish) -> None:
        """A finish held back for its solves (:mod:`firmware_bridge.daemon.off_loop`): journaled."""
        self.journal.games.record(row, [], finish=finish)
        self.results.deliver()
        self.bus.emit(core_events.GameFinished(row, self.clock()))

    def refuse(self, action: RemoteAction, now: float) -> None:
        """Ask the extensions whether this board's own ``action`` may be taken
        now; a :class:`Refusal` says why not."""
        self.bus.emit(core_events.InputPlanned(action, now))

    def ignore(
        self, segment: str, reason: str, now: float, taken: tuple[str, int] | None = None
    ) -> None:
        """A contact that is not scored: journaled for audit and shown (a display
        picks menu items by throwing while idle); a remote guest's action with
        its ``taken`` seq, in the same transaction."""
        self.journal.games.note_ignored(self.game_row, segment, reason, now, taken=taken)
        self.publisher.publish_event(Ignored(now, segment, reason))

    def abandon(self, now: float, reason: str) -> None:
        """The game is over for good: ended (abandoned) unless it was won, and
        its remote match ended with ``reason`` (``mqtt_contract.END_REASONS``)."""
        assert self.session is not None and self.game_row is not None
        if not self.session.is_finished:
            withdrawal = self._withdrawal(self.game_row)
            self.journal.games.end_game(self.game_row, now, withdrawal)
            self.publisher.publish_event(GameOver(now, "ended", None))
            if withdrawal is not None:
                self.results.deliver()
        self.session, self.game_row, self.bots = None, None, None
        self.bus.emit(core_events.GameAbandoned(reason, now))

    def not_journaled(self, what: str, error: JournalError, now: float) -> str:
        """An input the journal did not take: refused, with an ``error`` event
        saying so (the journal's health, logged once, is in the state).
        Returns the event's message (a refused command's answer)."""
        kind, message = self.journal_health.refusal(what, error)
        if kind == "journal":  # not the storage: a bug, logged every time
            log.error("%s", message)
        self.publisher.publish_event(ErrorReported(now, kind, message))
        return message

    async def wait_for_journal(self) -> None:
        """After the journal refused what a loop of the daemon's own did (the
        takeout timer's NEXT, a computer player's dart): wait until it writes
        again (for a refusal that was not the storage's, :data:`RETRY_S`)."""
        if self.journal_health.writable.is_set():
            await asyncio.sleep(RETRY_S)
        await self.journal_health.writable.wait()

    # ------------------------------------------------------------- results

    def _withdrawal(self, row: int | None) -> Withdrawal | None:
        """What abandoning the game ``row`` now must publish: its result that
        was sent before it was reopened, ``withdrawn``, with a new id and the
        next revision; ``None`` when no result of it was sent."""
        found = None if row is None else self.journal.outbox.withdrawable(row)
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

    def _dates(self, *times: float | None) -> bool:
        """Whether the board's clock gave ``times`` as dates (a result's
        ``clock_synced``): each must be (a game started at 1970 and finished
        after NTP answered has no start date either)."""
        return all(at is None or self.clock_synced(at) for at in times)

    def finish_record(
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
        game_key, revision = (None, 0) if row is None else self.journal.games.result_revision(row)
        cpu: dict[int, dict[str, Any]] = {}
        if self.bots is not None:
            for seat, player in enumerate(session.game.state()["players"]):
                bot = self.bots.players.get(player["name"])
                if bot is not None:
                    cpu[seat] = bot.as_json()
        result = result_document(
            session.match if session.match.format is not None else session.game,
            result_id=result_id,
            board=self.board_id,
            started_at=self.started_at,
            finished_at=now,
            cpu=cpu,
            game_key=game_key,
            revision=revision + 1,
            clock_synced=clock_synced,
        )
        self.bus.emit(core_events.ResultBuilt(result, session))
        return Finish(
            {"winner": result["winner"], "result": result["result"]},
            now,
            result["result_id"],
            to_json(result),
            game_key=result["game_key"],
            revision=result["revision"],
        )

    # ------------------------------------------------------- the takeout timer

    def deadline_moved(self) -> None:
        """Wake the ticker only when the takeout deadline it sleeps until has
        changed: most darts leave it as it was, and a wake-up costs a task step."""
        if self.takeout_deadline() != self._ticker_deadline:
            self._timer_changed.set()

    def takeout_deadline(self) -> float | None:
        """When this board's takeout timer ends the visit: ``None`` without
        one, and when an extension stops it (a visit thrown at a remote guest:
        its own ``next`` ends it)."""
        if self.session is None or not all(self.bus.emit(core_events.TakeoutTimerAsked())):
            return None
        return self.session.takeout_deadline

    async def ticker(self) -> None:
        """Ends takeout when its timer runs out. Sleeps until the deadline (or
        until the session changes), so an idle daemon does not wake up."""
        while True:
            deadline = self.takeout_deadline()
            self._ticker_deadline = deadline
            self._timer_changed.clear()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._timer_changed.wait()
            if self.session is None:
                continue
            refused: JournalError | None = None
            async with self.lock:
                due = self.session.due(self.clock()) if self.takeout_deadline() is not None else []
                if due:
                    try:
                        self.apply(due, "board")
                    except JournalError as error:  # the visit ends once the journal takes it
                        refused = error
                    self.publisher.request_state()
            if refused is not None:
                log.debug("the takeout timer's NEXT waits for the journal: %s", refused)
                await self.wait_for_journal()


def journaled_setup(journaled: JournalGame) -> SessionSetup:
    """What the journaled game was started with: its game, options, players,
    teams and match format (a MatchFormatError for a damaged one)."""
    match = None if journaled.match is None else MatchFormat.from_json(journaled.match)
    return SessionSetup(
        journaled.game, journaled.options, journaled.players, journaled.teams, match
    )


def _may_reopen(last: list[str]) -> bool:
    """Whether a finished game's last journaled token may have reopened it:
    an undo, a bounce-out or a correction of its final visit."""
    if not last:
        return False
    try:
        event = parse_event(last[0])
    except EngineError:
        return False
    return isinstance(event, Undo | Bounce | Correct)


def _log_correction(row: int, name: str, corrected: Corrected, source: str) -> None:
    """The daemon's log line for a correction: whose dart, what it was, what it is."""
    log.info(
        "game %d: %s's dart %d corrected from %s to %s (%s)",
        row,
        name,
        corrected.dart,
        corrected.was,
        corrected.to,
        source,
    )
