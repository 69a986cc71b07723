"""The README's leaderboard screenshots, taken by Playwright in Debian's
chromium against seeded data (results stored through ``ingest``) and two live
boards: ``python -m tests.leaderboard.screenshots [FOLDER]`` writes
``leaderboard-tv.png`` and ``leaderboard-player.png`` (default: docs/images)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.browser import chromium_browser, watched_page
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.web_seed import VENUES, seed, seed_history
from tests.paths import REPO

SCREENSHOT_LINEUPS = (
    ("Ann", "Cy"),
    ("Bob", "Dee"),
    ("Dee", "Eve"),
    ("Fay", "Gus"),
    ("Eve", "Fay"),
    ("Gus", "Cy"),
)
"""Today's games of the screenshots (the tests' markup name stays out of the README)."""

BOARD_STATE: dict[str, Any] = {
    "game": "x01",
    "phase": "throwing",
    "round": 4,
    "players": [{"name": "Ann", "score": 81}, {"name": "Bob", "score": 164}],
    "current_player": 0,
    "visit": ["T19"],
    "finished": False,
    "winner": None,
    "board": {"id": "pub", "name": "Pub board"},
}


def take(folder: Path) -> list[Path]:
    """Seed a fresh SQLite file, serve the app, and save both screenshots in ``folder``."""
    with tempfile.TemporaryDirectory() as scratch:
        database = Database(f"sqlite:///{Path(scratch) / 'leaderboard.sqlite3'}")
        database.migrate()
        seed_history(database)
        seed(database, games=16, lineups=SCREENSHOT_LINEUPS)
        hub = LiveHub()
        server = AppServer(create_app(database, hub, VENUES))
        server.start()
        try:
            server.call(lambda: hub.board_availability("pub", "The Crown", "online"))
            server.call(lambda: hub.board_state("pub", "The Crown", BOARD_STATE))
            with chromium_browser() as browser, watched_page(browser, 1280, 720) as watched:
                page = watched.page
                page.goto(f"{server.url}/?slide=table-x01&rotate=0")
                expect(page.locator("#connection")).to_have_text("live")
                tv = folder / "leaderboard-tv.png"
                page.screenshot(path=str(tv))
                page.set_viewport_size({"width": 1100, "height": 820})
                page.goto(f"{server.url}/players/Ann")
                expect(page.locator("svg.chart path.line").first).to_be_visible()
                player = folder / "leaderboard-player.png"
                page.screenshot(path=str(player))
                if watched.errors:
                    raise RuntimeError(f"the pages logged errors: {watched.errors}")
        finally:
            server.stop()
            database.dispose()
    return [tv, player]


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "images"
    for path in take(out):
        print(path)
