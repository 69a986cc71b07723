"""An MQTT client for tests that waits for its acknowledgements: one paho
client on its own network thread, with every message it gets.

Mosquitto drops a denied publish without telling an MQTT 3.1.1 client; an MQTT
5 client gets "Not authorized" (0x87) in the PUBACK, which :meth:`Peer.publish`
returns. :func:`marker` makes a payload no other test sends.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode

__all__ = ["ACCEPTED", "GRANTED_QOS_1", "NOT_AUTHORIZED", "TIMEOUT", "Peer", "marker"]

TIMEOUT = 30.0  # for anything that must happen: generous, for a busy machine
NOT_AUTHORIZED = 0x87
# PUBACK reason codes of a publish the broker took: success, and MQTT 5's
# "no matching subscribers" (0x10).
ACCEPTED = (0, 0x10)
GRANTED_QOS_1 = 1


def marker() -> bytes:
    """A payload no one else sends."""
    return uuid.uuid4().hex.encode()


class Peer:
    """One paho client on its own network thread, with every message it gets."""

    def __init__(
        self,
        broker_host: str,
        port: int,
        username: str | None,
        secret: str | None = None,
        *,
        protocol: int = mqtt.MQTTv5,
        transport: Literal["tcp", "websockets", "unix"] = "tcp",
        ca_file: Path | None = None,
        will: tuple[str, bytes] | None = None,
        threaded: bool = True,
        client_id: str | None = None,
    ) -> None:
        self.name = username or "anonymous"
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"{self.name}-{uuid.uuid4().hex[:8]}",
            protocol=MQTTProtocolVersion(protocol),
            transport=transport,
        )
        self.client.reconnect_delay_set(30, 30)  # a refused client must not retry within a test
        if username is not None:
            self.client.username_pw_set(username, secret)
        if ca_file is not None:
            self.client.tls_set(ca_certs=str(ca_file))
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self.seen: list[tuple[str, bytes, bool]] = []
        self.connack: ReasonCode | None = None
        self._connected = threading.Event()
        self._acks: dict[int, tuple[threading.Event, list[ReasonCode]]] = {}
        self._lock = threading.Lock()
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.threaded = threaded
        if threaded:
            self.client.connect_async(broker_host, port, keepalive=30)
            self.client.loop_start()
        else:  # driven by wait_connack: no reconnect thread to stop afterwards
            self.client.connect(broker_host, port, keepalive=30)

    # callbacks, on paho's thread

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        if self.connack is None:
            self.connack = reason_code
        self._connected.set()

    def _on_message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.messages.put((message.topic, bytes(message.payload), bool(message.retain)))

    def _ack(self, mid: int, codes: list[ReasonCode]) -> None:
        with self._lock:
            waiter = self._acks.setdefault(mid, (threading.Event(), []))
        waiter[1].extend(codes)
        waiter[0].set()

    def _on_publish(
        self, client: Any, userdata: Any, mid: int, reason_code: ReasonCode, properties: Any
    ) -> None:
        self._ack(mid, [reason_code])

    def _on_subscribe(
        self, client: Any, userdata: Any, mid: int, reason_codes: list[ReasonCode], properties: Any
    ) -> None:
        self._ack(mid, list(reason_codes))

    def _wait_ack(self, mid: int, what: str) -> list[ReasonCode]:
        with self._lock:
            waiter = self._acks.setdefault(mid, (threading.Event(), []))
        assert waiter[0].wait(TIMEOUT), f"{self.name}: no acknowledgement for {what}"
        return waiter[1]

    # the test's side

    def wait_connack(self) -> ReasonCode:
        deadline = time.monotonic() + TIMEOUT
        while not self.threaded and not self._connected.is_set() and time.monotonic() < deadline:
            self.client.loop(timeout=0.05)
        assert self._connected.wait(TIMEOUT), f"{self.name}: no CONNACK within {TIMEOUT} s"
        assert self.connack is not None
        return self.connack

    def connected(self) -> Peer:
        code = self.wait_connack()
        assert not code.is_failure, f"{self.name} was refused: {code}"
        return self

    def subscribe(self, *topics: str) -> Peer:
        for topic in topics:
            result, mid = self.client.subscribe(topic, qos=1)
            assert result == mqtt.MQTT_ERR_SUCCESS and mid is not None
            codes = self._wait_ack(mid, f"SUBSCRIBE {topic}")
            # Mosquitto 2.0's ACL file grants every subscription and filters
            # what it delivers (later versions may refuse it in the SUBACK).
            assert len(codes) == 1
            assert codes[0].value in (GRANTED_QOS_1, NOT_AUTHORIZED), codes
        return self

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> int:
        """Publish at QoS 1 and return the PUBACK reason code (always 0 for MQTT 3.1.1)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        assert info.rc == mqtt.MQTT_ERR_SUCCESS, info.rc
        (code,) = self._wait_ack(info.mid, f"PUBLISH {topic}")
        return int(code.value)

    def _drain(self) -> None:
        while True:
            try:
                self.seen.append(self.messages.get_nowait())
            except queue.Empty:
                return

    def payloads(self) -> set[bytes]:
        self._drain()
        return {payload for _, payload, _ in self.seen}

    def times(self, payload: bytes) -> int:
        """How many times ``payload`` has arrived so far (duplicates count)."""
        self._drain()
        return sum(1 for _, seen, _ in self.seen if seen == payload)

    def wait_for(self, payload: bytes, what: str = "") -> tuple[str, bytes, bool]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            self._drain()
            for seen in self.seen:
                if seen[1] == payload:
                    return seen
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name} never got {what or payload!r}"
            with contextlib.suppress(queue.Empty):
                self.seen.append(self.messages.get(timeout=min(left, 0.05)))

    def wait_until(self, topic: str, predicate: Callable[[Any], bool], what: str = "") -> Any:
        """The first JSON (or plain text) payload on ``topic`` for which ``predicate`` holds."""
        deadline = time.monotonic() + TIMEOUT
        checked = 0
        while True:
            self._drain()
            for seen_topic, payload, _ in self.seen[checked:]:
                try:
                    value: Any = json.loads(payload)
                except ValueError:
                    value = payload.decode("utf-8", "replace")
                if seen_topic == topic and predicate(value):
                    return value
            checked = len(self.seen)
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name} never got {what or topic}"
            with contextlib.suppress(queue.Empty):
                self.seen.append(self.messages.get(timeout=min(left, 0.05)))

    def close(self) -> None:
        self.client.disconnect()
        if self.threaded:
            self.client.loop_stop()
