"""Every game's scoreboard (board_views.scoreboard_html) and the drawn
dartboard in a real chromium, with the service's stylesheets: from a 360 px
phone to a 4K TV nothing overflows sideways, the visit's darts are buttons
a finger can hit, and the dartboard's beds take focus from the keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from markupsafe import Markup
from playwright.sync_api import Browser

from engine import game_ids
from engine.errors import LineupError
from leaderboard.api_models import LiveBoard
from leaderboard.web.board_views import dartboard_svg, scoreboard_html
from tests.browser import chromium_browser, chromium_path, watched_page
from tests.leaderboard.board_states import live_board_state

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

STATIC = Path(__file__).resolve().parents[2] / "leaderboard" / "static"
WIDTHS = ((360, 780), (3840, 2160))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


def page_html(scoreboard: Markup) -> str:
    """A plain page holding the scoreboard and the dartboard, styled as the service styles them."""
    styles = "".join(
        (STATIC / name).read_text("utf-8") for name in ("leaderboard.css", "views.css")
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style>{styles}</style></head><body class="page"><main class="content">'
        f"{scoreboard}{dartboard_svg()}</main></body></html>"
    )


@pytest.mark.parametrize("game_id", game_ids())
def test_each_game_s_scoreboard_fits_a_phone_and_a_4k_tv(browser: Browser, game_id: str) -> None:
    try:  # three players where the game takes them, one with a long name
        state = live_board_state(game_id, players=("Ann", "Bob", "Maximiliana"), cpu={"Bob": 6})
    except LineupError:
        state = live_board_state(game_id, players=("Maximiliana", "Bob"), cpu={"Bob": 6})
    board = LiveBoard(board="pub", venue="home", availability="online", state=state)  # type: ignore[arg-type]
    for width, height in WIDTHS:
        with watched_page(browser, width, height) as watched:
            page = watched.page
            page.set_content(page_html(scoreboard_html(board)))
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (game_id, width)
            darts = page.locator("button.dart")
            for index in range(darts.count()):
                box = darts.nth(index).bounding_box()
                assert box is not None and box["height"] >= 44 and box["width"] >= 44
            assert page.locator("svg.bv-dartboard path[data-bed]").count() == 82
            assert watched.errors == []


def test_the_dartboard_s_beds_take_focus_in_turn_from_the_keyboard(browser: Browser) -> None:
    board = LiveBoard(board="pub", venue="home", availability="online", state=None)
    with watched_page(browser, 390, 844) as watched:
        page = watched.page
        page.set_content(page_html(scoreboard_html(board)))
        page.keyboard.press("Tab")
        first = page.evaluate("document.activeElement.getAttribute('data-bed')")
        page.keyboard.press("Tab")
        second = page.evaluate("document.activeElement.getAttribute('data-bed')")
        assert (first, second) == ("DB", "SB")
        box = page.locator("svg.bv-dartboard").bounding_box()
        assert box is not None and box["width"] <= 390
