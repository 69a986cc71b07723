"""The MQTT link against real brokers: a private Mosquitto per test (the
``mosquitto`` fixture, never the machine's 1883) and the embedded amqtt
broker. Subscribers in the tests are plain aiomqtt clients."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import pytest
from paho.mqtt.properties import Properties

from firmware_bridge.daemon.embedded_broker import EmbeddedBroker, EmbeddedBrokerError
from firmware_bridge.daemon.mqtt_link import LinkSettings, MqttLink
from mqtt_contract import parse_command, response_payload
from tests.daemon_harness import TIMEOUT, until
from tests.mosquitto_broker import MosquittoBroker, free_port, tls_mosquitto
from tests.paths import REPO

ROOT = REPO
BASE, BOARD = "oche", "b1"
AVAILABILITY = f"{BASE}/{BOARD}/availability"
STATE = f"{BASE}/{BOARD}/state"
CMD = f"{BASE}/{BOARD}/cmd"
RESPONSE = f"{BASE}/{BOARD}/cmd/response"
WAIT = TIMEOUT


class Harness:
    """A link, what its callbacks saw, and its run() task."""

    def __init__(
        self,
        url: str,
        on_command: Callable[[Harness, bytes], Awaitable[None]] | None = None,
        on_connect: Callable[[Harness], Awaitable[None]] | None = None,
        ca_file: str | None = None,
    ) -> None:
        self.commands: list[bytes] = []
        self.connects = 0
        self.connected = asyncio.Condition()
        self._command_hook = on_command
        self._connect_hook = on_connect
        self.link = MqttLink(
            LinkSettings(url=url, base=BASE, board=BOARD, ca_file=ca_file),
            self._on_command,
            self._on_connect,
        )
        self.link.BACKOFF_START = 0.1  # keep the reconnection test short
        self.task: asyncio.Task[None] | None = None

    async def _on_command(self, payload: bytes) -> None:
        self.commands.append(payload)
        if self._command_hook is not None:
            await self._command_hook(self, payload)

    async def _on_connect(self) -> None:
        try:
            if self._connect_hook is not None:
                await self._connect_hook(self)
        finally:
            async with self.connected:
                self.connects += 1
                self.connected.notify_all()

    async def wait_connects(self, count: int) -> None:
        async with asyncio.timeout(WAIT), self.connected:
            await self.connected.wait_for(lambda: self.connects >= count)

    async def start(self) -> None:
        self.task = asyncio.create_task(self.link.run())
        await self.wait_connects(1)

    async def stop(self) -> None:
        await self.link.close()
        if self.task is not None:
            async with asyncio.timeout(WAIT):
                await self.task


@asynccontextmanager
async def running(url: str, **hooks: Any) -> AsyncIterator[Harness]:
    harness = Harness(url, **hooks)
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


class Subscriber:
    """An aiomqtt client collecting the messages of its subscriptions."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.queue: asyncio.Queue[aiomqtt.Message] = asyncio.Queue()

    async def next(self, topic: str, timeout: float = WAIT) -> aiomqtt.Message:
        async with asyncio.timeout(timeout):
            while True:
                message = await self.queue.get()
                if message.topic.matches(topic):
                    return message

    async def nothing(self, topic: str, within: float = 0.3) -> None:
        with pytest.raises(TimeoutError):
            await self.next(topic, within)


@asynccontextmanager
async def subscribed(port: int, *topics: str) -> AsyncIterator[Subscriber]:
    async with aiomqtt.Client("127.0.0.1", port, timeout=WAIT) as client:
        subscriber = Subscriber(client)
        for topic in topics:
            await client.subscribe(topic, qos=1)

        async def pump() -> None:
            async for message in client.messages:
                subscriber.queue.put_nowait(message)

        task = asyncio.create_task(pump())
        try:
            yield subscriber
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def text(message: aiomqtt.Message) -> str:
    assert isinstance(message.payload, bytes)
    return message.payload.decode()


# ------------------------------------------------------------ availability


async def test_online_retained_on_connect(mosquitto: MosquittoBroker) -> None:
    async with running(mosquitto.url) as harness:
        assert harness.link.connected
        async with subscribed(mosquitto.port, AVAILABILITY) as late:
            message = await late.next(AVAILABILITY)
            assert text(message) == "online"
            assert message.retain
            assert message.qos == 1


