"""A coin-operated board end to end: the real daemon, a real Mosquitto, a
real SQLite journal; coins come from a board source fed CoinEvents (the
simulated and pty boards' coin frames are another helper's), with the
firmware's running count or one pulse at a time. The clock is injected, so
happy hour is a time, not a wait."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiomqtt
import jinja2
import pygame
import pytest
from jsonschema import Draft202012Validator

from drivers.board_events import CoinEvent, ConnectedEvent
from drivers.source import BoardSource
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from mqtt_contract import TOPICS
from tests.daemon_harness import TIMEOUT, Watcher, config_text
from tests.mosquitto_broker import MosquittoBroker

LONDON = ZoneInfo("Europe/London")
FRIDAY_5PM = datetime(2026, 11, 27, 17, 30, tzinfo=LONDON).timestamp()
FRIDAY_NOON = datetime(2026, 11, 27, 12, 0, tzinfo=LONDON).timestamp()

COIN = """
[credits]
mode = "coin"
credits_per_pulse = [1, 2]
price = 2
timezone = "Europe/London"
"""


class CoinSource(BoardSource):
    """A board that is connected and gives what the test puts in."""

    name = "coins"

    async def _run(self) -> None:
        self._emit(ConnectedEvent("coins"))
        await asyncio.Event().wait()

    def coin(self, coin_input: int, count: int | None = None, boot: str | None = None) -> None:
        self._emit(CoinEvent(coin_input, count, boot))


class Board:
    """One daemon on a coin source, its clock, and an MQTT watcher."""

    def __init__(self, tmp_path: Path, broker: MosquittoBroker, extra: str) -> None:
        self.now = FRIDAY_NOON
        self.source = CoinSource()
        text = config_text(tmp_path, broker.url, tmp_path / "no-port", extra=extra)
        self.config = parse_config(text, "test.toml")
        self.daemon = Daemon(self.config, clock=lambda: self.now, source=self.source)
        self.journal_path = tmp_path / "journal.sqlite3"
        self.task: asyncio.Task[None] | None = None

    def ledger(self) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.journal_path) as db:
            return db.execute(
                "SELECT change, source, coin_input, pulses, game_id, reason "
                "FROM credit_ledger ORDER BY id"
            ).fetchall()


@contextlib.asynccontextmanager
async def started(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, extra: str = COIN
) -> AsyncIterator[Board]:
    """A daemon with ``extra`` config, running until the block ends."""
    board = Board(tmp_path, mosquitto, extra)
    board.task = asyncio.create_task(board.daemon.run())
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        yield board
    finally:
        board.task.cancel()
        await asyncio.gather(board.task, return_exceptions=True)


@pytest.fixture
async def board(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> AsyncIterator[Board]:
    async with started(tmp_path, mosquitto, watcher) as running:
        yield running


async def operator(watcher: Watcher, payload: dict[str, Any] | bytes) -> dict[str, Any]:
    """Send an operator command, and wait for its answer (by id)."""
    client = watcher._client
    assert client is not None
    if isinstance(payload, bytes):
        command_id = None
        data = payload
    else:
        command_id = payload.setdefault("id", f"op{len(watcher.messages)}")
        data = json.dumps(payload).encode()
    seen = len(watcher.of("operator/cmd/response"))
    await client.publish("oche/board1/operator/cmd", data, qos=1)
    await watcher.count("operator/cmd/response", lambda p: True, seen + 1)
    response: dict[str, Any] = await watcher.wait_for(
        "operator/cmd/response",
        lambda p: isinstance(p, dict) and (command_id is None or p.get("id") == command_id),
    )
    return response


def credits_of(state: dict[str, Any]) -> int:
    return int(state["credits"]["credits"])


async def test_coin_pulses_become_credits_per_input_value(board: Board, watcher: Watcher) -> None:
    board.source.coin(1, count=1, boot="b1")  # 1 credit
    board.source.coin(2, count=1, boot="b1")  # 2 credits
    board.source.coin(2, count=1, boot="b1")  # the same count again: nothing
    board.source.coin(2)  # one pulse of a source that counts nothing: 2 credits
    board.source.coin(1, count=3, boot="b1")  # two pulses the daemon missed: 2 credits
    state = await watcher.state_where(lambda s: credits_of(s) == 7)
    assert state["credits"] == {
        "mode": "coin",
        "free_play": False,
        "credits": 7,
        "price": 2,
        "happy_hour": False,
        "coins_today": 5,
        "game_prices": {},
        "player_prices": {},
    }
    events = await watcher.count("event", lambda p: p.get("type") == "credits", 4)
    assert events == 4
    credits = [p for p in watcher.of("event") if p.get("type") == "credits"]
    assert [(p["change"], p["credits"], p["source"], p["input"]) for p in credits] == [
        (1, 1, "coin", 1),
        (2, 3, "coin", 2),
        (2, 5, "coin", 2),
        (2, 7, "coin", 1),
    ]
    validator = Draft202012Validator(TOPICS["event"].schema)
    for payload in credits:
        validator.validate(payload)
    assert board.ledger() == [
        (1, "coin", 1, 1, None, None),
        (2, "coin", 2, 1, None, None),
        (2, "coin", 2, 1, None, None),
        (2, "coin", 1, 2, None, None),
    ]


async def test_a_short_game_is_refused_naming_the_shortfall(board: Board, watcher: Watcher) -> None:
    board.source.coin(1, count=3, boot="b1")
    await watcher.state_where(lambda s: credits_of(s) == 3)
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
    )
    assert response == {
        "id": response["id"],
        "ok": False,
        "error": "2 players x 2 credits = 4 credits; 3 held: insert 1 more",
    }
    state = await watcher.state_where(lambda s: s["phase"] == "idle")
    assert state["game"] is None and credits_of(state) == 3
    assert [line[1] for line in board.ledger()] == ["coin"]


async def test_a_started_game_and_its_rematch_each_spend_the_price(
    board: Board, watcher: Watcher
) -> None:
    assert (await operator(watcher, {"command": "add_credits", "count": 9, "reason": "tab"}))["ok"]
    started = await watcher.command({"command": "new_game", "game": "x01", "players": ["A", "B"]})
    assert started["ok"], started
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert credits_of(state) == 5
    assert (await watcher.command({"command": "rematch"}))["ok"]
    await watcher.state_where(lambda s: credits_of(s) == 1)
    refused = await watcher.command({"command": "rematch"})
    assert refused["error"] == "2 players x 2 credits = 4 credits; 1 held: insert 3 more"
    ledger = board.ledger()
    assert ledger[0] == (9, "remote", None, None, None, "tab")
    with sqlite3.connect(board.journal_path) as db:
        games = [row[0] for row in db.execute("SELECT id FROM games ORDER BY id")]
    assert ledger[1:] == [(-4, "game", None, None, game, None) for game in games]
    spends = [p for p in watcher.of("event") if p.get("source") == "game"]
    assert [(p["change"], p["credits"]) for p in spends] == [(-4, 5), (-4, 1)]


async def test_a_paid_game_gets_the_configured_round_limit(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    rounds = COIN + "rounds = { x01 = 20, cricket = 15 }\n"
    async with started(tmp_path, mosquitto, watcher, rounds):
        await operator(watcher, {"command": "add_credits", "count": 4})
        await watcher.command({"command": "new_game", "game": "x01", "players": ["A"]})
        state = await watcher.state_where(lambda s: s.get("game") == "x01")
        assert state["options"]["rounds"] == 20
        chosen = {
            "command": "new_game",
            "game": "cricket",
            "players": ["A"],
            "options": {"rounds": 5},
        }
        await watcher.command(chosen)
        state = await watcher.state_where(lambda s: s.get("game") == "cricket")
        assert state["options"]["rounds"] == 5


async def test_free_play_spends_nothing_and_is_booked(board: Board, watcher: Watcher) -> None:
    assert (await operator(watcher, {"command": "set_free_play", "on": True}))["ok"]
    state = await watcher.state_where(lambda s: s["credits"]["free_play"])
    assert state["credits"]["price"] == 0
    assert (await watcher.command({"command": "new_game", "game": "x01", "players": ["A"]}))["ok"]
    await watcher.state_where(lambda s: s.get("game") == "x01")
    assert [(c, s) for c, s, *_ in board.ledger()] == [(0, "free-play")]
    assert (await operator(watcher, {"command": "set_free_play", "on": False}))["ok"]
    refused = await watcher.command({"command": "rematch"})
    assert refused["error"] == "1 player x 2 credits = 2 credits; 0 held: insert 2 more"


async def test_free_mode_is_todays_board(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with started(tmp_path, mosquitto, watcher, "") as board:
        await _free_mode(board, watcher)


async def _free_mode(board: Board, watcher: Watcher) -> None:
    assert (await watcher.command({"command": "new_game", "game": "x01", "players": ["A"]}))["ok"]
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert state["credits"] == {
        "mode": "free",
        "free_play": True,
        "credits": 0,
        "price": 0,
        "happy_hour": False,
    }
    assert "rounds" not in state["options"] or state["options"]["rounds"] == 0
    assert board.ledger() == []
    assert watcher.of("books") == []
    refused = await operator(watcher, {"command": "set_free_play", "on": False})
    assert not refused["ok"] and 'mode is "free"' in refused["error"]


HAPPY = (
    COIN
    + """
