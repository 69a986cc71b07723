"""The one way Oche builds an MQTT client (aiomqtt 2.x over paho-mqtt 2.x):
:func:`new_client` from a :class:`mqtt_contract.BrokerAddress`, an account
and a TLS context (:func:`load_tls`), as :class:`Client`, which adds what
aiomqtt keeps to itself and the daemon and the leaderboard need:

- :meth:`Client.hand_over`: a message handed to paho and no wait (no task,
  no future; at QoS 1 paho still keeps it until its PUBACK), the daemon's
  fire-and-forget publish and the leaderboard's ``result/stored``;
- manual acknowledgement (``new_client(..., manual_ack=True)`` and
  :meth:`Client.ack`): a QoS 1 message's PUBACK goes out when the caller
  says, after it stored the message, not when paho hands it over;
- :meth:`Client.lean_paho`: an MQTT 3.1.1 PUBACK settled without paho's
  decoding (the daemon's: every message of every dart gets a PUBACK), and
  :meth:`Client.lean_messages`' QoS 0 messages (the echo of the daemon's own
  state, one a dart) handed over without paho's ``MQTTMessage``, by
  :class:`LeanPaho`, a subclass of paho's client;
- :attr:`Client.paho`: the paho client itself, for its public callbacks
  (``on_publish``, ``message_callback_add``, ``on_socket_register_write``).

aiomqtt 2.x keeps its paho client in ``_client``, an attribute of the class
this one extends, and its publishes' waiters in ``_pending_publishes``, which
:meth:`Client._on_publish` settles; that is why aiomqtt is pinned below 3 in
pyproject.toml.
Nothing here reaches into another object's private members. :class:`LeanPaho`
overrides two of paho's private methods and reads its own inherited state:
``benchmarks/latency.py`` shows it matters (docs/benchmarks.md), so it stays,
paho-mqtt is pinned to the 2.x versions it was checked against, and a paho
without those members keeps its own handling.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Callable
from typing import Any, Literal

import aiomqtt
import paho.mqtt.client as paho
from paho.mqtt.client import MQTTMessageInfo
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from mqtt_client.late_acks import quiet_late_acks
from mqtt_contract import BrokerAddress

__all__ = [
    "Client",
    "LeanPaho",
    "load_tls",
    "new_client",
    "payload_bytes",
    "raise_if_cancelling",
]

log = logging.getLogger(__name__)

_NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
"""Small packets at once: without it, Nagle's algorithm holds a dart's state
behind the ACK of the previous packet (tens of ms)."""

_PUBACK_REASON = ReasonCode(PacketTypes.PUBACK)
_PUBACK_PROPERTIES = Properties(PacketTypes.PUBACK)  # type: ignore[no-untyped-call]


_LEAN_READS = (
    "_handle_pubackcomp",
    "_handle_publish",
    "_in_packet",
    "_out_message_mutex",
    "_out_messages",
    "_protocol",
)
"""paho's own members :class:`LeanPaho` overrides or reads on itself."""

_QOS_BITS = 0x06
"""The QoS bits of a PUBLISH packet's first byte."""


class LeanPaho(paho.Client):
    """paho's client with lean paths for the daemon's two most frequent
    packets in (docs/benchmarks.md), everything else left to paho:

    - a PUBACK (MQTT 3.1.1) is settled without paho's decoding, which builds
      a ``ReasonCode`` and a ``Properties`` (27 list lookups) for every one
      though the packet holds only the message id;
    - a QoS 0 PUBLISH on a topic given to :meth:`lean_messages` (the
      board's own retained state, whose echo comes back after every state
      the daemon sends) goes to its handler as the payload's bytes, without
      paho's ``MQTTMessage`` (and its ``MQTTMessageInfo`` with a
      ``threading.Condition``), debug line and topic matcher: about a tenth
      of the daemon's instructions a dart.

    It overrides paho's ``_handle_pubackcomp`` and ``_handle_publish`` and
    works on its own inherited state only; since those are paho's private
    names, paho-mqtt is pinned to the versions it was checked against
    (pyproject.toml). Anything else (MQTT 5, PUBCOMP, QoS 1 and 2, another
    topic, a malformed packet) goes to paho's own handler."""

    _lean_topics: dict[bytes, Callable[[bytes], None]] | None = None
    """:meth:`lean_messages`' topics (UTF-8) and their handlers, once it is called."""

    def lean_messages(self, topic: str, handler: Callable[[bytes], None]) -> None:
        """From now on hand each QoS 0 message on exactly ``topic`` (no
        wildcard) to ``handler`` with its payload."""
        if self._lean_topics is None:
            self._lean_topics = {}
        self._lean_topics[topic.encode("utf-8")] = handler

    def _handle_pubackcomp(self, cmd: Literal["PUBACK", "PUBCOMP"]) -> MQTTErrorCode:
        packet = self._in_packet["packet"]
        if cmd != "PUBACK" or len(packet) != 2 or self._protocol == paho.MQTTv5:
            return super()._handle_pubackcomp(cmd)
        mid = int.from_bytes(packet, "big")
        with self._out_message_mutex:
            if mid in self._out_messages:
                return self._do_on_publish(mid, _PUBACK_REASON, _PUBACK_PROPERTIES)
        return paho.MQTT_ERR_SUCCESS

    def _handle_publish(self) -> MQTTErrorCode:
        lean = self._lean_topics
        packet = self._in_packet["packet"]
        if (
            lean is not None
            and self._in_packet["command"] & _QOS_BITS == 0
            and self._protocol != paho.MQTTv5
            and len(packet) >= 2
        ):
            # A QoS 0 PUBLISH: the topic's length (2 bytes), the topic, the payload.
            end = 2 + int.from_bytes(packet[:2], "big")
            handler = lean.get(bytes(packet[2:end])) if end <= len(packet) else None
            if handler is not None:
                handler(bytes(packet[end:]))
                return paho.MQTT_ERR_SUCCESS
        return super()._handle_publish()


