"""A league's fixture played on a board, end to end: a real daemon on a real
Mosquitto, the service (``run_service``: its ingest and its caller) on a
SQLite file, the league made with ``oche league create`` and ``fixture``.
The service calls each of the fixture's three singles matches (301, first
to 2 legs) to the board in turn; each is confirmed with a dart and played
by the board's darts and NEXTs alone; its result decides the game, and the
standings the API gives after the fixture are right. A result entered by hand
while its call waits on the board takes the call back (call_cancelled) and
the board is free for the next game. A pairs game is called as a team game
and its team result decides it; a remote fixture's game waits while the away
board is busy, then is hosted by the home board with the away player at the
away board, and its one result decides the game."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from firmware_bridge.cli.main import main
from leaderboard.match_caller import POLL_S
from leaderboard.service import ServiceSettings, run_service
from mqtt_contract.scoreboard import call_words
from mqtt_contract.state_views import StateView
from tests.daemon.remote_pair import GUEST, GUEST_AT, HOST_AT, NEXT, remote_pair, thrower_board
from tests.daemon.test_match_calls import Board, connected
from tests.daemon_harness import TIMEOUT, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker, free_port

pytestmark = pytest.mark.slow

WINNER_STARTS = [["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]
"""A leg of 301 straight out its starter wins: 180, 3, then 121 out."""
LOSER_STARTS = [["S1"] * 3, ["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]
"""A leg its starter loses: 3, 180, 3, then 121 out."""


@contextlib.asynccontextmanager
async def service(settings: ServiceSettings) -> AsyncIterator[httpx.AsyncClient]:
    """``run_service`` as a task until its HTTP answers; a client of it."""
    task = asyncio.create_task(run_service(settings))
    base = f"http://127.0.0.1:{settings.http_port}"
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        try:
            async with asyncio.timeout(TIMEOUT):
                while not task.done():
                    with contextlib.suppress(httpx.HTTPError):
                        if (await http.get("/api/leagues")).status_code == 200:
                            break
                    await asyncio.sleep(0.05)
            if task.done():
                task.result()
            yield http
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def oche(*args: str) -> dict[str, Any]:
    """Run ``oche`` in this process; its JSON output."""
    import io
    import sys

    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(list(args)) == 0
    finally:
        sys.stdout = saved
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


async def play_leg(board: Board, watcher: Watcher, starter_wins: bool, leg: int) -> None:
    """Leg ``leg`` of the running match by the board's darts and NEXTs."""
    await watcher.state_where(
        lambda s: (s.get("match") or {}).get("leg") == leg and s["phase"] == "throwing"
    )
    for number, visit in enumerate(WINNER_STARTS if starter_wins else LOSER_STARTS):
        if number:
            board.source.press("next")
        for segment in visit:
            board.source.dart(segment)


async def play_called_match(
    board: Board, watcher: Watcher, players: list[str], legs: list[bool]
) -> dict[str, Any]:
    """Wait for the call of ``players``, confirm it with a dart, play its
    legs (each won by its starter or not), NEXT between legs; its result."""
    state = await watcher.state_where(
        lambda s: [p["name"] for p in (s.get("call") or {}).get("players", [])] == players
    )
    call_id = state["call"]["call_id"]
    board.source.dart("S5")  # confirms the call: not scored
    for leg, starter_wins in enumerate(legs, start=1):
        if leg > 1:
            await watcher.state_where(lambda s: (s.get("match") or {}).get("leg_over") is True)
            board.source.press("next")
        await play_leg(board, watcher, starter_wins, leg)
    result: dict[str, Any] = await watcher.wait_for(
        "result", lambda r: isinstance(r, dict) and r.get("call_id") == call_id
    )
    return result


async def league_now(http: httpx.AsyncClient, league: int) -> dict[str, Any]:
    answer: dict[str, Any] = (await http.get(f"/api/leagues/{league}")).json()
    return answer


