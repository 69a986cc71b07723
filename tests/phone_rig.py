"""A board, its venue's web service and a browser together, for the phone
and tablet tests and screenshots (docs/phone.md): a real daemon on a fake
pty board (darts go in as a real board's frames), ``run_service`` (its web
pages, board API and command relay on uvicorn, a real SQLite file) and
Debian's chromium, all on one Mosquitto. :class:`BoardPage` is the board page
as a user works it: every selector the tests rely on lives there, so the
page's markup is named in one place."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import (
    Browser,
    ConsoleMessage,
    Locator,
    Page,
    Request,
    async_playwright,
    expect,
)

from leaderboard.database import Database
from leaderboard.service import ServiceSettings
from leaderboard.venues import VenueMap
from tests.browser import chromium_path
from tests.daemon_harness import TIMEOUT, Running, Watcher, throw, until
from tests.leaderboard.test_service import service
from tests.mosquitto_broker import MosquittoBroker, free_port

__all__ = [
    "BOARD",
    "DESKTOP",
    "PHONE",
    "TABLET",
    "TIMEOUT_MS",
    "VENUE",
    "BoardPage",
    "PhoneRig",
    "game_of",
    "phone_rig",
    "scores",
]

BOARD = "board1"
VENUE = "The Crown"
PHONE = (390, 844)
TABLET = (820, 1180)
DESKTOP = (1920, 1080)
TIMEOUT_MS = TIMEOUT * 1000
"""Playwright's waits, as generous as the daemon tests' (a busy 2-core box)."""


def game_of(state: dict[str, Any]) -> dict[str, Any]:
    """The game's own part of a state (what a control changes)."""
    keep = ("game", "options", "players", "current_player", "round", "visit", "phase", "finished")
    return {key: state.get(key) for key in keep}


def scores(state: dict[str, Any]) -> list[int]:
    """Each player's X01 score in ``state``, in seat order."""
    return [int(player["score"]) for player in state["players"]]


@dataclass
class BoardPage:
    """``/boards/board1`` in a browser context of its own (one phone or
    tablet), with the console errors and page errors it logged."""

    page: Page
    width: int
    touch: bool
    errors: list[str] = field(default_factory=list)
    fetched: list[Request] = field(default_factory=list)
    """Every request the page finished (its HTML, styles, scripts, icons...)."""

    # ---------------------------------------------------------- what it shows

    def dart(self, number: int) -> Locator:
        """Dart ``number`` (from 1) of the visit on the board, a button."""
        return self.page.locator(f'button.dart[data-dart="{number}"]')

    def darts(self) -> Locator:
        return self.page.locator("button.dart[data-dart]")

    def bed(self, notation: str) -> Locator:
        """The drawn dartboard's bed ``notation`` (``T19``)."""
        return self.page.locator(f'[data-bed="{notation}"]')

    def status(self) -> Locator:
        """The aria-live status line where the page says what the board answered."""
        return self.page.locator("#status")

    def scoreboard(self) -> Locator:
        return self.page.locator("#scoreboard")

    def button(self, name: str) -> Locator:
        """A control by its accessible name (``Next``, ``Undo``...)."""
        return self.page.get_by_role("button", name=re.compile(rf"^\s*{name}\s*$", re.I))

    def unexpected_errors(self) -> list[str]:
        """The errors logged, but for chromium's note of each control the
        service refused (a 401/403 answer to ``/command``): refusing an
        unpaired device is what the page is for, and chromium logs every
        4xx response."""
        refusal = re.compile(r"status of 40[13] .*/api/boards/[^/]+/command'")
        return [error for error in self.errors if not refusal.search(error)]

    async def overflow(self) -> int:
        """How far the page is wider than the viewport (0 when it fits)."""
        width: int = await self.page.evaluate("document.documentElement.scrollWidth")
        return max(0, width - self.width)

    async def weight(self) -> int:
        """Bytes the page fetched to show itself (its live stream left out)."""
        total = 0
        for request in self.fetched:
            response = await request.response()
            kind = "" if response is None else response.headers.get("content-type", "")
            if "event-stream" not in kind:
                total += (await request.sizes())["responseBodySize"]
        return total

    async def shows_scores(self, *expected: int) -> None:
        """Wait until the scoreboard shows every score in ``expected``."""
        for score in expected:
            await expect(self.scoreboard()).to_contain_text(str(score), timeout=TIMEOUT_MS)

    async def shows_visit(self, *darts: str) -> None:
        """Wait until the visit's dart buttons read ``darts``, in order."""
        await expect(self.darts()).to_have_text(list(darts), timeout=TIMEOUT_MS)

    # ---------------------------------------------------------- what a user does

    async def open(self, url: str) -> None:
        await self.page.goto(url)
        await expect(self.scoreboard()).to_be_visible(timeout=TIMEOUT_MS)

    async def pair_with_code(self, code: str, name: str) -> None:
        """Open "Pair this device", type the board's code and a name, pair."""
        await self.button("Pair this device").click()
        dialog = self.page.get_by_role("dialog")
        await dialog.get_by_label(re.compile("code", re.I)).fill(code)
        await dialog.get_by_label(re.compile("name", re.I)).fill(name)
        await dialog.get_by_role("button", name=re.compile(r"^\s*pair\s*$", re.I)).click()
        await self.paired()

    async def paired(self) -> None:
        """Wait until the page says this device is paired (it offers to unpair)."""
        await expect(self.button("Unpair this device")).to_be_visible(timeout=TIMEOUT_MS)

    async def press(self, name: str) -> None:
        await self.button(name).click()

    async def tap(self, target: Locator) -> None:
        """A finger's tap on a phone, a click elsewhere."""
        if self.touch:
            await target.tap()
        else:
            await target.click()

    async def tap_bed(self, notation: str) -> None:
        """Tap the middle of bed ``notation`` on the drawn board (its
        ``data-x``/``data-y`` centre in screen pixels): the bed under the
        finger there must be that bed, as a user aims at it."""
        bed = self.bed(notation)
        await expect(bed).to_have_count(1)
        await bed.scroll_into_view_if_needed()
        point = await bed.evaluate(
            """bed => {
                const svg = bed.ownerSVGElement;
                const p = svg.createSVGPoint();
                p.x = Number(bed.dataset.x); p.y = Number(bed.dataset.y);
                const screen = p.matrixTransform(bed.getScreenCTM());
                const hit = document.elementFromPoint(screen.x, screen.y);
                const under = hit && hit.closest('[data-bed]');
                return {x: screen.x, y: screen.y, under: under ? under.dataset.bed : null};
            }"""
        )
        assert point["under"] == notation, f"tapping {notation} hits {point['under']}"
        if self.touch:
            await self.page.touchscreen.tap(point["x"], point["y"])
        else:
            await self.page.mouse.click(point["x"], point["y"])

    async def correct(self, dart: int, notation: str) -> None:
        """Tap dart ``dart`` of the visit, then the bed it really hit."""
        await self.tap(self.dart(dart))
        await self.tap_bed(notation)

    async def set_up_x01(self, start: int, *guests: str) -> None:
        """The Set-up panel: X01 from ``start``, ``guests`` by typed name, Start."""
        panel = self.page.locator("#setup")
        if await panel.get_attribute("open") is None:
            await self.tap(panel.locator("summary"))
        await panel.get_by_label("Game", exact=True).select_option("x01")
        start_field = panel.get_by_label("start", exact=True)
        if await start_field.evaluate("e => e.tagName") == "SELECT":
            await start_field.select_option(str(start))
        else:
            await start_field.fill(str(start))
        guest = panel.get_by_label("Guest", exact=True)
        for name in guests:
            await guest.fill(name)
            row = guest.locator("xpath=..")  # the guest row: its field and its Add
            await self.tap(row.get_by_role("button", name="Add", exact=True))
            await expect(panel.locator("#setup-players")).to_contain_text(name)
        await self.tap(panel.get_by_role("button", name="Start", exact=True))


