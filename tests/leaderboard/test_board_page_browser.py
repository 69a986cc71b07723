"""The board page (``/boards/{board}``) in a real chromium at 390x844 and
1920x1080, against the real page, views and static files with a stand-in of
the board API (tests/leaderboard/board_api_standin.py: it records what the
page sends and checks it with the contract's parser). It shows the board's
live state and follows it; pairs with the dialog or a ``#pair=CODE`` link and
keeps the token; each control posts its MQTT payload with the token; a dart
tapped and then T19 sends ``correct``; the set-up panel sends a valid
``new_game``; refusals show in the status line; nothing wider than the
screen, no console error, the page under 100 KB."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Response, expect

from mqtt_contract import NewGame, parse_command
from tests.browser import WatchedPage, chromium_browser, chromium_path, watched_page
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.board_api_standin import CODE, TOKEN, BoardApiStandIn
from tests.leaderboard.polling import eventually

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

PHONE = (390, 844)
DESKTOP = (1920, 1080)
SCREENS = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]
SEEN_WITHIN_MS = 5000
"""How long the page may take to show what the stand-in was told (generous: a busy box)."""
PAGE_WEIGHT_LIMIT = 100 * 1024
"""The issue's budget for the whole board page."""

X01: dict[str, Any] = {
    "game": "x01",
    "options": {"start": 301, "in": "straight", "out": "double", "rounds": 0},
    "players": [
        {
            "name": "Ann",
            "score": 301,
            "team": None,
            "out": False,
            "stats": {"darts": 0, "visits": 0},
        },
        {
            "name": "Robo",
            "score": 301,
            "team": None,
            "out": False,
            "stats": {"darts": 0, "visits": 0},
            "cpu": {"level": 6, "sigma_mm": 30.0, "average": 65.0},
        },
    ],
    "teams": None,
    "current_player": 0,
    "round": 1,
    "visit": [],
    "visit_over": None,
    "last_visit": None,
    "finished": False,
    "winner": None,
    "winner_team": None,
    "result": None,
    "phase": "throwing",
    "board": {"id": "pub", "name": "pub", "connected": True, "status": "connected"},
    "lobby": {"players": [{"name": "Eve", "player_id": 7, "joined_by": "phone"}]},
}


def x01_after(visit: list[str], ann: int) -> dict[str, Any]:
    """The X01 state with Ann on ``ann`` and ``visit`` in progress."""
    state = copy.deepcopy(X01)
    state["visit"] = visit
    state["players"][0]["score"] = ann
    return state


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def standin() -> BoardApiStandIn:
    return BoardApiStandIn()


@pytest.fixture
def server(standin: BoardApiStandIn) -> Iterator[AppServer]:
    running = AppServer(standin.app())
    running.start()
    yield running
    running.stop()


def show(server: AppServer, standin: BoardApiStandIn, state: dict[str, Any]) -> None:
    """The board ``pub`` publishes ``state`` (the hub is posted to on the server's loop)."""
    server.call(lambda: standin.hub.board_availability("pub", "The Crown", "online"))
    server.call(lambda: standin.hub.board_state("pub", "The Crown", copy.deepcopy(state)))


