"""The phone flow in a real chromium (Playwright) at 390x844, against the
whole service (``run_service``: states from a real Mosquitto, a seeded
SQLite file, uvicorn) and a board's lobby on the broker
(tests/leaderboard/lobby_peer.py): open the join link the board's state
shows, pick a roster name, Join, and the board's lobby (its state over MQTT,
as another subscriber sees it) has that player within 2 s; an expired code
and another board's code are refused; no horizontal overflow, no console
error."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from leaderboard.database import Database
from leaderboard.phone_roster import add_player, venue_players
from leaderboard.web.join_checks import EXPIRED_CODE
from tests.browser import chromium_browser, chromium_path, watched_page
from tests.leaderboard.app_server import ServiceThread
from tests.leaderboard.lobby_peer import LobbyPeer, StateWatch, lobby_names
from tests.leaderboard.web_seed import VENUES, seed
from tests.mosquitto_broker import MosquittoBroker

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

PHONE = (390, 844)
JOINED_WITHIN_S = 2.0
"""The issue's promise: the board's lobby has the player within 2 s of Join."""
CODE = "K7PQ2M"
CORNER_CODE = "ZX9WQ4"
REGULARS = ("Dee", "Eve", "Fay", "Gus", "Hal", "Ivy")
"""More of the venue's players, so the roster is long enough for a search box."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(url)
    database.migrate()
    seed(database)
    for name in REGULARS:
        add_player(database, name, "The Crown", VENUES)
    database.dispose()
    return url


@pytest.fixture
def boards(
    mosquitto: MosquittoBroker, roster: dict[int, str], service: ServiceThread
) -> Iterator[tuple[LobbyPeer, LobbyPeer]]:
    pub = LobbyPeer(mosquitto, "pub", CODE, roster)
    corner = LobbyPeer(mosquitto, "corner", CORNER_CODE, roster)
    for board, code in (("pub", CODE), ("corner", CORNER_CODE)):
        deadline = time.monotonic() + 10
        url = f"{service.url}/api/boards/{board}/join-options"
        while httpx.get(url, params={"code": code}).status_code != 200:
            assert time.monotonic() < deadline, f"the service never heard {board}"
            time.sleep(0.05)
    yield pub, corner
    pub.close()
    corner.close()


@pytest.fixture
def watch(mosquitto: MosquittoBroker) -> Iterator[StateWatch]:
    watching = StateWatch(mosquitto, "pub")
    yield watching
    watching.close()


def join_link(service: ServiceThread, board: str, code: str) -> str:
    """The state's join_url, on this test's service (the peer names pub.local)."""
    return f"{service.url}/join/{board}?code={code}"


def assert_fits_the_phone(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE[0], f"the page is {width} px wide on a {PHONE[0]} px screen"


def test_pick_a_roster_name_and_the_board_s_lobby_has_them_within_2_s(
    browser: Browser,
    service: ServiceThread,
    boards: tuple[LobbyPeer, LobbyPeer],
    watch: StateWatch,
) -> None:
    with watched_page(browser, *PHONE) as watched:
        page = watched.page
        page.goto(join_link(service, "pub", CODE))
        expect(page.locator("h1")).to_have_text("Join board pub")
        names = page.locator("#names li")
        expect(names).to_have_count(4 + len(REGULARS))  # Ann, Bob, Cy, the tricky name, ...
        expect(page.locator("#link-card")).to_have_count(0)  # no card waits
        page.locator("#search").fill("an")
        expect(page.locator("#names li:visible")).to_have_text(["Ann"])
        page.get_by_label("Ann").check()
        assert_fits_the_phone(page)
        page.locator("#join-button").click()
        watch.wait_for(lambda state: "Ann" in lobby_names(state), JOINED_WITHIN_S)
        expect(page.locator("#outcome")).to_have_text(
            "You're in: Ann on board pub", timeout=JOINED_WITHIN_S * 1000
        )
        assert_fits_the_phone(page)
        assert watched.errors == []


def test_a_new_name_with_the_card_just_tapped(
    browser: Browser,
    service: ServiceThread,
    boards: tuple[LobbyPeer, LobbyPeer],
    watch: StateWatch,
    db_url: str,
) -> None:
    pub, _ = boards
    pub.card_waiting = True
    pub.publish_state()
    with watched_page(browser, *PHONE) as watched:
        page = watched.page
        deadline = time.monotonic() + 10
        while True:  # the service has the state that says a card waits
            page.goto(join_link(service, "pub", CODE))
            if page.locator("#link-card").count() == 1 or time.monotonic() > deadline:
                break
        page.get_by_label("Ann").check()
        page.locator("#new-name").fill("Zed")
        expect(page.get_by_label("Ann")).not_to_be_checked()  # a typed name wins
        page.get_by_label("Link the card I just tapped").check()
        page.locator("#join-button").click()
        watch.wait_for(lambda state: "Zed" in lobby_names(state), JOINED_WITHIN_S)
        expect(page.locator("#outcome")).to_contain_text("You're in: Zed on board pub")
        assert pub.commands[-1]["link_card"] is True
        assert_fits_the_phone(page)
        assert watched.errors == []
    database = Database(db_url)
    try:
        assert "Zed" in {choice.name for choice in venue_players(database, "The Crown")}
    finally:
        database.dispose()


def test_nothing_picked_says_so_and_sends_nothing(
    browser: Browser, service: ServiceThread, boards: tuple[LobbyPeer, LobbyPeer]
) -> None:
    with watched_page(browser, *PHONE) as watched:
        page = watched.page
        page.goto(join_link(service, "pub", CODE))
        page.locator("#join-button").click()
        expect(page.locator("#outcome")).to_have_text("Pick your name, or type a new one")
        assert boards[0].commands == []
        assert watched.errors == []


def test_an_expired_code_and_another_board_s_code_are_refused(
    browser: Browser, service: ServiceThread, boards: tuple[LobbyPeer, LobbyPeer]
) -> None:
    pub, _ = boards
    with watched_page(browser, *PHONE) as watched:
        page = watched.page
        response = page.goto(join_link(service, "pub", CORNER_CODE))
        assert response is not None and response.status == 403
        expect(page.locator("#refusal")).to_have_text(EXPIRED_CODE)
        assert_fits_the_phone(page)

        page.goto(join_link(service, "pub", CODE))  # open before the game starts
        page.get_by_label("Bob").check()
        pub.new_code("QWERTY")  # the next game started: the code expired
        deadline = time.monotonic() + 10
        url = f"{service.url}/api/boards/pub/join-options"
        while httpx.get(url, params={"code": CODE}).status_code != 403:
            assert time.monotonic() < deadline, "the service kept the old code"
            time.sleep(0.05)
        page.locator("#join-button").click()
        expect(page.locator("#outcome")).to_have_text(EXPIRED_CODE)

        response = page.goto(join_link(service, "pub", CODE))
        assert response is not None and response.status == 403
        expect(page.locator("#refusal")).to_have_text(EXPIRED_CODE)
        assert pub.commands == []
        # The only console lines: the browser's own, one for each 403 answer.
        assert watched.errors
        assert all("status of 403 (Forbidden)" in error for error in watched.errors)
