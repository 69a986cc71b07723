"""Two Mosquittos bridged as a league night runs them, through a link a test can cut.

Broker A, the **league** (the host's side), is a plain private Mosquitto.
Broker B, the **bar** (the guest's side), runs ``deploy/mosquitto/bridge-to-league.conf``
as deployed: in ``conf.d`` under Debian's ``mosquitto.conf``
(:class:`~tests.deployed_mosquitto.InstalledMosquitto`), beside one file of
the rig's (an anonymous loopback listener), its ``address`` pointed at a
:class:`~tests.tcp_proxy.TcpProxy` in front of A and its ``restart_timeout``
shortened to 1 s so a restored link comes back within a test; every other line
(the topics, ``cleansession false``, ``try_private true``, the client ids, the
notifications) is the file's, so the tests exercise the real deployed bridge.

    rig = BridgedBrokers(tmp_path)
    rig.start()              # both brokers, the proxy, and the bridge up
    rig.cut(); rig.restore(); rig.wait_up()
    rig.restart_bar()        # B stops and starts again on the same port
    rig.stop()

Queues across a cut: the bridge's persistent session (``cleansession false``)
makes B queue the QoS 1 messages for A while the link is down, and A queue
those for B; both are delivered once it is back. Across a restart of B that is
not enough: B's outgoing queue and its local clients' sessions live in its
memory, so they survive only with ``persistence=True`` (Debian's persistence,
its store in the rig's directory, saved every second and read back at start;
without it the rig turns Debian's persistence off). A's
queue for the bridge survives a restart of B either way: it is A's session for
the bridge's client id, which comes back with ``cleansession false``.

:meth:`BridgedBrokers.wait_up` waits for the bridge's notification
(``$SYS/broker/connection/<name>/state`` = 1, on B only) and then for a ping
crossing the link each way (``PING_TOPICS``, on the remote channel's pattern,
so it also shows both brokers hold the bridge's subscriptions). Tests should
subscribe to their own topics, not ``oche/+/remote/+``, or ignore the pings.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import re
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.deployed_mosquitto import InstalledMosquitto
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO
from tests.tcp_proxy import TcpProxy

__all__ = ["BRIDGE_CONF", "PING_TOPICS", "BridgedBrokers", "bridge_config", "bridge_topics"]

BRIDGE_CONF = REPO / "deploy" / "mosquitto" / "bridge-to-league.conf"
PING_TOPICS = {"out": "oche/rig-bar/remote/rig-league", "in": "oche/rig-league/remote/rig-bar"}
"""Topics of the pings :meth:`BridgedBrokers.wait_up` sends: from B to A, from A to B."""
TIMEOUT = 30.0  # for anything that must happen: generous, for a busy machine
PING_EVERY = 0.25


def active_lines(config: str) -> list[str]:
    """The config's lines that are not blank or comments."""
    return [line.strip() for line in config.splitlines() if line.strip() and line[0] != "#"]


def bridge_topics(config: str | None = None) -> list[tuple[str, str, int]]:
    """``(pattern, direction, qos)`` of each ``topic`` line of the deployed bridge."""
    topics = []
    for line in active_lines(config if config is not None else BRIDGE_CONF.read_text("utf-8")):
        words = line.split()
        if words[0] == "topic":
            topics.append((words[1], words[2], int(words[3])))
    return topics


def bridge_config(address: str, *, restart_s: int = 1) -> str:
    """The deployed bridge file, its ``address`` set to ``address`` and its
    ``restart_timeout`` to ``restart_s``; nothing else changes."""
    config = BRIDGE_CONF.read_text("utf-8")
    config, addresses = re.subn(r"^address \S+$", f"address {address}", config, flags=re.M)
    config, restarts = re.subn(
        r"^restart_timeout .*$", f"restart_timeout {restart_s}", config, flags=re.M
    )
    if (addresses, restarts) != (1, 1):
        raise AssertionError(f"{BRIDGE_CONF} needs one address and one restart_timeout line")
    return config


def connection_name(config: str) -> str:
    (name,) = [line.split()[1] for line in active_lines(config) if line.startswith("connection ")]
    return name


