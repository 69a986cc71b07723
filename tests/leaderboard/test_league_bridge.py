"""The league shape: a bar's Mosquitto bridged to the league's central broker
with ``deploy/mosquitto/bridge-to-league.conf`` (the very file docs/deploy.md
installs, only its address pointed at a second private Mosquitto). A result
published at the bar reaches the central broker's ``oche/+/result``
subscriber; states, events and availability go along (states and availability
retained); commands stay in the bar. What remote matches add (tests/test_deploy_bridge.py)
comes in too."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from tests.mosquitto_broker import MosquittoBroker, mosquitto_binary
from tests.paths import REPO

BRIDGE_CONF = REPO / "deploy" / "mosquitto" / "bridge-to-league.conf"
DEPLOY_DOC = REPO / "docs" / "deploy.md"
TIMEOUT = 10.0
BOARD = "crown-1"

pytestmark = pytest.mark.skipif(mosquitto_binary() is None, reason="needs mosquitto")


def active_lines(config: str) -> list[str]:
    return [
        line.strip() for line in config.splitlines() if line.strip() and not line.startswith("#")
    ]


def bridge_config(central: MosquittoBroker) -> str:
    """The deploy file with its ``address`` pointed at ``central``; nothing else changes."""
    config = BRIDGE_CONF.read_text("utf-8")
    rendered, count = re.subn(
        r"^address \S+$", f"address {central.host}:{central.port}", config, flags=re.MULTILINE
    )
    assert count == 1
    return rendered


def result_document() -> dict[str, Any]:
    """A finished game as a daemon publishes it (what the service ingests)."""
    return {
        "result_id": "crown-1-7f3a",
        "board": BOARD,
        "game": "x01",
        "options": {"start": 301},
        "players": [{"name": "Ann"}, {"name": "Bob"}],
        "winner": 0,
        "log": "T20 T20 T20\nS20 S1 S18\nT20 T19 S1\nS1 S1 S1\nD20 D20 D1\n",
    }


async def next_message(client: aiomqtt.Client) -> aiomqtt.Message:
    async with asyncio.timeout(TIMEOUT):
        async for message in client.messages:
            return message
    raise AssertionError("no message")


def test_the_bridge_file_sends_results_out_and_keeps_commands_in() -> None:
    lines = active_lines(BRIDGE_CONF.read_text("utf-8"))
    topics = [line for line in lines if line.startswith("topic ")]
    assert topics == [
        "topic oche/+/result out 1",
        "topic oche/+/result/stored in 1",
        "topic oche/leaderboard/availability/+ in 1",
        "topic oche/+/state both 1",
        "topic oche/+/event both 1",
        "topic oche/+/availability both 1",
        "topic oche/+/remote/+ both 1",
    ]
    assert lines[0].startswith("connection ") and "cleansession false" in lines
    # Credentials and TLS are there to fill in, commented.
    config = BRIDGE_CONF.read_text("utf-8")
    for option in ("remote_username", "remote_password", "bridge_cafile"):
        assert f"\n#{option} " in config, option
    doc = DEPLOY_DOC.read_text("utf-8")
    assert config.strip() in doc, "docs/deploy.md must show bridge-to-league.conf verbatim"


async def test_a_result_published_at_the_bar_arrives_at_the_central_broker(
    tmp_path: Path,
) -> None:
    central = MosquittoBroker(tmp_path / "central")
    central.start()
    bar = MosquittoBroker(tmp_path / "bar", extra_config=bridge_config(central))
    try:
        async with aiomqtt.Client(central.host, central.port) as league:
            for name in ("result", "state", "availability", "cmd", "event"):
                await league.subscribe(f"oche/+/{name}", qos=1)
            bar.start()
            async with aiomqtt.Client(bar.host, bar.port) as local:
                # The bridge says, on the bar's broker only, when its link is up.
                await local.subscribe("$SYS/broker/connection/league-crown/state", qos=1)
                while (await next_message(local)).payload != b"1":
                    pass
                state = json.dumps({"game": None, "phase": "idle", "board": {"id": BOARD}})
                result = json.dumps(result_document())
                await local.publish(f"oche/{BOARD}/availability", "online", qos=1, retain=True)
                await local.publish(f"oche/{BOARD}/cmd", '{"command": "next"}', qos=1)
                await local.publish(f"oche/{BOARD}/state", state, qos=1, retain=True)
                await local.publish(f"oche/{BOARD}/event", '{"type": "dart"}', qos=1)
                await local.publish(f"oche/{BOARD}/result", result, qos=1)
            received = []
            while not received or received[-1][0] != f"oche/{BOARD}/result":
                message = await next_message(league)
                received.append((str(message.topic), message.payload, message.qos))
        # In order, QoS 1; the bar's commands stay in the bar.
        assert received == [
            (f"oche/{BOARD}/availability", b"online", 1),
            (f"oche/{BOARD}/state", state.encode(), 1),
            (f"oche/{BOARD}/event", b'{"type": "dart"}', 1),
            (f"oche/{BOARD}/result", result.encode(), 1),
        ]
        # The central broker holds the board's last state and availability,
        # retained, as the bar's does: a TV page started later sees the board.
        async with aiomqtt.Client(central.host, central.port) as late:
            await late.subscribe(f"oche/{BOARD}/state", qos=1)
            message = await next_message(late)
            assert message.retain and message.payload == state.encode()
    finally:
        bar.stop()
        central.stop()
