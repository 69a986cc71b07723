"""The operator menu (#15 §5), headless: the PIN and its lockout, every page
with real states and events, the operator commands it sends over its own
MQTT connection (a real Mosquitto, a watcher on the operator topics), the
board and button tests with the real daemon on a pseudo-terminal board, the
broker's refusals with a real ACL (``oche operator pin``: tests/cli)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import jsonschema
import pygame
import pytest

from display.app import DisplayApp, OperatorAccess
from display.dartboard import LIT, bed_centre
from display.layout import Layout
from display.operator_link import OperatorLink
from display.operator_pin import (
    LOCKOUT_SECONDS,
    PinGate,
    check_pin,
    hash_pin,
    pin_hash_problem,
    verify_pin,
)
from display.scenes import MQTT_EVENT, IdleScene, X01Scene
from display.scenes.operator import ALL_BEDS, OperatorScene, books_lines
from display.sound_bank import SoundBank
from display.state_feed import StateFeed
from drivers.matrix_map import MatrixMap, dump_map
from engine import game_name
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import ConfigError, parse_config
from mqtt_contract import TOPICS
from tests.daemon_harness import BEDS, COLS, Running, Watcher, press, throw, until
from tests.mosquitto_broker import MosquittoBroker, free_port

SIZE = (1280, 720)
PIN = "2468"
PIN_HASH = hash_pin(PIN)
TIMEOUT = 10.0
BOOKS = {  # as the daemon publishes them (docs/credits.md, "The books snapshot")
    "board": "board1",
    "since": None,
    "until": None,
    "customer": {
        "from": 1_793_606_400.0,
        "until": None,
        "reset_at": 1_793_606_400.0,
        "coins": {"1": {"pulses": 5, "credits": 5}, "2": {"pulses": 1, "credits": 2}},
        "coins_total": 6,
        "credits_in": {"coin": 7, "remote": 0, "happy-hour": 0, "free-play": 0},
        "credits_in_total": 7,
        "credits_spent": 6,
        "credits_net": 1,
        "games": {"x01": {"played": 3, "finished": 2, "play_time_s": 1800.0}},
        "games_played": 3,
        "play_time_s": 1800.0,
    },
    "security": {
        "from": None,
        "until": None,
        "coins": {"1": {"pulses": 120, "credits": 120}},
        "coins_total": 120,
        "credits_in": {"coin": 120, "remote": 4, "happy-hour": 0, "free-play": 0},
        "credits_in_total": 124,
        "credits_spent": 118,
        "credits_net": 6,
        "games": {"x01": {"played": 50, "finished": 41, "play_time_s": 36000.0}},
        "games_played": 50,
        "play_time_s": 36000.0,
    },
    "updated_at": 1_793_649_000.0,
}


class FakeClock:
    """The PIN gate's clock, moved by hand: the lockout without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def key(code: int, mod: int = 0) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=code, mod=mod, unicode="", scancode=0)


def digits(app: DisplayApp, text: str) -> None:
    for digit in text:
        app.handle(key(getattr(pygame, f"K_{digit}")))


def drawn(app: DisplayApp, surface: pygame.Surface) -> list[str]:
    """One frame (the clock held still), then the scene's text drawn again."""
    app.frame(surface, 0.0)
    layout = Layout(*surface.get_size())
    app.scene.draw(surface, layout)
    return [text for text, _ in layout.drawn_text]


