"""Slow solves kept off the daemon's event loop, attached when ready.

A skill test's report (1.6 s of numpy the first time), the X01 plan behind
a ``checkout_sigma_mm`` hint and a computer player's levels and aim are slow
solves. They run in a :class:`SolveWorker`: one worker process of the
daemon's own (``spawn``, started the first time a solve is needed, its
priority lowered by :data:`NICE`, ending itself if the daemon is killed:
:mod:`~firmware_bridge.daemon.solve_process`), so its numpy never holds the loop's GIL;
a solve is a module-level function and plain arguments (:class:`engine.solves.Solve`)
and its value comes back pickled. If the process cannot start (or stops),
a warning says so and the solves run in a thread instead, as they did
before (a thread is also what ``SolveWorker(process=False)`` asks for).
The daemon stops the worker as it stops (:meth:`SolveWorker.close`).

The daemon builds every state through :meth:`OffLoop.state`: a solve not done
yet is left out (the state's ``skill`` or ``checkout`` is ``null``), solved
by the worker, one at a time, and the state published again once the queue
is empty, so no dart, command or heartbeat waits for it.

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
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.solves import Solve, deferring, is_solved, keep
from firmware_bridge.daemon.game_session import GameSession
from firmware_bridge.daemon.journal import Finish, JournalError
from firmware_bridge.daemon.solve_process import initialize

__all__ = ["NICE", "SOLVING_SWITCH_INTERVAL_S", "START_TIMEOUT_S", "OffLoop", "SolveWorker"]

log = logging.getLogger(__name__)

T = TypeVar("T")

NICE = 5
"""How much the worker process's priority is lowered (``os.nice``): on a
board's few cores the daemon's loop runs first, the solve in what is left.
At 10 a machine busy with other work starved it: a computer player's first
aim (a cold X01 plan) took over 30 s at load 17, where 5 and 0 kept up."""

START_TIMEOUT_S = 60.0
"""How long the worker process may take to start and answer (a Raspberry Pi
starting a Python interpreter under load) before the thread is used instead."""

SOLVING_SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while a solve runs in a thread
(5 ms otherwise): the loop waits that long for the GIL each time it takes it
back from the solving thread (after a commit's fsync, a socket write), so a
dart's few waits add up; at 0.5 ms the loop's largest stall halves
(docs/benchmarks.md) and the solve takes no longer."""


_switch = {"solving": 0, "interval": sys.getswitchinterval()}
"""The threads solving now (of every daemon in this process), and the
switch interval to restore when none is."""


def _switching(change: int) -> None:
    """A thread starts (+1) or stops (-1) solving: the short switch interval
    holds while any does."""
    if _switch["solving"] == 0:
        _switch["interval"] = sys.getswitchinterval()
    _switch["solving"] += change
    solving = _switch["solving"] > 0
    sys.setswitchinterval(
        min(_switch["interval"], SOLVING_SWITCH_INTERVAL_S) if solving else _switch["interval"]
    )


def _start_process() -> tuple[ProcessPoolExecutor, int]:
    """A one-process pool, started and answering, and its process's id (slow:
    a new interpreter; run in a thread)."""
    executor = ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initialize,
        initargs=(os.getpid(), NICE),
    )
    try:
        pid = executor.submit(os.getpid).result(timeout=START_TIMEOUT_S)
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    return executor, pid


