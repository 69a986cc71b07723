"""The daemon's MQTT link, its outgoing side and its own retained topics, on
the connection :class:`~firmware_bridge.daemon.mqtt_link.MqttLink` holds:

- :class:`OutgoingQueue`: each message handed to paho at once and written
  from one plain ``call_soon`` a burst, the socket corked while paho writes
  several packets (one TCP segment), and the futures of the publishes that
  wait for their PUBACK (resolved from paho's ``on_publish``, or ``False``
  when the connection drops or the wait times out);
- :class:`OwnRetained`: the board's retained ``state`` and ``availability``
  kept its own: a copy there that is not the latest the link sent (a
  bridge resending an older retained copy after a partition, a cleared
  topic, another client publishing as the board) is replaced by the latest.

Both are the link's parts, built by it and given its client on each
connection; neither connects, subscribes or reads the link's members.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable
from typing import Any

from paho.mqtt.client import MQTTMessageInfo

from mqtt_client.client import Client

__all__ = ["OutgoingQueue", "OwnRetained"]

log = logging.getLogger("firmware_bridge.daemon.mqtt_link")

_CORK: int = getattr(socket, "TCP_CORK", 0)
"""Linux's option to hold a socket's writes until it is cleared (0 elsewhere)."""


class OutgoingQueue:
    """The link's messages out: handed to paho, written corked, and the
    PUBACKs waited for; see the module docstring."""

    def __init__(self) -> None:
        self._queued = 0
        """Messages handed to paho since its last write: more than one, and
        the write is corked."""
        self._acks: dict[int, asyncio.Future[bool]] = {}
        self._write: Callable[[], None] | None = None
        """Writes what paho holds (the connection's), once :meth:`serve` ran."""
        self._holding = False
        """Inside :meth:`hold` ... :meth:`release`: paho's writes wait for the release."""
        self._write_wanted = False
        """paho asked for a write while held."""

    def serve(self, client: Client) -> None:
        """Once connected, on the loop's thread: resolve the futures
        :meth:`delivered` waits on from paho's ``on_publish`` (after
        aiomqtt's own handler), and write queued packets from a plain
        ``call_soon`` (or at :meth:`release`). aiomqtt's writer goes through
        ``call_soon_threadsafe`` (paho may call it from the thread that
        connects), which wakes the loop through its self-pipe for every
        message; and it removes the socket's writer every time paho wrote
        everything, which this one does only when it added one."""
        protocol = client.paho
        chained = protocol.on_publish
        acks = self._acks
        loop = asyncio.get_running_loop()
        writer_set = True  # aiomqtt may have added one while connecting

        def on_publish(*args: Any) -> None:
            if chained is not None:
                chained(*args)
            _settle(acks.pop(args[2], None), True)  # (client, userdata, mid, reason, properties)

        def write() -> None:
            # What paho wrote in full it unregisters itself (unregister_write);
            # what the socket did not take yet waits for it to be writable.
            nonlocal writer_set
            try:
                sock = protocol.socket()
                corked = _cork(sock) if self._queued > 1 else None
                self._queued = 0
                try:
                    protocol.loop_write()
                finally:
                    if corked is not None:
                        corked.setsockopt(socket.IPPROTO_TCP, _CORK, 0)
                if protocol.want_write() and sock is not None and sock.fileno() >= 0:
                    loop.add_writer(sock.fileno(), write)
                    writer_set = True
            except (OSError, ValueError):
                pass

        def register_write(*_: Any) -> None:
            if self._holding:
                self._write_wanted = True
            else:
                loop.call_soon(write)

        def unregister_write(_client: Any, _userdata: Any, sock: Any) -> None:
            nonlocal writer_set
            if writer_set:
                writer_set = False
                with contextlib.suppress(OSError, ValueError):
                    loop.remove_writer(sock.fileno())

        protocol.on_publish = on_publish
        protocol.on_socket_register_write = register_write
        protocol.on_socket_unregister_write = unregister_write
        self._write = write
        client.lean_paho()

    def hold(self) -> None:
        """Hold paho's writes until :meth:`release`: a burst of messages
        handed over then is written on this turn of the loop, not the next."""
        self._holding = True

    def release(self) -> None:
        """Write what was handed over since :meth:`hold`, now."""
        self._holding = False
        if self._write_wanted:
            self._write_wanted = False
            if self._write is not None:
                self._write()

    def hand_over(
        self, client: Client, topic: str, data: bytes, retain: bool, qos: int
    ) -> MQTTMessageInfo | None:
        """Queue ``data`` in paho (which writes it on the loop's next turn);
        None when paho refused it."""
        info = client.hand_over(topic, data, qos, retain)
        if info is not None:
            self._queued += 1
        return info

    async def delivered(self, info: MQTTMessageInfo, qos: int, timeout: float) -> bool:
        """Wait until the broker acknowledged the message handed over as
        ``info``: True then (at once at QoS 0 or when it already was), False
        when the connection drops first or no PUBACK comes within ``timeout``."""
        if qos == 0 or info.is_published():
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._acks[info.mid] = waiter
        timer = loop.call_later(timeout, _settle, waiter, False)
        try:
            return await waiter
        finally:
            timer.cancel()
            if self._acks.get(info.mid) is waiter:
                del self._acks[info.mid]

    def drop(self) -> None:
        """The connection is gone: every publish still waiting gets False."""
        self._queued = 0
        self._write = None
        self._write_wanted = False
        acks, self._acks = self._acks, {}
        for waiter in acks.values():
            _settle(waiter, False)


class OwnRetained:
    """The board's own retained topics kept the link's latest; see the
    module docstring. ``republish(topic, payload)`` hands the latest over
    again (retained, QoS 1) and says whether it could."""

    def __init__(self, topics: tuple[str, ...], republish: Callable[[str, bytes], bool]) -> None:
        self.topics = topics
        self._republish = republish
        self._last_sent: dict[str, bytes] = {}
        self._last_seen: dict[str, bytes] = {}
        self._healing: set[str] = set()

    def sent(self, topic: str, payload: bytes) -> None:
        """The link published ``payload`` retained on ``topic`` (one of its own or not)."""
        if topic in self.topics:
            self._last_sent[topic] = payload

    def watch(self, client: Client, delay: Callable[[], float]) -> None:
        """Judge each copy of the guarded topics ``client`` receives (it
        subscribes to them); a foreign one is replaced ``delay()`` seconds later."""
        loop = asyncio.get_running_loop()
        for guarded in self.topics:
            client.lean_messages(guarded, self._judge(guarded, loop, delay))

    def _judge(
        self, topic: str, loop: asyncio.AbstractEventLoop, delay: Callable[[], float]
    ) -> Callable[[bytes], None]:
        """The handler of the copies of ``topic`` the client receives (their payloads)."""

        def seen(payload: bytes) -> None:
            self._seen(topic, payload, loop, delay())

        return seen

    def _seen(
        self, topic: str, payload: bytes, loop: asyncio.AbstractEventLoop, delay: float
    ) -> None:
        """A copy of the board's own retained ``state`` or ``availability`` as
        the broker has it. Mostly the echo of the link's own publish; anything
        else is replaced by the link's latest, ``delay`` later, unless the
        link's own echo came meanwhile (echoes still in flight settle first)."""
        self._last_seen[topic] = payload
        if payload != self._last_sent.get(topic, payload) and topic not in self._healing:
            self._healing.add(topic)
            loop.call_later(delay, self._heal, topic)

    def _heal(self, topic: str) -> None:
        self._healing.discard(topic)
        latest = self._last_sent.get(topic)
        if latest is None or self._last_seen.get(topic) == latest:
            return
        if self._republish(topic, latest):
            log.warning(
                "MQTT: %s held a copy that is not this board's latest (a bridge's stale "
                "retained copy after a partition, or another client publishing as this "
                "board); published the latest again",
                topic,
            )


def _cork(sock: object) -> socket.socket | None:
    """Hold ``sock``'s writes until the cork is pulled, so the packets paho
    writes one ``send`` each (a dart's events and its state) leave as one TCP
    segment: each segment costs the broker and the daemon a wake-up. None when
    the socket cannot be corked (websockets, not Linux)."""
    if _CORK == 0 or not isinstance(sock, socket.socket):
        return None
    sock.setsockopt(socket.IPPROTO_TCP, _CORK, 1)
    return sock


def _settle(waiter: asyncio.Future[bool] | None, delivered: bool) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(delivered)
