"""The installable web app in a real chromium (Playwright) on a 390x844
phone: chromium finds the app installable (its own check, over the DevTools
protocol, in a profile on disk: a private window never installs), and once
the service worker holds a page, the service going away shows the offline
page saying "Reconnecting", which loads the page by itself when the service
is back on the same address."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.browser import chromium_browser, chromium_path, watched_page
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.web_seed import VENUES, seed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

PHONE = {"width": 390, "height": 844}
WORKER_WITHIN_MS = 15_000
BACK_WITHIN_MS = 30_000
"""The offline page tries after 2 s, then 4 s, 8 s...: back well within this."""


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    db.migrate()
    seed(db, games=2)
    yield db
    db.dispose()


@pytest.fixture
def server(database: Database) -> Iterator[AppServer]:
    running = AppServer(create_app(database, LiveHub(), VENUES))
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


def wait_for_the_worker(page: Page) -> None:
    """Until the service worker controls ``page`` (it claims open pages once active)."""
    page.wait_for_function(
        "() => navigator.serviceWorker.controller !== null", timeout=WORKER_WITHIN_MS
    )


def test_chromium_finds_the_app_installable(server: AppServer, tmp_path: Path) -> None:
    executable = chromium_path()
    assert executable is not None
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=executable,
            headless=True,
            args=["--no-sandbox"],
            viewport=PHONE,
        )
        try:
            page = context.new_page()
            page.goto(f"{server.url}/players/Ann")
            wait_for_the_worker(page)
            devtools = context.new_cdp_session(page)
            manifest = devtools.send("Page.getAppManifest")
            assert manifest["url"] == f"{server.url}/manifest.webmanifest"
            assert manifest["errors"] == []
            assert devtools.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        finally:
            context.close()


def test_a_page_says_reconnecting_while_the_service_is_away_and_comes_back_by_itself(
    browser: Browser, database: Database, server: AppServer
) -> None:
    with watched_page(browser, PHONE["width"], PHONE["height"]) as watched:
        page = watched.page
        page.goto(f"{server.url}/players/Ann")
        expect(page.locator("h1.player-name")).to_have_text("Ann")
        wait_for_the_worker(page)
        server.stop()

        page.reload()
        expect(page.locator("h1")).to_have_text("Reconnecting")
        expect(page.locator("#retry-status")).to_contain_text("Reconnecting")
        assert page.url == f"{server.url}/players/Ann"  # the shell stands in for the page
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
        expect(page.locator("#retry-status")).to_contain_text("next try in")

        back = AppServer(create_app(database, LiveHub(), VENUES), port=server.port)
        back.start()
        try:
            expect(page.locator("h1.player-name")).to_have_text("Ann", timeout=BACK_WITHIN_MS)
        finally:
            back.stop()
        # While away, chromium logs each refused try; nothing else went wrong.
        others = [error for error in watched.errors if "net::ERR_CONNECTION_REFUSED" not in error]
        assert others == []
