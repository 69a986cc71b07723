"""One MQTT contract: the config loader, the daemon's link and the display read
the same broker URLs, bases and board ids the same way. Each row is fed to all
three; they must all take it (and connect to the same place) or all refuse it."""

from __future__ import annotations

from typing import Any

import pytest

from display.state_feed import StateFeed
from firmware_bridge.daemon.config import ConfigError, parse_config
from firmware_bridge.daemon.mqtt_link import LinkSettings, MqttLink

URLS: list[tuple[str, str | None]] = [
    # url, where all three connect (None: all three refuse it)
    ("mqtt://broker", "mqtt://broker:1883"),
    ("mqtt://broker:1884/", "mqtt://broker:1884"),
    ("MQTTS://Broker.Example", "mqtts://broker.example:8883"),
    ("ws://broker:9001", "ws://broker:9001/mqtt"),
    ("ws://broker:9001/", "ws://broker:9001/"),
    ("wss://broker/ws", "wss://broker:443/ws"),
    ("mqtt://[::1]:1883", "mqtt://[::1]:1883"),
    ("broker:1883", None),
    ("http://broker", None),
    ("mqtt://", None),
    ("mqtt://broker:0", None),
    ("mqtt://broker:99999", None),
    ("mqtt://broker/path", None),
    ("ws://broker/mqtt?x=1", None),
]

BASES: list[tuple[str, bool]] = [
    ("oche", True),
    ("home/darts", True),
    ("pub.darts", True),
    ("bar-1/oche_2", True),
    ("x" * 64, True),
    ("x" * 65, False),
    ("", False),
    ("$SYS", False),
    ("oche/#", False),
    ("oche/+/x", False),
    ("/oche", False),
    ("oche//x", False),
    ("oche darts", False),
    ("oche\x01", False),
]

BOARDS: list[tuple[str, bool]] = [
    ("board1", True),
    ("Pub_Board-2", True),
    ("b" * 64, True),
    ("b" * 65, False),
    ("", False),
    ("pub.1", False),
    ("a/b", False),
    ("$SYS", False),
    ("b+", False),
    ("tafel ä", False),
]


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\x01", "\\u0001") + '"'


def through_config(url: str = "", base: str = "oche", board: str = "board1") -> str:
    lines = ["[board]", f"id = {_toml(board)}", "[mqtt]", f"base = {_toml(base)}"]
    if url:
        lines.append(f"url = {_toml(url)}")
    config = parse_config("\n".join(lines), "contract.toml")
    return config.mqtt.address().url if url else ""


def through_link(url: str = "mqtt://broker", base: str = "oche", board: str = "board1") -> str:
    async def nothing(*_: Any) -> None:
        return None

    link = MqttLink(LinkSettings(url=url, base=base, board=board), nothing, nothing)
    return link._endpoint.url


def through_display(url: str = "mqtt://broker", base: str = "oche", board: str = "board1") -> str:
    return StateFeed(url, board, base).address.url


def outcomes(**given: str) -> list[str | None]:
    """Where each consumer would connect, or None where it refuses."""
    found: list[str | None] = []
    for consumer in (through_config, through_link, through_display):
        try:
            found.append(consumer(**given))
        except (ValueError, ConfigError):
            found.append(None)
    return found


@pytest.mark.parametrize(("url", "address"), URLS)
def test_every_consumer_reads_a_broker_url_alike(url: str, address: str | None) -> None:
    assert outcomes(url=url) == [address] * 3


@pytest.mark.parametrize(("base", "taken"), BASES)
def test_every_consumer_takes_the_same_bases(base: str, taken: bool) -> None:
    expected = ["mqtt://broker:1883"] * 3 if taken else [None] * 3
    assert outcomes(url="mqtt://broker", base=base) == expected


@pytest.mark.parametrize(("board", "taken"), BOARDS)
def test_every_consumer_takes_the_same_board_ids(board: str, taken: bool) -> None:
    expected = ["mqtt://broker:1883"] * 3 if taken else [None] * 3
    assert outcomes(url="mqtt://broker", board=board) == expected
