"""Every page of the service is readable and navigable, in a real chromium
(Playwright) against seeded data and live boards (tests/leaderboard/page_tour.py):
every piece of text on screen (text, SVG chart labels, the names a narrow
table puts before its figures, placeholders) has a contrast of at least
4.5:1 against what is behind it, computed from chromium's computed styles
(WCAG 2's relative luminance; backgrounds composited up the tree, an SVG
text's shape drawn before it under it, opacity applied), on a phone and on
a TV; and each page has its language, one ``main``, a banner, one ``h1``, a
name for every control, chart and table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser import chromium_browser, chromium_path, watched_page
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

MINIMUM_CONTRAST = 4.5
SCREENS = {"phone": (390, 844), "tv": (1920, 1080)}

LOW_CONTRAST = """(minimum) => {
  function parse(text) {
    const found = /rgba?\\(([^)]*)\\)/.exec(text || "");
    if (!found) return null;
    const parts = found[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  }
  function over(top, below) {
    const alpha = top[3] + below[3] * (1 - top[3]);
    const mix = (i) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / (alpha || 1);
    return [mix(0), mix(1), mix(2), alpha];
  }
  function luminance(colour) {
    const [r, g, b] = colour.slice(0, 3).map((value) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function ratio(a, b) {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  }
  function chain(element) {
    const list = [];
    for (let e = element; e; e = e.parentElement) list.unshift(e);
    return list;
  }
  function behind(element) {
    let colour = [255, 255, 255, 1];  // the canvas
    for (const e of chain(element)) {
      const paint = parse(getComputedStyle(e).backgroundColor);
      if (paint && paint[3] > 0) colour = over(paint, colour);
    }
    return colour;
  }
  function shapeBehind(element) {
    // An SVG text painted on a shape drawn before it (a dart marker's disc): that shape's fill.
    const box = element.getBoundingClientRect();
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    for (let e = element; e && !(e instanceof SVGSVGElement); e = e.parentElement) {
      for (let shape = e.previousElementSibling; shape; shape = shape.previousElementSibling) {
        const area = shape.getBoundingClientRect();
        const fill = parse(getComputedStyle(shape).fill);
        if (fill && fill[3] > 0 && shape.tagName !== "text" && area.left <= x && x <= area.right
            && area.top <= y && y <= area.bottom) return fill;
      }
    }
    return null;
  }
  function opacity(element) {
    return chain(element).reduce((product, e) => product * Number(getComputedStyle(e).opacity), 1);
  }
  function hidden(element) {
    for (const e of chain(element)) {
      const style = getComputedStyle(e);
      if (style.clipPath === "inset(50%)" || e.disabled) return true;
    }
    const box = element.getBoundingClientRect();
    const shown = element.checkVisibility({ visibilityProperty: true });
    return box.width === 0 || box.height === 0 || !shown;
  }
  const failures = [];
  function check(element, text, colourText, where) {
    const foreground = parse(colourText);
    if (!foreground || hidden(element)) return;
    let ground = behind(element);
    const shape = element instanceof SVGElement ? shapeBehind(element) : null;
    if (shape) ground = over(shape, ground);
    foreground[3] *= opacity(element);
    const seen = over(foreground, ground);
    const value = ratio(seen, ground);
    if (value < minimum) {
      failures.push(`${where} "${text.trim().slice(0, 40)}": ${colourText} on ` +
        `rgb(${ground.slice(0, 3).map(Math.round)}) is ${value.toFixed(2)}:1`);
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || !element || element.closest("script, title, style")) continue;
    const svg = element instanceof SVGElement;
    const style = getComputedStyle(element);
    check(element, node.textContent, svg ? style.fill : style.color, element.tagName.toLowerCase());
  }
  for (const element of document.body.querySelectorAll("*")) {
    const before = getComputedStyle(element, "::before");
    if (/^".*\\S.*"/.test(before.content)) check(element, before.content, before.color, "::before");
    if (element.placeholder && !element.value) {
      const placeholder = getComputedStyle(element, "::placeholder").color;
      check(element, element.placeholder, placeholder, "placeholder");
    }
  }
  return failures;
}"""
"""Every text on screen whose contrast is below ``minimum``, described."""

UNNAMED = """() => {
  const problems = [];
  const named = (e) => (e.getAttribute("aria-label") || "").trim() ||
    (e.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean)
      .map((id) => (document.getElementById(id) || {}).textContent || "").join("").trim() ||
    Array.from(e.labels || []).map((label) => label.textContent).join("").trim() ||
    (e.getAttribute("title") || "").trim();
  if (!(document.documentElement.lang || "").trim()) problems.push("html has no lang");
  if (document.querySelectorAll("main").length !== 1) problems.push("not one main");
  if (!document.querySelector("body > header")) problems.push("no banner (header)");
  if (document.querySelectorAll("h1").length !== 1) problems.push("not one h1");
  if (!document.title.trim()) problems.push("no title");
  for (const control of document.querySelectorAll("input, select, textarea")) {
    if (control.type !== "hidden" && !named(control)) problems.push(`unnamed ${control.outerHTML}`);
  }
  for (const button of document.querySelectorAll("button, [role=button]")) {
    if (!named(button) && !button.textContent.trim()) problems.push(`unnamed ${button.outerHTML}`);
  }
  for (const picture of document.querySelectorAll("svg[role=img], img")) {
    if (!named(picture) && !(picture.getAttribute("alt") || "").trim()) {
      problems.push(`unnamed ${picture.tagName}`);
    }
  }
  for (const table of document.querySelectorAll("table")) {
    if (!named(table) && !table.caption) problems.push(`unnamed table.${table.className}`);
  }
  return problems;
}"""
"""What a screen reader user would miss on the page: lang, landmarks, names."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageTour]:
    with page_tour(Path(tmp_path_factory.mktemp("tour"))) as running:
        yield running


def every_page(tour: PageTour) -> list[TourPage]:
    """The tour, and the board page once the service has it."""
    pages = tour_pages(tour.seeded)
    if has_route(tour, BOARD_PAGE):
        pages.append(TourPage(BOARD_PAGE, "board page"))
    return pages


def open_page(page: Page, tour: PageTour, visit: TourPage) -> None:
    response = page.goto(tour.url + visit.path)
    assert response is not None and response.status == visit.status, visit.label
    page.wait_for_load_state("load")


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_all_text_has_a_contrast_of_at_least_4_5_to_1(
    browser: Browser, tour: PageTour, screen: str
) -> None:
    failures = []
    with watched_page(browser, *SCREENS[screen], credentials=("admin", ADMIN_PASSWORD)) as watched:
        for visit in every_page(tour):
            open_page(watched.page, tour, visit)
            found = watched.page.evaluate(LOW_CONTRAST, MINIMUM_CONTRAST)
            failures += [f"{visit.label}: {failure}" for failure in found]
    assert failures == []


def test_the_contrast_check_sees_low_contrast_text(browser: Browser, tour: PageTour) -> None:
    with watched_page(browser, *SCREENS["phone"]) as watched:
        open_page(watched.page, tour, TourPage("/players/Ann", "player card"))
        watched.page.evaluate(
            """() => { document.querySelector("h1").style.color = "#30363d";
                       document.querySelector("svg.chart .tick").style.fill = "#161b22"; }"""
        )
        found = watched.page.evaluate(LOW_CONTRAST, MINIMUM_CONTRAST)
    assert len(found) == 2 and found[0].startswith('h1 "Ann"') and found[1].startswith("text ")


def landmark_problems(browser: Browser, tour: PageTour, visits: list[TourPage]) -> list[str]:
    problems = []
    with watched_page(browser, *SCREENS["phone"], credentials=("admin", ADMIN_PASSWORD)) as watched:
        for visit in visits:
            open_page(watched.page, tour, visit)
            problems += [f"{visit.label}: {problem}" for problem in watched.page.evaluate(UNNAMED)]
    return problems


def test_every_page_has_its_language_landmarks_one_heading_and_names(
    browser: Browser, tour: PageTour
) -> None:
    assert landmark_problems(browser, tour, tour_pages(tour.seeded)) == []


def test_the_board_page_has_its_language_landmarks_one_heading_and_names(
    browser: Browser, tour: PageTour
) -> None:
    if not has_route(tour, BOARD_PAGE):
        pytest.skip(f"the service has no {BOARD_PAGE} page yet")
    assert landmark_problems(browser, tour, [TourPage(BOARD_PAGE, "board page")]) == []
