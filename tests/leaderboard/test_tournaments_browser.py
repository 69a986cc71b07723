"""The tournaments' pages in a real chromium (Playwright), served by uvicorn
over a real SQLite file: the TV's bracket slides, the tournament page and the
operator's pages fit a 390 px phone, a 1080p TV and a 4K TV without sticking
out sideways or a console error; the operator's form creates a tournament,
and a walkover button decides a match, through the admin password."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.store import ingest
from leaderboard.tournaments import NewTournament, create, show
from leaderboard.web.app import create_app
from tests.browser import chromium_browser, chromium_path, watched_page
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.test_accessibility_browser import LOW_CONTRAST, MINIMUM_CONTRAST, UNNAMED
from tests.leaderboard.test_small_screens import assert_fits
from tests.leaderboard.web_seed import ADMIN_PASSWORD, ADMIN_PASSWORD_HASH, VENUES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

SCREENS = {"phone": (390, 844), "tv": (1920, 1080), "4k": (3840, 2160)}
LONG = "Maximilian-Alexander"
"""A 20-character name with no space to break at."""
EIGHT = [LONG, "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]


@dataclass
class Served:
    url: str
    elimination: int
    round_robin: int


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = Path(tmp_path_factory.mktemp("tournaments"))
    database = Database(f"sqlite:///{folder / 'leaderboard.sqlite3'}")
    database.migrate()
    with database.write_session() as session:
        elimination = create(
            session,
            NewTournament("double-elimination", "x01", EIGHT, ["oche/pub"], 2, title="Friday Cup"),
            VENUES,
        )
        round_robin = create(
            session,
            NewTournament(
                "round-robin", "x01", EIGHT[:5], ["oche/corner"], 1, title="League night"
            ),
            VENUES,
        )
    with database.session() as session:
        first = next(m for m in show(session, elimination).matches if m.status == "queued")
    document = result_document(
        "x01", X01_MOVES, players=[str(name) for name in first.players], options={"start": 301}
    )
    document["call_id"] = first.call_id
    document["legs_won"] = [2, 1]
    ingest(database, as_payload(document), VENUES)
    app = create_app(database, LiveHub(), VENUES, admin_password_hash=ADMIN_PASSWORD_HASH)
    server = AppServer(app)
    server.start()
    try:
        yield Served(server.url, elimination, round_robin)
    finally:
        server.stop()
        database.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


def _paths(served: Served) -> list[str]:
    return [
        f"/?rotate=0&slide=tournament-{served.elimination}",
        f"/?rotate=0&slide=tournament-{served.round_robin}",
        f"/tournaments/{served.elimination}",
        f"/tournaments/{served.round_robin}",
        "/tournaments",
        "/admin/tournaments",
        f"/admin/tournaments/{served.elimination}",
    ]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_tournament_pages_fit_a_phone_a_tv_and_a_4k_tv(
    browser: Browser, served: Served, screen: str
) -> None:
    width, height = SCREENS[screen]
    with watched_page(browser, width, height, credentials=("admin", ADMIN_PASSWORD)) as watched:
        for path in _paths(served):
            answer = watched.page.goto(served.url + path)
            assert answer is not None and answer.status == 200, path
            watched.page.wait_for_load_state("load")
            if path.startswith("/?"):
                slide = watched.page.locator(".slide.active.tv-tournament")
                expect(slide).to_be_visible()
                expect(slide.locator("li.match").first).to_be_in_viewport()
            assert_fits(watched.page, width, f"{path} on a {screen}")
        assert watched.errors == []


def test_the_operator_creates_a_tournament_and_walks_a_match_over(
    browser: Browser, served: Served
) -> None:
    with watched_page(browser, 390, 844, credentials=("admin", ADMIN_PASSWORD)) as watched:
        page = watched.page
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(served.url + "/admin/tournaments")
        page.select_option("select[name=format]", "single-elimination")
        page.select_option("select[name=game]", "x01")
        page.fill("textarea[name=options]", "start=301")
        page.fill("input[name=legs]", "1")
        page.fill("textarea[name=boards]", "oche/back")
        page.fill("textarea[name=players]", "Ann\nBob\nCy\nDee")
        page.fill("input[name=title]", "Sunday Cup")
        page.click("form#tournament-form button[type=submit]")
        page.wait_for_url("**/admin/tournaments/*", timeout=30_000)
        expect(page.locator("h1.tournament-title")).to_have_text("Sunday Cup")
        semi = page.locator('li.match[data-match="R1-1"]')
        expect(semi.locator(".match-status")).to_have_text("next up")
        semi.locator("button.walkover-button", has_text="Ann walks over").click()
        expect(semi.locator(".match-status")).to_have_text("walkover", timeout=30_000)
        expect(semi.locator(".side.won .name")).to_have_text("Ann")
        # a refusal is said on the page: the form with one player
        page.goto(served.url + "/admin/tournaments")
        page.fill("textarea[name=boards]", "oche/back")
        page.fill("textarea[name=players]", "Ann")
        page.click("form#tournament-form button[type=submit]")
        expect(page.locator("#create-outcome")).to_contain_text("Not created", timeout=30_000)
        assert [error for error in watched.errors if "status of 422" not in error] == []


@pytest.mark.parametrize("screen", ["phone", "tv"])
def test_the_tournament_pages_are_readable_and_named(
    browser: Browser, served: Served, screen: str
) -> None:
    """As tests/leaderboard/test_accessibility_browser.py checks every page:
    a contrast of 4.5:1 or more for every text, the language, landmarks, one
    heading and a name for every control and table."""
    width, height = SCREENS[screen]
    failures: list[str] = []
    with watched_page(browser, width, height, credentials=("admin", ADMIN_PASSWORD)) as watched:
        for path in _paths(served):
            watched.page.goto(served.url + path)
            watched.page.wait_for_load_state("load")
            found = watched.page.evaluate(LOW_CONTRAST, MINIMUM_CONTRAST)
            failures += [f"{path}: {failure}" for failure in found]
            failures += [f"{path}: {problem}" for problem in watched.page.evaluate(UNNAMED)]
    assert failures == []
