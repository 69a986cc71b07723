"""The daemon's MQTT connection (aiomqtt): availability with a last will,
commands in, typed publishes out, and reconnection with backoff.

:class:`MqttLink` owns one broker connection at a time. :meth:`MqttLink.run`
connects, subscribes to ``{base}/{board}/cmd`` (with ``on_operator``, to
``{base}/{board}/operator/cmd`` too, whose payloads go there; and to what
:meth:`MqttLink.subscribe` added: a remote match's channel and the host's
topics, whose messages go to ``on_message``), then marks the board
``online`` (so whoever acts on seeing it online is heard), calls
``on_connect`` (where the daemon republishes its retained state, the Home
Assistant discovery and the results not yet acknowledged) and then hands
each command payload to ``on_command``, one at a time, in order. When the
connection drops it reconnects with jittered exponential backoff. Before
its first connection it checks, on a connection of its own, that no other
daemon holds the board id, and on every connection it publishes the board's
retained ``instance`` before ``online`` and judges every other daemon's
(board_claim.py): :meth:`MqttLink.run` raises
:class:`~firmware_bridge.daemon.board_claim.BoardIdTaken` when the board is
another daemon's, without saying ``offline``. It also
keeps the board's retained ``state`` and ``availability`` its own: a copy
there that is not the link's latest (a bridge resending an older retained
copy after a partition) is replaced by the latest. The broker
publishes the last will (``offline``, retained) if the daemon dies without
saying goodbye; :meth:`MqttLink.close` says it explicitly.

The link is the connection and its reconnect loop; it gives each connection
to its parts, one thing each: :class:`~firmware_bridge.daemon.mqtt_inbox.Inbox`
(commands and subscribed messages to their handlers, the added filters),
:class:`~firmware_bridge.daemon.mqtt_outgoing.OutgoingQueue` (hand-over, the
corked writes, the PUBACK waits) and
:class:`~firmware_bridge.daemon.mqtt_outgoing.OwnRetained` (the board's
retained state and availability kept its own).

Publishing never raises for a lost connection. Two ways, both handing the
message to paho at once, at the topic's QoS: :meth:`MqttLink.send` returns
as soon as paho has it (fire-and-forget; at QoS 1 paho still keeps it until
the PUBACK), which the daemon uses for every state and event, a dart's path;
:meth:`MqttLink.publish` returns ``True`` once the broker acknowledged the
message (QoS 1 PUBACK) and ``False`` when it could not be delivered, so the
caller can keep what must be delivered (results) and send it again from
``on_connect``. It costs no task of its own either: one future waits for the
PUBACK (resolved from paho's ``on_publish``, or with ``False`` when the
connection drops or the broker does not answer within
:attr:`MqttLink.TIMEOUT`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
import paho.mqtt.client as paho
from paho.mqtt.client import MQTTMessageInfo

from firmware_bridge.daemon.board_claim import BoardClaim, BoardIdTaken, Verdict, broker_reachable
from firmware_bridge.daemon.mqtt_inbox import Inbox
from firmware_bridge.daemon.mqtt_outgoing import OutgoingQueue, OwnRetained
from mqtt_client.backoff import Backoff
from mqtt_client.client import Client, load_tls, new_client, raise_if_cancelling
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    TOPICS,
    BrokerAddress,
    check_subtopic,
    parse_broker_url,
    topic,
)

__all__ = ["LinkSettings", "MqttLink", "to_json"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkSettings:
    """Where and how to connect. ``url`` is ``mqtt://host[:port]``,
    ``mqtts://`` (TLS, verified against ``ca_file`` or the system CAs),
    ``ws://host[:port][/path]`` or ``wss://``; the websocket path defaults to
    ``/mqtt``. A user name and password in the URL are used when
    ``username`` is not given. An empty ``client_id`` lets the broker choose."""

    url: str
    base: str
    board: str
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    client_id: str = ""
    keepalive: int = 30


def _endpoint(settings: LinkSettings) -> BrokerAddress:
    """The broker to connect to: the URL read by the contract's parser (the
    display and the config read it there too), with the settings' user name and password taking the
    place of the URL's, and a CA file only for TLS."""
    address = parse_broker_url(settings.url)
    if settings.ca_file is not None and not address.tls:
        scheme = settings.url.split(":", 1)[0].lower()
        raise ValueError(f"ca_file is for TLS: use mqtts:// or wss://, not {scheme}://")
    if settings.username is None:
        return address
    return dataclasses.replace(address, username=settings.username, password=settings.password)


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""``json.dumps(payload, ensure_ascii=False, separators=(",", ":"))``, its
encoder made once rather than for every message."""


def to_json(payload: dict[str, Any]) -> str:
    """The JSON text a dict is published as: compact, non-ASCII kept. A payload
    kept as text (a result in the journal's outbox) is published as it is."""
    return _JSON.encode(payload)


def _encode(payload: dict[str, Any] | str | bytes) -> bytes:
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, dict):
        return to_json(payload).encode("utf-8")
    raise TypeError(f"an MQTT payload is a dict, str or bytes, not {type(payload).__name__}")