async def test_close_publishes_offline(mosquitto: MosquittoBroker) -> None:
    harness = Harness(mosquitto.url)
    await harness.start()
    async with subscribed(mosquitto.port, AVAILABILITY) as watcher:
        assert text(await watcher.next(AVAILABILITY)) == "online"
        await harness.stop()
        assert text(await watcher.next(AVAILABILITY)) == "offline"
        assert harness.task is not None and harness.task.done()
        assert not harness.link.connected
        await harness.link.close()  # idempotent
        assert not await harness.link.publish("state", {"game": None})
    async with subscribed(mosquitto.port, AVAILABILITY) as late:
        message = await late.next(AVAILABILITY)
        assert (text(message), message.retain) == ("offline", True)


async def test_cancelling_run_publishes_offline(mosquitto: MosquittoBroker) -> None:
    harness = Harness(mosquitto.url)
    await harness.start()
    async with subscribed(mosquitto.port, AVAILABILITY) as watcher:
        assert text(await watcher.next(AVAILABILITY)) == "online"
        assert harness.task is not None
        harness.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await harness.task
        assert text(await watcher.next(AVAILABILITY)) == "offline"
        assert not harness.link.connected
        await harness.link.close()


LINK_PROCESS = textwrap.dedent(
    """
    import asyncio, sys
    from firmware_bridge.daemon.mqtt_link import LinkSettings, MqttLink

    async def main() -> None:
        async def on_command(payload: bytes) -> None:
            pass

        async def on_connect() -> None:
            print("connected", flush=True)

        settings = LinkSettings(url=sys.argv[1], base="oche", board="b1")
        link = MqttLink(settings, on_command, on_connect)
        await link.run()

    asyncio.run(main())
    """
)


async def test_last_will_when_the_daemon_dies(mosquitto: MosquittoBroker) -> None:
    """SIGKILL: no DISCONNECT, the socket just closes; the broker publishes the will."""
    async with subscribed(mosquitto.port, AVAILABILITY) as watcher:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            LINK_PROCESS,
            mosquitto.url,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
        )
        try:
            assert process.stdout is not None
            async with asyncio.timeout(10):
                assert (await process.stdout.readline()).strip() == b"connected"
            assert text(await watcher.next(AVAILABILITY)) == "online"
        finally:
            process.send_signal(signal.SIGKILL)
            async with asyncio.timeout(WAIT):
                await process.wait()
        message = await watcher.next(AVAILABILITY)
        assert text(message) == "offline"
    async with subscribed(mosquitto.port, AVAILABILITY) as late:
        message = await late.next(AVAILABILITY)
        assert (text(message), message.retain) == ("offline", True)


# ---------------------------------------------------------------- commands


async def test_commands_arrive_in_order(mosquitto: MosquittoBroker) -> None:
    async with running(mosquitto.url) as harness, subscribed(mosquitto.port) as sender:
        payloads = [
            json.dumps({"command": "dart", "id": i, "segment": "T20"}).encode() for i in range(30)
        ]
        for payload in payloads:
            await sender.client.publish(CMD, payload, qos=1)
        # Topics that are not this board's cmd never reach on_command.
        await sender.client.publish(RESPONSE, b"{}", qos=1)
        await sender.client.publish(f"{BASE}/other/cmd", b"{}", qos=1)
        # A last command, sent after them: once it is in, they would be too.
        last = json.dumps({"command": "dart", "id": "last", "segment": "S1"}).encode()
        await sender.client.publish(CMD, last, qos=1)
        await until(lambda: len(harness.commands) >= len(payloads) + 1)
        assert harness.commands == [*payloads, last]


async def test_one_command_at_a_time(mosquitto: MosquittoBroker) -> None:
    active = 0
    most = 0

    async def slow(harness: Harness, payload: bytes) -> None:
        nonlocal active, most
        active += 1
        most = max(most, active)
        await asyncio.sleep(0.02)
        active -= 1

    async with (
        running(mosquitto.url, on_command=slow) as harness,
        subscribed(mosquitto.port) as sender,
    ):
        for i in range(5):
            await sender.client.publish(CMD, str(i).encode(), qos=1)
        await until(lambda: len(harness.commands) == 5 and active == 0)
    assert most == 1
    assert harness.commands == [b"0", b"1", b"2", b"3", b"4"]


