"""The computer-players extension: a game's bots throw through the core.

A computer player's darts (:mod:`firmware_bridge.daemon.bots`), in every leg
of a match and at its cork, take the same
path as a board's: the bot task waits ``[bot] dart_interval_s``, aims off the
event loop (in the daemon's solving process, :mod:`firmware_bridge.daemon.off_loop`,
which keeps the plan it aims by), then plans, applies, journals and publishes
the dart under the lock (``source: "cpu"``); after its visit it waits
``[bot] takeout_s`` and presses NEXT. While a computer player's visit is on, board hits are ignored
(reason ``cpu-turn``) and darts, misses and NEXT by hand are refused
(:class:`~firmware_bridge.daemon.core_events.InputPlanned`). A journal that
refuses writes makes it wait until it writes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from engine import EngineError
from engine.solves import deferring
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import Phase, RemoteAction

__all__ = ["CPU_TURN", "BotPlayers"]

log = logging.getLogger(__name__)

CPU_TURN = "cpu-turn"
"""The reason of a board hit ignored because a computer player is throwing."""

_BY_HAND = {
    RemoteAction.DART: "a dart",
    RemoteAction.MISS: "a miss",
    RemoteAction.BOUNCE: "bounce-out",
    RemoteAction.NEXT: "NEXT",
    RemoteAction.CORRECT: "correction",
}
"""What a computer player's visit refuses by hand (how the refusal names it)."""


class BotPlayers(Extension):
    """Throws for the game's computer players. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self._due: float | None = None
        self._wake = asyncio.Event()
        schedule = self._schedule
        context.subscribe(core_events.GameStarted, lambda event: schedule(event.at))
        context.subscribe(core_events.GameResumed, lambda event: schedule(event.at))
        context.subscribe(core_events.GameAbandoned, lambda event: schedule(event.at))
        context.subscribe(core_events.PresenceChanged, lambda event: schedule(event.at))
        context.subscribe(
            core_events.InputApplied, lambda event: schedule(event.at, pause=event.undone)
        )
        context.subscribe(core_events.InputPlanned, self._refuse)
        context.subscribe(core_events.OwnTakeoutAsked, self._own_takeout)
        context.subscribe(core_events.StateBuilt, self._state)

    def _visit(self) -> str | None:
        """The computer player whose visit is on the board (throwing, or in
        the takeout after it), as the screens name it; ``None`` otherwise."""
        session, bots = self._context.session, self._context.bots
        if session is None or bots is None or session.phase == Phase.FINISHED:
            return None
        if any(self._context.emit(core_events.MatchPausedAsked())):
            return None  # a remote match waits for a board: so does the bot
        name = session.game.lineup.players[session.thrower()]
        cpu = bots.players.get(name)
        return None if cpu is None else f"{name} (CPU {cpu.level})"

    def _threw_last(self) -> bool:
        """The player whose visit is (or was, at a win) on the board is a computer player."""
        session, bots = self._context.session, self._context.bots
        if session is None or bots is None:
            return False
        return session.game.lineup.players[session.thrower()] in bots.players

    def _own_takeout(self, asked: core_events.OwnTakeoutAsked) -> bool:
        return not self._threw_last() if asked.finished else self._visit() is None

    def _refuse(self, planned: core_events.InputPlanned) -> None:
        """This board's own input during a computer player's visit: a hit is
        ignored (``cpu-turn``), a dart, miss, bounce-out, correction or NEXT by hand refused
        (NEXT may cut its takeout short); an undo is taken."""
        what = _BY_HAND.get(planned.action)
        if planned.action is not RemoteAction.HIT and what is None:
            return
        label = self._visit()
        if label is None:
            return
        if planned.action is RemoteAction.HIT:
            raise Refusal(CPU_TURN)
        session = self._context.session
        if (
            planned.action is RemoteAction.NEXT
            and session is not None
            and session.phase == Phase.TAKEOUT
        ):
            return
        raise Refusal(f"{label} is throwing: no {what} by hand until its visit is over")

    def _state(self, built: core_events.StateBuilt) -> None:
        """Each computer player's ``cpu`` block in the state."""
        bots = self._context.bots
        if bots is None or self._context.session is None:
            return
        for player in built.state.get("players") or []:
            cpu = bots.players.get(player["name"])
            if cpu is not None:
                player["cpu"] = cpu.as_json()

    def _schedule(self, now: float, pause: bool = False) -> None:
        """When the computer player whose visit it is acts next: its next dart
        after ``dart_interval_s``, NEXT after ``takeout_s`` once its visit is
        over (and, after an undo, ``takeout_s`` before it throws again, so a
        run of undos is not raced). ``None`` when no computer player is due."""
        bot = self._context.config.bot
        session = self._context.session
        due: float | None = None
        if self._visit() is not None and session is not None:
            takeout = session.phase == Phase.TAKEOUT
            due = now + (bot.takeout_s if takeout or pause else bot.dart_interval_s)
        if due != self._due:
            self._due = due
            self._wake.set()

    async def run(self) -> None:
        """Throws for the computer players: sleeps until the next action is due
        (or the schedule changes), then takes it."""
        context = self._context
        while True:
            self._wake.clear()
            due = self._due
            timeout = None if due is None else max(0.0, due - context.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            if self._due is None or self._wake.is_set() or context.clock() < self._due:
                continue
            self._due = None
            try:
                await self._act()
            except JournalError as error:  # it throws again once the journal takes it
                log.debug("the computer player waits for the journal: %s", error)
                context.request_state()
                await context.wait_for_journal()
                continue
            except Exception:  # a bug must not stop the board: the bot misses instead
                log.exception("the computer player could not throw; it misses")
                async with context.lock:
                    self._fallback()
            context.request_state()

    async def _act(self) -> None:
        """One action of the computer player: NEXT after its takeout, or a dart,
        aimed off the loop and applied only if nothing changed meanwhile."""
        context = self._context
        session, bots = context.session, context.bots
        if session is None or bots is None or self._visit() is None:
            return
        if session.phase == Phase.TAKEOUT:
            async with context.lock:
                if context.session is session and self._visit() is not None:
                    context.apply(session.plan_next(), "cpu")
            return
        applied = session.applied
        with deferring():  # the hints' solves (a spread's plan) are the off-loop worker's
            state = session.match.state()  # a match's: its cork too
        bed = await context.off_loop(bots.throw, state, applied)  # the solving process aims
        async with context.lock:
            if context.session is not session or session.applied != applied:
                return  # an undo, a new game: that change scheduled the bot again
            context.apply(session.plan_manual_dart(bed), "cpu")

    def _fallback(self) -> None:
        """The computer player's dart when aiming failed: a miss (or its NEXT)."""
        session = self._context.session
        if session is None or self._visit() is None:
            return
        try:
            planned = session.plan_next() if session.phase == Phase.TAKEOUT else session.plan_miss()
            self._context.apply(planned, "cpu")
        except (Refusal, EngineError, JournalError) as error:
            log.error("the computer player is stuck: %s", error)
