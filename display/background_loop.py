"""An asyncio loop on a thread of its own, for the display's MQTT clients.

The display's frame loop is pygame's and must never wait on the network, so
its MQTT clients (the state feed, the operator's link) each run an asyncio
loop on a background thread: :meth:`BackgroundLoop.start` starts it and
:meth:`BackgroundLoop.close` cancels its one task and joins the thread.
:class:`BackgroundMqtt` is the connection both clients keep on it: connect,
subscribe, hand each message over, reconnect with backoff (the client and the
backoff are ``mqtt_client``'s, as every package's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
from collections.abc import Sequence
from typing import Any, Self

import aiomqtt

from mqtt_client.backoff import Backoff
from mqtt_client.client import Client, load_tls, new_client
from mqtt_contract import BrokerAddress

__all__ = ["BackgroundLoop", "BackgroundMqtt"]


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


class BackgroundMqtt(BackgroundLoop):
    """One MQTT connection kept up on the background loop: subscribed to
    :meth:`_subscriptions` (in that order), each message to :meth:`_receive`,
    reconnected with a doubling backoff; :meth:`_connection_changed` hears
    each connect and each loss (with its error). ``username`` None: the
    URL's account, if any."""

    BACKOFF_START = 0.5
    """Seconds before the first reconnection; doubles per failure up to the cap."""
    BACKOFF_CAP = 5.0
    TIMEOUT = 10.0

    def __init__(
        self,
        address: BrokerAddress,
        username: str | None,
        password: str | None,
        keepalive: int = 60,
    ) -> None:
        super().__init__()
        self.address = address
        self._username = username
        self._password = password
        self._keepalive = keepalive
        self._client: Client | None = None

    def _subscriptions(self) -> Sequence[str]:
        raise NotImplementedError

    def _receive(self, topic: str, payload: Any) -> None:
        raise NotImplementedError

    def _connection_changed(
        self, connected: bool, error: aiomqtt.MqttError | None, retry_in: float
    ) -> None:
        """Connected (``error`` None), or lost (with why, when the loss was an
        error, and the seconds before the next attempt)."""

    def _new_client(self, tls: ssl.SSLContext | None) -> Client:
        return new_client(
            self.address,
            tls=tls,
            username=self._username,
            password=self._password,
            keepalive=self._keepalive,
            timeout=self.TIMEOUT,
            logger=logging.getLogger(f"{type(self).__module__}.paho"),
        )

    async def _run(self) -> None:
        tls = await load_tls(self.address)  # the system's CAs
        backoff = Backoff(self.BACKOFF_START, self.BACKOFF_CAP)
        while not self._closed:
            error: aiomqtt.MqttError | None = None
            try:
                async with self._new_client(tls) as client:
                    for topic in self._subscriptions():
                        await client.subscribe(topic, qos=1)
                    self._client = client
                    backoff.reset()
                    self._connection_changed(True, None, 0.0)
                    async for message in client.messages:
                        self._receive(str(message.topic), message.payload)
            except aiomqtt.MqttError as lost:
                error = lost
            finally:
                self._client = None
            delay = backoff.next_delay()
            self._connection_changed(False, error, delay)
            if self._closed:
                return
            await asyncio.sleep(delay)
