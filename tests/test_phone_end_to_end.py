"""Issue #24 end to end (docs/phone.md): a phone (390x844) and a desktop
browser (1920x1080) control a real board through its venue's web service.
The device pairs with the code the board's display shows (read, as a user
reads the display, from the board's retained ``pairing`` topic: the
display's QR link on the phone, the typed code on the desktop), sets up a 301
for two guests, sees the darts thrown on the board, presses NEXT and UNDO,
corrects a misread dart by tapping T19 on the drawn board (the board's state
over MQTT agrees), plays to the win and starts the rematch. Before pairing,
and with a made-up or forgotten token, the same controls are refused and no
command reaches the board. Real parts throughout (tests/phone_rig.py): the
daemon on a pty board, ``run_service``, chromium, one Mosquitto.

The issue asks for darts on the page "within 2 s"; the tests wait for them
with the house's generous deadline and benchmarks/board_page.py measures
the time (docs/benchmarks.md), as every speed here is measured, never
asserted."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import chromium_path
from tests.daemon_harness import TIMEOUT
from tests.mosquitto_broker import MosquittoBroker
from tests.phone_rig import BOARD, DESKTOP, PHONE, BoardPage, PhoneRig, game_of, phone_rig, scores

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

TIMEOUT_MS = TIMEOUT * 1000
CONTROLS = ("Next", "Undo", "Bounce", "Miss")
PAGE_WEIGHT = 100_000
"""Bytes: the issue's "the board page under 100 KB" (a size, not a time)."""


def in_game(rig: PhoneRig) -> dict[str, Any]:
    return game_of(rig.watcher.of("state")[-1])


async def refused_over_http(rig: PhoneRig, token: str | None, expected: set[int]) -> None:
    """Every control, sent to the board API with ``token``, is refused with
    a status in ``expected``."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    payloads: list[dict[str, Any]] = [
        {"command": "next"},
        {"command": "undo"},
        {"command": "correct", "dart": 1, "segment": "T19"},
        {"command": "new_game", "game": "x01", "players": ["Mallory"]},
    ]
    async with httpx.AsyncClient(base_url=rig.web_url) as http:
        for payload in payloads:
            answer = await http.post(f"/api/boards/{BOARD}/command", json=payload, headers=headers)
            assert answer.status_code in expected, (payload, answer.status_code, answer.text)


async def page_refuses(phone: BoardPage) -> None:
    """An unpaired page's controls say they need pairing and send nothing."""
    for name in CONTROLS:
        await phone.press(name)
        refusal = re.compile(rf"{name}\b.*refused.*pair", re.I)
        await expect(phone.status()).to_have_text(refusal, timeout=TIMEOUT_MS)


async def fits(phone: BoardPage) -> None:
    assert await phone.overflow() == 0, f"the page scrolls sideways at {phone.width} px"
    assert phone.unexpected_errors() == []


def kinds(commands: list[Any]) -> list[str]:
    return [c.get("command", "?") if isinstance(c, dict) else "?" for c in commands]


async def board_drawn(phone: BoardPage) -> None:
    """The drawn dartboard is coloured as a board is: T20 red, S20 black, T1
    green, S1 cream, four colours (the views' styles reached the page)."""
    fills = [
        await phone.bed(bed).first.evaluate("e => getComputedStyle(e).fill")
        for bed in ("T20", "S20", "T1", "S1")
    ]
    assert len(set(fills)) == 4, f"the dartboard's T20, S20, T1, S1 are drawn {fills}"


async def pair(rig: PhoneRig, phone: BoardPage, by_link: bool) -> str:
    """Pair ``phone`` with the code the board's display shows (its QR
    link, or typed); the token the page keeps."""
    shown = await rig.pairing()
    code, url, devices = shown["code"], shown["url"], len(shown["devices"])
    assert url == f"{rig.board_url}#pair={code}"
    if by_link:  # a camera opens the QR code's link afresh
        await phone.page.goto("about:blank")
        await phone.page.goto(url)
        await phone.paired()
    else:
        await phone.pair_with_code(code, "Ann's phone")
    listed = await rig.pairing(lambda p: len(p["devices"]) == devices + 1)
    assert listed["code"] != code, "the board kept a code that was used"
    kept = await phone.page.evaluate(
        """Object.values(localStorage).map(v => {
            try { const kept = JSON.parse(v); return (kept && kept.token) || v; }
            catch (error) { return v; }
        })"""
    )
    async with httpx.AsyncClient(base_url=rig.web_url) as http:
        for token in kept:
            answer = await http.get(
                f"/api/boards/{BOARD}/pairing", headers={"Authorization": f"Bearer {token}"}
            )
            if answer.status_code == 200:
                assert answer.json()["paired"] is True, answer.text
                assert answer.json()["device"]["id"] == listed["devices"][-1]["id"]
                return str(token)
    raise AssertionError(f"the page keeps no token the service takes: {kept}")