async def shown(
    app: DisplayApp, surface: pygame.Surface, wanted: str | Callable[[list[str]], bool]
) -> list[str]:
    """The app's text once ``wanted`` is among it (or the predicate holds)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        text = drawn(app, surface)
        if wanted in text if isinstance(wanted, str) else wanted(text):
            return text
        assert time.monotonic() < deadline, f"{wanted!r} never shown; drawn: {text}"
        await asyncio.sleep(0.02)


def idle_state(free_play: bool = False, price: int = 1) -> dict[str, Any]:
    return {
        "phase": "idle",
        "board": {"id": "board1", "name": "Pub board", "connected": True, "status": "ok"},
        "credits": {"mode": "coin", "free_play": free_play, "credits": 2, "price": price},
    }


def check_operator_command(payload: dict[str, Any]) -> None:
    jsonschema.validate(payload, TOPICS["operator/cmd"].schema)


# ------------------------------------------------------------------ the PIN


def test_pin_hash_round_trip_and_format() -> None:
    assert re.fullmatch(r"scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}", PIN_HASH)
    assert PIN not in PIN_HASH
    assert verify_pin(PIN, PIN_HASH)
    assert not verify_pin("2469", PIN_HASH)
    assert not verify_pin("", PIN_HASH)
    assert hash_pin(PIN) != PIN_HASH  # a fresh salt each time
    assert pin_hash_problem(PIN_HASH) is None
    assert pin_hash_problem(PIN) is not None
    assert pin_hash_problem("scrypt$1048576$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + "A" * 43)  # too costly
    assert not verify_pin(PIN, "pbkdf2$1$x$y")
    for bad in ("12a4", "123", "1" * 13, "\uff11\uff12\uff13\uff14"):
        with pytest.raises(ValueError):
            check_pin(bad)


def test_three_wrong_pins_lock_the_entry_for_a_while() -> None:
    clock = FakeClock()
    gate = PinGate(PIN_HASH, clock=clock)
    assert gate.enabled and not PinGate("").enabled and not PinGate("1234").enabled
    assert not gate.check("1111") and gate.tries_left() == 2
    assert gate.check(PIN) and gate.tries_left() == 3  # a right PIN starts the count again
    for _ in range(3):
        assert not gate.check("1111")
    assert gate.locked_for() == LOCKOUT_SECONDS
    assert not gate.check(PIN)  # refused unchecked while locked
    clock.now += LOCKOUT_SECONDS
    assert gate.locked_for() == 0 and gate.check(PIN)


def test_the_config_takes_a_pin_hash_never_a_pin(tmp_path: Path) -> None:
    config = parse_config(f'[operator]\npin_hash = "{PIN_HASH}"\n', "t.toml")
    assert config.operator.pin_hash == PIN_HASH
    with pytest.raises(ConfigError, match=r"operator\.pin_hash: is not a PIN hash"):
        parse_config(f'[operator]\npin_hash = "{PIN}"\n', "t.toml")
    secret = tmp_path / "operator.secret"
    secret.write_text("s3cret\n", "utf-8")
    with pytest.raises(ConfigError, match=r"operator\.password_file: a password needs"):
        parse_config(f'[operator]\npassword_file = "{secret}"\n', "t.toml")
    config = parse_config(
        '[operator]\nusername = "op"\npassword_file = "operator.secret"\n',
        "t.toml",
        base_dir=tmp_path,
    )
    assert config.operator.password() == "s3cret"


# -------------------------------------- the menu, its commands and the books


async def test_pin_entry_lockout_and_every_operator_command(
    mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """F12 and the PIN (keys, then thrown digits after the lockout), then each
    page that talks to the daemon: a fake daemon answers on the operator
    topics and publishes the books; the watcher sees what was sent."""
    surface = pygame.Surface(SIZE)
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as daemon:
        await daemon.publish("oche/board1/availability", "online", qos=1, retain=True)
        await daemon.publish("oche/board1/state", json.dumps(idle_state()), qos=1, retain=True)
        with StateFeed(mosquitto.url, "board1", "oche") as feed:
            assert await asyncio.to_thread(feed.wait_for_state, 5.0) is not None
            sound = SoundBank(volume=0.8)
            app = DisplayApp(feed, SIZE, sound=sound, operator=OperatorAccess(pin_hash=PIN_HASH))
            clock = FakeClock()
            app.gate = PinGate(PIN_HASH, clock=clock)
            drawn(app, surface)  # the state taken in
            assert isinstance(app.scene, IdleScene)

            # The key opens the PIN entry; three wrong PINs lock it.
            app.handle(key(pygame.K_F12))
            assert isinstance(app.scene, OperatorScene)
            assert "Operator PIN" in drawn(app, surface)
            assert app.scene.link is None  # no operator connection before the PIN
            digits(app, "1357")
            assert "****" in drawn(app, surface)
            app.handle(key(pygame.K_RETURN))
            assert "Wrong PIN: 2 tries left" in drawn(app, surface)
            digits(app, "0000")
            app.handle(key(pygame.K_KP_ENTER))
            assert "Wrong PIN: 1 try left" in drawn(app, surface)
            digits(app, "9999")
            app.handle(key(pygame.K_RETURN))
            assert "Locked: try again in 30 s" in drawn(app, surface)
            digits(app, PIN)  # the right PIN, but locked
            app.handle(key(pygame.K_RETURN))
            assert isinstance(app.scene, OperatorScene) and app.scene.page == "pin"
            # Esc leaves; Ctrl+O comes back: the lockout outlives the menu.
            app.handle(key(pygame.K_ESCAPE))
            assert isinstance(app.scene, IdleScene)
            app.handle(key(pygame.K_o, pygame.KMOD_LCTRL))
            assert "Locked: try again in 30 s" in drawn(app, surface)

            # Once the lockout is over, the PIN thrown at the board: 2, 4, 6, 8, bull.
            clock.now += LOCKOUT_SECONDS
            for segment in ("S2", "D4", "T6", "S8", "SB"):
                event = {"type": "hit", "segment": segment, "scored": False, "reason": "no game"}
                app.scene.process_event(pygame.event.Event(MQTT_EVENT, payload=event))
            assert app.scene.page == "menu"
            text = await shown(app, surface, "Operator account: connected as anonymous")
            assert "1  Prices and free play" in text
            assert not any(PIN in line for line in text)

            # Prices: two up, Enter: set_price 3; the daemon accepts.
            app.handle(key(pygame.K_1))
            text = drawn(app, surface)
            assert "Free play: off" in text and "Price: 1 credit(s) per player" in text
            app.handle(key(pygame.K_UP))
            app.handle(key(pygame.K_PLUS))
            assert "Price: 3 credit(s) per player  (Enter to set)" in drawn(app, surface)
            app.handle(key(pygame.K_RETURN))
            sent = await watcher.wait_for("operator/cmd", lambda p: p["command"] == "set_price")
            check_operator_command(sent)
            assert sent["price"] == 3 and sent["id"].startswith("operator-")
            assert "game" not in sent
            assert "set_price: sent, waiting for the daemon" in drawn(app, surface)
            await daemon.publish(
                "oche/board1/operator/cmd/response",
                json.dumps({"id": sent["id"], "ok": True, "error": None}),
                qos=1,
            )
            await shown(app, surface, "set_price: done")
            await daemon.publish(
                "oche/board1/state", json.dumps(idle_state(price=3)), qos=1, retain=True
            )
            await shown(app, surface, "Price: 3 credit(s) per player")
            # A price for one game: G picks it (every game, then each game in turn).
            assert "Price for: every game" in drawn(app, surface)
            app.handle(key(pygame.K_g))
            game = app.scene.price_game
            assert game is not None
            assert f"Price for: {game_name(game)}" in drawn(app, surface)
            app.handle(key(pygame.K_DOWN))
            app.handle(key(pygame.K_RETURN))
            sent = await watcher.wait_for("operator/cmd", lambda p: p.get("game") == game)
            check_operator_command(sent)
            assert sent["command"] == "set_price" and sent["price"] == 2

            # Free play on: the daemon refuses (someone else's answer is ignored).
            app.handle(key(pygame.K_f))
            sent = await watcher.wait_for("operator/cmd", lambda p: p["command"] == "set_free_play")
            check_operator_command(sent)
            assert sent["on"] is True
            for answer in (
                {"id": "tablet-1", "ok": False, "error": "someone else's"},
                {"id": sent["id"], "ok": False, "error": "free play is locked by the venue"},
            ):
                await daemon.publish("oche/board1/operator/cmd/response", json.dumps(answer), qos=1)
            text = await shown(
                app, surface, "set_free_play refused: free play is locked by the venue"
            )
            assert not any("someone else's" in line for line in text)
            await daemon.publish(
                "oche/board1/state", json.dumps(idle_state(True, 3)), qos=1, retain=True
            )
            await shown(app, surface, "Free play: on")
            app.handle(key(pygame.K_SPACE))
            sent = await watcher.wait_for(
                "operator/cmd", lambda p: p["command"] == "set_free_play" and p["on"] is False
            )

            # Books: nothing yet, then the retained snapshot; a reset asks first.
            app.handle(key(pygame.K_ESCAPE))
            app.handle(key(pygame.K_2))
            assert "No books yet: waiting for the daemon's snapshot" in drawn(app, surface)
            await daemon.publish("oche/board1/books", json.dumps(BOOKS), qos=1, retain=True)
            text = await shown(app, surface, "Coins: 6")
            assert {"Customer books (resettable)", "Security books (lifetime)"} <= set(text)
            assert {
                "  input 1: 5 coins, 5 credits",
                "  input 2: 1 coins, 2 credits",
                "Credits in: 7",
                "Credits spent: 6",
                "Games played: 3  ·  play time 0:30",
                "  X01: 3",
                "Since the start",  # the security books
                "Coins: 120",
                "  coin 120  ·  remote 4  ·  happy-hour 0  ·  free-play 0",
                "Games played: 50  ·  play time 10:00",
            } <= set(text)
            app.handle(key(pygame.K_r))
            assert "Reset the customer books?" in drawn(app, surface)
            app.handle(key(pygame.K_n))  # kept
            assert "Coins: 6" in drawn(app, surface)
            app.handle(key(pygame.K_r))
            app.handle(key(pygame.K_RETURN))
            sent = await watcher.wait_for("operator/cmd", lambda p: p["command"] == "reset_books")
            check_operator_command(sent)
            resets = [p for p in watcher.of("operator/cmd") if p["command"] == "reset_books"]
            assert len(resets) == 1  # the first R, answered N, sent nothing

            # Volume: the display's own.
            app.handle(key(pygame.K_ESCAPE))
            app.handle(key(pygame.K_5))
            assert "Volume: 80%" in drawn(app, surface)
            app.handle(key(pygame.K_UP))
            assert "Volume: 90%" in drawn(app, surface) and sound.volume == pytest.approx(0.9)
            app.handle(key(pygame.K_MINUS))
            app.handle(key(pygame.K_MINUS))
            assert "Volume: 70%" in drawn(app, surface)
            app.handle(key(pygame.K_m))
            assert "Volume: 70% (muted)" in drawn(app, surface) and sound.muted

            # Esc twice: out, and the operator's connection is closed.
            scene = app.scene
            app.handle(key(pygame.K_ESCAPE))
            app.handle(key(pygame.K_ESCAPE))
            assert isinstance(app.scene, IdleScene) and scene.link is None
            commands = [p["command"] for p in watcher.of("operator/cmd")]
            assert commands == [
                "set_price",
                "set_price",
                "set_free_play",
                "set_free_play",
                "reset_books",
            ]
            assert watcher.of("cmd") == []  # nothing on the players' topic


def test_the_key_needs_a_pin_hash_and_no_game() -> None:
    from tests.display.test_scenes import FakeFeed, x01_state

    surface = pygame.Surface(SIZE)
    feed = FakeFeed(idle_state())
    app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
    drawn(app, surface)
    app.handle(key(pygame.K_F12))
    assert isinstance(app.scene, IdleScene)
    assert "No operator PIN is set: use the operator button" in drawn(app, surface)
    feed.show(x01_state())
    app = DisplayApp(feed, SIZE, operator=OperatorAccess(pin_hash=PIN_HASH))  # type: ignore[arg-type]
    drawn(app, surface)
    app.handle(key(pygame.K_F12))
    assert isinstance(app.scene, X01Scene)
    assert "The operator menu opens only while no game runs" in drawn(app, surface)


# ------------------------------------ board and button tests, the real daemon


def operator_map(path: Path) -> None:
    """The test board's map with an operator and a GAME button too."""
    cells = {divmod(i, COLS): bed for i, bed in enumerate(BEDS)}
    rows = (len(BEDS) + COLS - 1) // COLS
    buttons = {0: "next", 1: "undo", 2: "miss", 3: "operator", 4: "game"}
    dump_map(MatrixMap("test board", rows, COLS, cells, buttons), path)