[[credits.happy_hour]]
days = ["fri"]
start = "17:00"
end = "19:00"
price_multiplier = 0.5
bonus_per_pulse = 1
"""
)


async def test_happy_hour_halves_the_price_and_adds_a_bonus(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with started(tmp_path, mosquitto, watcher, HAPPY) as board:
        await _happy_hour(board, watcher)


async def _happy_hour(board: Board, watcher: Watcher) -> None:
    board.source.coin(1)
    await watcher.state_where(lambda s: credits_of(s) == 1 and not s["credits"]["happy_hour"])
    board.now = FRIDAY_5PM
    board.source.coin(1)
    state = await watcher.state_where(lambda s: credits_of(s) == 3)
    assert state["credits"]["happy_hour"] and state["credits"]["price"] == 1
    assert (await watcher.command({"command": "new_game", "game": "x01", "players": ["A", "B"]}))[
        "ok"
    ]
    await watcher.state_where(lambda s: s.get("game") == "x01" and credits_of(s) == 1)
    assert [(c, s) for c, s, *_ in board.ledger()] == [
        (1, "coin"),
        (1, "coin"),
        (1, "happy-hour"),
        (-2, "game"),
    ]


async def test_operator_set_price_for_one_game_and_back(board: Board, watcher: Watcher) -> None:
    await operator(watcher, {"command": "add_credits", "count": 3})
    assert (await operator(watcher, {"command": "set_price", "price": 3, "game": "X01"}))["ok"]
    refused = await watcher.command({"command": "new_game", "game": "x01", "players": ["A", "B"]})
    assert refused["error"] == "2 players x 3 credits = 6 credits; 3 held: insert 3 more"
    assert (await operator(watcher, {"command": "set_price", "price": 1}))["ok"]
    state = await watcher.state_where(lambda s: s["credits"]["price"] == 1)
    assert credits_of(state) == 3
    ok = await watcher.command({"command": "new_game", "game": "cricket", "players": ["A", "B"]})
    assert ok["ok"], ok
    await watcher.state_where(lambda s: credits_of(s) == 1)
    unknown = await operator(watcher, {"command": "set_price", "price": 1, "game": "golf"})
    assert not unknown["ok"] and "unknown game 'golf'" in unknown["error"]
    assert (await operator(watcher, {"command": "set_price", "price": None, "game": "x01"}))["ok"]
    with sqlite3.connect(board.journal_path) as db:
        settings = dict(db.execute("SELECT key, value FROM operator_settings").fetchall())
    # The lobby keeps its own keys in the store too (lobby.*, docs/players.md).
    operators = {key: value for key, value in settings.items() if not key.startswith("lobby.")}
    assert operators == {"price": "1"}


async def test_operator_commands_on_cmd_are_refused(board: Board, watcher: Watcher) -> None:
    for command in (
        {"command": "add_credits", "count": 5},
        {"command": "set_free_play", "on": True},
        {"command": "reset_books"},
        {"command": "set_price", "price": 0},
    ):
        response = await watcher.command(command)
        assert not response["ok"]
        assert response["error"].endswith("operator commands go on oche/board1/operator/cmd")
    state = await watcher.state_where(lambda s: True)
    assert credits_of(state) == 0 and not state["credits"]["free_play"]
    assert board.ledger() == []


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b"not json", "command is not valid JSON"),
        (b"[1, 2]", "command must be a JSON object, got array"),
        (b'{"command": "add_credits"}', "add_credits needs 'count'"),
        (b'{"command": "add_credits", "count": -3}', '"count" must be an integer from 1'),
        (b'{"command": "add_credits", "count": true}', '"count" must be an integer from 1'),
        (b'{"command": "add_credits", "count": 1, "tip": 5}', "unknown key 'tip' for add_credits"),
        (b'{"command": "set_free_play", "on": "yes"}', '"on" must be true or false'),
        (b'{"command": "set_price", "price": 1.5}', '"price" must be an integer from 0'),
        (b'{"command": "new_game", "game": "x01"}', "new_game is a players' command"),
        (b'{"command": "steal"}', "unknown operator command 'steal'"),
        (b"\xff\xfe", "command is not UTF-8 text"),
    ],
)
async def test_bad_operator_payloads_are_answered_and_harmless(
    board: Board, watcher: Watcher, payload: bytes, error: str
) -> None:
    response = await operator(watcher, payload)
    assert not response["ok"] and error in response["error"], response
    Draft202012Validator(TOPICS["operator/cmd/response"].schema).validate(response)
    board.source.coin(1)  # the daemon goes on as before
    state = await watcher.state_where(lambda s: credits_of(s) == 1)
    assert state["game"] is None
    assert board.ledger() == [(1, "coin", 1, 1, None, None)]


async def test_the_retained_books_follow_every_change_and_reset(
    board: Board, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    board.source.coin(1, count=2, boot="b1")
    board.source.coin(2, count=1, boot="b1")
    await watcher.state_where(lambda s: credits_of(s) == 4)
    await operator(watcher, {"command": "add_credits", "count": 2, "reason": "comp"})
    await watcher.command({"command": "new_game", "game": "cricket", "players": ["A", "B"]})
    await watcher.state_where(lambda s: s.get("game") == "cricket")
    books = await watcher.wait_for("books", lambda b: b["security"]["games_played"] == 1)
    Draft202012Validator(TOPICS["books"].schema).validate(books)
    expected = {
        "coins": {"1": {"pulses": 2, "credits": 2}, "2": {"pulses": 1, "credits": 2}},
        "coins_total": 3,
        "credits_in": {"coin": 4, "remote": 2, "happy-hour": 0, "free-play": 0},
        "credits_in_total": 6,
        "credits_spent": 4,
        "credits_net": 2,
        "games_played": 1,
    }
    for name in ("customer", "security", "today"):
        assert {k: books[name][k] for k in expected} == expected, name
    assert books["security"]["games"]["cricket"]["played"] == 1
    assert books["credits"] == 2 and books["customer"]["reset_at"] is None

    board.now += 3600  # the operator collects an hour later
    assert (await operator(watcher, {"command": "reset_books", "reason": "collected"}))["ok"]
    reset = await watcher.wait_for("books", lambda b: b["customer"]["reset_at"] is not None)
    assert reset["customer"]["credits_in_total"] == 0
    assert reset["customer"]["coins"] == {} and reset["customer"]["games_played"] == 0
    assert {k: reset["security"][k] for k in expected} == expected
    assert reset["credits"] == 2  # a reset of the books is not a loss of credits

    # The books are retained: a client that comes later reads the latest.
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as late:
        await late.subscribe("oche/board1/books", qos=1)
        async with asyncio.timeout(TIMEOUT):
            async for message in late.messages:
                assert message.retain
                retained = json.loads(bytes(message.payload))
                assert retained["customer"]["reset_at"] is not None
                break


async def test_home_assistant_discovers_credits_and_the_days_coins(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = Board(tmp_path, mosquitto, COIN + "\n[homeassistant]\nenabled = true\n")
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as ha:
        await ha.subscribe("homeassistant/sensor/oche_board1/+/config", qos=1)
        board.task = asyncio.create_task(board.daemon.run())
        try:
            configs: dict[str, Any] = {}
            async with asyncio.timeout(TIMEOUT):
                async for message in ha.messages:
                    what = str(message.topic).split("/")[3]
                    if message.payload:
                        configs[what] = json.loads(bytes(message.payload))
                    if {"credits", "coins_today"} <= set(configs):
                        break
        finally:
            board.task.cancel()
            await asyncio.gather(board.task, return_exceptions=True)
    assert configs["credits"]["state_topic"] == "oche/board1/state"
    assert configs["credits"]["unit_of_measurement"] == "credits"
    assert configs["coins_today"]["state_topic"] == "oche/board1/state"
    assert configs["coins_today"]["state_class"] == "total_increasing"
    # Home Assistant renders them against the state the daemon publishes.
    environment = jinja2.Environment()
    state = {"credits": {"mode": "coin", "credits": 4, "coins_today": 3}}
    rendered = {
        what: environment.from_string(config["value_template"]).render(value_json=state)
        for what, config in configs.items()
        if what in ("credits", "coins_today")
    }
    assert rendered == {"credits": "4", "coins_today": "3"}
    idle = {"game": None}
    assert (
        environment.from_string(configs["credits"]["value_template"]).render(value_json=idle)
        == "None"
    )


CREDITS_CONFIGS = {
    "homeassistant/sensor/oche_board1/credits/config",
    "homeassistant/sensor/oche_board1/coins_today/config",
}
HOME_ASSISTANT_ON = "\n[homeassistant]\nenabled = true\n"


class Discovery:
    """What Home Assistant would read: the latest discovery configuration of
    each sensor of board1 (None: removed), and the states after them."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.configs: dict[str, dict[str, Any] | None] = {}
        self.states_after: list[dict[str, Any]] = []

    async def until(self, predicate: Callable[[Discovery], bool]) -> None:
        """Read messages until ``predicate`` holds (within TIMEOUT)."""
        async with asyncio.timeout(TIMEOUT):
            while not predicate(self):
                message = await anext(self.client.messages)
                payload = bytes(message.payload)  # type: ignore[arg-type]
                if message.topic.matches("oche/board1/state"):
                    self.states_after.append(json.loads(payload))
                else:
                    self.configs[str(message.topic)] = json.loads(payload) if payload else None
                    self.states_after = []

    def credits_sensors(self) -> bool | None:
        """True: both credits sensors configured; False: both removed."""
        found = {self.configs.get(topic, None) is not None for topic in CREDITS_CONFIGS}
        if not set(self.configs) >= CREDITS_CONFIGS or len(found) != 1:
            return None
        return found.pop()