class _Probe:
    """A paho client of the rig's own that reconnects quickly and subscribes again."""

    def __init__(self, broker: MosquittoBroker, topics: list[str]) -> None:
        self.topics = topics
        self.messages: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"rig-probe-{uuid.uuid4().hex[:8]}"
        )
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async(broker.host, broker.port, keepalive=30)
        self.client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, code: Any, props: Any) -> None:
        for topic in self.topics:
            client.subscribe(topic, qos=1)

    def _on_message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.messages.put((message.topic, bytes(message.payload)))

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class BridgedBrokers:
    """Broker A (league) and broker B (bar), B bridged to A through a cuttable proxy."""

    def __init__(self, workdir: Path, *, persistence: bool = False) -> None:
        self.workdir = workdir
        self.persistence = persistence
        self.league = MosquittoBroker(workdir / "league")
        self.proxy = TcpProxy(self.league.host, self.league.port)
        self._bar_port: int | None = None
        self.bar: InstalledMosquitto | None = None
        self.name = connection_name(BRIDGE_CONF.read_text("utf-8"))
        """The bridge's connection name in the deployed file (league-crown)."""
        self._probes: dict[str, _Probe] = {}

    @property
    def state_topic(self) -> str:
        """Where B says whether the bridge is up (1) or down (0), retained."""
        return f"$SYS/broker/connection/{self.name}/state"

    def _new_bar(self) -> InstalledMosquitto:
        port = self._bar_port or free_port()
        self._bar_port = port
        # The test's own listener, anonymous, in a file read after the bridge's
        # (conf.d is read in name order, as oche.conf is read after it).
        rig = f"listener {port} 127.0.0.1\nallow_anonymous true\n"
        if self.persistence:
            rig += "autosave_interval 1\n"
        conf_d = {
            BRIDGE_CONF.name: bridge_config(f"{self.proxy.host}:{self.proxy.port}"),
            "test-listener.conf": rig,
        }
        return InstalledMosquitto(self.workdir / "bar", conf_d, port, persistence=self.persistence)

    def start(self) -> BridgedBrokers:
        """Start A, the proxy and B, and wait until the bridge carries messages."""
        self.league.start()
        self.proxy.start()
        self.bar = self._new_bar()
        self.bar.start()
        self._probes["league"] = _Probe(self.league, [PING_TOPICS["out"]])
        self._probes["bar"] = _Probe(self.bar, [PING_TOPICS["in"], self.state_topic])
        self.wait_up()
        return self

    def stop(self) -> None:
        for probe in self._probes.values():
            probe.close()
        self._probes.clear()
        if self.bar is not None:
            self.bar.stop()
        self.proxy.stop()
        self.league.stop()

    def cut(self) -> None:
        """A network partition between the bar and the league, both ways."""
        self.proxy.cut()

    def restore(self) -> None:
        """End the partition; the bridge reconnects within ``restart_timeout`` (1 s)."""
        self.proxy.restore()

    def restart_bar(self) -> None:
        """Stop B and start it again on the same port (and, with ``persistence``,
        the same store); returns once it listens: wait_up() for the bridge."""
        assert self.bar is not None
        self.bar.stop()
        self.bar = self._new_bar()
        self.bar.start()

    def _bridge_state(self, probe: _Probe, want: bytes, deadline: float) -> None:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.state_topic} never said {want.decode()}")
            with contextlib.suppress(queue.Empty):
                topic, payload = probe.messages.get(timeout=min(left, 0.1))
                if topic == self.state_topic and payload == want:
                    return

    def wait_up(self, timeout: float = TIMEOUT) -> None:
        """Block until B says the bridge is up and a ping has crossed each way."""
        deadline = time.monotonic() + timeout
        bar, league = self._probes["bar"], self._probes["league"]
        self._bridge_state(bar, b"1", deadline)
        for sender, receiver, topic in ((bar, league, "out"), (league, bar, "in")):
            ping = uuid.uuid4().hex.encode()
            sent = 0.0
            while True:
                now = time.monotonic()
                if now >= deadline:
                    raise AssertionError(f"no ping crossed the bridge ({topic}) in {timeout:g} s")
                if now - sent >= PING_EVERY:
                    sender.publish(PING_TOPICS[topic], ping)
                    sent = now
                with contextlib.suppress(queue.Empty):
                    if receiver.messages.get(timeout=0.05) == (PING_TOPICS[topic], ping):
                        break
        # Late copies of earlier pings may still come: they are on the ping topics only.

    def wait_down(self, timeout: float = TIMEOUT) -> None:
        """Block until B says the bridge is down (after :meth:`cut`)."""
        self._bridge_state(self._probes["bar"], b"0", time.monotonic() + timeout)

    async def wait_up_async(self, timeout: float = TIMEOUT) -> None:
        """:meth:`wait_up` for asyncio tests, off the event loop."""
        await asyncio.to_thread(self.wait_up, timeout)

    def __enter__(self) -> BridgedBrokers:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
