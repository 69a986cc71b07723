"""The TV's "On the boards" slide in a real chromium, served by the whole
service (MQTT ingest from a real Mosquitto): twelve live boards, one per
game, each state played by the engine, all visible at once at 1920x1080
(the cards shrink to fit), Cricket's with its marks, the computer players
labelled; at 390 px wide nothing overflows sideways (the cards stack and
page)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from playwright.sync_api import Browser, Page, expect

from engine import game_ids
from leaderboard.database import Database
from leaderboard.service import ServiceSettings
from tests.browser import chromium_browser, chromium_path, watched_page
from tests.leaderboard.app_server import ServiceThread
from tests.leaderboard.board_states import live_board_state
from tests.mosquitto_broker import MosquittoBroker, free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

BOARDS = {f"board{number:02d}": game for number, game in enumerate(game_ids(), start=1)}
"""A board for each of the engine's games (fourteen: more than the twelve
live boards the TV must show at once)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def service(tmp_path: Path, mosquitto: MosquittoBroker) -> Iterator[ServiceThread]:
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(url)
    database.migrate()
    database.dispose()
    settings = ServiceSettings(
        db_url=url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-tv-boards"
    )
    service = ServiceThread(settings)
    service.start()
    yield service
    service.stop()


MATCH_BOARD = "board01"
"""The board whose game is a leg of a match (its ``match`` block written per the contract)."""

MATCH = {
    "format": {"legs": 3, "sets": 2, "starts": "alternate", "decider": "none"},
    "leg": 4,
    "set": 2,
    "starter": 1,
    "legs_won": [1, 0],
    "sets_won": [0, 1],
    "decider": False,
    "leg_over": False,
    "cork": None,
    "finished": False,
    "winner": None,
    "winner_team": None,
    "played": [
        {"leg": n, "set": s, "starter": n % 2, "winner": w, "result": "checkout"}
        for n, s, w in ((1, 1, 1), (2, 1, 1), (3, 2, 0))
    ],
}


def publish_boards(broker: MosquittoBroker) -> dict[str, dict[str, Any]]:
    """Each board's retained availability and state, played by the engine;
    Bob is a computer player of level 6 everywhere; :data:`MATCH_BOARD`'s game
    is a leg of a match."""
    states = {
        board: live_board_state(game, board=board, name=f"Board {board[-2:]}", cpu={"Bob": 6})
        for board, game in BOARDS.items()
    }
    states[MATCH_BOARD]["match"] = MATCH
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        for board, state in states.items():
            client.publish(
                f"oche/{board}/availability", b"online", qos=1, retain=True
            ).wait_for_publish(5)
            payload = json.dumps(state).encode()
            client.publish(f"oche/{board}/state", payload, qos=1, retain=True).wait_for_publish(5)
    finally:
        client.disconnect()
        client.loop_stop()
    return states


def open_boards_slide(page: Page, url: str) -> None:
    page.goto(f"{url}/?rotate=0&slide=boards")
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#board-slides article.board")).to_have_count(len(BOARDS), timeout=10_000)
    expect(page.locator('.slide.active[data-slide="boards"]')).to_be_visible()


def card_boxes(page: Page) -> list[dict[str, Any]]:
    """Each card's box and whether it is shown, with the grid's and the viewport's."""
    result: list[dict[str, Any]] = page.evaluate(
        """() => {
          const grid = document.querySelector('.slide.active .boards').getBoundingClientRect();
          const cards = document.querySelectorAll('#board-slides article.board');
          return Array.from(cards).map((card) => {
            const box = card.getBoundingClientRect();
            return {board: card.dataset.board, hidden: card.hidden || box.height === 0,
                    left: box.left, right: box.right, top: box.top, bottom: box.bottom,
                    gridBottom: grid.bottom, gridRight: grid.right,
                    width: window.innerWidth, height: window.innerHeight,
                    overflowing: card.scrollWidth > card.clientWidth + 1};
          });
        }"""
    )
    return result


def test_fourteen_live_boards_all_show_on_a_1920_tv(
    browser: Browser, service: ServiceThread, mosquitto: MosquittoBroker
) -> None:
    with watched_page(browser, 1920, 1080) as watched:
        page = watched.page
        page.goto(f"{service.url}/?rotate=0")
        expect(page.locator("#connection")).to_have_text("live")
        publish_boards(mosquitto)
        open_boards_slide(page, service.url)
        # every card on screen at once, whole, inside the slide: no paging
        boxes = card_boxes(page)
        assert len(boxes) == len(BOARDS) >= 12
        for box in boxes:
            assert not box["hidden"], box
            assert box["left"] >= 0 and box["right"] <= box["width"], box
            assert box["top"] >= 0 and box["bottom"] <= min(box["gridBottom"], box["height"]) + 1, (
                box
            )
        expect(page.locator(".boards-page")).to_have_text("")
        # Cricket shows its marks, the computer player is labelled, whose turn is marked
        cricket = page.locator('article.board[data-game="cricket"]')
        expect(cricket.locator("table.card-marks")).to_be_visible()
        expect(cricket.locator("table.card-marks td.mark")).to_have_count(14)
        for board in BOARDS:
            card = page.locator(f'article.board[data-board="{board}"]')
            expect(card).to_contain_text("Bob (CPU 6)")
            expect(card.locator("li.throwing")).to_have_count(1)
        # the match's card shows its legs and sets, which leg, and who threw first
        match = page.locator(f'article.board[data-board="{MATCH_BOARD}"]')
        expect(match.locator("p.match")).to_have_text("Sets 0-1, legs 1-0 · Set 2, leg 2")
        expect(match.locator("li", has_text="(throws first)")).to_contain_text("Bob (CPU 6)")
        assert watched.errors == []


def test_at_390_px_the_boards_slide_never_scrolls_sideways(
    browser: Browser, service: ServiceThread, mosquitto: MosquittoBroker
) -> None:
    publish_boards(mosquitto)
    with watched_page(browser, 390, 844) as watched:
        page = watched.page
        open_boards_slide(page, service.url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        shown = [box for box in card_boxes(page) if not box["hidden"]]
        assert shown, "some boards are on screen"
        for box in shown:
            assert box["left"] >= 0 and box["right"] <= 390, box
            assert not box["overflowing"], box
        # the rest come on the next pages of the slide
        if len(shown) < len(BOARDS):
            expect(page.locator(".boards-page")).to_contain_text(" of ")
        assert watched.errors == []