@dataclass
class PhoneRig:
    """The running parts: ``watcher`` records every message of board1."""

    broker: MosquittoBroker
    watcher: Watcher
    board: Running
    web_url: str
    browser: Browser

    @property
    def board_url(self) -> str:
        return f"{self.web_url}/boards/{BOARD}"

    async def pairing(self, holds: Callable[[dict[str, Any]], bool] = lambda p: True) -> Any:
        """The board's latest retained ``pairing`` message (what its display
        shows), once that message ``holds``."""

        def latest() -> Any:
            found = [p for p in self.watcher.of("pairing") if isinstance(p, dict)]
            return found[-1] if found else None

        await until(lambda: latest() is not None and holds(latest()))
        return latest()

    async def state_where(self, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The board's latest state once it ``holds``; failing, says what the
        state was instead."""
        try:
            return await self.watcher.state_where(holds)
        except TimeoutError:
            states = self.watcher.of("state")
            last = game_of(states[-1]) if states else None
            raise AssertionError(f"the board's state never changed so; it is {last}") from None

    def commands(self) -> list[Any]:
        """Every command sent to the board so far (``cmd``), relayed ones included."""
        return self.watcher.of("cmd")

    async def throw(self, *darts: str) -> None:
        """Darts on the board, as its sensor matrix reports them."""
        await throw(self.board.board, *darts)

    @contextlib.asynccontextmanager
    async def page(self, size: tuple[int, int]) -> AsyncIterator[BoardPage]:
        """The board page on a fresh device (its own storage: not paired) of
        ``size``; a phone-sized one is a touch screen."""
        touch = size[0] < 1024
        context = await self.browser.new_context(
            viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
        )
        page = await context.new_page()
        board_page = BoardPage(page, size[0], touch)

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                board_page.errors.append(f"console: {message.text} ({message.location})")

        page.on("console", on_console)
        page.on("pageerror", lambda error: board_page.errors.append(f"page error: {error}"))
        page.on("requestfinished", lambda request: board_page.fetched.append(request))
        try:
            await board_page.open(self.board_url)
            await page.wait_for_load_state("networkidle")
            yield board_page
        finally:
            await context.close()


async def service_hears_board(web_url: str) -> None:
    """Wait until the service has board1's state (its board API knows it)."""
    async with httpx.AsyncClient() as http:
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = await http.get(f"{web_url}/api/boards/{BOARD}")
            if answer.status_code == 200 and answer.json().get("state"):
                return
            assert time.monotonic() < deadline, f"the service never heard {BOARD}: {answer.text}"
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def phone_rig(tmp_path: Path, broker: MosquittoBroker) -> AsyncIterator[PhoneRig]:
    """Every part running, the board connected and heard by the service."""
    db_url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(db_url)
    database.migrate()
    database.dispose()
    settings = ServiceSettings(
        db_url=db_url,
        mqtt_url=broker.url,
        http_port=free_port(),
        venues=VenueMap(boards={BOARD: VENUE}),
        client_id="lb-phone-e2e",
    )
    web_url = f"http://{settings.http_host}:{settings.http_port}"
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("chromium is not installed: make chromium")
    async with (
        Watcher(broker.host, broker.port) as watcher,
        service(settings),
        Running(tmp_path, broker, [f'lobby.web_url="{web_url}"']) as board,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox"]
        )
        try:
            await watcher.state_where(lambda s: s["board"]["connected"])
            await service_hears_board(web_url)
            yield PhoneRig(broker, watcher, board, web_url, browser)
        finally:
            await browser.close()
