"""The match-calls extension: a match the venue's service calls to this
board (docs/matches.md, "Called matches").

It takes ``call_match`` and ``cancel_call`` (``CommandReceived``): a call
is refused ``busy`` while a game is in progress (the service then tries
another board), unless it is the same call again (no change); a call taken
seats its players in the lobby (``LobbySeated``), is journaled (the
journal's settings, ``call.book``: a restart keeps it), is the state's
``call`` block (``StateBuilt``) and a ``match_called`` event. While it
waits and no game is in progress, a dart on the board (not scored: it
confirms) or NEXT starts its game with the lobby's players (in the call's
teams, for a team game; a call with a player at another board starts a
remote match hosted here: :func:`new_game_of`) through
``ExtensionContext.new_game``, and that game's result carries its
``call_id`` (``ResultBuilt``). The rules are
:mod:`firmware_bridge.daemon.call_book`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from drivers.board_events import HitEvent
from engine import EngineError, game_name, new_game
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.call_book import CallBook
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    CallCancelled,
    CallMatch,
    CancelCall,
    ErrorReported,
    MatchCalled,
    NewGame,
    Next,
    Phase,
)
from mqtt_contract.match_payload import call_problem
from mqtt_contract.topic_names import base_problem, board_id_problem

__all__ = ["BOOK_KEY", "MatchCalls", "new_game_of"]

log = logging.getLogger(__name__)

BOOK_KEY = "book"
"""The journal settings key (``call.book``) of the board's :class:`CallBook`."""


