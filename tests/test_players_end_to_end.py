"""Issue #23 end to end, with the real parts together on one Mosquitto: the
daemon (its lobby extension, fed card taps through its board input path),
the leaderboard service (``run_service``: the roster publisher, the ingest,
the phone's join page on uvicorn, a real SQLite file), ``oche players`` and
``oche leaderboard show`` run in-process, and, for the phone, a real
chromium at 390x844. A card's UID is on no topic, in no log line, and in
neither the leaderboard's file nor the board's journal."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import pytest
from playwright.async_api import Browser, async_playwright, expect

from firmware_bridge.cli.main import main
from leaderboard.database import Database
from leaderboard.service import ServiceSettings
from leaderboard.venues import VenueMap
from leaderboard.web.join_checks import EXPIRED_CODE
from tests.browser import chromium_path
from tests.daemon.test_lobby import Board, connected, lobby, names, ok, win
from tests.daemon_harness import TIMEOUT, Watcher
from tests.leaderboard.test_service import service
from tests.mosquitto_broker import MosquittoBroker, free_port

pytestmark = pytest.mark.slow

SECRET = "the-crowns-card-secret-0123"
VENUE = "The Crown"
ANN_CARD = "04A21B3F"
STRANGER_CARD = "0499887766554433"
PHONE = (390, 844)


def uid_forms(uid: str) -> set[str]:
    """The ways a UID could leak: as typed, lower case, colon-separated."""
    pairs = [uid[i : i + 2] for i in range(0, len(uid), 2)]
    return {uid, uid.lower(), ":".join(pairs), ":".join(pairs).lower()}


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user config; the venue secret in the environment, as the bar's
    machine would have it for ``oche players``."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("OCHE_CARD_SECRET", SECRET)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A migrated leaderboard SQLite file of this test's own."""
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(url)
    database.migrate()
    database.dispose()
    return url


def oche(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``oche ARGS`` in-process: it exits 0; what it printed. The root
    logger's handlers are put back after (``main()`` sets up its own, which
    would drop caplog's and blind the test's log check)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        status = main(list(args))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def settings_for(db_url: str, broker: MosquittoBroker) -> ServiceSettings:
    return ServiceSettings(
        db_url=db_url,
        mqtt_url=broker.url,
        http_port=free_port(),
        venues=VenueMap(boards={"board1": VENUE}),
        client_id="lb-players-e2e",
    )


class Everything:
    """Every message on the broker (``#``), as raw bytes."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.broker = broker
        self.payloads: list[tuple[str, bytes]] = []
        self.ready = asyncio.Event()

    async def run(self) -> None:
        async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
            await client.subscribe("#", qos=1)
            self.ready.set()
            async for message in client.messages:
                raw = message.payload
                data = raw if isinstance(raw, bytes) else str(raw).encode()
                self.payloads.append((str(message.topic), data))


@contextlib.asynccontextmanager
async def everything(broker: MosquittoBroker) -> AsyncIterator[Everything]:
    recorder = Everything(broker)
    task = asyncio.create_task(recorder.run())
    await asyncio.wait_for(recorder.ready.wait(), TIMEOUT)
    try:
        yield recorder
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def table(capsys: pytest.CaptureFixture[str], db_url: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(
        oche(capsys, "leaderboard", "show", "--game", "x01", "--json", "--db", db_url)
    )
    return rows


async def until_table(
    capsys: pytest.CaptureFixture[str],
    db_url: str,
    holds: Callable[[list[dict[str, Any]]], bool],
) -> list[dict[str, Any]]:
    """The x01 table once ``holds(rows)``; fails after TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while not holds(rows := table(capsys, db_url)):
        assert time.monotonic() < deadline, f"the table never changed: {rows}"
        await asyncio.sleep(0.2)
    return rows


def roster_names(watcher: Watcher) -> set[str]:
    """The names in the latest roster the board was sent."""
    rosters = [r for r in watcher.of("roster") if isinstance(r, dict)]
    return {player["name"] for player in rosters[-1]["players"]} if rosters else set()


def roster_id(watcher: Watcher, name: str) -> int:
    rosters = [r for r in watcher.of("roster") if isinstance(r, dict)]
    found: int = next(p["id"] for p in rosters[-1]["players"] if p["name"] == name)
    return found


