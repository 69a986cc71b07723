"""Every page of the service on a 390x844 phone, in a real chromium
(Playwright) against seeded data and live boards (tests/leaderboard/page_tour.py):
nothing sticks out sideways (``scrollWidth`` within the screen, and no element
drawn past its right edge, which a page that hides its overflow would clip),
and no page logs a console error. The figures a narrow table cannot show as
columns stay on screen, each named; dates keep to one line; the player
card's charts shrink to the screen. The board page (``/boards/{board}``) is
walked once the service has it. A portrait tablet and a 1080p TV fit too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import WatchedPage, chromium_browser, chromium_path, watched_page
from tests.leaderboard.page_tour import (
    BOARD_PAGE,
    PageTour,
    TourPage,
    has_route,
    page_tour,
    tour_pages,
)
from tests.leaderboard.web_seed import ADMIN_PASSWORD

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

PHONE = (390, 844)
SCREENS = {"phone": PHONE, "tablet": (820, 1180), "tv": (1920, 1080)}

WIDEST_ELEMENT = """() => {
  let widest = 0, what = "";
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (box.right > widest) {
      widest = box.right;
      what = element.tagName.toLowerCase() + (element.className ? "." + element.className : "");
    }
  }
  return [widest, what, document.documentElement.scrollWidth];
}"""
"""The right edge of the element drawn furthest right, what it is, and the page's scroll width."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageTour]:
    with page_tour(Path(tmp_path_factory.mktemp("tour"))) as running:
        yield running


def open_page(watched: WatchedPage, tour: PageTour, visit: TourPage) -> Page:
    """Open ``visit`` and check it answered as it should."""
    response = watched.page.goto(tour.url + visit.path)
    assert response is not None
    assert response.status == visit.status, visit.label
    watched.page.wait_for_load_state("load")
    return watched.page


def unexpected_errors(watched: WatchedPage, visits: list[TourPage]) -> list[str]:
    """The console errors, less each page's own status when it is an error page
    (a not-found page is a 404 by design, and chromium logs that)."""
    expected = [
        f"status of {visit.status} " for visit in visits if visit.status >= 400
    ]  # e.g. "the server responded with a status of 404 (Not Found)"
    return [
        error
        for error in watched.errors
        if not any(status in error and "Failed to load resource" in error for status in expected)
    ]


def assert_fits(page: Page, width: int, label: str) -> None:
    widest, what, scroll_width = page.evaluate(WIDEST_ELEMENT)
    wide = f"{label}: the page is {scroll_width} px wide on a {width} px screen"
    assert scroll_width <= width, wide
    assert widest <= width + 0.5, f"{label}: {what} reaches {widest:.0f} px on a {width} px screen"


def test_every_page_fits_a_390_px_phone_without_a_console_error(
    browser: Browser, tour: PageTour
) -> None:
    visits = tour_pages(tour.seeded)
    with watched_page(browser, *PHONE, credentials=("admin", ADMIN_PASSWORD)) as watched:
        for visit in visits:
            page = open_page(watched, tour, visit)
            assert_fits(page, PHONE[0], visit.label)
        assert unexpected_errors(watched, visits) == []


@pytest.mark.parametrize("screen", ["tablet", "tv"])
def test_every_page_fits_a_portrait_tablet_and_a_tv(
    browser: Browser, tour: PageTour, screen: str
) -> None:
    width, height = SCREENS[screen]
    visits = tour_pages(tour.seeded)
    with watched_page(browser, width, height, credentials=("admin", ADMIN_PASSWORD)) as watched:
        for visit in visits:
            assert_fits(open_page(watched, tour, visit), width, visit.label)
        assert unexpected_errors(watched, visits) == []


def test_the_board_page_fits_a_phone(browser: Browser, tour: PageTour) -> None:
    if not has_route(tour, BOARD_PAGE):
        pytest.skip(f"the service has no {BOARD_PAGE} page yet")
    visit = TourPage(BOARD_PAGE, "board page")
    with watched_page(browser, *PHONE) as watched:
        page = open_page(watched, tour, visit)
        assert_fits(page, PHONE[0], visit.label)
        assert unexpected_errors(watched, [visit]) == []


def shown_figures(page: Page, row: str) -> dict[str, str]:
    """The figures a stacked row shows: each cell's name (its ``::before``) and value."""
    return dict(
        page.locator(row)
        .first.locator("td[data-label]")
        .evaluate_all(
            """cells => cells.filter(cell => cell.getBoundingClientRect().width > 0)
                 .map(cell => [getComputedStyle(cell, "::before").content.replace(/^"|\\s*"$/g, ""),
                               cell.textContent.trim()])"""
        )
    )


def test_a_phone_shows_every_figure_of_the_x01_table_each_named(
    browser: Browser, tour: PageTour
) -> None:
    with watched_page(browser, *PHONE) as watched:
        page = open_page(watched, tour, TourPage("/?rotate=0&slide=table-x01", "TV, X01"))
        table = page.locator('table.ranking[data-game="x01"]')
        expect(table).to_be_visible()
        figures = shown_figures(page, 'table.ranking[data-game="x01"] tbody tr')
        assert list(figures) == ["Played", "Won", "Win", "Rating", "Avg", "Checkout", "180s"]
        for cell in table.locator("tbody tr").first.locator("td").all():
            expect(cell).to_be_in_viewport()
        # A screen reader still reads a table with its column headers.
        assert table.get_attribute("role") == "table"
        headers = table.locator("th").all_text_contents()
        assert headers == ["#", "Player", *figures]


def test_a_phone_s_player_card_stacks_its_figures_keeps_dates_on_one_line_and_scales_charts(
    browser: Browser, tour: PageTour
) -> None:
    with watched_page(browser, *PHONE) as watched:
        page = open_page(watched, tour, TourPage("/players/Ann", "player card"))
        x01 = shown_figures(page, 'table.per-game tr[data-game="x01"]')
        assert {"Rating", "Average", "Checkout", "Highest out", "Best leg", "180s"} <= set(x01)
        dates = page.locator("table.recent td.when a")
        assert dates.count() >= 10
        lines = dates.evaluate_all("links => links.map(link => link.getClientRects().length)")
        assert set(lines) == {1}, "a date of the recent games wraps"
        for chart in page.locator("figure.chart svg").all():
            box = chart.bounding_box()
            assert box is not None and 0 < box["width"] <= PHONE[0]
            chart.scroll_into_view_if_needed()  # below the card's tables, awards and rating
            expect(chart).to_be_in_viewport()
