"""A match on the board page, end to end (docs/matches.md "On the screens",
docs/phone.md): a paired phone (390x844) sets up a 301 first to 2 legs on a
real board through its venue's service; the page shows the leg and who
throws first, Ann's checkout brings the board's ``leg_won`` event over the
page's live stream as "Game shot, and the first leg" with the legs score,
NEXT on the page starts leg 2 with Bob throwing first, and Ann's second leg
is "Game shot, and the match", 2-0. Real parts throughout
(tests/phone_rig.py): the daemon on a pty board, ``run_service``, chromium,
one Mosquitto."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tests.browser import chromium_path
from tests.daemon_harness import TIMEOUT
from tests.mosquitto_broker import MosquittoBroker
from tests.phone_rig import PHONE, BoardPage, PhoneRig, phone_rig, scores
from tests.test_phone_end_to_end import fits, pair

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed"),
]

TIMEOUT_MS = TIMEOUT * 1000


def match_of(state: dict[str, Any]) -> dict[str, Any]:
    """The state's match block (empty for a single game)."""
    block = state.get("match")
    return block if isinstance(block, dict) else {}


async def visit(rig: PhoneRig, phone: BoardPage, darts: tuple[str, str, str]) -> None:
    """Three darts on the board, then NEXT on the page once the board is in takeout."""
    await rig.throw(*darts)
    await rig.state_where(lambda s: s["phase"] == "takeout")
    await phone.press("Next")
    await rig.state_where(lambda s: s["phase"] == "throwing" and s["visit"] == [])


async def set_up_match(rig: PhoneRig, phone: BoardPage) -> None:
    """Pair ``phone`` and start a 301 (double out) first to 2 legs of Ann and Bob from its panel."""
    await pair(rig, phone, by_link=True)
    panel = phone.page.locator("#setup")
    await phone.tap(panel.locator("summary"))
    await panel.get_by_label("Legs to win").select_option(label="First to 2 legs")
    await phone.set_up_x01(301, "Ann", "Bob")
    state = await rig.state_where(lambda s: match_of(s).get("leg") == 1)
    assert match_of(state)["format"]["legs"] == 2 and scores(state) == [301, 301]
    sent = [c for c in rig.commands() if isinstance(c, dict) and c.get("command") == "new_game"]
    assert sent[-1]["match"] == {"legs": 2, "starts": "alternate"}


async def first_leg_to_ann(rig: PhoneRig, phone: BoardPage) -> None:
    """Leg 1: Ann 180, Bob 3, Ann checks out 121 (T20 T19 D2); NEXT on the
    page starts leg 2, thrown first by Bob (alternate)."""
    match = phone.page.locator("#scoreboard .bv-match")
    await expect(match).to_contain_text("Leg 1", timeout=TIMEOUT_MS)
    await expect(match).to_contain_text("Ann throws first")
    await expect(phone.page.get_by_role("table", name="Legs 0-0")).to_be_visible()
    await fits(phone)
    await visit(rig, phone, ("T20", "T20", "T20"))
    await visit(rig, phone, ("S1", "S1", "S1"))
    await rig.throw("T20", "T19", "D2")
    state = await rig.state_where(lambda s: bool(match_of(s).get("leg_over")))
    assert match_of(state)["legs_won"] == [1, 0]
    banner = phone.page.locator("#leg-won")
    await expect(banner).to_be_visible(timeout=TIMEOUT_MS)
    await expect(phone.page.locator("#leg-won-words")).to_have_text("Game shot, and the first leg")
    await expect(phone.page.locator("#leg-won-score")).to_have_text("Ann · Legs 1-0")
    await expect(phone.page.locator("#scoreboard .bv-banner-leg-won")).to_have_text(
        "Ann wins the first leg", timeout=TIMEOUT_MS
    )
    await fits(phone)

    await phone.press("Next")
    state = await rig.state_where(lambda s: match_of(s).get("leg") == 2)
    assert match_of(state)["starter"] == 1 and state["current_player"] == 1
    await expect(banner).to_be_hidden(timeout=TIMEOUT_MS)
    await expect(match).to_contain_text("Leg 2", timeout=TIMEOUT_MS)
    await expect(match).to_contain_text("Bob throws first")
    await expect(phone.page.get_by_role("table", name="Legs 1-0")).to_be_visible()
    await fits(phone)


async def test_a_301_match_on_the_board_page_shows_legs_and_the_leg_won_banner(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with phone_rig(tmp_path, mosquitto) as rig, rig.page(PHONE) as phone:
        await set_up_match(rig, phone)
        await first_leg_to_ann(rig, phone)


async def test_the_match_s_last_leg_is_game_shot_and_the_match(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with phone_rig(tmp_path, mosquitto) as rig, rig.page(PHONE) as phone:
        await set_up_match(rig, phone)
        await first_leg_to_ann(rig, phone)
        # Leg 2: Bob 3, Ann 180, Bob 3, Ann checks out 121 again: the match, 2-0.
        await visit(rig, phone, ("S1", "S1", "S1"))
        await visit(rig, phone, ("T20", "T20", "T20"))
        await visit(rig, phone, ("S1", "S1", "S1"))
        await rig.throw("T20", "T19", "D2")
        state = await rig.state_where(lambda s: bool(match_of(s).get("finished")))
        assert match_of(state)["legs_won"] == [2, 0] and match_of(state)["winner"] == 0
        await expect(phone.page.locator("#leg-won-words")).to_have_text(
            "Game shot, and the match", timeout=TIMEOUT_MS
        )
        await expect(phone.page.locator("#scoreboard .bv-banner-finished")).to_have_text(
            "Ann wins the match 2-0", timeout=TIMEOUT_MS
        )
        await fits(phone)