async def test_a_card_a_roster_id_and_a_guest_play_and_the_leaderboard_counts_the_card_s_player(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    db = ["--db", db_url, "--venue", VENUE]
    assert "added 'Ann'" in oche(capsys, "players", "add", "Ann", "--card", ANN_CARD, *db)
    assert "added 'Cy'" in oche(capsys, "players", "add", "Cy", *db)
    settings = settings_for(db_url, mosquitto)
    web_url = f"http://{settings.http_host}:{settings.http_port}"
    board = Board(tmp_path, mosquitto, [f'lobby.web_url="{web_url}"', f'cards.secret="{SECRET}"'])

    async with everything(mosquitto) as seen:
        async with service(settings):
            await board.start()
            try:
                await connected(watcher)
                # The service publishes the venue's roster; the board takes its copy.
                await watcher.state_where(lambda s: lobby(s)["roster"] is True)
                await watcher.wait_for("roster", lambda r: isinstance(r, dict))
                ann_id, cy_id = roster_id(watcher, "Ann"), roster_id(watcher, "Cy")

                board.taps.tap(ANN_CARD)  # Ann's card, on the board's reader
                await watcher.state_where(lambda s: names(s) == ["Ann"])
                await ok(watcher, {"command": "join", "player": {"name": "Bob"}})  # a guest
                await ok(watcher, {"command": "join", "player": {"id": cy_id}})
                state = await watcher.state_where(lambda s: names(s) == ["Ann", "Bob", "Cy"])
                assert [(p["player_id"], p["joined_by"]) for p in lobby(state)["players"]] == [
                    (ann_id, "card"),
                    (None, "name"),
                    (cy_id, "roster"),
                ]

                options = {"start": 301, "out": "straight"}
                await ok(watcher, {"command": "new_game", "game": "x01", "options": options})
                state = await watcher.state_where(lambda s: s["phase"] == "throwing")
                assert [p["name"] for p in state["players"]] == ["Ann", "Bob", "Cy"]
                result = await win(watcher, 3)
                assert [(p["name"], p["player_id"]) for p in result["players"]] == [
                    ("Ann", ann_id),
                    ("Bob", None),
                    ("Cy", cy_id),
                ]

                # The service stores it for Ann's id and sends the board its lines.
                rows = await until_table(
                    capsys, db_url, lambda rows: any(r["player_id"] == ann_id for r in rows)
                )
                ann = next(r for r in rows if r["player_id"] == ann_id)
                assert (ann["player"], ann["played"], ann["won"]) == ("Ann", 1, 1)
                lines = await watcher.wait_for("result/lines", lambda p: isinstance(p, dict))
                assert lines["result_id"] == result["result_id"]

                # Renamed, Anna keeps the game; the board's roster follows.
                oche(capsys, "players", "rename", "Ann", "Anna", *db)
                rows = table(capsys, db_url)
                anna = next(r for r in rows if r["player_id"] == ann_id)
                assert (anna["player"], anna["played"], anna["won"]) == ("Anna", 1, 1)
                assert "Ann" not in {r["player"] for r in rows}
                await watcher.wait_for(
                    "roster",
                    lambda r: isinstance(r, dict) and "Anna" in {p["name"] for p in r["players"]},
                )
            finally:
                await board.stop()

        # The service is down; the board restarts with its own copy of the roster.
        await board.start()
        try:
            await watcher.state_where(lambda s: "lobby" in s and s["board"]["connected"])
            board.taps.tap(ANN_CARD)
            state = await watcher.state_where(lambda s: names(s) == ["Anna"])
            assert lobby(state)["players"][0]["player_id"] == ann_id
            board.taps.tap(STRANGER_CARD)
            refusal = await watcher.wait_for(
                "event", lambda e: isinstance(e, dict) and e.get("type") == "card_refused"
            )
            assert refusal["reason"] == "unknown"
            assert names(watcher.of("state")[-1]) == ["Anna"]
        finally:
            await board.stop()

    published = b"".join(topic.encode() + payload for topic, payload in seen.payloads)
    assert b"oche/board1/roster" in published and b"oche/board1/result" in published
    journal = b"".join(path.read_bytes() for path in tmp_path.glob("journal.sqlite3*"))
    leaderboard_file = b"".join(path.read_bytes() for path in tmp_path.glob("leaderboard.sqlite3*"))
    assert journal and leaderboard_file
    assert "board1" in caplog.text  # the capture saw the daemon's lines
    for uid in (ANN_CARD, STRANGER_CARD):
        for form in uid_forms(uid):
            assert form.encode() not in published, form
            assert form not in caplog.text, form
            assert form.encode() not in journal, form
            assert form.encode() not in leaderboard_file, form


@contextlib.asynccontextmanager
async def phone_beside_board(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
) -> AsyncIterator[tuple[str, Board, Browser, dict[str, Any]]]:
    """Ann in the roster, the service, a board whose join page is the
    service's, and chromium: ``(web_url, board, browser, state)`` once the
    board's state has its venue's roster."""
    oche(capsys, "players", "add", "Ann", "--db", db_url, "--venue", VENUE)
    settings = settings_for(db_url, mosquitto)
    web_url = f"http://{settings.http_host}:{settings.http_port}"
    board = Board(tmp_path, mosquitto, [f'lobby.web_url="{web_url}"', f'cards.secret="{SECRET}"'])
    async with service(settings), async_playwright() as playwright:
        await board.start()
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=["--no-sandbox"]
        )
        try:
            state = await watcher.state_where(
                lambda s: "lobby" in s and s["board"]["connected"] and lobby(s)["roster"]
            )
            yield web_url, board, browser, state
        finally:
            await browser.close()
            await board.stop()


@pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed")
async def test_a_phone_joins_the_real_board_s_lobby_and_an_expired_code_is_refused(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with phone_beside_board(tmp_path, mosquitto, watcher, db_url, capsys) as (
        web_url,
        _board,
        browser,
        state,
    ):
        join_url, code = lobby(state)["join_url"], lobby(state)["join_code"]
        assert join_url == f"{web_url}/join/board1?code={code}"
        options_url = f"{web_url}/api/boards/board1/join-options"
        async with httpx.AsyncClient() as http:
            deadline = time.monotonic() + TIMEOUT
            while (await http.get(options_url, params={"code": code})).status_code != 200:
                assert time.monotonic() < deadline, "the service never heard the board"
                await asyncio.sleep(0.05)

        context = await browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(join_url)
        await expect(page.locator("h1")).to_contain_text("board1")
        await page.get_by_label("Ann").check()
        await page.locator("#join-button").click()
        state = await watcher.state_where(lambda s: names(s) == ["Ann"])
        assert lobby(state)["players"][0]["joined_by"] == "phone"
        await expect(page.locator("#outcome")).to_have_text("You're in: Ann on board board1")
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE[0]

        # A second phone opens the same link; a game starts; the code expired.
        late = await context.new_page()
        await late.goto(join_url)
        await late.locator("#new-name").fill("Zed")
        await ok(watcher, {"command": "new_game", "game": "x01"})
        state = await watcher.state_where(lambda s: s["phase"] == "throwing")
        assert lobby(state)["join_code"] != code
        async with httpx.AsyncClient() as http:
            deadline = time.monotonic() + TIMEOUT
            while (await http.get(options_url, params={"code": code})).status_code != 403:
                assert time.monotonic() < deadline, "the service kept the old code"
                await asyncio.sleep(0.05)
        await late.locator("#join-button").click()
        await expect(late.locator("#outcome")).to_have_text(EXPIRED_CODE)
        response = await late.goto(join_url)
        assert response is not None and response.status == 403
        await expect(late.locator("#refusal")).to_have_text(EXPIRED_CODE)
        joins = [
            e for e in watcher.of("event") if isinstance(e, dict) and e.get("type") == "joined"
        ]
        assert [e["player"]["name"] for e in joins] == ["Ann"]
        assert errors == []
        await context.close()


@pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed")
async def test_an_unknown_card_linked_from_a_phone_joins_with_its_next_tap(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with phone_beside_board(tmp_path, mosquitto, watcher, db_url, capsys) as (
        _,
        board,
        browser,
        state,
    ):
        board.taps.tap(STRANGER_CARD)
        state = await watcher.state_where(lambda s: lobby(s)["card_waiting"] is True)
        context = await browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
        page = await context.new_page()
        deadline = time.monotonic() + TIMEOUT
        while True:  # until the service has the state that says a card waits
            await page.goto(lobby(state)["join_url"])
            if await page.locator("#link-card").count() == 1:
                break
            assert time.monotonic() < deadline, "the page never offered the waiting card"
            await asyncio.sleep(0.1)
        await page.locator("#new-name").fill("Zed")
        await page.get_by_label("Link the card I just tapped").check()
        await page.locator("#join-button").click()
        state = await watcher.state_where(
            lambda s: names(s) == ["Zed"] and not lobby(s)["card_waiting"]
        )
        # A name new to the board's copy joins as a guest this game (its
        # games count for the new roster player by name); the card went to
        # the service, which stored it for the player it made.
        assert lobby(state)["players"][0]["joined_by"] == "phone"
        await expect(page.locator("#outcome")).to_contain_text("You're in: Zed on board board1")
        await context.close()
        listed = json.loads(oche(capsys, "players", "list", "--json", "--db", db_url))
        assert {(p["name"], p["cards"]) for p in listed} == {("Ann", 0), ("Zed", 1)}
        zed_id = next(p["id"] for p in listed if p["name"] == "Zed")

        # The service's next roster brings the card to the board's copy:
        # once Zed has left, his card's tap joins him with his roster id.
        await watcher.wait_for(
            "roster",
            lambda r: (
                isinstance(r, dict) and any(p["name"] == "Zed" and p["cards"] for p in r["players"])
            ),
        )
        await ok(watcher, {"command": "leave", "player": {"name": "Zed"}})
        await watcher.state_where(lambda s: names(s) == [])
        board.taps.tap(STRANGER_CARD)
        state = await watcher.state_where(lambda s: names(s) == ["Zed"])
        zed = lobby(state)["players"][0]
        assert (zed["joined_by"], zed["player_id"]) == ("card", zed_id)