async def play_through_the_page(rig: PhoneRig, phone: BoardPage) -> None:
    """A paired ``phone`` sets up, watches, corrects, finishes and rematches."""
    await phone.set_up_x01(301, "Ann", "Bob")
    state = await rig.state_where(lambda s: s.get("game") == "x01" and s["phase"] == "throwing")
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["options"]["start"] == 301 and scores(state) == [301, 301]
    await phone.shows_scores(301)
    await fits(phone)

    # Ann's darts, from the board to the page.
    await rig.throw("T20")
    await rig.state_where(lambda s: s["visit"] == ["T20"])
    await phone.shows_visit("T20")
    await phone.shows_scores(241)
    await rig.throw("S19")  # the board read a single; it was a treble
    await phone.shows_visit("T20", "S19")
    await phone.shows_scores(222)

    await phone.correct(2, "T19")
    state = await rig.state_where(lambda s: s["visit"] == ["T20", "T19"])
    assert scores(state) == [184, 301] and state["current_player"] == 0
    await phone.shows_visit("T20", "T19")
    await phone.shows_scores(184)
    await fits(phone)

    await rig.throw("T20")
    await rig.state_where(lambda s: scores(s) == [124, 301] and s["phase"] == "takeout")
    await phone.shows_scores(124)
    await phone.press("Next")
    await rig.state_where(lambda s: s["current_player"] == 1 and s["phase"] == "throwing")

    # Bob's misthrow taken back with UNDO.
    await rig.throw("S20")
    await rig.state_where(lambda s: s["current_player"] == 1 and s["visit"] == ["S20"])
    await phone.shows_visit("S20")
    await phone.shows_scores(281)
    await phone.press("Undo")
    state = await rig.state_where(lambda s: s["current_player"] == 1 and s["visit"] == [])
    assert scores(state) == [124, 301]
    await expect(phone.darts()).to_have_count(0, timeout=TIMEOUT_MS)
    await rig.throw("S1", "S1", "S1")
    await rig.state_where(lambda s: scores(s) == [124, 298] and s["phase"] == "takeout")
    await phone.press("Next")
    await rig.state_where(lambda s: s["current_player"] == 0 and s["phase"] == "throwing")

    # Ann checks out; the rematch starts from the page.
    await rig.throw("T20", "T20", "D2")
    state = await rig.state_where(lambda s: bool(s["finished"]))
    assert state["players"][state["winner"]]["name"] == "Ann"
    await expect(phone.scoreboard()).to_contain_text("Ann", timeout=TIMEOUT_MS)
    await fits(phone)
    await phone.press("Rematch")
    state = await rig.state_where(lambda s: not s["finished"] and s["phase"] == "throwing")
    assert sorted(p["name"] for p in state["players"]) == ["Ann", "Bob"]
    assert scores(state) == [301, 301] and state["visit"] == []
    await phone.shows_scores(301)
    await expect(phone.darts()).to_have_count(0, timeout=TIMEOUT_MS)
    await fits(phone)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-390x844", "desktop-1920x1080"])
async def test_a_paired_device_runs_a_301_on_the_real_board_and_others_change_nothing(
    tmp_path: Path, mosquitto: MosquittoBroker, size: tuple[int, int]
) -> None:
    async with (
        phone_rig(tmp_path, mosquitto) as rig,
        rig.page(size) as stranger,
        rig.page(size) as phone,
    ):
        by_link = size == PHONE
        await fits(stranger)
        assert await stranger.weight() < PAGE_WEIGHT
        elsewhere = [r.url for r in stranger.fetched if not r.url.startswith(rig.web_url)]
        assert elsewhere == [], "every asset is served by the venue's own service"
        await board_drawn(stranger)
        before, sent = in_game(rig), len(rig.commands())

        # Nobody paired yet: the page's controls and the API refuse.
        await page_refuses(stranger)
        await refused_over_http(rig, None, {401})
        await refused_over_http(rig, "made-up-token-" + "x" * 30, {401, 403})
        # The pairing's own command, relayed after them, is the first
        # to reach the board: the refused ones never went.
        token = await pair(rig, phone, by_link)
        assert kinds(rig.commands()[sent:]) == ["pair"]
        assert in_game(rig) == before

        await play_through_the_page(rig, phone)

        # The stranger's page still may not, during a game.
        during, sent = in_game(rig), len(rig.commands())
        await page_refuses(stranger)
        await refused_over_http(rig, None, {401})
        await fits(stranger)

        # Unpaired from the page, its old token is refused too.
        await phone.press("Unpair this device")
        await expect(phone.button("Pair this device")).to_be_visible(timeout=TIMEOUT_MS)
        await refused_over_http(rig, token, {401, 403})
        await page_refuses(phone)

        await pair(rig, phone, not by_link)  # and pairs again, the other way
        assert kinds(rig.commands()[sent:]) == ["pair"]
        assert in_game(rig) == during
        await fits(phone)
