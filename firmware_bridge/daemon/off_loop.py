"""Slow solves kept off the daemon's event loop, attached when ready.

A skill test's report (1.6 s of numpy the first time) and the X01 plan behind
a ``checkout_sigma_mm`` hint are slow solves (:mod:`engine.solves`). The
daemon builds every state through :meth:`OffLoop.state`: a solve not done yet
is left out (the state's ``skill`` or ``checkout`` is ``null``), solved here
in a worker thread, one at a time, and the state published again once the
queue is empty, so no dart, command or heartbeat waits for it. The thread
shares the engine's caches (a spread's plan is solved once for its hints and
its bot); while it solves, the GIL is handed back to the loop more often
(:data:`SOLVING_SWITCH_INTERVAL_S`).

A game won by a dart whose result needs a solve (a skill test's report is
in its result's ``stats``) is held back: the dart is journaled and published
at once (the finished state), and the finish with its result is journaled
once the solves are done (:meth:`OffLoop.finish`), unless an undo or a
bounce-out changed the game meanwhile. Until then the journal has the game
``playing`` with its winning dart: a restart records the finish as it does
for a journal from an older Oche. A new game waits for :meth:`settled`, so
the one before is journaled finished, not ended.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from engine.solves import Solve, deferring, solve
from firmware_bridge.daemon.game_session import GameSession
from firmware_bridge.daemon.journal import Finish, JournalError

__all__ = ["SOLVING_SWITCH_INTERVAL_S", "OffLoop"]

log = logging.getLogger(__name__)

T = TypeVar("T")

SOLVING_SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while a solve runs (5 ms
otherwise): the loop waits that long for the GIL each time it takes it back
from the solving thread (after a commit's fsync, a socket write), so a
dart's few waits add up; at 0.5 ms the loop's largest stall halves
(docs/benchmarks.md) and the solve takes no longer."""


_switch = {"solving": 0, "interval": sys.getswitchinterval()}
"""The workers solving now (of every daemon in this process), and the
switch interval to restore when none is."""


def _switching(change: int) -> None:
    """A worker starts (+1) or stops (-1) solving: the short switch interval
    holds while any does."""
    if _switch["solving"] == 0:
        _switch["interval"] = sys.getswitchinterval()
    _switch["solving"] += change
    solving = _switch["solving"] > 0
    sys.setswitchinterval(
        min(_switch["interval"], SOLVING_SWITCH_INTERVAL_S) if solving else _switch["interval"]
    )


@dataclass(frozen=True)
class _HeldFinish:
    """A finish waiting for its solves: the game as it was won."""

    session: GameSession
    applied: int
    build: Callable[[], Finish]
    record: Callable[[Finish], None]


class OffLoop:
    """The daemon's slow solves: queued by the states and finishes that need
    them, solved in a worker thread, then the state published again (and held
    finishes journaled under ``lock``, the daemon's one lock for changes)."""

    def __init__(
        self,
        lock: asyncio.Lock,
        publish_state: Callable[[], None],
        session: Callable[[], GameSession | None],
    ) -> None:
        self._lock = lock
        self._publish_state = publish_state
        self._session = session
        """The daemon's game now: a held finish stands while it is that game's
        (or the game was put away, won, by ``end_game``), not once the game
        was rebuilt from the journal (the input that won it was refused)."""
        self._queued: dict[Hashable, Solve] = {}
        self._failed: set[Hashable] = set()
        self._held: list[_HeldFinish] = []
        self._worker: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._settled.set()

    def state(self, build: Callable[[], T]) -> T:
        """``build()`` (a state) with the solves it needs and has not got left
        out; they are queued, and the state is published again once done."""
        with deferring() as pending:
            built = build()
        self._queue(pending)
        return built

    def finish(
        self, session: GameSession, build: Callable[[], Finish], record: Callable[[Finish], None]
    ) -> Finish | None:
        """``build()``, the finish of ``session``'s game just won, if every solve
        it needs is done; else ``None``: it is built and passed to ``record``
        (under the lock) once they are, if the game is as it was won then."""
        with deferring() as pending:
            built = build()
        if not pending:
            return built
        self._held.append(_HeldFinish(session, session.applied, build, record))
        self._settled.clear()
        self._queue(pending, force=True)
        return None

    @property
    def busy(self) -> bool:
        """Whether solves are queued or a finish waits for them."""
        return bool(self._queued or self._held)

    async def settled(self) -> None:
        """Wait until no finish is held back (at once when none is)."""
        await self._settled.wait()

    def _queue(self, pending: list[Solve], force: bool = False) -> None:
        for wanted in pending:
            if wanted.key not in self._failed:
                self._queued.setdefault(wanted.key, wanted)
        if (self._queued or force) and self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        """Solve the queue one at a time in a thread, then journal the held
        finishes and publish the state again."""
        _switching(+1)
        try:
            while self._queued:
                key, wanted = next(iter(self._queued.items()))
                try:
                    await asyncio.to_thread(solve, wanted)
                except Exception:  # a bug in a solve: its part stays null, the board goes on
                    log.exception("could not solve %r; the state goes without it", key)
                    self._failed.add(key)
                finally:
                    del self._queued[key]
            if self._held:
                async with self._lock:
                    self._record_held()
            self._publish_state()
        finally:
            _switching(-1)
            self._worker = None
        if self._queued or self._held:  # more came while the last ones were recorded
            self._queue([], force=True)

    def _record_held(self) -> None:
        """Journal each held finish whose game is still as it was won (an undo
        or a bounce-out since, or a refused write that rebuilt the game: it is
        dropped; that input decided anew)."""
        held, self._held = self._held, []
        for finish in held:
            current = self._session()
            if current is not None and current is not finish.session:
                continue  # rebuilt: the winning dart was not journaled
            if finish.session.applied != finish.applied or not finish.session.game.is_finished:
                continue
            with deferring() as pending:
                built = finish.build()
            if any(wanted.key not in self._failed for wanted in pending):
                self._held.append(finish)  # a solve was dropped meanwhile: solved again
                self._queue(pending)
                continue
            try:
                finish.record(built if not pending else finish.build())
            except JournalError as error:  # a restart records it (the game is still playing)
                log.error("the finish of a game was not journaled: %s", error)
            except Exception:
                log.exception("could not record the finish of a game")
        if not self._held:
            self._settled.set()
