"""Issue #25's tournament, end to end with the real parts on one Mosquitto: a
round robin of three created with ``oche tournament create`` (in-process,
on the service's SQLite file); the leaderboard service (``run_service``:
the caller, the ingest) calls each match in turn to the one simulated board
(a real daemon reading a fake board on a pty); each match is started and
played by darts on the board and its NEXT button only, the test sending the
board no command; and ``oche tournament show --json`` gives the right
winners and standings."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli.main import main
from leaderboard.database import Database
from leaderboard.service import ServiceSettings
from leaderboard.venues import VenueMap
from tests.daemon_harness import TIMEOUT, Running, Watcher, press, throw
from tests.leaderboard.test_service import service
from tests.mosquitto_broker import MosquittoBroker, free_port

pytestmark = pytest.mark.slow

TAKEOUT_S = 600.0
"""The board's takeout timer: longer than the test, so NEXT ends each visit."""
NEXT = 0
"""The fake board's NEXT button (tests/daemon_harness.py's BUTTONS)."""
FIRST_WINS = [["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]
"""301 straight out: the first player checks out in their second visit."""
SECOND_WINS = [["S1"] * 3, ["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]
"""301 straight out: the second player checks out in their second visit."""

CREATE = ["--format", "round-robin", "--game", "x01", "-o", "start=301", "-o", "out=straight",
          "--legs", "1", "--board", "board1", "-p", "Ann", "-p", "Bob", "-p", "Cy",
          "--title", "Friday Cup", "--json"]  # fmt: skip
"""``oche tournament create``'s arguments (the database aside)."""
MATCHES = [
    ("R1-1", ["Bob", "Cy"], "Cy"),
    ("R2-1", ["Cy", "Ann"], "Ann"),
    ("R3-1", ["Ann", "Bob"], "Ann"),
]
"""The round robin's matches in the order they are called, and who wins each."""


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user config (``oche`` then uses mqtt.base ``oche``)."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def oche(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``oche ARGS`` in-process: it exits 0; what it printed (the root
    logger's handlers put back after: ``main()`` sets up its own)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        status = main(list(args))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


async def until_shown(
    capsys: pytest.CaptureFixture[str], db: str, made: int, holds: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """``oche tournament show ID --json`` once ``holds`` it; fails after TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        view: dict[str, Any] = json.loads(
            oche(capsys, "tournament", "show", str(made), "--json", "--db", db)
        )
        if holds(view):
            return view
        assert time.monotonic() < deadline, f"the tournament never got there: {view['matches']}"
        await asyncio.sleep(0.2)


def takeout(state: dict[str, Any]) -> bool:
    """The board waits for the darts to be taken out (NEXT goes on)."""
    return bool(state["phase"] == "takeout")


def calls(players: list[str], state: dict[str, Any]) -> bool:
    """The board shows the match of ``players`` called, waiting to be started."""
    call = state.get("call") or {}
    return [player["name"] for player in call.get("players") or []] == players


def plays(players: list[str], state: dict[str, Any]) -> bool:
    """The board plays a game of ``players``."""
    return bool(state["phase"] == "throwing" and [p["name"] for p in state["players"]] == players)


def in_leg(leg: int, state: dict[str, Any]) -> bool:
    """The board plays the match's leg ``leg``."""
    return bool(state["phase"] == "throwing" and (state.get("match") or {}).get("leg") == leg)


def finished(key: str, view: dict[str, Any]) -> bool:
    """The tournament's match ``key`` is finished."""
    return any(m["id"] == key and m["status"] == "finished" for m in view["matches"])


async def test_a_round_robin_of_three_is_called_to_one_board_and_played_by_darts(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(db)
    database.migrate()
    database.dispose()
    settings = ServiceSettings(
        db_url=db,
        mqtt_url=mosquitto.url,
        http_port=free_port(),
        venues=VenueMap(boards={"board1": "The Crown"}),
        client_id="lb-tournament-e2e",
    )
    # a long takeout: only the players' NEXT ends a visit
    async with Running(tmp_path, mosquitto, takeout_s=TAKEOUT_S) as running, service(settings):
        await watcher.state_where(lambda s: s.get("board", {}).get("connected") is True)
        made = json.loads(oche(capsys, "tournament", "create", "--db", db, *CREATE))["id"]
        commands_before = len(watcher.of("cmd"))
        for key, players, winner in MATCHES:
            state = await watcher.state_where(partial(calls, players))
            assert state["phase"] in ("idle", "finished")
            assert state["call"]["title"] == "Friday Cup, round " + key[1]
            await throw(running.board, "S5")  # the players confirm with a dart: not scored
            state = await watcher.state_where(partial(plays, players))
            assert [player["score"] for player in state["players"]] == [301, 301]
            visits = FIRST_WINS if players.index(winner) == 0 else SECOND_WINS
            for visit in visits[:-1]:  # each visit, then NEXT after the takeout
                await throw(running.board, *visit)
                await watcher.state_where(takeout)
                await press(running.board, NEXT)
                await watcher.state_where(lambda s: s["phase"] == "throwing" and not s["visit"])
            await throw(running.board, *visits[-1])
            state = await watcher.state_where(lambda s: s["phase"] == "finished")
            assert state["players"][state["winner"]]["name"] == winner
            await until_shown(
                capsys,
                db,
                made,
                partial(finished, key),
            )
        view = await until_shown(capsys, db, made, lambda v: v["status"] == "finished")
        # nothing but the service's calls (and no test command) reached the board's cmd topic
        sent = [c for c in watcher.of("cmd")[commands_before:] if isinstance(c, dict)]
        assert {c.get("command") for c in sent} == {"call_match"}
    assert [
        (m["id"], m["players"], m["status"], m["winner"], m["legs"]) for m in view["matches"]
    ] == [
        (key, players, "finished", winner, [1, 0] if players.index(winner) == 0 else [0, 1])
        for key, players, winner in MATCHES
    ]
    assert {m["board"] for m in view["matches"]} == {"oche/board1"}
    assert view["champion"] == "Ann"
    assert [
        (r["place"], r["player"], r["played"], r["won"], r["legs_won"], r["legs_lost"], r["points"])
        for r in view["standings"]
    ] == [(1, "Ann", 2, 2, 2, 0, 4), (2, "Cy", 2, 1, 1, 1, 2), (3, "Bob", 2, 0, 0, 2, 0)]


async def test_a_match_of_legs_is_called_played_leg_by_leg_and_counts_its_legs(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """First to 2 legs: Ann throws first in leg 1 and wins it, Bob throws first
    in leg 2 (alternate) and Ann wins it too; the board's NEXT starts leg 2;
    the match's one result decides the tournament, legs 2-0."""
    db = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    Database(db).migrate()
    settings = ServiceSettings(
        db_url=db,
        mqtt_url=mosquitto.url,
        http_port=free_port(),
        venues=VenueMap(boards={"board1": "The Crown"}),
        client_id="lb-tournament-legs-e2e",
    )
    create = [*CREATE[: CREATE.index("--legs") + 1], "2", "--board", "board1"]
    create += ["-p", "Ann", "-p", "Bob", "--json"]
    async with Running(tmp_path, mosquitto, takeout_s=TAKEOUT_S) as running, service(settings):
        await watcher.state_where(lambda s: s.get("board", {}).get("connected") is True)
        made = json.loads(oche(capsys, "tournament", "create", "--db", db, *create))["id"]
        await watcher.state_where(partial(calls, ["Ann", "Bob"]))
        await press(running.board, NEXT)  # the players confirm with NEXT this time
        await watcher.state_where(partial(plays, ["Ann", "Bob"]))
        for leg, visits in ((1, FIRST_WINS), (2, SECOND_WINS)):  # Bob starts leg 2
            state = await watcher.state_where(partial(in_leg, leg))
            assert state["current_player"] == leg - 1
            for visit in visits[:-1]:
                await throw(running.board, *visit)
                await watcher.state_where(takeout)
                await press(running.board, NEXT)
                await watcher.state_where(lambda s: s["phase"] == "throwing" and not s["visit"])
            await throw(running.board, *visits[-1])
            if leg == 1:
                await watcher.state_where(lambda s: bool(s["match"]["leg_over"]))
                await press(running.board, NEXT)  # the next leg
        state = await watcher.state_where(lambda s: s["phase"] == "finished")
        assert state["match"]["legs_won"] == [2, 0]
        view = await until_shown(capsys, db, made, lambda v: v["status"] == "finished")
    (match,) = view["matches"]
    assert (match["winner"], match["legs"]) == ("Ann", [2, 0])
    assert [(r["player"], r["won"], r["legs_won"], r["legs_lost"]) for r in view["standings"]] == [
        ("Ann", 1, 2, 0),
        ("Bob", 0, 0, 2),
    ]
