"""Home Assistant discovery as Home Assistant sees it.

The daemon runs against a real Mosquitto with discovery on; what it leaves
retained under ``homeassistant/`` is read back by fresh subscribers, and every
value template is rendered with Jinja2 the way Home Assistant renders MQTT
templates (a sandbox in which an undefined value that is printed, iterated or
tested logs "Template variable warning"), against every state the daemon
published during a real game.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from firmware_bridge.daemon.home_assistant import AWARD_EVENT, discovery_messages
from tests.daemon_harness import TIMEOUT, Running, Watcher, press, throw, until
from tests.mosquitto_broker import MosquittoBroker

DISCOVERY = "homeassistant/sensor/oche_board1"
HOME_ASSISTANT_ON = "[homeassistant]\nenabled = true\n"


# --- templates, rendered as Home Assistant renders them ----------------------


class HomeAssistantUndefined(jinja2.Undefined):
    """Home Assistant's LoggingUndefined: printing, iterating or testing an
    undefined value logs a warning (kept here in ``warnings``); any other use
    is an error."""

    warnings: list[str] = []  # noqa: RUF012 - one list per test, reset by render()

    def _warn(self) -> None:
        HomeAssistantUndefined.warnings.append(self._undefined_message)

    def __str__(self) -> str:
        self._warn()
        return super().__str__()

    def __iter__(self) -> Any:
        self._warn()
        return super().__iter__()

    def __bool__(self) -> bool:
        self._warn()
        return super().__bool__()


ENVIRONMENT = ImmutableSandboxedEnvironment(undefined=HomeAssistantUndefined)


def render(template: str, payload: dict[str, Any]) -> tuple[str, list[str]]:
    """What Home Assistant makes of ``template`` for an MQTT message carrying
    ``payload`` (value_json), and the template warnings it logs."""
    HomeAssistantUndefined.warnings = []
    text = json.dumps(payload)
    result = ENVIRONMENT.from_string(template).render(value=text, value_json=json.loads(text))
    return result.strip(), list(HomeAssistantUndefined.warnings)


def templates(player_count: int) -> dict[str, str]:
    """Every template of the discovery's sensors over the state: ``<sensor>``
    and ``<sensor> attributes`` (not the award entity's, over the events)."""
    found: dict[str, str] = {}
    for _, config in discovery_messages("homeassistant", "oche", "board1", "B", player_count):
        what = config["unique_id"].removeprefix("oche_board1_")
        if what == AWARD_EVENT:
            continue
        found[what] = config["value_template"]
        if "json_attributes_template" in config:
            found[f"{what} attributes"] = config["json_attributes_template"]
    return found


IDLE = {
    "game": None,
    "phase": "idle",
    "board": {"id": "b", "name": "B", "connected": True, "status": "connected", "stuck_cells": []},
}


def test_templates_render_an_idle_board_without_warnings() -> None:
    rendered = {}
    for what, template in templates(2).items():
        rendered[what], warnings = render(template, IDLE)
        assert not warnings, f"{what}: {warnings}"
    # "unknown" is Home Assistant's unknown state on a text sensor; "None"
    # would show as the text "None" (Home Assistant 2024.3). Attributes are an
    # empty object.
    assert rendered == {
        "game": "unknown",
        "game attributes": "{}",
        "current_player": "unknown",
        "last_dart": "unknown",
        "phase": "idle",
        "journal": "unknown",
        "journal attributes": "{}",
        "score_0": "unknown",
        "score_0 attributes": "{}",
        "score_1": "unknown",
        "score_1 attributes": "{}",
    }


def test_the_game_sensor_has_a_matchs_legs_as_attributes() -> None:
    match = {"leg": 3, "set": None, "legs_won": [2, 1], "sets_won": None}
    playing = {**IDLE, "game": "x01", "phase": "throwing", "match": match}
    text, warnings = render(templates(0)["game attributes"], playing)
    assert not warnings and json.loads(text) == {
        "legs": "2-1",
        "sets_won": None,
        "leg": 3,
        "set": None,
    }


def test_the_journal_sensor_says_when_darts_are_not_counted() -> None:
    full = {
        **IDLE,
        "journal": {
            "status": "full",
            "message": "the journal is full: darts are not counted",
            "salvaged": None,
        },
    }
    assert render(templates(0)["journal"], full) == ("full", [])
    assert render(templates(0)["journal attributes"], full)[0] == json.dumps(
        {"message": "the journal is full: darts are not counted", "salvaged": None}
    )


def test_only_numeric_sensors_render_none() -> None:
    # Home Assistant takes the text "None" for unknown on a numeric sensor (a
    # unit or a state class) only; the credits sensors are the numeric ones.
    coin = {**IDLE, "credits": {"mode": "coin", "credits": 2, "coins_today": 5}}
    for _, config in discovery_messages("homeassistant", "oche", "board1", "B", 8, credits=True):
        numeric = "unit_of_measurement" in config or "state_class" in config
        without, _ = render(config["value_template"], IDLE)
        with_credits, _ = render(config["value_template"], coin)
        if numeric:
            assert without == "None" and with_credits.isdigit(), config["unique_id"]
        else:
            assert "None" not in (without, with_credits), config["unique_id"]


def award_entity() -> tuple[str, dict[str, Any]]:
    messages = discovery_messages("homeassistant", "oche", "board1", "B", 2)
    return next((t, c) for t, c in messages if c["unique_id"] == "oche_board1_award")


def test_the_award_entity_is_an_event_of_every_award_id() -> None:
    discovery_topic, config = award_entity()
    assert discovery_topic == "homeassistant/event/oche_board1/award/config"
    assert config["default_entity_id"] == "event.oche_board1_award"
    assert config["state_topic"] == "oche/board1/event"
    assert "ton-80" in config["event_types"] and "white-horse" in config["event_types"]


def test_the_award_entity_fires_for_an_award_and_ignores_other_events() -> None:
    _, config = award_entity()
    award = {
        "type": "award",
        "at": 1.0,
        "award": "ton-80",
        "player": 0,
        "name": "Ann",
        "darts": ["T20", "T20", "T20"],
        "points": 180,
        "game": "x01",
    }
    fired, warnings = render(config["value_template"], award)
    assert not warnings
    assert json.loads(fired) == {
        "event_type": "ton-80",
        "player": 0,
        "name": "Ann",
        "darts": ["T20", "T20", "T20"],
        "points": 180,
        "marks": None,
        "game": "x01",
    }
    dart = {"type": "dart", "at": 1.0, "player": 0, "segment": "T20", "points": 60}
    assert render(config["value_template"], dart) == ("", [])  # empty: Home Assistant skips it


def test_score_sensors_are_text_sensors_without_statistics() -> None:
    for _, config in discovery_messages("homeassistant", "oche", "board1", "B", 8):
        for key in ("state_class", "unit_of_measurement", "device_class"):
            assert key not in config, (config["unique_id"], key)


# --- the daemon against a real broker ----------------------------------------


async def retained(broker: MosquittoBroker, topic_filter: str) -> dict[str, bytes]:
    """The retained messages a fresh subscriber to ``topic_filter`` gets: all of
    them arrive before a marker published after the subscription."""
    found: dict[str, bytes] = {}
    marker = "oche-test/marker"
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(topic_filter, qos=1)
        await client.subscribe(marker, qos=1)
        await client.publish(marker, b"end", qos=1)

        async def collect() -> None:
            async for message in client.messages:
                if message.topic.matches(marker):
                    return
                if message.retain:  # not what the daemon is publishing right now
                    found[str(message.topic)] = bytes(message.payload)  # type: ignore[arg-type]

        await asyncio.wait_for(collect(), TIMEOUT)
    return found


async def retained_until(
    broker: MosquittoBroker, predicate: Callable[[dict[str, bytes]], bool]
) -> dict[str, bytes]:
    """The retained discovery once ``predicate`` holds for it (the daemon
    publishes discovery in the background)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        found = await retained(broker, f"{DISCOVERY}/+/config")
        if predicate(found):
            return found
        assert asyncio.get_running_loop().time() < deadline, sorted(found)
        await asyncio.sleep(0.05)


def scores(found: dict[str, bytes]) -> set[str]:
    return {topic.split("/")[-2] for topic in found if "/score_" in topic}


@pytest.fixture
async def home_assistant_daemon(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> AsyncIterator[Running]:
    """The daemon with Home Assistant discovery on, on a fake pty board."""
    daemon = Running(tmp_path, mosquitto, extra=HOME_ASSISTANT_ON)
    await daemon.start()
    try:
        yield daemon
    finally:
        await daemon.stop()
        daemon.board.close()


async def test_a_smaller_game_removes_the_score_sensors_it_lacks(
    home_assistant_daemon: Running, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    three = ["Ann", "Bob", "Cy"]
    assert (await watcher.command({"command": "new_game", "game": "x01", "players": three}))["ok"]
    await retained_until(mosquitto, lambda f: scores(f) == {"score_0", "score_1", "score_2"})

    live: list[tuple[str, bytes]] = []
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe(f"{DISCOVERY}/score_2/config", qos=1)

        heard = asyncio.Event()

        async def removal() -> None:
            async for message in client.messages:
                live.append((str(message.topic), bytes(message.payload)))  # type: ignore[arg-type]
                heard.set()
                if message.payload == b"":
                    return

        listening = asyncio.create_task(asyncio.wait_for(removal(), TIMEOUT))
        await asyncio.wait_for(heard.wait(), TIMEOUT)  # the retained config arrives first
        response = await watcher.command(
            {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
        )
        assert response["ok"], response
        await listening
    assert live[-1] == (f"{DISCOVERY}/score_2/config", b""), "score_2 was never removed"

    found = await retained_until(mosquitto, lambda f: scores(f) == {"score_0", "score_1"})
    assert f"{DISCOVERY}/score_2/config" not in found
    for what in ("game", "current_player", "last_dart", "phase", "journal"):
        assert f"{DISCOVERY}/{what}/config" in found

    # No game at all: no score sensors.
    assert (await watcher.command({"command": "end_game"}))["ok"]
    await retained_until(mosquitto, lambda f: not scores(f) and len(f) == 5)


async def test_a_discovery_round_publishes_the_state_again_for_its_new_sensors(
    home_assistant_daemon: Running, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    # Home Assistant gives a sensor it creates no retained copy of the state
    # topic its other sensors already read: a score sensor made for a new
    # game would be unknown until the next dart, unless the state comes again
    # after the sensor's configuration.
    await watcher.state_where(lambda s: s["board"]["connected"])
    seen: list[tuple[str, bytes]] = []
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as home_assistant:
        await home_assistant.subscribe(f"{DISCOVERY}/+/config", qos=1)
        await home_assistant.subscribe("oche/board1/state", qos=1)
        players = ["Ann", "Bob", "Cy"]
        command = {"command": "new_game", "game": "x01", "players": players}
        assert (await watcher.command(command))["ok"]

        async def state_after_score_2() -> dict[str, Any]:
            configured = False
            async for message in home_assistant.messages:
                payload = bytes(message.payload)  # type: ignore[arg-type]
                seen.append((str(message.topic), payload))
                if str(message.topic) == f"{DISCOVERY}/score_2/config" and payload:
                    configured = True
                elif configured and message.topic.matches("oche/board1/state"):
                    state: dict[str, Any] = json.loads(payload)
                    return state
            raise AssertionError("the subscription ended")

        state = await asyncio.wait_for(state_after_score_2(), TIMEOUT)
    assert [player["name"] for player in state["players"]] == players
    assert render(templates(3)["score_2"], state)[0] == "501"


async def test_a_restarted_daemon_clears_score_sensors_it_no_longer_has(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    # What an earlier run (or another version) left behind, e.g. a 5-player game.
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        for index in range(5):
            topic = f"{DISCOVERY}/score_{index}/config"
            await client.publish(topic, b'{"name": "old"}', qos=1, retain=True)
    daemon = Running(tmp_path, mosquitto, extra=HOME_ASSISTANT_ON)
    await daemon.start()
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await retained_until(mosquitto, lambda f: not scores(f) and len(f) == 5)
    finally:
        await daemon.stop()
        daemon.board.close()


async def test_new_games_publish_discovery_without_piling_up_calls(
    home_assistant_daemon: Running,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # aiomqtt warns "There are N pending publish calls." past 10 unacknowledged
    # calls on one client. Discovery is up to 12 configurations and 7 removals
    # per game: it goes one message at a time, and one run at a time even for
    # games started in a burst, so it never adds more than one.
    caplog.set_level(logging.WARNING)
    await watcher.state_where(lambda s: s["board"]["connected"])
    link = home_assistant_daemon.daemon.link
    assert link is not None
    publish_raw = link.publish_raw
    in_flight: list[str] = []
    most = 0

    async def counting(topic: str, payload: Any, retain: bool, qos: int = 1) -> bool:
        nonlocal most
        discovery = topic.startswith("homeassistant/")
        if discovery:
            in_flight.append(topic)
            most = max(most, len(in_flight))
        try:
            return await publish_raw(topic, payload, retain, qos)
        finally:
            if discovery:
                in_flight.remove(topic)

    link.publish_raw = counting  # type: ignore[method-assign]
    eight = [f"P{n}" for n in range(8)]
    for players in (eight, ["Ann"], eight, ["Ann", "Bob"]):
        response = await watcher.command({"command": "new_game", "game": "x01", "players": players})
        assert response["ok"], response
    commands = [
        {"command": "new_game", "game": "x01", "players": players, "id": f"burst-{n}"}
        for n, players in enumerate((eight, ["Ann"], eight, ["Ann", "Bob"]))
    ]
    for command in commands:
        await watcher.send_raw(json.dumps(command).encode())
    for command in commands:
        await watcher.wait_for("cmd/response", lambda p, c=command: p.get("id") == c["id"])
    # Discovery runs on in the background: until the broker keeps the last
    # game's, and nothing is in flight.
    await retained_until(mosquitto, lambda f: scores(f) == {"score_0", "score_1"})
    await until(lambda: not in_flight)
    assert most == 1, f"{most} discovery messages were awaiting their PUBACK at once"
    pending = [r.getMessage() for r in caplog.records if "pending" in r.getMessage()]
    assert not pending, pending


async def test_templates_render_every_state_of_a_real_game_without_warnings(
    home_assistant_daemon: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]}
    )
    assert response["ok"], response
    board = home_assistant_daemon.board
    await throw(board, "T20")
    await watcher.state_where(lambda s: s.get("visit") == ["T20"])
    await throw(board, "T20", "T20")
    await watcher.state_where(lambda s: s.get("phase") == "takeout")
    await press(board, 0)  # NEXT
    await watcher.state_where(lambda s: s.get("current_player") == 1)
    await throw(board, "S1", "S1", "S1")
    await press(board, 0)
    await throw(board, "T20", "T11", "D14")  # 121: checkout
    await watcher.state_where(lambda s: s.get("phase") == "finished")
    assert (await watcher.command({"command": "end_game"}))["ok"]
    await watcher.state_where(lambda s: s.get("phase") == "idle")

    states = watcher.of("state")
    assert {state["phase"] for state in states} == {"idle", "throwing", "takeout", "finished"}
    for state in states:
        for what, template in templates(2).items():
            text, warnings = render(template, state)
            assert not warnings, f"{what} on a {state['phase']} state: {warnings}"
            assert text != "None", f"{what} shows the text None on a {state['phase']} state"
            if what.endswith("attributes"):
                assert isinstance(json.loads(text), dict)
    last = {}
    for state in states:
        if state["phase"] == "finished":
            last = {what: render(t, state)[0] for what, t in templates(2).items()}
    assert last["game"] == "x01"
    assert last["phase"] == "finished"
    assert last["journal"] == "ok"
    assert last["last_dart"] == "D14"
    assert (last["score_0"], last["score_1"]) == ("0", "298")
    assert json.loads(last["score_0 attributes"]) == {"player": "Ann"}