class Client(aiomqtt.Client):
    """aiomqtt's client with its paho client in reach; see the module docstring."""

    @property
    def paho(self) -> paho.Client:
        """The paho client under this one (its public API only)."""
        return self._client

    def _on_publish(
        self,
        client: Any,  # paho's client ("paho" here names the property below)
        userdata: Any,
        mid: int,
        reason_code: ReasonCode,
        properties: Properties,
    ) -> None:
        """aiomqtt's own ``on_publish`` (it wakes a ``publish`` waiting for
        ``mid``), without the ``KeyError`` aiomqtt raises and swallows for
        every message nobody waits for: each of the daemon's states and
        events, handed over with :meth:`hand_over`."""
        waiting = self._pending_publishes.pop(mid, None)
        if waiting is not None:
            waiting.set()

    def hand_over(
        self, topic: str, payload: bytes, qos: int, retain: bool
    ) -> MQTTMessageInfo | None:
        """Queue ``payload`` in paho, which writes it on the loop's next turn;
        None when paho refused it (not connected, its queue full)."""
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != paho.MQTT_ERR_SUCCESS:
            log.debug("MQTT: publish to %s failed: %s", topic, paho.error_string(info.rc))
            return None
        return info

    def lean_paho(self) -> None:
        """From now on take PUBACKs and the messages given to
        :meth:`lean_messages` the lean way (:class:`LeanPaho`). aiomqtt builds
        its paho client itself, with no hook for a subclass, so this one
        changes the class of that client (Python's ``__class__`` assignment:
        :class:`LeanPaho` keeps paho's ``Client`` layout, so the object stays
        what it was). A paho that is not the 2.x this was written against
        keeps its own handling."""
        protocol = self._client
        if type(protocol) is paho.Client and all(hasattr(protocol, m) for m in _LEAN_READS):
            protocol.__class__ = LeanPaho

    def lean_messages(self, topic: str, handler: Callable[[bytes], None]) -> None:
        """Hand each QoS 0 message on exactly ``topic`` to ``handler`` with
        its payload: lean (:meth:`LeanPaho.lean_messages`) after
        :meth:`lean_paho`, else through paho's ``message_callback_add``."""
        protocol = self._client
        if isinstance(protocol, LeanPaho):
            protocol.lean_messages(topic, handler)
            return

        def on_message(_client: Any, _userdata: Any, message: paho.MQTTMessage) -> None:
            handler(payload_bytes(message.payload))

        protocol.message_callback_add(topic, on_message)

    def ack(self, mid: int, qos: int) -> bool:
        """Acknowledge the message ``mid`` received at ``qos`` (a client made
        with ``manual_ack``); QoS 0 needs none. False when it was not sent."""
        if qos == 0:
            return True
        rc = self._client.ack(mid, qos)
        if rc != paho.MQTT_ERR_SUCCESS:
            log.debug("MQTT: PUBACK %d not sent: %s", mid, paho.error_string(rc))
            return False
        return True


async def load_tls(address: BrokerAddress, ca_file: str | None = None) -> ssl.SSLContext | None:
    """The TLS context for ``address`` (None for a plain one): verified
    against ``ca_file``, or the system's CAs. Loaded in a thread (reading CA
    files blocks); an unreadable ``ca_file`` raises (a configuration error)."""
    if not address.tls:
        return None
    return await asyncio.to_thread(ssl.create_default_context, cafile=ca_file)


def new_client(
    address: BrokerAddress,
    *,
    tls: ssl.SSLContext | None,
    username: str | None = None,
    password: str | None = None,
    identifier: str | None = None,
    will: aiomqtt.Will | None = None,
    clean_session: bool = True,
    keepalive: int = 60,
    timeout: float = 10.0,
    manual_ack: bool = False,
    logger: logging.Logger | None = None,
) -> Client:
    """A client of the broker at ``address``. ``username`` (with
    ``password``), when given, takes the place of the URL's account; ``tls``
    is :func:`load_tls`'s context (a TLS address needs one). ``identifier``
    None lets the broker choose. ``manual_ack``: no PUBACK until
    :meth:`Client.ack`. Builds only; ``async with`` connects. TCP_NODELAY is
    set on a TCP connection."""
    if address.tls and tls is None:
        raise ValueError(f"{address.url} is a TLS broker: load_tls() its context first")
    if username is None:
        username, password = address.username, address.password
    client = Client(
        address.host,
        address.port,
        username=username,
        password=password,
        identifier=identifier,
        will=will,
        clean_session=clean_session,
        transport=address.transport,
        timeout=timeout,
        keepalive=keepalive,
        tls_context=tls if address.tls else None,
        websocket_path=address.ws_path,
        logger=quiet_late_acks(logger or logging.getLogger("mqtt")),
        socket_options=None if address.transport == "websockets" else _NO_DELAY,
    )
    if manual_ack:
        client.paho.manual_ack_set(True)
    return client


def payload_bytes(payload: Any) -> bytes:
    """A received message's payload as bytes (aiomqtt types it loosely)."""
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if payload is None:
        return b""
    return str(payload).encode("utf-8")


def raise_if_cancelling() -> None:
    """Re-raise a cancel that was swallowed: Python 3.11's ``asyncio.wait_for``
    (which aiomqtt's connect, subscribe and publish await) returns the result
    when its future completes as the task is cancelled (CPython gh-86296); a
    client would then serve on and never stop. Call it after each of those."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
