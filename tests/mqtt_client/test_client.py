"""The one client builder against a real Mosquitto: plain and TLS
connections, the fire-and-forget hand-over, and the manual PUBACK that the
leaderboard sends only after its commit (an unacknowledged message comes
again on the next connection of the session; an acknowledged one does not)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import paho.mqtt.client as paho
import pytest

from mqtt_client.client import Client, LeanPaho, load_tls, new_client, payload_bytes
from mqtt_contract import parse_broker_url
from tests.daemon_harness import TIMEOUT
from tests.mosquitto_broker import MosquittoBroker, tls_mosquitto

TOPIC = "test/mqtt-client"


async def next_message(client: aiomqtt.Client) -> aiomqtt.Message:
    async with asyncio.timeout(TIMEOUT):
        async for message in client.messages:
            return message
    raise AssertionError("disconnected")


@asynccontextmanager
async def session(url: str, identifier: str) -> AsyncIterator[Client]:
    """A persistent session with manual acknowledgement, subscribed to TOPIC."""
    client = new_client(
        parse_broker_url(url),
        tls=None,
        identifier=identifier,
        clean_session=False,
        manual_ack=True,
    )
    async with client:
        await client.subscribe(TOPIC, qos=1)
        yield client


async def test_a_message_handed_over_arrives(mosquitto: MosquittoBroker) -> None:
    address = parse_broker_url(mosquitto.url)
    async with new_client(address, tls=None) as listener, new_client(address, tls=None) as sender:
        await listener.subscribe(TOPIC, qos=1)
        info = sender.hand_over(TOPIC, b"fire and forget", qos=1, retain=False)
        assert info is not None
        assert payload_bytes((await next_message(listener)).payload) == b"fire and forget"


async def test_a_message_not_acknowledged_comes_again_and_an_acknowledged_one_does_not(
    mosquitto: MosquittoBroker,
) -> None:
    address = parse_broker_url(mosquitto.url)
    async with session(mosquitto.url, "manual-ack-test"):
        pass  # the session exists: the broker keeps its messages from now on
    async with new_client(address, tls=None) as sender:
        await sender.publish(TOPIC, b"first", qos=1)
    async with session(mosquitto.url, "manual-ack-test") as receiver:
        first = await next_message(receiver)
        assert first.payload == b"first"  # received, not acknowledged
    async with session(mosquitto.url, "manual-ack-test") as receiver:
        again = await next_message(receiver)
        assert again.payload == b"first"  # delivered again
        assert receiver.ack(again.mid, again.qos)
        async with new_client(address, tls=None) as sender:
            await sender.publish(TOPIC, b"marker", qos=1)
        marker = await next_message(receiver)
        assert marker.payload == b"marker"
        assert receiver.ack(marker.mid, marker.qos)
    async with session(mosquitto.url, "manual-ack-test") as receiver:
        async with new_client(address, tls=None) as sender:
            await sender.publish(TOPIC, b"second marker", qos=1)
        # What the broker still held for the session would come before this.
        assert (await next_message(receiver)).payload == b"second marker"


async def test_lean_messages_reach_their_handler_and_the_rest_takes_pahos_way(
    mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A QoS 0 message on a topic given to lean_messages (the daemon's echo of
    its own state) reaches its handler as bytes without paho building an
    MQTTMessage; the same topic at QoS 1, and every other topic, still take
    paho's way (aiomqtt's messages), and before lean_paho a handler gets its
    messages through paho's message_callback_add."""
    address = parse_broker_url(mosquitto.url)
    lean_topic, other = f"{TOPIC}/lean", f"{TOPIC}/other"
    async with new_client(address, tls=None) as listener, new_client(address, tls=None) as sender:
        listener.lean_paho()
        assert isinstance(listener.paho, LeanPaho)
        got: list[bytes] = []
        listener.lean_messages(lean_topic, got.append)
        await listener.subscribe([(lean_topic, 0), (other, 1)])
        built: list[object] = []
        real_init = paho.MQTTMessage.__init__

        def counting_init(self: paho.MQTTMessage, *args: Any, **kwargs: Any) -> None:
            built.append(args)
            real_init(self, *args, **kwargs)

        sender.hand_over(lean_topic, "é lean".encode(), qos=0, retain=False)
        sender.hand_over(other, b"paho's way", qos=1, retain=False)
        # Counted from here: the messages the listener receives (the sender's are built).
        monkeypatch.setattr(paho.MQTTMessage, "__init__", counting_init)
        message = await next_message(listener)
        assert str(message.topic) == other
        assert payload_bytes(message.payload) == b"paho's way"
        assert got == ["é lean".encode()]  # sent first, so handled first
        assert len(built) == 1  # the other topic's message only
        monkeypatch.undo()

    async with new_client(address, tls=None) as plain, new_client(address, tls=None) as sender:
        before: list[bytes] = []
        arrived = asyncio.Event()

        def handler(payload: bytes) -> None:
            before.append(payload)
            arrived.set()

        plain.lean_messages(lean_topic, handler)  # not lean: paho's callback
        await plain.subscribe(lean_topic, qos=0)
        sender.hand_over(lean_topic, b"through paho", qos=0, retain=False)
        async with asyncio.timeout(TIMEOUT):
            await arrived.wait()
        assert before == [b"through paho"]