async def test_a_failing_handler_does_not_kill_the_link(mosquitto: MosquittoBroker) -> None:
    async def explode(harness: Harness, payload: bytes) -> None:
        if payload == b"boom":
            raise RuntimeError("handler bug")

    async def explode_on_connect(harness: Harness) -> None:
        raise RuntimeError("on_connect bug")

    async with (
        running(mosquitto.url, on_command=explode, on_connect=explode_on_connect) as harness,
        subscribed(mosquitto.port, STATE) as watcher,
    ):
        await watcher.client.publish(CMD, b"boom", qos=1)
        await watcher.client.publish(CMD, b"after", qos=1)
        await until(lambda: harness.commands == [b"boom", b"after"])
        assert harness.link.connected
        assert harness.connects == 1
        assert await harness.link.publish("state", {"still": "here"})
        assert json.loads(text(await watcher.next(STATE))) == {"still": "here"}


async def test_command_round_trip(mosquitto: MosquittoBroker) -> None:
    """What the daemon does: parse, answer on cmd/response with the same id."""

    async def answer(harness: Harness, payload: bytes) -> None:
        command = parse_command(payload)
        assert await harness.link.publish("cmd/response", response_payload(command.id, True))

    async with (
        running(mosquitto.url, on_command=answer),
        subscribed(mosquitto.port, RESPONSE) as client,
    ):
        await client.client.publish(CMD, b'{"command": "next", "id": "n-1"}', qos=1)
        message = await client.next(RESPONSE)
        assert json.loads(text(message)) == {"id": "n-1", "ok": True, "error": None}
        assert not message.retain


# -------------------------------------------------------------- publishing


async def test_publish_qos1_and_retained_state(mosquitto: MosquittoBroker) -> None:
    state = {"game": None, "phase": "idle", "board": {"id": BOARD, "name": "Pub"}}
    async with running(mosquitto.url) as harness:
        assert await harness.link.publish("state", state)
        assert await harness.link.publish("event", {"type": "bust", "at": 1.0, "player": 0})
        assert await harness.link.publish("result", {"result_id": "r1"}, subtopic="x/y")
        assert await harness.link.publish_raw("elsewhere/config", {"a": 1}, retain=True)
        assert await harness.link.publish_raw("elsewhere/raw", b"\x00\x01", retain=True, qos=0)
        async with subscribed(mosquitto.port, f"{BASE}/#", "elsewhere/#") as late:
            message = await late.next(STATE)
            assert json.loads(text(message)) == state
            assert message.retain
            assert message.qos == 1
            assert json.loads(text(await late.next("elsewhere/config"))) == {"a": 1}
            assert (await late.next("elsewhere/raw")).payload == b"\x00\x01"
            # Events and results are not retained.
            await late.nothing(f"{BASE}/{BOARD}/event")
            await late.nothing(f"{BASE}/{BOARD}/result/#")
        async with subscribed(mosquitto.port, f"{BASE}/{BOARD}/result/#") as live:
            assert await harness.link.publish("result", {"result_id": "r2"}, subtopic="x")
            message = await live.next(f"{BASE}/{BOARD}/result/x")
            assert json.loads(text(message)) == {"result_id": "r2"}
        # An empty retained payload deletes a retained message (discovery removal).
        assert await harness.link.publish_raw("elsewhere/config", "", retain=True)
        async with subscribed(mosquitto.port, "elsewhere/config") as late:
            await late.nothing("elsewhere/config")


async def test_a_publish_waits_for_its_puback_without_tasks_of_its_own(
    mosquitto: MosquittoBroker,
) -> None:
    """A publish is on every dart's path: while it waits for the PUBACK the only
    task is the caller's (no task to send, none to watch the connection)."""
    async with running(mosquitto.url) as harness:
        tasks = len(asyncio.all_tasks())
        publishing = asyncio.ensure_future(harness.link.publish("event", {"type": "x", "at": 1}))
        await asyncio.sleep(0)  # it runs until it waits for the PUBACK
        assert not publishing.done()
        assert len(asyncio.all_tasks()) == tasks + 1
        assert await publishing
        async with subscribed(mosquitto.port, STATE) as late:
            assert await harness.link.publish("state", {"game": None})
            assert json.loads(text(await late.next(STATE))) == {"game": None}