async def test_a_fixture_of_three_singles_played_on_a_board_gives_the_standings(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    db_url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    db = ["--db", db_url]
    league = oche(
        "league", "create", "--name", "Thursday League", "--team", "Lions=Ann,Bob,Cy",
        "--team", "Tigers=Dan,Eve,Fay",
        "--format", "3*singles:x01:start=301:out=straight:legs=2", "--json", *db,
    )["id"]  # fmt: skip
    oche("league", "fixture", str(league), "--home", "Lions", "--away", "Tigers",
         "--board", "oche/board1", "--json", *db)  # fmt: skip
    settings = ServiceSettings(
        db_url=db_url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-league"
    )
    board = Board(tmp_path, mosquitto)
    try:
        await board.start()
        await connected(watcher)
        async with service(settings) as http:
            # Ann beats Dan 2-0 (Dan starts leg 2 and loses it); Eve beats Bob 2-0;
            # Cy beats Fay 2-1 (Fay wins the leg she starts, Cy the decider).
            first = await play_called_match(board, watcher, ["Ann", "Dan"], [True, False])
            assert first["legs_won"] == [2, 0]
            await play_called_match(board, watcher, ["Bob", "Eve"], [False, True])
            await play_called_match(board, watcher, ["Cy", "Fay"], [True, True, True])
            async with asyncio.timeout(TIMEOUT):
                while (await league_now(http, league))["fixtures"][0]["status"] != "finished":
                    await asyncio.sleep(0.1)
            shown = await league_now(http, league)
    finally:
        await board.stop()
    games = shown["fixtures"][0]["games"]
    assert [(g["winner"], g["home_legs"], g["away_legs"], g["source"]) for g in games] == [
        ("Lions", 2, 0, "oche"),
        ("Tigers", 0, 2, "oche"),
        ("Lions", 2, 1, "oche"),
    ]
    assert [
        (r["team"], r["played"], r["won"], r["lost"], r["games_for"], r["games_against"],
         r["legs_for"], r["legs_against"], r["points"])
        for r in shown["standings"]
    ] == [("Lions", 1, 1, 0, 2, 1, 4, 3, 2), ("Tigers", 1, 0, 1, 1, 2, 3, 4, 0)]  # fmt: skip
    matches_called = [
        e for e in watcher.of("event") if isinstance(e, dict) and e.get("type") == "match_called"
    ]
    assert len(matches_called) == 3


async def test_a_result_by_hand_takes_the_waiting_call_back_and_the_next_game_is_called(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    db_url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    db = ["--db", db_url]
    league = oche(
        "league", "create", "--name", "Thursday League", "--team", "Lions=Ann,Bob",
        "--team", "Tigers=Dan,Eve", "--format", "2*singles:x01:start=301:legs=1", "--json", *db,
    )["id"]  # fmt: skip
    fixture = oche("league", "fixture", str(league), "--home", "Lions", "--away", "Tigers",
                   "--board", "oche/board1", "--json", *db)["id"]  # fmt: skip
    settings = ServiceSettings(
        db_url=db_url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-league"
    )
    board = Board(tmp_path, mosquitto)
    try:
        await board.start()
        await connected(watcher)
        async with service(settings):
            await watcher.state_where(
                lambda s: (
                    [p["name"] for p in (s.get("call") or {}).get("players", [])] == ["Ann", "Dan"]
                )
            )
            # The night's first game was played on paper: its result by hand.
            assert main(["league", "result", str(fixture), "1", "--winner", "Dan",
                         "--legs", "1-0", *db]) == 0  # fmt: skip
            await watcher.state_where(
                lambda s: (
                    [p["name"] for p in (s.get("call") or {}).get("players", [])] == ["Bob", "Eve"]
                )
            )
    finally:
        await board.stop()
    cancelled = [
        e for e in watcher.of("event") if isinstance(e, dict) and e.get("type") == "call_cancelled"
    ]
    assert len(cancelled) == 1


async def test_a_pairs_game_is_called_as_a_team_game_and_its_result_decides_it(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    db_url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    db = ["--db", db_url]
    league = oche(
        "league", "create", "--name", "Thursday League", "--team", "Lions=Ann,Bob",
        "--team", "Tigers=Dan,Eve", "--format", "pairs:x01:start=301:out=straight:legs=1",
        "--json", *db,
    )["id"]  # fmt: skip
    oche("league", "fixture", str(league), "--home", "Lions", "--away", "Tigers",
         "--board", "oche/board1", "--json", *db)  # fmt: skip
    settings = ServiceSettings(
        db_url=db_url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-league"
    )
    board = Board(tmp_path, mosquitto)
    try:
        await board.start()
        await connected(watcher)
        async with service(settings) as http:
            state = await watcher.state_where(lambda s: "call" in s)
            assert call_words(StateView.from_json(state), "Board 1") == (
                "Next: Ann & Bob v Dan & Eve on Board 1"
            )
            board.source.dart("S5")  # confirms the call: not scored
            started = await watcher.state_where(lambda s: s["phase"] == "throwing")
            assert [t["name"] for t in started["teams"]] == ["Lions", "Tigers"]
            # Ann 180, Dan 3, Bob 121 out: the Lions win.
            for number, visit in enumerate(WINNER_STARTS):
                if number:
                    board.source.press("next")
                for segment in visit:
                    board.source.dart(segment)
            await watcher.wait_for("result", lambda r: isinstance(r, dict) and "teams" in r)
            async with asyncio.timeout(TIMEOUT):
                while (await league_now(http, league))["fixtures"][0]["status"] != "finished":
                    await asyncio.sleep(0.1)
            shown = await league_now(http, league)
    finally:
        await board.stop()
    (game,) = shown["fixtures"][0]["games"]
    assert (game["kind"], game["winner"], game["home_legs"], game["away_legs"]) == (
        "pairs",
        "Lions",
        1,
        0,
    )
    assert [(r["team"], r["won"], r["points"]) for r in shown["standings"]] == [
        ("Lions", 1, 2),
        ("Tigers", 0, 0),
    ]


async def test_a_remote_fixture_waits_for_both_boards_and_its_remote_match_decides_the_game(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    db_url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    db = ["--db", db_url]
    league = oche(
        "league", "create", "--name", "Thursday League", "--team", "Lions=Ann",
        "--team", "Tigers=Dan", "--format", "singles:x01:start=301:out=straight:legs=1",
        "--json", *db,
    )["id"]  # fmt: skip
    oche("league", "fixture", str(league), "--home", "Lions", "--away", "Tigers",
         "--board", HOST_AT, "--remote", GUEST, "--json", *db)  # fmt: skip
    settings = ServiceSettings(
        db_url=db_url, mqtt_url=mosquitto.url, http_port=free_port(), client_id="lb-league"
    )
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        # The away board is busy with a game of its own: the call waits.
        busy = {"command": "new_game", "game": "x01", "players": ["Gus"]}
        assert (await pair.guest_watch.command(busy))["ok"]
        await pair.guest_watch.state_where(lambda s: s["phase"] == "throwing")
        async with service(settings) as http:
            await asyncio.sleep(3 * POLL_S)  # several of the caller's passes
            assert "call" not in pair.host_watch.of("state")[-1]
            assert (await league_now(http, league))["fixtures"][0]["games"][0]["status"] == (
                "ready"
            )
            assert (await pair.guest_watch.command({"command": "end_game"}))["ok"]
            state = await pair.host_watch.state_where(lambda s: "call" in s)
            assert call_words(StateView.from_json(state)) == f"Next: Ann v Dan (at {GUEST})"
            shown = await league_now(http, league)
            assert shown["fixtures"][0]["away_board"] == GUEST
            assert shown["fixtures"][0]["games"][0]["board"] == HOST_AT

            await throw(pair.host.board, "S5")  # the home board's dart confirms it
            state = await pair.host_watch.state_where(
                lambda s: s["phase"] == "throwing" and s.get("remote", {}).get("waiting") == []
            )
            assert [p["board"] for p in state["players"]] == [HOST_AT, GUEST_AT]
            await throw(pair.host.board, "T20", "T20", "T20")
            await press(pair.host.board, NEXT)
            await pair.host_watch.state_where(lambda s: thrower_board(s) == GUEST_AT)
            await throw(pair.guest.board, "S1", "S1", "S1")  # Dan, at the away board
            await pair.host_watch.state_where(lambda s: s["players"][1]["score"] == 298)
            await press(pair.guest.board, NEXT)
            await pair.host_watch.state_where(
                lambda s: thrower_board(s) == HOST_AT and s["phase"] == "throwing"
            )
            await throw(pair.host.board, "T20", "T20", "S1")
            result = await pair.host_watch.wait_for("result", lambda r: isinstance(r, dict))
            assert result["match"] == state["remote"]["match"]
            async with asyncio.timeout(TIMEOUT):
                while (await league_now(http, league))["fixtures"][0]["status"] != "finished":
                    await asyncio.sleep(0.1)
            shown = await league_now(http, league)
    (game,) = shown["fixtures"][0]["games"]
    assert (game["winner"], game["home_legs"], game["away_legs"], game["result_id"]) == (
        "Lions",
        1,
        0,
        result["result_id"],
    )
