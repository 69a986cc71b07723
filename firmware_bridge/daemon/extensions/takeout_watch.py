"""The takeout-watch extension: a board with a takeout sensor (a DaSCR board).

A board whose ``[board] sensors`` has ``ultrasonic`` is told to watch while
this board's visit is in its takeout, and after a win until the darts are
seen taken out; the sensor seeing them during the takeout ends it as NEXT
does (``takeout_sensed``, docs/mqtt.md). Whose visit it is, the other
extensions say (:class:`~firmware_bridge.daemon.core_events.OwnTakeoutAsked`:
not a computer player's, not one thrown at another board of a remote match;
:class:`~firmware_bridge.daemon.core_events.TakeoutWatchAsked`: a remote
guest decides alone).
"""

from __future__ import annotations

import logging

from drivers.board_events import TakeoutEvent
from engine import EngineError
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import GameSession, Refusal
from mqtt_contract import ErrorReported, Phase, TakeoutSensed

__all__ = ["TakeoutWatch"]

log = logging.getLogger(__name__)


class TakeoutWatch(Extension):
    """Keeps the takeout sensor's watch, and ends a takeout it senses. No I/O
    in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self._ultrasonic = "ultrasonic" in context.config.board.sensors
        self._watch_asked: bool | None = None
        """The takeout watch last asked of the board (``None``: not yet)."""
        self._finish_watched: tuple[GameSession, int] | None = None
        """The finished game (its session, its events applied) whose takeout was seen."""
        context.subscribe(core_events.StatePublished, lambda _: self._sync())
        context.subscribe(core_events.BoardInputReceived, self._board_input)

    def _sync(self) -> None:
        """Ask a board with a takeout sensor to watch, or to stop, when what it
        should do has changed (after every change: it runs with each publish)."""
        board = self._context.board
        if board is None or not self._ultrasonic:
            return
        try:
            wanted = self._wanted()
        except Exception:  # a bug here must not stop the publishing it rides on
            log.exception("could not tell whether the board should watch for the takeout")
            return
        if wanted != self._watch_asked:
            self._watch_asked = wanted
            self._context.background(board.watch_takeout(wanted))

    def _wanted(self) -> bool:
        """Whether the board should watch for its darts being taken out: in
        this board's takeout, and after a win until they were seen taken out.
        Never while someone throws (a DaSCR board scans no hits while it
        watches), nor for a computer player's visit or a visit thrown at
        another board of a remote match."""
        decided = self._context.first(core_events.TakeoutWatchAsked())
        if decided is not None:
            return decided
        session = self._context.session
        if session is None:
            return False
        if session.phase == Phase.FINISHED:
            return self._finish_watched != (session, session.applied) and self._own(True)
        return self._in_own_takeout()

    def _own(self, finished: bool) -> bool:
        return all(self._context.emit(core_events.OwnTakeoutAsked(finished)))

    def _in_own_takeout(self) -> bool:
        """This board's visit is over and its player pulls the darts out: what
        a sensed takeout ends (not a computer player's, nor another board's)."""
        session = self._context.session
        return session is not None and session.phase == Phase.TAKEOUT and self._own(False)

    def _board_input(self, received: core_events.BoardInputReceived) -> bool:
        """The board's sensor saw the darts being taken out: in this board's
        takeout it ends the visit as NEXT does; at any other time it is only
        published."""
        if not isinstance(received.event, TakeoutEvent):
            return False
        now, ended = received.at, False
        session = self._context.session
        try:
            if session is not None and self._in_own_takeout():
                self._context.apply(session.plan_next(), "board")
                ended = True
            elif session is not None and session.phase == Phase.FINISHED:
                self._finish_watched = (session, session.applied)  # seen: the watch stops
        except (Refusal, EngineError) as refusal:
            self._context.publish_event(ErrorReported(now, "refused", str(refusal)))
        self._context.publish_event(TakeoutSensed(now, ended))
        return True
