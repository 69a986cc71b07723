"""The leaderboard app served by a real uvicorn on a free loopback port, in a
thread with its own event loop, for the SSE and browser tests. ``call`` runs a
function on that loop (the :class:`LiveHub` must be posted to from there)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

import uvicorn
from fastapi import FastAPI

from tests.mosquitto_broker import free_port

__all__ = ["AppServer"]

T = TypeVar("T")


class AppServer:
    """``start()`` returns once uvicorn listens; ``stop()`` shuts it down."""

    def __init__(self, app: FastAPI) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,  # open SSE streams never end by themselves
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="uvicorn", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.serve())

    def start(self, timeout: float = 10.0) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on port {self.port}")
            time.sleep(0.02)

    def call(self, function: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``function()`` on the server's loop and return what it returned."""
        done: Future[T] = Future()

        def run() -> None:
            try:
                done.set_result(function())
            except BaseException as error:  # handed back to the caller's thread
                done.set_exception(error)

        self.loop.call_soon_threadsafe(run)
        return done.result(timeout)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.loop.close()
