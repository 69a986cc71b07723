"""docs/phone.md's screenshots of the board page, taken by Playwright in
Debian's chromium against the real parts (tests/phone_rig.py: a daemon on a
pty board, the venue's web service, one private Mosquitto): a 501 for Ann
and Bob, a visit in progress, on a paired phone (390x844) and a paired tablet
(820x1180). ``python -m tests.phone_screenshots [FOLDER]`` writes
``phone-board.png`` and ``tablet-board.png`` (default: docs/images)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tests.mosquitto_broker import MosquittoBroker
from tests.paths import REPO
from tests.phone_rig import PHONE, TABLET, BoardPage, PhoneRig, phone_rig, scores

__all__ = ["take"]

SHOTS = {"phone-board.png": PHONE, "tablet-board.png": TABLET}


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
        finally:
            broker.stop()
    return saved


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "images"
    for path in asyncio.run(take(out)):
        print(path)