async def test_board_and_button_tests_on_the_real_daemon(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """The operator button opens the menu; darts thrown at the idle board
    light their beds and leave the list of those never hit, and score
    nothing; the buttons show; a game started closes the menu."""
    running = Running(tmp_path, mosquitto)
    operator_map(Path(running.config.board.map))
    running.daemon = Daemon(running.config)
    surface = pygame.Surface(SIZE)
    async with running:
        board = running.board
        await watcher.state_where(lambda s: s["board"]["connected"])
        with StateFeed(mosquitto.url, "board1", "oche") as feed:
            assert await asyncio.to_thread(feed.wait_for_state, 5.0) is not None
            app = DisplayApp(feed, SIZE)
            await press(board, 3)
            await shown(app, surface, lambda _: isinstance(app.scene, OperatorScene))
            scene = app.scene
            assert isinstance(scene, OperatorScene) and scene.page == "menu"
            await shown(app, surface, "Operator account: connected as anonymous")

            # Board test, from a dart at 3 on the menu page.
            await throw(board, "S3")
            await shown(app, surface, "Hit: 0 of 62 beds")
            assert f"Never hit ({len(ALL_BEDS)}):" in drawn(app, surface)
            await throw(board, "S20", "T20", "DB", "T20")
            text = await shown(app, surface, "Hit: 3 of 62 beds")
            assert "Never hit (59):" in text
            listed = " ".join(text).split()
            assert "T20" not in listed and "S20" not in listed and "DB" not in listed
            assert {"D20", "SB", "T19", "S1"} <= set(listed)
            layout = Layout(*SIZE)
            app.scene.draw(surface, layout)
            rect = _board_rect(layout)
            for lit in ("T20", "DB"):
                centre = bed_centre(rect, lit)
                assert centre is not None
                assert _near(surface.get_at(centre)[:3], LIT), lit
            centre = bed_centre(rect, "T1")
            assert centre is not None and not _near(surface.get_at(centre)[:3], LIT)

            def hits() -> list[dict[str, Any]]:
                return [h for h in watcher.of("event") if h.get("type") == "hit"]

            await until(lambda: len(hits()) >= 5)  # the watcher is a client of its own
            assert len(hits()) == 5 and all(h["reason"] == "no game" for h in hits())
            assert watcher.of("state")[-1]["phase"] == "idle"
            app.handle(key(pygame.K_r))
            assert "Hit: 0 of 62 beds" in drawn(app, surface)

            # Button test: each button shows; GAME opens no setup here.
            app.handle(key(pygame.K_ESCAPE))
            app.handle(key(pygame.K_4))
            assert "Press each button on the board" in drawn(app, surface)
            for button in (0, 1, 4, 0):
                await press(board, button)
            text = await shown(app, surface, "NEXT  x2")
            assert {"Pressed: NEXT", "UNDO  x1", "GAME  x1"} <= set(text)
            assert app.scene is scene

            # The operator button goes back, then out.
            await press(board, 3)
            await shown(app, surface, lambda _: scene.page == "menu")
            await press(board, 3)
            await shown(app, surface, lambda _: isinstance(app.scene, IdleScene))
            assert scene.link is None

            # In again, and a game starts (another client): the menu closes.
            await press(board, 3)
            await shown(app, surface, lambda _: isinstance(app.scene, OperatorScene))
            started = await watcher.command(
                {"command": "new_game", "game": "x01", "players": ["A"]}
            )
            assert started["ok"], started
            text = await shown(app, surface, "Operator menu closed: a game started")
            assert isinstance(app.scene, X01Scene)
            await press(board, 3)
            await shown(app, surface, "The operator menu opens only while no game runs")
            assert isinstance(app.scene, X01Scene)


def _board_rect(layout: Layout) -> pygame.Rect:
    body = layout.rect(0.03, 0.11, 0.94, 0.72)
    width = (body.width - layout.px(24)) // 2
    return pygame.Rect(body.x, body.y, min(width, body.height), body.height)


def _near(colour: tuple[int, ...], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 60 for a, b in zip(colour, wanted, strict=True))


# --------------------------------------------- the broker's word, with an ACL

ACL = """
user op
topic write oche/board1/operator/cmd
topic read oche/board1/operator/cmd/response
topic read oche/board1/books

user display1
topic read oche/board1/state
topic read oche/board1/event
topic read oche/board1/availability
topic read oche/board1/cmd/response
topic write oche/board1/cmd

user board1
topic readwrite oche/board1/#
"""


@pytest.fixture
def acl_broker(tmp_path: Path) -> Any:
    passwd = tmp_path / "passwd"
    for index, account in enumerate(("op", "display1", "board1")):
        subprocess.run(
            ["mosquitto_passwd", *(["-c"] if index == 0 else []), "-b", str(passwd), account,
             f"{account}-secret"],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
    acl = tmp_path / "acl"
    acl.write_text(ACL, "utf-8")
    broker = MosquittoBroker(tmp_path / "mosquitto", f"password_file {passwd}\nacl_file {acl}")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def wait_until(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        assert time.monotonic() < deadline, "never happened"
        await asyncio.sleep(0.02)


async def test_rights_and_a_broker_away_show_clearly(acl_broker: MosquittoBroker) -> None:
    """The operator account's commands reach the daemon and it reads the
    books; the display's account is not let through, and says so; a wrong
    password and a broker that is not there say so too."""
    async with aiomqtt.Client(
        acl_broker.host, acl_broker.port, username="board1", password="board1-secret"
    ) as daemon:
        await daemon.subscribe("oche/board1/operator/cmd", qos=1)
        await daemon.publish("oche/board1/books", json.dumps(BOOKS), qos=1, retain=True)

        operator = OperatorLink(
            acl_broker.url, username="op", password="op-secret", answer_timeout=TIMEOUT
        ).start()
        display = OperatorLink(
            acl_broker.url, username="display1", password="display1-secret", answer_timeout=0.3
        ).start()
        wrong = OperatorLink(acl_broker.url, username="op", password="guess").start()
        away = OperatorLink(f"mqtt://127.0.0.1:{free_port()}").start()
        try:
            await wait_until(lambda: operator.connected and display.connected)
            await wait_until(lambda: operator.books == BOOKS)

            # The display's account: connected, but its command never arrives.
            assert display.send({"command": "add_credits", "count": 2, "reason": "test"})
            await wait_until(lambda: bool(display.has_answers()))
            [answer] = display.answers()
            assert answer.command == "add_credits" and not answer.ok
            assert answer.error == (
                "no answer in 0.3 s: the daemon is away, "
                "or the account display1 may not send operator commands"
            )
            # The operator's: it does, and the answer comes back.
            assert operator.send({"command": "reset_books"})
            message = await asyncio.wait_for(anext(daemon.messages), TIMEOUT)
            command = json.loads(bytes(message.payload))
            assert command["command"] == "reset_books"  # the first that got through
            await daemon.publish(
                "oche/board1/operator/cmd/response",
                json.dumps({"id": command["id"], "ok": True, "error": None}),
                qos=1,
            )
            await wait_until(lambda: bool(operator.has_answers()))
            assert [(a.command, a.ok) for a in operator.answers()] == [("reset_books", True)]
            assert display.books is None  # it may not read them

            port = acl_broker.port
            await wait_until(lambda: wrong.status.startswith("no rights"))
            assert wrong.status == (
                f"no rights: the broker at 127.0.0.1:{port} refused the account op "
                "(check [operator] username and password_file)"
            )
            assert not wrong.send({"command": "reset_books"})
            await wait_until(lambda: away.status.startswith("broker away"))
            assert away.status.startswith(f"broker away: cannot reach {away.address.host}:")

            # The scene shows the account's state and a command's fate.
            scene = OperatorScene(link_factory=lambda: display)
            scene.set_state(idle_state())
            scene.page = "prices"
            scene.process_event(key(pygame.K_f))
            await wait_until(lambda: bool(display.has_answers()))
            scene.update(0.0)
            layout = Layout(*SIZE)
            scene.draw(pygame.Surface(SIZE), layout)
            text = [t for t, _ in layout.drawn_text]
            assert "Operator account: connected as display1" in text
            assert any(t.startswith("set_free_play refused: no answer in 0.3 s") for t in text)
            scene.link = wrong
            scene.update(0.0)
            layout = Layout(*SIZE)
            scene.draw(pygame.Surface(SIZE), layout)
            assert f"Operator account: {wrong.status}" in [t for t, _ in layout.drawn_text]
        finally:
            for link in (operator, display, wrong, away):
                link.close()


def test_books_of_another_shape_show_as_they_are() -> None:
    assert books_lines({"coins": {"1": 5}, "note": ["a", "b"]}) == ["coins.1: 5", "note: a, b"]
    assert books_lines(None) == []
    assert books_lines(BOOKS["customer"])[1:3] == ["Coins: 6", "  input 1: 5 coins, 5 credits"]
