"""The service's caller (docs/matches.md, "Called matches"): calls each
ready match (:mod:`leaderboard.match_calls`) to a free board of its own and
follows it there, from the boards' retained ``state`` and ``availability``
the live hub keeps.

A board is free when it is online, idle or showing a finished game, shows
no call waiting, and holds no live call in the database (as its board, or
as a remote call's away board). A remote call (a player at another board)
is called only when its away boards are free too, and its claim holds them
(``board_claims``); the away board is never sent a command: the called
board hosts the remote match and invites it. A call is claimed
for a free board in one transaction (:func:`match_calls.claim_board`: the
row's status and the board's unique index decide between several service
instances on one database), committed, and only then ``call_match`` is sent
(:class:`CommandRelay`); a board that refuses it ``busy`` puts it back to
ready. A live call whose board shows neither it waiting nor a game in
progress is sent again (the board takes the same call once): by a service
that started after it was called, and after :data:`RESEND_S` by any. A
call whose board shows a game in progress (and not the call waiting) is
``playing``; a call a board shows waiting that is no longer called there
(walked over, moved) is taken back with ``cancel_call``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from leaderboard import match_calls
from leaderboard.api_models import LiveBoard
from leaderboard.command_relay import BoardSilentError, CommandRelay, RelayOfflineError
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.log_throttle import ThrottledLog
from leaderboard.models import MatchCall

__all__ = ["BUSY", "POLL_S", "RESEND_S", "MatchCaller"]

log = logging.getLogger(__name__)

POLL_S: Final = 1.0
"""How often the queue is looked at when no board changed (a call queued by
another process: ``oche tournament create``)."""
RESEND_S: Final = 15.0
"""A live call its board does not show is sent again this long after it was
last sent (the board takes the same call once: only liveness waits on this)."""
BUSY: Final = "busy"
"""How a board's refusal of a call it cannot take now begins."""

_FREE_PHASES = ("idle", "finished")
_PLAYING_PHASES = ("throwing", "takeout")


@dataclass(frozen=True, slots=True)
class _Live:
    """A live call, as the pass reads it."""

    call_id: str
    board: str
    away: tuple[str, ...]
    """A remote call's away boards: held while it is live, never sent to."""
    status: str
    called_at: float | None
    command: dict[str, Any]


