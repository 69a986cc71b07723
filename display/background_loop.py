"""An asyncio loop on a thread of its own, for the display's MQTT clients.

The display's frame loop is pygame's and must never wait on the network, so
its MQTT clients (the state feed, the operator's link) each run an asyncio
loop on a background thread: :meth:`BackgroundLoop.start` starts it and
:meth:`BackgroundLoop.close` cancels its one task and joins the thread.
Subclasses write :meth:`BackgroundLoop._run` and read ``_closed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Self

__all__ = ["BackgroundLoop"]


class BackgroundLoop:
    """Runs :meth:`_run` on a loop of its own thread until :meth:`close`."""

    thread_name = "oche-background"

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task[None] | None = None
        self._closed = False
        self._ready = threading.Event()

    def start(self) -> Self:
        """Start the thread (once) and wait until its loop runs; a closed one
        is a RuntimeError."""
        if self._thread is not None:
            return self
        if self._closed:
            raise RuntimeError(f"{type(self).__name__} is closed")
        self._thread = threading.Thread(
            target=self._thread_main, name=self.thread_name, daemon=True
        )
        self._thread.start()
        self._ready.wait(5.0)
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Cancel :meth:`_run` and join the thread. Idempotent."""
        self._closed = True
        loop, main = self._loop, self._main
        if loop is not None and main is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(main.cancel)
        if self._thread is not None:
            self._thread.join(timeout)
        self._stopped()

    def _stopped(self) -> None:
        """After :meth:`close`: what the subclass must clear (connected flags)."""

    async def _run(self) -> None:
        raise NotImplementedError

    def _thread_main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._main = loop.create_task(self._run())
            self._ready.set()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(self._main)
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
