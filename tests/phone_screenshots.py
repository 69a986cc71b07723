"""docs/phone.md's screenshots of the board page, taken by Playwright in
Debian's chromium against the real parts (tests/phone_rig.py: a daemon on a
pty board, the venue's web service, one private Mosquitto): a 501 for Ann
and Bob, a visit in progress, on a paired phone (390x844) and a paired tablet
(820x1180); and docs/matches.md's: a 301 first to 2 legs on the phone, in
leg 2 at 1-0 with Bob throwing first. ``python -m tests.phone_screenshots
[FOLDER]`` writes ``phone-board.png``, ``tablet-board.png`` and
``phone-match.png`` (default: docs/images)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.mosquitto_broker import MosquittoBroker
from tests.paths import REPO
from tests.phone_rig import PHONE, TABLET, BoardPage, PhoneRig, phone_rig, scores

__all__ = ["take"]

SHOTS = {"phone-board.png": PHONE, "tablet-board.png": TABLET}
MATCH_SHOT = "phone-match.png"


async def paired(rig: PhoneRig, page: BoardPage) -> None:
    """Pair ``page`` with the code the board's display shows now."""
    shown = await rig.pairing()
    await page.pair_with_code(shown["code"], "Bar tablet" if page.width > 600 else "Ann's phone")
    await rig.pairing(lambda p: p["code"] != shown["code"])


async def a_game_under_way(rig: PhoneRig, page: BoardPage) -> None:
    """A 501 set up from the page, one visit each thrown, Ann's second begun."""
    watcher = rig.watcher
    await page.set_up_x01(501, "Ann", "Bob")
    await watcher.state_where(lambda s: s.get("game") == "x01" and s["phase"] == "throwing")
    await rig.throw("T20", "T20", "S20")
    await watcher.state_where(lambda s: scores(s) == [361, 501] and s["phase"] == "takeout")
    await page.press("Next")
    await watcher.state_where(lambda s: s["current_player"] == 1 and s["phase"] == "throwing")
    await rig.throw("S20", "T5", "S1")
    await watcher.state_where(lambda s: scores(s) == [361, 465] and s["phase"] == "takeout")
    await page.press("Next")
    await watcher.state_where(lambda s: s["current_player"] == 0 and s["phase"] == "throwing")
    await rig.throw("T20", "S19")
    await watcher.state_where(lambda s: scores(s) == [282, 465])
    await page.shows_visit("T20", "S19")


def leg_of(state: dict[str, Any]) -> int | None:
    """The leg being played, ``None`` for a single game."""
    match = state.get("match")
    return match.get("leg") if isinstance(match, dict) else None


async def visit(rig: PhoneRig, page: BoardPage, *darts: str) -> None:
    """Darts on the board, then NEXT on the page once the board is in takeout."""
    await rig.throw(*darts)
    await rig.watcher.state_where(lambda s: s["phase"] == "takeout")
    await page.press("Next")
    await rig.watcher.state_where(lambda s: s["phase"] == "throwing" and s["visit"] == [])


async def a_match_under_way(rig: PhoneRig, page: BoardPage) -> None:
    """A 301 first to 2 legs set up from the page; Ann wins leg 1 (180, then
    121 out), NEXT starts leg 2 and Bob, throwing first, has begun his visit."""
    panel = page.page.locator("#setup")
    await page.tap(panel.locator("summary"))
    await panel.get_by_label("Legs to win").select_option(label="First to 2 legs")
    await page.set_up_x01(301, "Ann", "Bob")
    await rig.watcher.state_where(lambda s: leg_of(s) == 1 and s["phase"] == "throwing")
    await visit(rig, page, "T20", "T20", "T20")
    await visit(rig, page, "S1", "S1", "S1")
    await visit(rig, page, "T20", "T19", "D2")  # the leg: NEXT starts leg 2
    await rig.watcher.state_where(lambda s: leg_of(s) == 2 and s["current_player"] == 1)
    await rig.throw("T20", "S20")
    await rig.watcher.state_where(lambda s: s.get("visit") == ["T20", "S20"])
    await page.shows_visit("T20", "S20")


async def take(folder: Path) -> list[Path]:
    """Run every part, play, and save each screenshot in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="oche-phone-shots-") as scratch:
        workdir = Path(scratch)
        broker = MosquittoBroker(workdir / "mosquitto")
        broker.start()
        try:
            async with phone_rig(workdir, broker) as rig:
                for number, (name, size) in enumerate(SHOTS.items()):
                    async with rig.page(size) as page:
                        await paired(rig, page)
                        if number == 0:
                            await a_game_under_way(rig, page)
                        await page.shows_visit("T20", "S19")
                        await page.page.evaluate("window.scrollTo(0, 0)")
                        path = folder / name
                        await page.page.screenshot(path=str(path))
                        if page.unexpected_errors():
                            errors = page.unexpected_errors()
                            raise RuntimeError(f"the page logged errors: {errors}")
                        saved.append(path)
            (workdir / "match").mkdir()
            async with phone_rig(workdir / "match", broker) as rig, rig.page(PHONE) as page:
                await paired(rig, page)
                await a_match_under_way(rig, page)
                await page.page.evaluate("window.scrollTo(0, 0)")
                path = folder / MATCH_SHOT
                await page.page.screenshot(path=str(path))
                if page.unexpected_errors():
                    raise RuntimeError(f"the page logged errors: {page.unexpected_errors()}")
                saved.append(path)
        finally:
            broker.stop()
    return saved


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "images"
    for path in asyncio.run(take(out)):
        print(path)