class MatchCaller:
    """Calls the ready matches to free boards and follows the live ones.
    :meth:`run` until cancelled; :meth:`step` is one pass (tests)."""

    def __init__(self, database: Database, hub: LiveHub, relay: CommandRelay, base: str) -> None:
        self._database = database
        self._hub = hub
        self._relay = relay
        self._base = base
        self._started_at = time.time()
        self._sent: dict[str, float] = {}
        """Call id -> when this instance last sent it (monotonic)."""
        self._cancelled: dict[tuple[str, str], float] = {}
        """(board, call id) -> when this instance last sent its cancel_call."""
        self._refused: dict[tuple[str, str], float] = {}
        """(call id, board) -> when that board last refused that call."""
        self._flying: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._unsendable = ThrottledLog(log)

    async def run(self) -> None:
        """Look at the queue each time a board changes, and every :data:`POLL_S`."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self._listen())
            tasks.create_task(self._tick())
            while True:
                await self._wake.wait()
                self._wake.clear()
                try:
                    await self.step()
                except SQLAlchemyError as error:  # the database away: the next pass tries again
                    log.warning("calling matches: %s", str(error).splitlines()[0])
                    await asyncio.sleep(POLL_S)
                except Exception:  # a bug must not stop the service: the next pass tries again
                    log.exception("calling matches failed")
                    await asyncio.sleep(POLL_S)

    async def _listen(self) -> None:
        async for message in self._hub.subscribe():
            if message.kind in ("state", "availability", "result"):
                self._wake.set()

    async def _tick(self) -> None:
        while True:
            self._wake.set()
            await asyncio.sleep(POLL_S)

    # ------------------------------------------------------------ a pass

    def _board_id(self, board: str) -> str | None:
        """A call's board as this service's board id (None: another base's)."""
        base, _, board_id = board.rpartition("/")
        return board_id if base in ("", self._base) else None

    def _online(self, board: str) -> LiveBoard | None:
        board_id = self._board_id(board)
        view = self._hub.board(board_id) if board_id is not None else None
        if view is None or view.availability != "online" or view.state is None:
            return None
        return view

    async def step(self) -> None:
        """One pass: follow the live calls, take back calls boards should not
        show, and call the ready ones to free boards."""
        live, ready = await asyncio.to_thread(self._read)
        held = {self._board_id(board) for call in live for board in (call.board, *call.away)}
        for following in live:
            await self._follow(following)
        self._take_back(live)
        for call in ready:
            away = match_calls.away_boards(call)
            if not all(self._free(b, held) for b in away):
                continue  # a remote call waits for its away board to be free too
            board = next(
                (b for b in call.boards if self._free(b, held) and not self._refusing(call, b)),
                None,
            )
            if board is None:
                continue
            if await asyncio.to_thread(self._claim, call.call_id, board):
                held.update(self._board_id(b) for b in (board, *away))
                command = self._command(call)
                if command is not None:
                    self._send(call.call_id, board, command)

    def _read(self) -> tuple[list[_Live], list[MatchCall]]:
        """The live calls and the ready ones (a row the contract refuses,
        written by hand or by an older Oche, is logged and left out)."""
        with self._database.session() as session:
            live, ready = [], []
            for call in match_calls.live_calls(session):
                command = self._command(call)
                if command is not None:
                    away = tuple(match_calls.away_boards(call))
                    live.append(
                        _Live(
                            call.call_id,
                            call.board or "",
                            away,
                            call.status,
                            call.called_at,
                            command,
                        )
                    )
            for call in match_calls.ready_calls(session):
                if self._command(call) is not None:
                    ready.append(call)
            return live, ready

    def _command(self, call: MatchCall) -> dict[str, Any] | None:
        try:
            command: dict[str, Any] = match_calls.call_command(call).to_json()
        except ValueError as error:
            self._unsendable.warn(f"call {call.call_id} cannot be sent: {error}")
            return None
        return command

    def _refusing(self, call: MatchCall, board: str) -> bool:
        refused = self._refused.get((call.call_id, board))
        return refused is not None and time.monotonic() - refused < RESEND_S

    def _free(self, board: str, held: set[str | None]) -> bool:
        view = self._online(board)
        if view is None or self._board_id(board) in held:
            return False
        state = view.state or {}
        return state.get("phase") in _FREE_PHASES and not state.get("call")

    def _claim(self, call_id: str, board: str) -> bool:
        try:
            with self._database.write_session() as session:
                return match_calls.claim_board(session, call_id, board, time.time())
        except IntegrityError:  # another instance called another match to that board
            return False

    async def _follow(self, call: _Live) -> None:
        """A live call as its board shows it: waiting, being played, or not there."""
        view = self._online(call.board)
        if view is None:
            return
        state = view.state or {}
        shown = state.get("call")
        waiting = isinstance(shown, Mapping) and shown.get("call_id") == call.call_id
        phase = state.get("phase")
        if waiting:
            if call.status == "playing":  # ended unplayed and called again
                await asyncio.to_thread(self._set, call.call_id, "called")
            return
        if phase in _PLAYING_PHASES:
            if call.status == "called":
                await asyncio.to_thread(self._set, call.call_id, "playing")
            return
        if phase in _FREE_PHASES and self._resend_due(call):
            self._send(call.call_id, call.board, call.command)

    def _resend_due(self, call: _Live) -> bool:
        if call.call_id in self._flying:
            return False
        last = self._sent.get(call.call_id)
        if last is None:  # not sent by this instance: called before it started, or elsewhere
            called = call.called_at or 0.0
            return called < self._started_at or time.time() - called >= RESEND_S
        return time.monotonic() - last >= RESEND_S

    def _set(self, call_id: str, status: str) -> None:
        with self._database.write_session() as session:
            if status == "playing":
                match_calls.mark_playing(session, call_id)
            else:
                match_calls.mark_called(session, call_id)

    def _take_back(self, live: list[_Live]) -> None:
        """A call a board shows waiting that is not live on it: ``cancel_call``."""
        on_board = {(self._board_id(call.board), call.call_id) for call in live}
        for view in self._hub.boards():
            if view.availability != "online" or not view.state:
                continue
            shown = view.state.get("call")
            call_id = shown.get("call_id") if isinstance(shown, Mapping) else None
            if not isinstance(call_id, str) or (view.board, call_id) in on_board:
                continue
            last = self._cancelled.get((view.board, call_id))
            if last is not None and time.monotonic() - last < RESEND_S:
                continue
            self._cancelled[(view.board, call_id)] = time.monotonic()
            self._spawn(self._cancel(view.board, call_id))

    # ------------------------------------------------------------ sending

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _send(self, call_id: str, board: str, command: dict[str, Any]) -> None:
        self._flying.add(call_id)
        self._sent[call_id] = time.monotonic()
        self._spawn(self._deliver(call_id, board, command))

    async def _deliver(self, call_id: str, board: str, command: dict[str, Any]) -> None:
        board_id = self._board_id(board)
        assert board_id is not None
        try:
            response = await self._relay.send(board_id, command)
        except (RelayOfflineError, BoardSilentError) as unsent:
            log.info("call %s to %s: %s; sent again later", call_id, board, unsent)
            return
        finally:
            self._flying.discard(call_id)
        if response.get("ok"):
            log.info("called %s to %s", call_id, board)
            return
        why = str(response.get("error") or "refused")
        self._refused[(call_id, board)] = time.monotonic()
        if not why.startswith(BUSY):
            log.warning("board %s refused call %s: %s", board, call_id, why)
        with contextlib.suppress(SQLAlchemyError):
            await asyncio.to_thread(self._release, call_id, board)
        self._wake.set()

    def _release(self, call_id: str, board: str) -> None:
        with self._database.write_session() as session:
            match_calls.release_call(session, call_id, board)

    def _live_on(self, call_id: str, board: str) -> bool:
        """Whether ``call_id`` is live on ``board`` now (read fresh: another
        instance may have called it since this pass read the queue)."""
        with self._database.session() as session:
            return any(
                call.call_id == call_id and self._board_id(call.board or "") == board
                for call in match_calls.live_calls(session)
            )

    async def _cancel(self, board: str, call_id: str) -> None:
        try:
            if await asyncio.to_thread(self._live_on, call_id, board):
                return
        except SQLAlchemyError:  # not sure: leave it, the next pass looks again
            self._cancelled.pop((board, call_id), None)
            return
        command = match_calls.cancel_command(call_id).to_json()
        try:
            await self._relay.send(board, command)
        except (RelayOfflineError, BoardSilentError) as error:
            log.info("cancel_call to %s: %s", board, error)

    async def close(self) -> None:
        """Wait for the commands in flight (cancelled)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