class MqttLink:
    """One board's connection to the broker; see the module docstring."""

    BACKOFF_START = 0.5
    """Seconds before the first reconnection attempt; doubles per failure."""
    BACKOFF_CAP = 30.0
    """The longest wait between attempts."""
    BACKOFF_JITTER = 0.25
    """Each wait is scaled by a random factor in 1 +- this."""
    TIMEOUT = 10.0
    """Seconds to wait for CONNACK, SUBACK or a PUBACK."""
    CLOSE_TIMEOUT = 3.0
    """Seconds close() waits for the offline message and the disconnection."""
    HEAL_DELAY = 1.0
    """Seconds after a foreign copy of the board's retained state or
    availability arrived before the link publishes its own again (echoes of
    its own publishes still in flight settle first)."""

    def __init__(
        self,
        settings: LinkSettings,
        on_command: Callable[[bytes], Awaitable[None]],
        on_connect: Callable[[], Awaitable[None]],
        on_message: Callable[[str, bytes, bool], Awaitable[None]] | None = None,
        on_operator: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> None:
        self.settings = settings
        self._endpoint = _endpoint(settings)
        # Checked and built once: publish() runs for every message.
        self._topics = {name: topic(settings.base, settings.board, name) for name in TOPICS}
        self._availability_topic = self._topics["availability"]
        self._own = OwnRetained(
            (self._topics["state"], self._availability_topic),
            lambda topic, latest: self._hand_over(topic, latest, True, 1) is not None,
        )
        self._instance_topic = self._topics["instance"]
        self._claim = BoardClaim(settings.board)
        self._checked = False
        self._taken: BoardIdTaken | None = None
        if settings.keepalive < 1:
            raise ValueError(f"keepalive must be at least 1 s, got {settings.keepalive}")
        self._on_connect = on_connect
        self._inbox = Inbox(
            self._topics["cmd"], self._topics["operator/cmd"], on_command, on_operator, on_message
        )
        self._client: Client | None = None
        self._outgoing = OutgoingQueue()
        self._stop: asyncio.Event | None = None
        self._closed = False
        self._running = False
        self._tls_context: ssl.SSLContext | None = None

    # ------------------------------------------------------------ properties

    @property
    def connected(self) -> bool:
        """Connected, announced online and subscribed to commands."""
        return self._client is not None

    @property
    def server(self) -> str:
        """``host:port`` of the broker, for messages."""
        return f"{self._endpoint.host}:{self._endpoint.port}"

    # ------------------------------------------------------------ connection

    async def run(self) -> None:
        """Stay connected until cancelled or closed; see the module docstring.
        A configuration error (an unreadable ``ca_file``) raises; connection
        failures never do."""
        if self._closed:
            return
        if self._running:
            raise RuntimeError("MqttLink.run() is already running")
        self._running = True
        try:
            await self._run()
        finally:
            self._running = False
            self._claim.release()

    async def _run(self) -> None:
        self._stop = stop = asyncio.Event()
        if self._endpoint.tls and self._tls_context is None:
            # A bad ca_file is a configuration error and raises.
            self._tls_context = await load_tls(self._endpoint, self.settings.ca_file)
        # One per outage, made when it starts: the BACKOFF_* figures as they are then.
        backoff: Backoff | None = None
        outage_since: float | None = None
        ever_connected = False
        while not self._closed:
            client = self._new_client()
            try:
                if not self._checked:
                    await self._check_board_id()
                    self._checked = True
                async with client:
                    if outage_since is not None:
                        log.info(
                            "MQTT: connected to %s again after %.1f s",
                            self.server,
                            time.monotonic() - outage_since,
                        )
                    else:
                        log.info("MQTT: connected to %s", self.server)
                    ever_connected = True
                    backoff = None
                    outage_since = None
                    await self._serve(client)
            except aiomqtt.MqttError as exc:
                self._drop_connection()
                if self._taken is not None:
                    raise self._taken from None
                if self._closed:
                    return
                # Log the text only: a record holding the exception would keep its
                # traceback (and paho's sockets) alive as long as the record lives.
                reason = str(exc) or type(exc).__name__
                if outage_since is None:
                    outage_since = time.monotonic()
                    verb = "lost the connection to" if ever_connected else "cannot connect to"
                    log.warning("MQTT: %s %s (%s); retrying", verb, self.server, reason)
                else:
                    log.debug("MQTT: %s still unreachable (%s)", self.server, reason)
            except BaseException:
                self._drop_connection()
                raise
            if self._closed:
                return
            if backoff is None:
                backoff = Backoff(self.BACKOFF_START, self.BACKOFF_CAP, self.BACKOFF_JITTER)
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(backoff.next_delay()):
                    await stop.wait()

    def _new_client(self, identifier: str | None = None) -> Client:
        """The board's connection (its client id, its last will); with
        ``identifier``, a connection under that client id without a will."""
        will = aiomqtt.Will(self._availability_topic, AVAILABILITY_OFFLINE, qos=1, retain=True)
        return new_client(
            self._endpoint,  # the settings' account in it already
            tls=self._tls_context,
            identifier=identifier or self.settings.client_id or None,
            will=None if identifier else will,
            timeout=self.TIMEOUT,
            keepalive=self.settings.keepalive,
            logger=logging.getLogger(f"{__name__}.paho"),
        )

    async def _check_board_id(self) -> None:
        """Before the first connection as the board: raise BoardIdTaken when
        another daemon holds this board id on the broker (board_claim.py), on
        a connection under a client id of its own, which knocks nobody off."""
        probe = self._new_client(f"oche-probe-{secrets.token_hex(4)}")
        endpoint = self._endpoint
        async with probe:
            await self._claim.check(
                probe,
                self._instance_topic,
                self._availability_topic,
                grace=1.5 * self.settings.keepalive + self.TIMEOUT,
                reachable=lambda: broker_reachable(endpoint.host, endpoint.port),
            )

    async def _serve(self, client: Client) -> None:
        """One connection: subscribe, announce, on_connect, then commands until it drops."""
        try:
            if self._closed:
                # close() ran while we were connecting: leave cleanly.
                await self._goodbye(client)
                return
            # Before the guarded topics' retained copies come:
            self._outgoing.serve(client)
            self._own.watch(client, lambda: self.HEAL_DELAY)
            self._watch_instance(client)
            announcement = self._claim.announcement()
            # Everything subscribed (one SUBSCRIBE) before "online": a client that
            # sends a command, or a host an invitation, once it sees the board
            # online is heard. The guarded topics and the instance at QoS 0: the
            # link's own echoes cost no PUBACK back.
            await client.subscribe(
                [
                    *self._inbox.command_filters(),
                    *((guarded, 0) for guarded in self._own.topics),
                    (self._instance_topic, 0),
                    *self._inbox.added_filters(),
                ]
            )
            # The broker sends the retained instance before this PUBACK: a daemon
            # that connected after this one's first connection is judged by now.
            await client.publish(self._instance_topic, announcement, qos=1, retain=True)
            if self._taken is not None:
                raise self._taken
            await client.publish(self._availability_topic, AVAILABILITY_ONLINE, qos=1, retain=True)
            self._own.sent(self._availability_topic, AVAILABILITY_ONLINE.encode())
            raise_if_cancelling()
            self._client = client
            try:
                await self._on_connect()
            except Exception:
                log.exception("MQTT: on_connect failed")
            raise_if_cancelling()
            async for message in client.messages:
                await self._inbox.deliver(message)
                raise_if_cancelling()
        except asyncio.CancelledError:
            # run() is being cancelled: say offline before the context manager
            # disconnects cleanly (a clean disconnect discards the last will).
            if not self._closed:
                self._drop_connection()
                await self._goodbye(client)
            raise

    async def subscribe(self, topic_filter: str) -> None:
        """Receive ``topic_filter``'s messages (QoS 1) in ``on_message(topic,
        payload, retain)``, now if connected and again after every reconnect.
        Idempotent."""
        await self._inbox.subscribe(self._client, topic_filter)

    async def unsubscribe(self, topic_filter: str) -> None:
        """Stop receiving ``topic_filter`` (not after the next reconnect either)."""
        await self._inbox.unsubscribe(self._client, topic_filter)

    @property
    def subscriptions(self) -> frozenset[str]:
        """The filters :meth:`subscribe` added, besides the board's own ``cmd``."""
        return self._inbox.added

    async def _goodbye(self, client: aiomqtt.Client) -> None:
        """Publish availability offline on ``client``; best effort, bounded in time."""
        try:
            await asyncio.wait_for(
                client.publish(self._availability_topic, AVAILABILITY_OFFLINE, qos=1, retain=True),
                self.CLOSE_TIMEOUT,
            )
        except (aiomqtt.MqttError, TimeoutError) as exc:
            log.debug("MQTT: could not publish offline: %s", str(exc))

    def _watch_instance(self, client: Client) -> None:
        """Judge every message on the board's ``instance`` topic as it arrives
        (board_claim.py): answer, replace, or stop (BoardIdTaken, raised from
        run() after a clean disconnect: no ``offline``, the board is the
        other daemon's)."""
        protocol = client.paho

        def on_instance(_client: Any, _userdata: Any, message: paho.MQTTMessage) -> None:
            verdict, holder = self._claim.judge(bytes(message.payload), bool(message.retain))
            if verdict is Verdict.REASSERT:
                protocol.publish(self._instance_topic, self._claim.announcement(), 1, True)
            elif verdict is Verdict.YIELD and holder is not None and self._taken is None:
                self._taken = BoardIdTaken(self.settings.board, holder)
                self._closed = True  # no goodbye
                if message.retain:  # put back what this connection's announcement replaced
                    protocol.publish(self._instance_topic, message.payload, 1, True)
                if self._client is client:  # online: end the message loop
                    protocol.disconnect()
                # Before online, _serve raises once the announcement is acknowledged.

        protocol.message_callback_add(self._instance_topic, on_instance)

    def _drop_connection(self) -> None:
        self._client = None
        self._outgoing.drop()

    async def close(self) -> None:
        """Publish availability ``offline`` (retained), disconnect cleanly (so the
        broker discards the last will) and stop :meth:`run`. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._stop is not None:
            self._stop.set()
        client = self._client
        if client is None:
            return
        await self._goodbye(client)
        try:
            # The client's context manager is the documented way to disconnect;
            # run() sees the disconnection and returns.
            await asyncio.wait_for(client.__aexit__(None, None, None), self.CLOSE_TIMEOUT)
        except (aiomqtt.MqttError, TimeoutError) as exc:
            log.debug("MQTT: unclean disconnect: %s", str(exc))
        self._drop_connection()

    # ---------------------------------------------------------- publishing

    def send(self, name: str, payload: dict[str, Any] | str) -> bool:
        """Hand a message for ``{base}/{board}/{name}`` to paho and return: no
        waiting for the PUBACK, no task, no future. Same topics, QoS and retain
        flags as :meth:`publish`; paho sends queued messages in order (and
        retransmits a QoS 1 message it has not seen acknowledged). True when
        paho took it; False when not connected, so the message is dropped."""
        spec = TOPICS.get(name)
        if spec is None:
            raise ValueError(f"unknown topic {name!r}; topics are {', '.join(TOPICS)}")
        return (
            self._hand_over(self._topics[name], _encode(payload), spec.retain, spec.qos) is not None
        )

    def hold_writes(self) -> None:
        """Hold what :meth:`send` hands over until :meth:`write_held`, which
        writes it on the same turn of the loop: a burst (a dart's events and
        its state) is written at once, not on a turn of its own."""
        self._outgoing.hold()

    def write_held(self) -> None:
        """Write what was handed over since :meth:`hold_writes`, now."""
        self._outgoing.release()

    def send_raw(
        self, topic: str, payload: dict[str, Any] | str | bytes, retain: bool = False, qos: int = 1
    ) -> bool:
        """:meth:`send` on any topic (a remote match's channel): handed to paho,
        no wait for the PUBACK. False when not connected (the message is dropped)."""
        return self._hand_over(topic, _encode(payload), retain, qos) is not None

    async def publish(
        self, name: str, payload: dict[str, Any] | str, *, subtopic: str | None = None
    ) -> bool:
        """Publish on ``{base}/{board}/{name}[/{subtopic}]`` with the retain flag
        and QoS of ``TOPICS[name]``; dicts are sent as JSON. True once the
        broker acknowledged it; False when not connected or the connection
        failed before the acknowledgement."""
        spec = TOPICS.get(name)
        if spec is None:
            raise ValueError(f"unknown topic {name!r}; topics are {', '.join(TOPICS)}")
        full = self._topics[name]
        if subtopic is not None:
            full = f"{full}/{check_subtopic(subtopic)}"
        return await self.publish_raw(full, payload, retain=spec.retain, qos=spec.qos)

    async def publish_raw(
        self, topic: str, payload: dict[str, Any] | str | bytes, retain: bool, qos: int = 1
    ) -> bool:
        """Publish on any topic (Home Assistant discovery). ``""`` or ``b""``
        sends an empty payload (retained, it deletes the retained message).
        Same result as :meth:`publish`."""
        if qos not in (0, 1, 2):
            raise ValueError(f"qos must be 0, 1 or 2, got {qos}")
        info = self._hand_over(topic, _encode(payload), retain, qos)
        if info is None:
            return False
        return await self._outgoing.delivered(info, qos, self.TIMEOUT)

    def _hand_over(self, topic: str, data: bytes, retain: bool, qos: int) -> MQTTMessageInfo | None:
        """Queue ``data`` in paho (which writes it on the loop's next turn);
        None when not connected or paho refused it."""
        client = self._client
        if client is None:
            return None
        if retain:
            self._own.sent(topic, data)
        return self._outgoing.hand_over(client, topic, data, retain, qos)
