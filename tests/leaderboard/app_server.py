"""The leaderboard served over real HTTP from a thread with its own event
loop, for the SSE and browser tests: :class:`AppServer` is the app alone on
uvicorn (``call`` runs a function on its loop: the :class:`LiveHub` must be
posted to from there); :class:`ServiceThread` is the whole ``run_service``."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

import httpx
import uvicorn
from fastapi import FastAPI

from leaderboard.service import ServiceSettings, run_service
from tests.mosquitto_broker import free_port

__all__ = ["AppServer", "ServiceThread"]

T = TypeVar("T")


class AppServer:
    """``start()`` returns once uvicorn listens; ``stop()`` shuts it down.
    ``port`` (default: a free one) lets a test bring a stopped service back
    where its pages were."""

    def __init__(self, app: FastAPI, port: int | None = None) -> None:
        self.port = free_port() if port is None else port
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


class ServiceThread:
    """``run_service(settings)`` (MQTT ingest, live feed, HTTP app) on its own
    loop in a thread, for tests that drive it from synchronous code (the
    Playwright sync API cannot run inside an event loop)."""

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self.url = f"http://{settings.http_host}:{settings.http_port}"
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[None] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="leaderboard", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.task = self.loop.create_task(run_service(self.settings))
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass
        except BaseException as error:
            self.error = error
        finally:
            self.loop.close()

    def start(self, timeout: float = 20.0) -> None:
        """Start it and return once ``/openapi.json`` answers."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while True:
            if not self.thread.is_alive():
                raise RuntimeError(f"the service stopped: {self.error!r}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/openapi.json", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service did not answer on {self.url}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.task is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(15)
