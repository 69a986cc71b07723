"""Pairing a browser to control the board (docs/phone.md): the code published
retained on ``pairing``, ``pair`` with the right code pairs and draws a new
code, wrong codes are refused (five in a row draw a new one), the devices
survive a restart, the operator's ``unpair`` forgets one or all. A real
daemon on a real Mosquitto."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from mqtt_contract import TOPICS
from tests.daemon.test_journal_faults import SmallFileSystem, sd_card
from tests.daemon_harness import TIMEOUT, Running, Watcher
from tests.mosquitto_broker import MosquittoBroker

__all__ = ["sd_card"]  # the full SD card's fixture, used here too

WEB = "http://pub.local:8080"
ANN_PHONE = {"id": "dev-ann-0001", "name": "Ann's phone"}
BAR_TABLET = {"id": "dev-bar-0002", "name": "Bar tablet"}


def running(tmp_path: Path, mosquitto: MosquittoBroker) -> Running:
    return Running(tmp_path, mosquitto, [f'lobby.web_url="{WEB}"'])


def pairing_problems(payload: Any) -> list[str]:
    validator = Draft202012Validator(TOPICS["pairing"].schema)
    return [error.message for error in validator.iter_errors(payload)]


async def retained_pairing(mosquitto: MosquittoBroker) -> dict[str, Any]:
    """What a display subscribing now reads on ``oche/board1/pairing``."""
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe("oche/board1/pairing", qos=1)
        async with asyncio.timeout(TIMEOUT):
            async for message in client.messages:
                assert message.retain
                payload: dict[str, Any] = json.loads(bytes(message.payload))
                return payload
    raise AssertionError("no retained pairing message")


async def pairing_where(watcher: Watcher, predicate: Any) -> dict[str, Any]:
    """The latest pairing message once it satisfies ``predicate``."""

    async def look() -> dict[str, Any]:
        while True:
            seen = watcher.of("pairing")
            if seen and predicate(seen[-1]):
                return seen[-1]  # type: ignore[no-any-return]
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(look(), TIMEOUT)


async def pair(watcher: Watcher, code: str, device: dict[str, str]) -> dict[str, Any]:
    return await watcher.command({"command": "pair", "code": code, "device": dict(device)})


def wrong(code: str) -> str:
    """A six-digit code that is not ``code``."""
    return f"{(int(code) + 1) % 1_000_000:06d}"


async def test_the_code_is_published_retained_and_a_right_code_pairs(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with running(tmp_path, mosquitto):
        first = await pairing_where(watcher, lambda p: True)
        assert pairing_problems(first) == []
        code = first["code"]
        assert first["url"] == f"{WEB}/boards/board1#pair={code}"
        assert first["devices"] == []
        retained = await retained_pairing(mosquitto)
        assert retained["code"] == code
        state = await watcher.state_where(lambda s: "board" in s)
        assert code not in str(state), "the code is a credential: never in state"

        response = await pair(watcher, code, ANN_PHONE)
        assert response["ok"], response
        after = await pairing_where(watcher, lambda p: p["devices"])
        assert [(d["id"], d["name"]) for d in after["devices"]] == [
            (ANN_PHONE["id"], ANN_PHONE["name"])
        ]
        assert after["code"] != code, "a code pairs one device: a new one after"
        assert after["url"].endswith(f"#pair={after['code']}")
        assert pairing_problems(after) == []

        again = await pair(watcher, code, BAR_TABLET)
        assert not again["ok"]
        assert "wrong pairing code" in again["error"]


async def test_wrong_codes_are_refused_and_five_in_a_row_draw_a_new_code(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with running(tmp_path, mosquitto):
        code = (await pairing_where(watcher, lambda p: True))["code"]
        for _ in range(4):
            response = await pair(watcher, wrong(code), ANN_PHONE)
            assert not response["ok"]
            assert response["error"].startswith("wrong pairing code"), response
        assert watcher.of("pairing")[-1]["code"] == code, "four wrong codes keep it"
        fifth = await pair(watcher, wrong(code), ANN_PHONE)
        assert not fifth["ok"]
        assert "new code" in fifth["error"], fifth
        rotated = await pairing_where(watcher, lambda p: p["code"] != code)
        assert rotated["devices"] == []
        stale = await pair(watcher, code, ANN_PHONE)
        assert not stale["ok"], "the old code no longer pairs"
        malformed = await watcher.command(
            {"command": "pair", "code": "12ab", "device": dict(ANN_PHONE)}
        )
        assert not malformed["ok"] and "code" in malformed["error"], malformed


async def test_paired_devices_survive_a_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with running(tmp_path, mosquitto):
        code = (await pairing_where(watcher, lambda p: True))["code"]
        assert (await pair(watcher, code, ANN_PHONE))["ok"]
        code = (await pairing_where(watcher, lambda p: p["devices"]))["code"]
        assert (await pair(watcher, code, BAR_TABLET))["ok"]
        await pairing_where(watcher, lambda p: len(p["devices"]) == 2)
    seen = len(watcher.of("pairing"))
    async with running(tmp_path, mosquitto):
        restarted = await pairing_where(
            watcher, lambda p: len(watcher.of("pairing")) > seen and p is not None
        )
        assert [d["id"] for d in restarted["devices"]] == [ANN_PHONE["id"], BAR_TABLET["id"]]


async def test_the_operator_unpairs_one_device_then_all(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "firmware_bridge.daemon.extensions.pairing")
    async with running(tmp_path, mosquitto):
        code = (await pairing_where(watcher, lambda p: True))["code"]
        assert (await pair(watcher, code, ANN_PHONE))["ok"]
        code = (await pairing_where(watcher, lambda p: p["devices"]))["code"]
        assert (await pair(watcher, code, BAR_TABLET))["ok"]
        paired = await pairing_where(watcher, lambda p: len(p["devices"]) == 2)

        unknown = await watcher.operator_command({"command": "unpair", "device": "dev-nobody-9"})
        assert not unknown["ok"] and "dev-nobody-9" in unknown["error"], unknown

        one = await watcher.operator_command({"command": "unpair", "device": ANN_PHONE["id"]})
        assert one["ok"], one
        left = await pairing_where(watcher, lambda p: len(p["devices"]) == 1)
        assert left["devices"][0]["id"] == BAR_TABLET["id"]
        assert left["code"] != paired["code"]

        everyone = await watcher.operator_command({"command": "unpair"})
        assert everyone["ok"], everyone
        await pairing_where(watcher, lambda p: p["devices"] == [])
    logged = caplog.text
    assert f"paired device {ANN_PHONE['id']}" in logged
    assert f"unpaired device {ANN_PHONE['id']}" in logged
    assert f"unpaired device {BAR_TABLET['id']}" in logged
    assert code not in logged, "the code is never logged"


async def test_a_board_without_a_web_page_publishes_no_url(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto):
        first = await pairing_where(watcher, lambda p: True)
        assert first["url"] is None
        assert pairing_problems(first) == []


@pytest.mark.slow
async def test_a_pairing_the_journal_refuses_pairs_no_device(
    tmp_path: Path, sd_card: SmallFileSystem, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """Not journaled, not paired: a restart could not keep it, so the board
    refuses it (saying why) and lists no device; once the journal writes
    again, the new code pairs."""
    journal = f'journal.path="{sd_card.path / "journal.sqlite3"}"'
    async with Running(tmp_path, mosquitto, [f'lobby.web_url="{WEB}"', journal]):
        code = (await pairing_where(watcher, lambda p: True))["code"]
        await watcher.state_where(lambda s: "board" in s)
        sd_card.fill()
        refused = await pair(watcher, code, ANN_PHONE)
        assert not refused["ok"] and "journal" in refused["error"], refused
        spent = await pairing_where(watcher, lambda p: p["code"] != code)
        assert spent["devices"] == []
        sd_card.free()
        await watcher.state_where(lambda s: s["journal"]["status"] == "ok", timeout=TIMEOUT * 2)
        assert (await pair(watcher, spent["code"], ANN_PHONE))["ok"]
        await pairing_where(watcher, lambda p: [d["id"] for d in p["devices"]] == [ANN_PHONE["id"]])