class SolveWorker:
    """Where the daemon's slow solves run: its worker process (started by the
    first :meth:`call`), or a thread when ``process`` is false or the process
    cannot be had. One a daemon; :meth:`close` stops it."""

    def __init__(self, process: bool = True) -> None:
        self._process = process
        self._start: asyncio.Task[tuple[ProcessPoolExecutor, int]] | None = None
        self._calls = 0
        self.pid: int | None = None
        """The worker process's id once it answered (``None``: none, threads)."""

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` off the loop: in the worker process (both
        picklable: a module-level function or a picklable object's method,
        plain values), in a thread without one. Its exceptions are raised here."""
        executor = await self._executor()
        if executor is None:
            return await self._in_thread(function, *args)
        self._calls += 1
        try:
            return await asyncio.wrap_future(executor.submit(function, *args))
        except BrokenProcessPool as error:
            if self._start is None:  # closed meanwhile: the daemon stops
                raise
            log.warning("the solving process stopped (%s); solves run in a thread now", error)
            self._process = False
            return await self._in_thread(function, *args)
        finally:
            self._calls -= 1

    async def _executor(self) -> ProcessPoolExecutor | None:
        """The started pool (started now if it is not yet); ``None``: threads."""
        if not self._process:
            return None
        if self._start is None:
            self._start = asyncio.ensure_future(asyncio.to_thread(_start_process))
        try:
            executor, self.pid = await asyncio.shield(self._start)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # no process to be had here: the thread will do
            if self._process:
                log.warning("no process for slow solves (%r); they run in a thread", error)
                self._process = False
            return None
        return executor

    @staticmethod
    async def _in_thread(function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a thread, the switch interval short meanwhile."""
        _switching(+1)
        try:
            return await asyncio.to_thread(function, *args)
        finally:
            _switching(-1)

    async def close(self) -> None:
        """Stop the worker process, and wait until it is gone: a solve in
        progress is not waited for (its process is ended), nor any queued.
        A later :meth:`call` starts a new one."""
        start, self._start = self._start, None
        if start is None:
            return
        try:
            executor, pid = await start
        except Exception:  # it never started: nothing to stop
            return
        if self._calls:
            os.kill(pid, signal.SIGTERM)  # our child, not reaped before shutdown joins it
        await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)
        self.pid = None


@dataclass(frozen=True)
class _HeldFinish:
    """A finish waiting for its solves: the game as it was won."""

    session: GameSession
    applied: int
    build: Callable[[], Finish]
    record: Callable[[Finish], None]


class OffLoop:
    """The daemon's slow solves: queued by the states and finishes that need
    them, solved by ``worker``, then the state published again (and held
    finishes journaled under ``lock``, the daemon's one lock for changes)."""

    def __init__(
        self,
        lock: asyncio.Lock,
        publish_state: Callable[[], None],
        session: Callable[[], GameSession | None],
        worker: SolveWorker,
    ) -> None:
        self.worker = worker
        """Where the solves run (the computer players' aim too)."""
        self._lock = lock
        self._publish_state = publish_state
        self._session = session
        """The daemon's game now: a held finish stands while it is that game's
        (or the game was put away, won, by ``end_game``), not once the game
        was rebuilt from the journal (the input that won it was refused)."""
        self._queued: dict[Hashable, Solve] = {}
        self._failed: set[Hashable] = set()
        self._held: list[_HeldFinish] = []
        self._solving: asyncio.Task[None] | None = None
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

    async def close(self) -> None:
        """The daemon stops: the solve in progress is dropped (a held finish
        stays unjournaled: a restart records it) and the worker stopped."""
        solving, self._solving = self._solving, None
        if solving is not None:
            solving.cancel()
            await asyncio.gather(solving, return_exceptions=True)
        self._queued.clear()
        await self.worker.close()

    def _queue(self, pending: list[Solve], force: bool = False) -> None:
        for wanted in pending:
            if wanted.key not in self._failed:
                self._queued.setdefault(wanted.key, wanted)
        if (self._queued or force) and self._solving is None:
            self._solving = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        """Solve the queue one at a time in the worker, then journal the held
        finishes and publish the state again."""
        try:
            while self._queued:
                key, wanted = next(iter(self._queued.items()))
                try:
                    if not is_solved(key):
                        keep(key, await self.worker.call(wanted.function, *wanted.args))
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
            self._solving = None
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
            if finish.session.applied != finish.applied or not finish.session.is_finished:
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