def assert_fits(page: Page, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide on a {width} px screen"


def open_board(watched: WatchedPage, server: AppServer, fragment: str = "") -> Page:
    page = watched.page
    page.goto(f"{server.url}/boards/pub{fragment}")
    expect(page.locator("#connection")).to_be_hidden(timeout=SEEN_WITHIN_MS)
    return page


def paired_page(watched: WatchedPage, server: AppServer) -> Page:
    """The board page on a browser that paired through the board's link."""
    page = open_board(watched, server, f"#pair={CODE}")
    expect(page.locator("#paired-as")).to_contain_text("Paired as", timeout=SEEN_WITHIN_MS)
    return page


def last_command(standin: BoardApiStandIn, count: int) -> dict[str, Any]:
    eventually(lambda: len(standin.sent()) >= count, f"{count} commands reach the board")
    sent = standin.sent()[count - 1]
    assert sent.authorization == f"Bearer {TOKEN}"
    assert sent.board == "pub"
    return sent.payload


@pytest.mark.parametrize("screen", SCREENS)
def test_the_page_shows_the_board_live_and_follows_it(
    browser: Browser, server: AppServer, standin: BoardApiStandIn, screen: tuple[int, int]
) -> None:
    show(server, standin, x01_after(["T20"], 241))
    with watched_page(browser, *screen) as watched:
        page = open_board(watched, server)
        scoreboard = page.locator("#scoreboard")
        expect(scoreboard).to_contain_text("Ann")
        expect(scoreboard).to_contain_text("Robo (CPU 6)")
        expect(scoreboard).to_contain_text("241")
        expect(page.locator("#turn")).to_have_text("Ann to throw")
        expect(page.locator("#scoreboard button.dart")).to_have_text(["T20"])
        expect(page.locator("#dartboard circle.marker")).to_have_count(1)

        show(server, standin, x01_after(["T20", "S1"], 240))
        expect(scoreboard).to_contain_text("240", timeout=SEEN_WITHIN_MS)
        expect(page.locator("#scoreboard button.dart")).to_have_text(["T20", "S1"])
        expect(page.locator("#dartboard circle.marker")).to_have_count(2)

        following = x01_after([], 240)
        following["current_player"] = 1
        show(server, standin, following)
        expect(page.locator("#turn")).to_have_text("Robo to throw", timeout=SEEN_WITHIN_MS)
        expect(page.locator("#scoreboard button.dart")).to_have_count(0)
        expect(page.locator("#pair-note")).to_be_visible()  # not paired: it says so
        assert_fits(page, screen[0])
        page.locator("#setup summary").click()
        expect(page.locator("#setup-game option")).not_to_have_count(0)
        assert_fits(page, screen[0])
        assert watched.errors == []


def test_a_dropped_stream_says_reconnecting_and_catches_up(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, x01_after(["T20"], 241))
    with watched_page(browser, *PHONE) as watched:
        page = open_board(watched, server)
        standin.streams_down = True
        banner = page.locator("#connection")
        expect(banner).to_be_visible(timeout=SEEN_WITHIN_MS)
        expect(banner).to_have_text("Reconnecting…")
        show(server, standin, x01_after(["T20", "T20"], 181))  # thrown while away
        standin.streams_down = False
        expect(banner).to_be_hidden(timeout=3 * SEEN_WITHIN_MS)
        expect(page.locator("#scoreboard")).to_contain_text("181", timeout=SEEN_WITHIN_MS)
        # The only console lines: the browser's own, for the refused streams.
        assert all("status of 503" in error for error in watched.errors)


def test_the_pair_dialog_sends_the_code_and_keeps_the_token(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, X01)
    with watched_page(browser, *PHONE) as watched:
        page = open_board(watched, server)
        page.get_by_role("button", name="Pair this device").click()
        dialog = page.locator("#pair-dialog")
        expect(dialog).to_be_visible()
        expect(page.locator("#pair-code")).to_have_attribute("inputmode", "numeric")
        page.get_by_label("Pairing code").fill("000000")
        page.get_by_label("This device's name").fill("Ann's phone")
        page.locator("#pair-button").click()
        expect(page.locator("#pair-outcome")).to_have_text("Not paired: wrong pairing code")
        assert localstorage_pairing(page) is None

        page.get_by_label("Pairing code").fill(CODE)
        page.locator("#pair-button").click()
        expect(dialog).to_be_hidden()
        expect(page.locator("#paired-as")).to_have_text("Paired as Ann's phone")
        assert standin.pairings[-1] == {"code": CODE, "name": "Ann's phone"}
        stored = localstorage_pairing(page)
        assert stored is not None and stored["token"] == TOKEN
        expect(page.get_by_role("button", name="Unpair this device")).to_be_visible()
        expect(page.locator("#pair-note")).to_be_hidden()

        page.reload()  # the token outlives the page
        expect(page.locator("#paired-as")).to_have_text("Paired as Ann's phone")
        page.get_by_role("button", name="Unpair this device").click()
        expect(page.locator("#paired-as")).to_have_text("Pair this device to control the board")
        assert standin.unpaired == ["pub"]
        assert localstorage_pairing(page) is None
        # The only console line: the browser's own, for the wrong code's 403.
        assert len(watched.errors) == 1 and "/pair" in watched.errors[0]
        assert "status of 403" in watched.errors[0]


def localstorage_pairing(page: Page) -> dict[str, Any] | None:
    stored = page.evaluate("localStorage.getItem('oche.board.pub.pairing')")
    return None if stored is None else dict(json.loads(stored))


def test_a_pair_link_pairs_at_once_and_leaves_the_url(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, X01)
    with watched_page(browser, *PHONE) as watched:
        page = paired_page(watched, server)
        expect(page.locator("#pair-dialog")).to_be_hidden()
        assert standin.pairings[-1]["code"] == CODE
        assert standin.pairings[-1]["name"]  # the browser's name by default
        assert "pair=" not in page.url  # the code is a credential: not left in history
        assert watched.errors == []


def test_each_control_posts_its_command_with_the_token(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, x01_after(["S20"], 281))
    with watched_page(browser, *PHONE) as watched:
        page = paired_page(watched, server)
        for count, (label, command) in enumerate(
            [
                ("NEXT", "next"),
                ("UNDO", "undo"),
                ("BOUNCE", "bounce"),
                ("MISS", "miss"),
                ("Rematch", "rematch"),
            ],
            start=1,
        ):
            page.get_by_role("button", name=label, exact=True).click()
            assert last_command(standin, count) == {"command": command}
            expect(page.locator("#status")).to_have_text(f"{label}: done")

        page.get_by_role("button", name="End game").click()
        expect(page.locator("#end-dialog")).to_be_visible()
        page.get_by_role("button", name="Keep playing").click()  # changed their mind
        expect(page.locator("#end-dialog")).to_be_hidden()
        page.get_by_role("button", name="End game").click()
        page.locator("#end-confirm").click()
        assert last_command(standin, 6) == {"command": "end_game"}
        assert len(standin.sent()) == 6
        assert watched.errors == []


@pytest.mark.parametrize("screen", SCREENS)
def test_tapping_a_dart_then_t19_corrects_it(
    browser: Browser, server: AppServer, standin: BoardApiStandIn, screen: tuple[int, int]
) -> None:
    show(server, standin, x01_after(["S20", "S19", "S5"], 257))
    with watched_page(browser, *screen) as watched:
        page = paired_page(watched, server)
        page.locator("#dartboard [data-bed='T19']").click()  # no dart picked: nothing sent
        expect(page.locator("#status")).to_contain_text("tap it in the visit first")
        dart = page.locator("#scoreboard button.dart[data-dart='2']")
        dart.click()
        expect(dart).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#status")).to_contain_text("Dart 2 (S19) picked")
        page.locator("#dartboard [data-bed='T19']").first.click()
        assert last_command(standin, 1) == {"command": "correct", "dart": 2, "segment": "T19"}

        page.locator("#scoreboard button.dart[data-dart='3']").press("Enter")  # the keyboard
        bed = page.locator("#dartboard [data-bed='D5']").first
        bed.focus()
        bed.press("Enter")
        assert last_command(standin, 2) == {"command": "correct", "dart": 3, "segment": "D5"}
        assert_fits(page, screen[0])
        assert watched.errors == []


def test_the_set_up_panel_sends_a_valid_new_game(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, X01)
    with watched_page(browser, *PHONE) as watched:
        page = paired_page(watched, server)
        page.locator("#setup summary").click()
        page.get_by_label("Game", exact=True).select_option(label="X01")
        page.locator("#option-start").select_option("301")
        page.locator("#lobby-names").get_by_role("button", name="Eve").click()
        page.get_by_label("Roster").select_option("Bob")
        page.locator("#roster-button").click()
        page.get_by_label("Guest").fill("Zed")
        page.locator("#guest-button").click()
        page.get_by_label("Computer").select_option("6")
        page.locator("#cpu-button").click()
        page.locator("#cpu-average").fill("55")
        page.locator("#cpu-button").click()
        expect(page.locator("#setup-players li")).to_have_count(5)
        page.get_by_role("button", name="Remove Zed").click()
        expect(page.locator("#setup-players li")).to_have_count(4)
        assert_fits(page, PHONE[0])
        page.get_by_role("button", name="Start").click()
        payload = last_command(standin, 1)
        command = parse_command(json.dumps(payload).encode())
        assert isinstance(command, NewGame)
        assert payload["game"] == "x01"
        assert payload["options"]["start"] == 301
        assert payload["players"] == [
            "Eve",
            "Bob",
            {"name": "CPU", "cpu": 6},
            {"name": "CPU 2", "cpu": {"average": 55}},
        ]
        expect(page.locator("#status")).to_have_text("New game: done")
        assert watched.errors == []


def test_refusals_show_in_the_status_line_and_nothing_is_sent_unpaired(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, X01)
    with watched_page(browser, *PHONE) as watched:
        page = open_board(watched, server)
        page.get_by_role("button", name="NEXT").click()
        status = page.locator("#status")
        expect(status).to_contain_text("NEXT refused: this device is not paired to the board")
        expect(status).to_contain_text("Pair this device")
        expect(status).to_have_attribute("aria-live", "polite")
        assert standin.sent() == []

        page.goto(f"{server.url}/boards/pub#pair={CODE}")
        expect(page.locator("#paired-as")).to_contain_text("Paired as")
        standin.refuse_with = "no visit on the board to correct"
        page.get_by_role("button", name="UNDO").click()
        expect(status).to_have_text("UNDO refused: no visit on the board to correct")

        standin.revoked = True  # unpaired at the board: the page forgets its token
        page.get_by_role("button", name="MISS").click()
        expect(status).to_contain_text("MISS refused: this device was unpaired at the board")
        expect(page.locator("#paired-as")).to_have_text("Pair this device to control the board")
        # The only console lines: the browser's own, one for each refused answer.
        assert all("the server responded with a status of" in error for error in watched.errors)


def test_the_page_weighs_under_100_kb_and_loads_only_local_files(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, x01_after(["T20", "T20"], 181))
    with watched_page(browser, *PHONE) as watched:
        page = watched.page
        answers: list[Response] = []
        page.on("response", lambda answer: answers.append(answer))
        page.goto(f"{server.url}/boards/pub")
        expect(page.locator("#connection")).to_be_hidden(timeout=SEEN_WITHIN_MS)
        page.locator("#setup summary").click()  # the set-up panel's catalogue counts too
        expect(page.locator("#setup-game option")).not_to_have_count(0)
        # Playwright's sync API hands over its events only inside its own calls:
        # each poll gives it a moment.
        eventually(
            lambda: (
                page.wait_for_timeout(50) is None
                and any(a.url.endswith("/roster") for a in answers)
            ),
            "the roster loads",
        )
        weighed = [
            answer
            for answer in answers
            if "text/event-stream" not in (answer.headers.get("content-type") or "")
        ]
        assert all(answer.url.startswith(server.url) for answer in answers)
        weight = sum(len(answer.body()) for answer in weighed)
        assert weight < PAGE_WEIGHT_LIMIT, f"the board page weighs {weight} bytes"
        assert watched.errors == []


def test_an_unknown_board_says_it_waits_and_the_view_is_a_fragment(
    server: AppServer, standin: BoardApiStandIn
) -> None:
    answer = httpx.get(f"{server.url}/boards/nowhere")
    assert answer.status_code == 404
    assert "has not heard from board nowhere yet" in answer.text
    show(server, standin, X01)
    view = httpx.get(f"{server.url}/boards/pub/view")
    assert view.status_code == 200
    assert "<html" not in view.text and "Ann" in view.text
    assert view.headers["cache-control"] == "no-store"
    assert "script-src 'self'" in view.headers["content-security-policy"]


# ---------------------------------------------------------------- match play

MATCH_SEEN_MS = 30_000
"""A match's banner and score may take this long to show on a busy machine."""


def x01_match(leg: int, legs_won: list[int], **block: Any) -> dict[str, Any]:
    """The X01 state as leg ``leg`` of a first-to-2-legs match (alternate: Ann
    starts the odd legs, Robo the even ones), ``block`` overriding its keys."""
    state = copy.deepcopy(X01)
    played = [
        {"leg": n, "set": None, "starter": (n - 1) % 2, "winner": 0, "result": "checkout"}
        for n in range(1, leg)
    ]
    state["match"] = {
        "format": {"legs": 2, "sets": None, "starts": "alternate", "decider": "none"},
        "leg": leg,
        "set": None,
        "starter": (leg - 1) % 2,
        "legs_won": legs_won,
        "sets_won": None,
        "decider": False,
        "leg_over": False,
        "cork": None,
        "finished": False,
        "winner": None,
        "winner_team": None,
        "played": played,
        **block,
    }
    return state


def board_event(server: AppServer, standin: BoardApiStandIn, event: dict[str, Any]) -> None:
    """The board ``pub`` publishes ``event`` on its ``event`` topic."""
    server.call(lambda: standin.hub.board_event("pub", "The Crown", event))


@pytest.mark.parametrize("screen", SCREENS)
def test_a_match_shows_legs_who_throws_first_and_the_leg_won_banner(
    browser: Browser, server: AppServer, standin: BoardApiStandIn, screen: tuple[int, int]
) -> None:
    show(server, standin, x01_match(1, [0, 0]))
    with watched_page(browser, *screen) as watched:
        page = open_board(watched, server)
        match = page.locator("#scoreboard .bv-match")
        expect(match).to_contain_text("Leg 1")
        expect(match).to_contain_text("Ann throws first")
        expect(page.get_by_role("table", name="Legs 0-0")).to_be_visible()
        banner = page.locator("#leg-won")
        expect(banner).to_be_hidden()

        won = x01_match(1, [1, 0], leg_over=True)
        won.update(phase="takeout", finished=True, winner=0)
        show(server, standin, won)
        leg_won = {
            "type": "leg_won",
            "at": 1767225700.0,
            "player": 0,
            "leg": 1,
            "result": "checkout",
            "legs_won": [1, 0],
            "team": None,
            "set": None,
            "sets_won": None,
            "set_won": False,
            "match_won": False,
        }
        board_event(server, standin, leg_won)
        expect(banner).to_be_visible(timeout=MATCH_SEEN_MS)
        expect(page.locator("#leg-won-words")).to_have_text("Game shot, and the first leg")
        expect(page.locator("#leg-won-score")).to_have_text("Ann · Legs 1-0")
        expect(banner).to_have_attribute("role", "status")
        expect(page.locator("#scoreboard .bv-banner-leg-won")).to_have_text(
            "Ann wins the first leg", timeout=MATCH_SEEN_MS
        )
        expect(page.locator("#scoreboard .bv-banner-finished")).to_have_count(0)
        assert_fits(page, screen[0])

        # NEXT: the second leg starts, Robo throws first, the banner goes
        board_event(
            server,
            standin,
            {"type": "leg_started", "at": 1767225710.0, "leg": 2, "starter": 1, "decider": False},
        )
        show(server, standin, x01_match(2, [1, 0]))
        expect(banner).to_be_hidden(timeout=MATCH_SEEN_MS)
        expect(match).to_contain_text("Robo (CPU 6) throws first", timeout=MATCH_SEEN_MS)
        expect(page.locator("#scoreboard .bv-seat.bv-first")).to_have_count(0)
        first = page.locator("#scoreboard .bv-seat", has_text="(throws first)")
        expect(first).to_have_count(1)
        expect(first).to_contain_text("Robo")

        # the match's last leg: "and the match", which stays with the finished match
        over = x01_match(2, [2, 0], finished=True, winner=0)
        over.update(phase="finished", finished=True, winner=0)
        show(server, standin, over)
        board_event(server, standin, {**leg_won, "leg": 2, "legs_won": [2, 0], "match_won": True})
        expect(page.locator("#leg-won-words")).to_have_text(
            "Game shot, and the match", timeout=MATCH_SEEN_MS
        )
        expect(page.locator("#scoreboard .bv-banner-finished")).to_have_text(
            "Ann wins the match 2-0", timeout=MATCH_SEEN_MS
        )
        assert_fits(page, screen[0])
        assert watched.errors == []


def test_the_cork_shows_whose_turn_at_the_bull_and_who_won_it(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    cork = x01_match(3, [1, 1], decider=True, cork=["SB", None], starter=0)
    show(server, standin, cork)
    with watched_page(browser, *PHONE) as watched:
        page = open_board(watched, server)
        expect(page.locator("#scoreboard .bv-banner-cork")).to_have_text(
            "Deciding leg: bull for the throw"
        )
        expect(page.locator("#scoreboard .bv-turn")).to_have_text(
            "Robo (CPU 6) to throw at the bull"
        )
        expect(page.locator("#scoreboard td.bv-cork")).to_have_text(["SB", "to throw"])
        board_event(server, standin, {"type": "cork_won", "at": 1767225720.0, "player": 1})
        banner = page.locator("#leg-won")
        expect(banner).to_be_visible(timeout=MATCH_SEEN_MS)
        expect(banner).to_contain_text("Robo wins the bull")
        decided = x01_match(3, [1, 1], decider=True, starter=1)
        decided["current_player"] = 1
        show(server, standin, decided)
        expect(page.locator("#scoreboard .bv-banner-decider")).to_have_text(
            "Deciding leg", timeout=MATCH_SEEN_MS
        )
        expect(banner).to_be_visible()  # until the first dart of the leg
        thrown = copy.deepcopy(decided)
        thrown["visit"] = ["T20"]
        show(server, standin, thrown)
        expect(banner).to_be_hidden(timeout=MATCH_SEEN_MS)
        assert_fits(page, PHONE[0])
        assert watched.errors == []


def test_a_called_match_waits_on_the_board(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    idle: dict[str, Any] = {
        "game": None,
        "phase": "idle",
        "board": {"id": "pub", "name": "Board 2", "connected": True, "status": "connected"},
        "call": {
            "call_id": "t4-m2",
            "title": "Friday Cup, round 1",
            "game": "x01",
            "options": {"start": 501},
            "match": {"legs": 3},
            "players": [{"name": "Ann", "player_id": 1}, {"name": "Bob", "player_id": 2}],
            "called_at": 1767225600.0,
        },
    }
    show(server, standin, idle)
    with watched_page(browser, *PHONE) as watched:
        page = open_board(watched, server)
        call = page.get_by_role("group", name="Called match")
        expect(call).to_contain_text("Next: Ann v Bob on Board 2")
        expect(call).to_contain_text("Friday Cup, round 1 · X01 · first to 3 legs")
        expect(call).to_contain_text("Throw a dart or press NEXT to start")
        expect(page.locator("#turn")).to_have_text("Next: Ann v Bob")
        assert_fits(page, PHONE[0])
        assert watched.errors == []


def test_the_set_up_panel_sends_a_match_format(
    browser: Browser, server: AppServer, standin: BoardApiStandIn
) -> None:
    show(server, standin, X01)
    with watched_page(browser, *PHONE) as watched:
        page = paired_page(watched, server)
        page.locator("#setup summary").click()
        page.get_by_label("Game", exact=True).select_option(label="X01")
        expect(page.get_by_label("Sets to win")).to_be_hidden()  # one game: no sets to pick
        page.get_by_role("button", name="Start").click()
        single = last_command(standin, 1)
        assert "match" not in single  # one game, as before

        page.locator("#setup summary").click()
        page.get_by_label("Legs to win").select_option(label="First to 3 legs")
        expect(page.get_by_label("Sets to win")).to_be_visible()
        page.get_by_label("Sets to win").select_option(label="First to 2 sets")
        page.get_by_label("Who throws first in the next leg").select_option("loser")
        page.get_by_label("The deciding leg").select_option("cork")
        assert_fits(page, PHONE[0])
        page.get_by_role("button", name="Start").click()
        payload = last_command(standin, 2)
        assert payload["match"] == {"legs": 3, "sets": 2, "starts": "loser", "decider": "cork"}
        command = parse_command(json.dumps(payload).encode())
        assert isinstance(command, NewGame) and command.match is not None
        assert str(command.match.format()) == "first to 2 sets of 3 legs"
        expect(page.locator("#status")).to_have_text("New game: done")
        assert watched.errors == []


def award_event(award: str, at: float, **more: Any) -> dict[str, Any]:
    """Ann's award event of the visit T20 T20 T20 (docs/mqtt.md's ``award``)."""
    return {"type": "award", "at": at, "award": award, "player": 0, "name": "Ann",
            "darts": ["T20", "T20", "T20"], "points": 180, **more}  # fmt: skip


@pytest.mark.parametrize("screen", SCREENS)
def test_an_award_pops_up_when_its_event_arrives_and_the_next_visit_takes_it_away(
    browser: Browser, server: AppServer, standin: BoardApiStandIn, screen: tuple[int, int]
) -> None:
    """The award events of one visit (a Ton 80 and Three in a Bed) make one
    banner a screen reader reads out (aria-live), the names as the display
    says them; the next visit's first dart takes it away."""
    show(server, standin, x01_after(["T20", "T20"], 181))
    with watched_page(browser, *screen) as watched:
        page = open_board(watched, server)
        award = page.locator("#award")
        expect(award).to_be_hidden()
        expect(award).to_have_attribute("aria-live", "assertive")
        expect(award).to_have_attribute("role", "status")

        board_event(server, standin, award_event("ton-80", 1767225700.0))
        board_event(server, standin, award_event("three-in-a-bed", 1767225700.0))
        expect(award).to_be_visible(timeout=SEEN_WITHIN_MS)
        expect(page.locator("#award-title")).to_have_text(
            "TON 80! + THREE IN A BED", timeout=SEEN_WITHIN_MS
        )
        expect(page.locator("#award-detail")).to_have_text("Ann · T20 T20 T20 · 180")
        assert_fits(page, screen[0])

        # Robo's first dart: the award goes
        board_event(server, standin, {"type": "dart", "at": 1767225710.0, "player": 1,
                                      "segment": "S20", "scored": True})  # fmt: skip
        expect(award).to_be_hidden(timeout=SEEN_WITHIN_MS)

        # a cricket visit's marks: "7 MARKS", its marks said
        marks = award_event("7-mark", 1767225720.0, points=None, marks=7)
        board_event(server, standin, {**marks, "darts": ["T20", "T19", "S18"]})
        expect(page.locator("#award-title")).to_have_text("7 MARKS", timeout=SEEN_WITHIN_MS)
        expect(page.locator("#award-detail")).to_have_text("Ann · T20 T19 S18 · 7 marks")
        assert watched.errors == []