async def test_send_hands_messages_over_in_order_and_returns_at_once(
    mosquitto: MosquittoBroker,
) -> None:
    """send() is the daemon's way for states and events: no task, no future, no
    wait for the PUBACK; the messages arrive in order, and the socket is not
    left corked after a burst is written as one segment."""
    async with running(mosquitto.url) as harness, subscribed(mosquitto.port, STATE) as live:
        tasks = len(asyncio.all_tasks())
        assert all(harness.link.send("state", {"n": n}) for n in range(50))
        assert len(asyncio.all_tasks()) == tasks
        assert [json.loads(text(await live.next(STATE)))["n"] for _ in range(50)] == list(range(50))
        client = harness.link._client
        assert client is not None
        sock = client._client.socket()
        assert isinstance(sock, socket.socket)
        if hasattr(socket, "TCP_CORK"):
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK) == 0
        with pytest.raises(ValueError, match="unknown topic"):
            harness.link.send("status", {})
    assert harness.link.send("state", {"n": 50}) is False  # closed: dropped


async def test_held_writes_go_out_at_the_release_on_the_same_turn(
    mosquitto: MosquittoBroker,
) -> None:
    """The publisher hands a dart's burst over between hold_writes() and
    write_held(): nothing is written before the release, and the release
    writes it all at once, before the loop turns again (the write costs no
    turn of its own); the messages arrive in order."""
    async with running(mosquitto.url) as harness, subscribed(mosquitto.port, STATE) as live:
        client = harness.link._client
        assert client is not None
        harness.link.hold_writes()
        assert all(harness.link.send("state", {"n": n}) for n in range(3))
        assert client.paho.want_write()  # handed over, not written
        harness.link.write_held()
        assert not client.paho.want_write()  # written, and the loop has not turned
        assert [json.loads(text(await live.next(STATE)))["n"] for _ in range(3)] == [0, 1, 2]
        assert harness.link.send("state", {"n": 3})  # not held: written on the next turn
        assert json.loads(text(await live.next(STATE)))["n"] == 3


