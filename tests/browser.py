"""Playwright (sync API) driving Debian's chromium, for the page tests: no
browser download, ``executable_path`` points at the system's chromium. Each
page records its console errors and uncaught page errors, so a test can
assert a page logged none."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

__all__ = ["CHROMIUM", "WatchedPage", "chromium_browser", "chromium_path", "watched_page"]

CHROMIUM = "/usr/bin/chromium"
"""Debian's chromium (`apt-get install chromium`; `make unit` installs it when missing)."""


def chromium_path() -> str | None:
    """The system chromium, or None when it is not installed."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def chromium_browser() -> Iterator[Browser]:
    """A headless chromium for the duration of the block."""
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("chromium is not installed: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox"]
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class WatchedPage:
    """A page and what went wrong on it: console errors and uncaught exceptions."""

    page: Page
    errors: list[str] = field(default_factory=list)


@contextmanager
def watched_page(
    browser: Browser,
    width: int = 1280,
    height: int = 720,
    credentials: tuple[str, str] | None = None,
) -> Iterator[WatchedPage]:
    """A fresh page (own context) that records every console error and page
    error; with ``credentials`` (user, password) it answers HTTP Basic."""
    login = (
        None if credentials is None else {"username": credentials[0], "password": credentials[1]}
    )
    context = browser.new_context(
        viewport={"width": width, "height": height}, http_credentials=login
    )
    page = context.new_page()
    watched = WatchedPage(page)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watched.errors.append(f"console: {message.text} ({message.location})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: watched.errors.append(f"page error: {error}"))
    try:
        yield watched
    finally:
        context.close()