@contextlib.asynccontextmanager
async def home_assistant(broker: MosquittoBroker) -> AsyncIterator[Discovery]:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe("homeassistant/sensor/oche_board1/+/config", qos=1)
        await client.subscribe("oche/board1/state", qos=1)
        yield Discovery(client)


async def test_home_assistant_loses_the_credits_sensors_on_free_play_and_gets_them_back(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with (
        home_assistant(mosquitto) as seen,
        started(tmp_path, mosquitto, watcher, COIN + HOME_ASSISTANT_ON) as board,
    ):
        await seen.until(lambda d: d.credits_sensors() is True)
        assert (await operator(watcher, {"command": "set_free_play", "on": True}))["ok"]
        await seen.until(lambda d: d.credits_sensors() is False)
        board.source.coin(1)  # a coin on free play is credited (and counted) all the same
        await watcher.state_where(lambda s: s["credits"]["coins_today"] == 1)
        assert (await operator(watcher, {"command": "set_free_play", "on": False}))["ok"]
        await seen.until(lambda d: d.credits_sensors() is True and bool(d.states_after))
        # The sensors made again have a value at once: the state came after them.
        assert seen.states_after[-1]["credits"]["coins_today"] == 1
        assert not seen.states_after[-1]["credits"]["free_play"]


async def test_a_board_back_on_free_mode_clears_the_credits_sensors(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    # What a run in mode "coin" left behind; the board now runs in mode free.
    async with home_assistant(mosquitto) as seen:
        for topic in CREDITS_CONFIGS:
            await seen.client.publish(topic, b'{"name": "old"}', qos=1, retain=True)
        await seen.until(lambda d: d.credits_sensors() is True)
        async with started(tmp_path, mosquitto, watcher, HOME_ASSISTANT_ON):
            await seen.until(lambda d: d.credits_sensors() is False)


async def test_the_idle_and_setup_screens_show_the_credits_and_the_price(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """The state a coin-operated daemon publishes, drawn headless: the attract
    screen says the credits held and the price; the setup says what the game
    being set up costs and what is missing (x01 has a price of its own here,
    three players one of theirs, and the computer player does not pay)."""
    from display.app import render_state
    from display.layout import Layout
    from display.scenes import SetupScene

    extra = COIN + 'prices = { x01 = 3 }\nplayer_prices = { "3" = 1 }\n'
    async with started(tmp_path, mosquitto, watcher, extra) as board:
        board.source.coin(2)  # 2 credits
        state = await watcher.state_where(lambda s: credits_of(s) == 2)
        assert state["credits"]["game_prices"] == {"x01": 3}
        assert state["credits"]["player_prices"] == {"3": 1}

        layout = Layout(1280, 720)
        render_state(state, (1280, 720), "online", 0.0, layout)
        shown = [text for text, _ in layout.drawn_text]
        assert "Credits: 2  ·  2 per player" in shown

        setup = SetupScene()
        setup.set_state(state)
        setup.model.select(1)  # x01, two players
        surface, layout = pygame.Surface((1280, 720)), Layout(1280, 720)
        setup.draw(surface, layout)
        shown = [text for text, _ in layout.drawn_text]
        assert "Credits: 2  ·  this game 2 x 3 = 6 credits: insert 4 more" in shown
        setup.model.game = "cricket"
        setup.model.player_count = 3
        layout = Layout(1280, 720)
        setup.draw(surface, layout)
        assert "Credits: 2  ·  this game 3 x 1 = 3 credits: insert 1 more" in [
            text for text, _ in layout.drawn_text
        ]
        setup.model.computer = 5  # the last of the three is the computer: two pay
        layout = Layout(1280, 720)
        setup.draw(surface, layout)
        assert "Credits: 2  ·  this game 2 x 2 = 4 credits: insert 2 more" in [
            text for text, _ in layout.drawn_text
        ]
        # Free play, set by the operator, says so.
        assert (await operator(watcher, {"command": "set_free_play", "on": True}))["ok"]
        state = await watcher.state_where(lambda s: s["credits"]["free_play"])
        layout = Layout(1280, 720)
        render_state(state, (1280, 720), "online", 0.0, layout)
        assert "Free play" in [text for text, _ in layout.drawn_text]