async def test_pubacks_wake_the_publishes_waiting_and_pass_the_handed_over(
    mosquitto: MosquittoBroker,
) -> None:
    """Client settles aiomqtt's waiting publishes itself (no KeyError raised and
    swallowed for each message handed over, which nobody waits for): an awaited
    publish among handed-over ones returns once acknowledged, and none is left
    waiting."""
    address = parse_broker_url(mosquitto.url)
    async with new_client(address, tls=None) as sender:
        infos = [sender.hand_over(TOPIC, b"handed over", qos=1, retain=False) for _ in range(3)]
        async with asyncio.timeout(TIMEOUT):
            await sender.publish(TOPIC, b"awaited", qos=1)
        later = sender.hand_over(TOPIC, b"handed over", qos=1, retain=False)
        assert later is not None
        async with asyncio.timeout(TIMEOUT):
            while not later.is_published():  # the PUBACKs come in order
                await asyncio.sleep(0.01)
        assert all(info is not None and info.is_published() for info in infos)
        assert sender._pending_publishes == {}


async def test_qos_0_needs_no_acknowledgement(mosquitto: MosquittoBroker) -> None:
    async with session(mosquitto.url, "qos0") as receiver:
        assert receiver.ack(1, 0)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_tls_with_the_brokers_ca() -> None:
    with tls_mosquitto() as (broker, cert):
        address = parse_broker_url(f"mqtts://127.0.0.1:{broker.port}")
        with pytest.raises(ValueError, match="TLS"):
            new_client(address, tls=None)
        tls = await load_tls(address, str(cert))
        assert tls is not None
        async with new_client(address, tls=tls) as client:
            await client.subscribe(TOPIC, qos=1)
            await client.publish(TOPIC, b"over TLS", qos=1)
            assert (await next_message(client)).payload == b"over TLS"
        # The system's CAs do not know the throwaway certificate.
        untrusted = new_client(address, tls=await load_tls(address), timeout=5)
        with pytest.raises(aiomqtt.MqttError):
            async with untrusted:
                pass


async def test_a_plain_address_needs_no_tls() -> None:
    assert await load_tls(parse_broker_url("mqtt://broker"), "/nonexistent/ca.pem") is None
    with pytest.raises(FileNotFoundError):
        await load_tls(parse_broker_url("mqtts://broker"), "/nonexistent/ca.pem")


async def test_a_subscribe_given_up_is_acknowledged_without_an_error_line(
    mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    """A subscribe that times out (or is cancelled at shutdown) is still
    acknowledged by the broker: that late SUBACK is a DEBUG line, not an
    ERROR with a traceback in the daemon's log."""
    caplog.set_level(logging.DEBUG)
    client = new_client(parse_broker_url(mosquitto.url), tls=None)
    async with client:
        with pytest.raises(aiomqtt.MqttError):
            await client.subscribe(TOPIC, qos=1, timeout=0)
        async with asyncio.timeout(TIMEOUT):
            while not any(r.name == "mqtt_client.late_acks" for r in caplog.records):
                await asyncio.sleep(0.05)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