async def test_a_puback_is_settled_without_paho_decoding_properties(
    mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An MQTT 3.1.1 PUBACK holds only the message id: the link reads it
    without paho's ReasonCode and Properties (27 list lookups each), which
    every message of every dart would otherwise pay for."""
    async with running(mosquitto.url) as harness:
        built: list[object] = []
        real_init = Properties.__init__

        def counting_init(self: Properties, packet_type: int) -> None:
            built.append(packet_type)
            real_init(self, packet_type)  # type: ignore[no-untyped-call]

        monkeypatch.setattr(Properties, "__init__", counting_init)
        assert all([await harness.link.publish("event", {"n": n}) for n in range(5)])
        monkeypatch.undo()
        assert built == []


async def test_a_message_larger_than_the_socket_buffer_is_written_whole(
    mosquitto: MosquittoBroker,
) -> None:
    """The link writes paho's packets itself: what the socket does not take at
    once is written when it becomes writable, and the messages after it follow."""
    big = {"blob": "x" * 8_000_000}
    async with running(mosquitto.url) as harness, subscribed(mosquitto.port, STATE) as live:
        results = await asyncio.gather(
            harness.link.publish("state", big), harness.link.publish("state", {"after": 1})
        )
        assert list(results) == [True, True]
        assert json.loads(text(await live.next(STATE, 30))) == big
        assert json.loads(text(await live.next(STATE))) == {"after": 1}


async def test_a_publish_waiting_for_its_puback_returns_false_when_the_broker_dies(
    mosquitto: MosquittoBroker,
) -> None:
    async with running(mosquitto.url) as harness:
        broker = mosquitto.process
        assert broker is not None
        broker.send_signal(signal.SIGSTOP)  # no PUBACK from now on
        publishing = asyncio.ensure_future(harness.link.publish("event", {"type": "x", "at": 1}))
        await asyncio.sleep(0.2)  # a bounded look: no PUBACK comes, it keeps waiting
        assert not publishing.done()
        broker.kill()  # the connection drops while the publish waits
        await asyncio.to_thread(broker.wait, WAIT)
        async with asyncio.timeout(WAIT):
            assert await publishing is False


async def test_publish_refuses_unknown_topics(mosquitto: MosquittoBroker) -> None:
    async with running(mosquitto.url) as harness:
        with pytest.raises(ValueError, match="unknown topic"):
            await harness.link.publish("status", {})
        with pytest.raises(ValueError, match="subtopic"):
            await harness.link.publish("event", {}, subtopic="a/#")


async def test_publish_before_connecting_returns_false() -> None:
    link = MqttLink(
        LinkSettings(url="mqtt://127.0.0.1:9", base=BASE, board=BOARD), _noop, _noop_connect
    )
    assert not link.connected
    assert not await link.publish("state", {"game": None})
    assert not await link.publish_raw("a/b", "x", retain=False)
    await link.close()
    await link.run()  # closed: returns at once


async def test_reconnects_when_the_broker_comes_back(
    mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "firmware_bridge.daemon.mqtt_link")
    republished: list[bool] = []

    async def republish(harness: Harness) -> None:
        connect = len(republished) + 1
        republished.append(await harness.link.publish("state", {"connect": connect}))

    async with running(mosquitto.url, on_connect=republish) as harness:
        assert republished == [True]
        await asyncio.to_thread(mosquitto.stop)
        await until(lambda: not harness.link.connected)
        assert not await harness.link.publish("state", {"lost": True})
        assert not await harness.link.publish("event", {"type": "bust", "at": 1.0, "player": 0})
        await asyncio.sleep(0.3)  # a few failed attempts while the broker is away
        await asyncio.to_thread(mosquitto.start)
        await harness.wait_connects(2)
        assert harness.link.connected
        assert republished == [True, True]
        async with subscribed(mosquitto.port, AVAILABILITY, STATE) as late:
            assert text(await late.next(AVAILABILITY)) == "online"
            assert json.loads(text(await late.next(STATE))) == {"connect": 2}
            await late.client.publish(CMD, b"again", qos=1)
            await until(lambda: harness.commands == [b"again"])
    # One warning for the outage however many attempts failed, one line when back.
    messages = [
        (r.levelno, r.getMessage())
        for r in caplog.records
        if r.name == "firmware_bridge.daemon.mqtt_link"
    ]
    warnings = [m for level, m in messages if level == logging.WARNING]
    assert len(warnings) == 1
    assert "lost the connection" in warnings[0]
    assert sum("again after" in m for _, m in messages) == 1


def test_the_backoff_is_half_a_second_doubling_to_30_s_jittered_by_a_quarter() -> None:
    """The link's figures for the one Backoff (tests/mqtt_client/test_backoff.py)."""
    assert (MqttLink.BACKOFF_START, MqttLink.BACKOFF_CAP, MqttLink.BACKOFF_JITTER) == (
        0.5,
        30.0,
        0.25,
    )


async def test_run_twice_is_refused(mosquitto: MosquittoBroker) -> None:
    async with running(mosquitto.url) as harness:
        with pytest.raises(RuntimeError, match="already running"):
            await harness.link.run()
        assert harness.link.connected


async def _noop(payload: bytes) -> None:
    pass


async def _noop_connect() -> None:
    pass


# ---------------------------------------------------------------- settings


def test_settings_are_checked_without_io() -> None:
    """No event loop, no network: the constructor only checks."""

    def make(url: str, **changes: Any) -> MqttLink:
        settings = {"url": url, "base": BASE, "board": BOARD, **changes}
        return MqttLink(LinkSettings(**settings), _noop, _noop_connect)

    assert make("mqtt://broker.invalid").server == "broker.invalid:1883"
    assert (
        make("mqtts://broker.invalid", ca_file="/nonexistent/ca.pem").server
        == "broker.invalid:8883"
    )
    assert make("ws://broker.invalid:9001/mqtt").server == "broker.invalid:9001"
    assert make("wss://broker.invalid").server == "broker.invalid:443"
    assert make("mqtt://user:pw@broker.invalid:1884").server == "broker.invalid:1884"
    for url, complaint in [
        ("http://broker", "scheme"),
        ("broker:1883", "scheme"),
        ("mqtt://", "no valid host"),
        ("mqtt://broker:99999", "bad MQTT URL"),
        ("mqtt://broker/path", "path"),
    ]:
        with pytest.raises(ValueError, match=complaint):
            make(url)
    with pytest.raises(ValueError, match="ca_file"):
        make("mqtt://broker", ca_file="ca.pem")
    with pytest.raises(ValueError, match="board"):
        make("mqtt://broker", board="b/1")
    with pytest.raises(ValueError, match="base"):
        make("mqtt://broker", base="oche/#")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_tls() -> None:
    """mqtts:// with a CA file, against Mosquitto with a self-signed certificate."""
    with tls_mosquitto() as (broker, cert):
        url = f"mqtts://127.0.0.1:{broker.port}"
        async with running(url, ca_file=str(cert)) as harness:
            assert await harness.link.publish("state", {"tls": True})
        # Without the CA the certificate is not trusted: no connection.
        untrusted = Harness(url)
        task = asyncio.create_task(untrusted.link.run())
        await asyncio.sleep(0.5)  # a bounded look: it must never connect
        assert untrusted.connects == 0
        await untrusted.link.close()
        async with asyncio.timeout(WAIT):
            await task


async def test_websockets() -> None:
    """ws:// with a path, against an amqtt broker with a websocket listener
    (this machine's Mosquitto has no websocket support)."""
    from amqtt.broker import Broker  # type: ignore[import-untyped]

    port = free_port()
    broker = Broker(
        {
            "listeners": {"default": {"type": "ws", "bind": f"127.0.0.1:{port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {}},
        }
    )
    await broker.start()
    try:
        async with running(f"ws://127.0.0.1:{port}/mqtt") as harness:
            assert harness.link.connected
            assert await harness.link.publish("state", {"over": "websockets"})
    finally:
        await broker.shutdown()


# ------------------------------------------------------- the embedded broker


async def test_round_trip_through_the_embedded_broker() -> None:
    broker = EmbeddedBroker(port=free_port())
    assert broker.url == f"mqtt://127.0.0.1:{broker.port}"
    await broker.start()
    try:

        async def answer(harness: Harness, payload: bytes) -> None:
            command = parse_command(payload)
            await harness.link.publish("cmd/response", response_payload(command.id, True))
            await harness.link.publish("state", {"after": command.name})

        async with running(broker.url, on_command=answer) as harness:
            async with subscribed(broker.port, AVAILABILITY, RESPONSE) as client:
                message = await client.next(AVAILABILITY)
                assert (text(message), message.retain) == ("online", True)
                await client.client.publish(CMD, b'{"command": "undo", "id": 11}', qos=1)
                response = await client.next(RESPONSE)
                assert json.loads(text(response)) == {"id": 11, "ok": True, "error": None}
            async with subscribed(broker.port, STATE) as late:
                message = await late.next(STATE)
                assert json.loads(text(message)) == {"after": "undo"}
                assert message.retain
            assert harness.commands == [b'{"command": "undo", "id": 11}']
        async with subscribed(broker.port, AVAILABILITY) as late:
            assert text(await late.next(AVAILABILITY)) == "offline"
    finally:
        await broker.stop()
        await broker.stop()  # idempotent


async def test_embedded_broker_port_in_use(mosquitto: MosquittoBroker) -> None:
    broker = EmbeddedBroker("127.0.0.1", mosquitto.port)
    with pytest.raises(EmbeddedBrokerError, match=f"127.0.0.1:{mosquitto.port} is already in use"):
        await broker.start()
    assert not broker.running
    await broker.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", ""])
def test_embedded_broker_refuses_non_loopback(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        EmbeddedBroker(host, 1883)


def test_embedded_broker_addresses() -> None:
    assert EmbeddedBroker().url == "mqtt://127.0.0.1:1883"
    assert EmbeddedBroker("127.0.0.2", 1884).url == "mqtt://127.0.0.2:1884"
    assert EmbeddedBroker("localhost", 2000).url == "mqtt://127.0.0.1:2000"
    assert EmbeddedBroker("::1", 2000).url == "mqtt://[::1]:2000"
    for port in (0, 65536, -1):
        with pytest.raises(ValueError, match="port"):
            EmbeddedBroker("127.0.0.1", port)


async def test_a_foreign_copy_of_the_boards_retained_state_or_availability_is_replaced(
    mosquitto: MosquittoBroker,
) -> None:
    """A bridge reconnecting after a partition resends its retained copies,
    which may be older than the board's own: the link publishes its latest
    state and availability again, so the broker's retained copy and every
    live reader end with the board's truth. Its own echoes change nothing."""
    latest = {"game": None, "phase": "idle", "board": {"id": BOARD, "name": "Pub"}}
    async with running(mosquitto.url) as harness:
        harness.link.HEAL_DELAY = 0.2
        for _ in range(5):  # many publishes: their echoes never cause a republish
            assert await harness.link.publish("state", latest)
        async with (
            subscribed(mosquitto.port, STATE) as states,
            subscribed(mosquitto.port, AVAILABILITY) as availability,
        ):
            assert json.loads(text(await states.next(STATE))) == latest  # the retained copy
            assert text(await availability.next(AVAILABILITY)) == "online"
            await states.nothing(STATE, within=0.5)
            async with aiomqtt.Client("127.0.0.1", mosquitto.port) as bridge:
                stale = json.dumps({**latest, "phase": "throwing"})
                await bridge.publish(STATE, stale, qos=1, retain=True)
                await bridge.publish(AVAILABILITY, "offline", qos=1, retain=True)
            assert json.loads(text(await states.next(STATE))) == {**latest, "phase": "throwing"}
            assert json.loads(text(await states.next(STATE))) == latest  # healed
            assert text(await availability.next(AVAILABILITY)) == "offline"
            assert text(await availability.next(AVAILABILITY)) == "online"
            await states.nothing(STATE, within=0.5)
        async with subscribed(mosquitto.port, STATE, AVAILABILITY) as late:
            assert json.loads(text(await late.next(STATE))) == latest
            assert text(await late.next(AVAILABILITY)) == "online"


async def test_embedded_broker_serves_clients_connecting_while_others_subscribe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """amqtt sends a connecting client retained messages while it walks its
    subscription table; clients subscribing to new filters meanwhile once made
    it drop the connecting client with "dictionary changed size during
    iteration" (``oche play --leaderboard``: three clients connect at once)."""
    broker = EmbeddedBroker(port=free_port())
    await broker.start()
    filters, retained = 40, 5
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="keeper") as keeper:
            for group in range(filters):  # each filter a walk that waits for its sends
                await keeper.subscribe(f"race/{group}/#")
                for number in range(retained):
                    await keeper.publish(f"race/{group}/{number}", b"x", qos=1, retain=True)
            subscribing = asyncio.Event()
            done = asyncio.Event()

            async def subscriber(number: int) -> None:
                async with aiomqtt.Client("127.0.0.1", broker.port, identifier=f"s{number}") as c:
                    topic = 0
                    while not done.is_set():
                        await c.subscribe(f"new/{number}/{topic}")
                        subscribing.set()
                        topic += 1

            async def joiner(number: int) -> None:
                await subscribing.wait()
                for attempt in range(5):
                    identifier = f"j{number}-{attempt}"
                    async with aiomqtt.Client("127.0.0.1", broker.port, identifier=identifier) as c:
                        await c.subscribe("race/0/#")
                        async with asyncio.timeout(WAIT):
                            async for _ in c.messages:
                                break  # it stayed connected and got its retained message

            with caplog.at_level(logging.ERROR):
                subscribers = [asyncio.create_task(subscriber(n)) for n in range(3)]
                try:
                    await asyncio.gather(*(joiner(n) for n in range(3)))
                finally:
                    done.set()
                    await asyncio.gather(*subscribers)
        assert "changed size during iteration" not in caplog.text
    finally:
        await broker.stop()