class MatchCalls(Extension):
    """The board's called matches. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.book = CallBook()
        self._row: int | None = None
        """The journal row of the game on the board (started or resumed)."""
        self._finished_row: int | None = None
        context.subscribe(core_events.CommandReceived, self._command, order=-1)
        context.subscribe(core_events.BoardInputReceived, self._board_input, order=-1)
        context.subscribe(core_events.GameStarted, self._started)
        context.subscribe(core_events.GameResumed, self._resumed)
        context.subscribe(core_events.GameFinished, self._finished)
        context.subscribe(core_events.GameAbandoned, self._abandoned)
        context.subscribe(core_events.StateBuilt, self._state)
        context.subscribe(core_events.ResultBuilt, self._result)

    # ------------------------------------------------------------ lifecycle

    def opened(self) -> None:
        """Take back the board's calls from the journal."""
        kept = self._context.journal.settings.call_value(self._context.board_id, BOOK_KEY)
        for problem in self.book.restore(kept):
            log.error("the journal's called matches: %s; not taken back", problem)
        self._row = self._context.game_row

    # ------------------------------------------------------------ commands

    def _command(self, received: core_events.CommandReceived) -> bool | None:
        command, now = received.command, received.at
        if isinstance(command, CallMatch):
            self._call(command, now)
            return True
        if isinstance(command, CancelCall):
            self._cancel(command.call_id, now)
            return True
        if isinstance(command, Next) and self._may_start():
            self._start(now)
            return True
        return None

    def _busy(self) -> str | None:
        """What the board is doing that a call must not interrupt, or None."""
        session = self._context.session
        if session is None or session.phase == Phase.FINISHED:
            return None
        return f"a game of {game_name(session.setup.game)} is in progress"

    def _may_start(self) -> bool:
        return self.book.pending is not None and self._busy() is None

    def _call(self, command: CallMatch, now: float) -> None:
        names = tuple(p.name for p in command.players)
        problem = call_problem(command.players, command.teams) or _boards_problem(command)
        if problem is not None:
            raise Refusal(f"call {command.call_id}: {problem}")
        game = new_game_of(command)
        try:  # a call its game would refuse is refused now, not at the players' dart
            players = game.player_names or names  # none named: the lobby's, the call's
            new_game(command.game, players, dict(command.options or {}), game.team_names)
            if command.match is not None:
                command.match.format()
        except EngineError as error:
            raise Refusal(f"call {command.call_id}: {error}") from None
        with self._as_it_was_unless_journaled():
            if self.book.take(command, self._busy(), now) == "same":
                return
            self._keep(now)
            seated = tuple((p.name, p.player_id) for p in command.players)
            self._context.emit(core_events.LobbySeated(seated, now))
        log.info("match called: %s (%s)", command.call_id, " v ".join(names))
        self._context.publish_event(MatchCalled(now, command.call_id, names, command.title))

    def _cancel(self, call_id: str, now: float) -> None:
        with self._as_it_was_unless_journaled():
            if not self.book.cancel(call_id):
                return
            self._keep(now)
            self._context.emit(core_events.LobbySeated((), now))
        log.info("called match %s taken back", call_id)
        self._context.publish_event(CallCancelled(now, call_id))

    def _start(self, now: float) -> None:
        """The players confirmed the waiting call: its game starts (the lobby's players)."""
        pending = self.book.pending
        assert pending is not None
        call = pending.command
        if not self._context.first(core_events.PlayersAsked(now)):
            # Another game started meanwhile took the lobby: the call's players again.
            seated = tuple((p.name, p.player_id) for p in call.players)
            self._context.emit(core_events.LobbySeated(seated, now))
        self._context.new_game(new_game_of(call), now)
        row = self._context.game_row
        assert row is not None
        with contextlib.suppress(JournalError):  # the game is journaled: it plays all the same
            self.book.start(row)
            self._row = row
            self._keep(now)
        log.info("called match %s started as game %d", call.call_id, row)

    # ------------------------------------------------------------ the board

    def _board_input(self, received: core_events.BoardInputReceived) -> bool | None:
        """A dart while a call waits and no game is on: it starts the call (not scored)."""
        if not isinstance(received.event, HitEvent) or not self._may_start():
            return None
        try:
            self._start(received.at)
        except (Refusal, EngineError, ValueError) as refusal:
            self._context.publish_event(ErrorReported(received.at, "refused", str(refusal)))
        return True

    # ------------------------------------------------------------ the game

    def _started(self, started: core_events.GameStarted) -> None:
        self._row, self._finished_row = started.row, None

    def _resumed(self, resumed: core_events.GameResumed) -> None:
        self._row = resumed.journaled.id

    def _finished(self, finished: core_events.GameFinished) -> None:
        self._finished_row = finished.row

    def _abandoned(self, abandoned: core_events.GameAbandoned) -> None:
        """A called game ended unplayed: a ``call_match`` of it calls it again."""
        row, self._row = self._row, None
        if row is None or row == self._finished_row:
            return
        call_id = self.book.abandoned(row)
        if call_id is not None:
            log.info("called match %s was ended unplayed; it may be called again", call_id)
            try:
                self._keep(abandoned.at)
            except JournalError as error:
                log.error("the called matches were not journaled: %s", error)

    def _result(self, built: core_events.ResultBuilt) -> None:
        call_id = self.book.call_of(self._context.game_row)
        if call_id is not None:
            built.result["call_id"] = call_id

    def _state(self, built: core_events.StateBuilt) -> None:
        pending = self.book.pending
        if pending is not None:
            built.state["call"] = pending.view().to_json()

    # ------------------------------------------------------------ keeping

    @contextlib.contextmanager
    def _as_it_was_unless_journaled(self) -> Iterator[None]:
        """A change the journal refuses is undone (the JournalError goes on)."""
        kept = self.book.to_json()
        try:
            yield
        except JournalError:
            self.book = CallBook()
            self.book.restore(kept)
            raise

    def _keep(self, now: float) -> None:
        self._context.journal.settings.keep_call_value(
            self._context.board_id, BOOK_KEY, self.book.to_json(), now
        )


def new_game_of(call: CallMatch) -> NewGame:
    """The ``new_game`` a call starts: its game, options and match format;
    its teams when it has them; its players named when one throws at another
    board (a remote match, hosted here), else the lobby's (which holds the
    call's players, with their roster ids)."""
    document: dict[str, Any] = {"command": "new_game", "game": call.game}
    if call.options:
        document["options"] = dict(call.options)
    if call.match is not None:
        document["match"] = call.match.to_json()
    entries = {
        p.name: p.name if p.board is None else {"name": p.name, "board": p.board}
        for p in call.players
    }
    if call.teams is not None:
        document["teams"] = {team.name: [entries[n] for n in team.players] for team in call.teams}
    elif any(p.board is not None for p in call.players):
        document["players"] = list(entries.values())
    return NewGame.from_json(document)


def _boards_problem(call: CallMatch) -> str | None:
    """Why a remote player's board cannot be one, in words; None when every board is one."""
    for player in call.players:
        if player.board is None:
            continue
        base, slash, board_id = player.board.strip().rpartition("/")
        problem = board_id_problem(board_id) or (base_problem(base) if slash else None)
        if problem is not None:
            return f"{player.name}'s board {player.board!r}: {problem}"
    return None
