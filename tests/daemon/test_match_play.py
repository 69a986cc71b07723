"""Match play on a real daemon (docs/matches.md, "Match play"): a real
Mosquitto, the daemon reading a pty board, a real SQLite journal; a match
started over MQTT with ``new_game``'s ``match``, its legs thrown by commands
and darts at the board, NEXT between legs, undo across a leg's start, and a
``kill -9`` of ``oche run`` mid-match that loses nothing."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from firmware_bridge.daemon.journal import Journal
from tests.daemon_harness import TIMEOUT, OcheRun, Running, Watcher, config_text, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
STRAIGHT_301 = {"start": 301, "out": "straight"}
# A leg of 301 straight out the starter wins in their second visit: 180,
# then 121 by T20 T20 S1; the other player throws S1 S1 S1 between.
STARTER_WINS = [["T20", "T20", "T20"], ["S1", "S1", "S1"], ["T20", "T20", "S1"]]
SECOND_WINS = [["S1", "S1", "S1"], ["T20", "T20", "T20"], ["S1", "S1", "S1"], ["T20", "T20", "S1"]]


async def ok(watcher: Watcher, payload: dict[str, Any]) -> dict[str, Any]:
    response = await watcher.command(payload)
    assert response["ok"] is True, response
    return response


async def visits(watcher: Watcher, thrown: list[list[str]]) -> None:
    """Each visit by ``dart`` commands, NEXT between them (not after the last)."""
    for number, visit in enumerate(thrown):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})


def match_of(state: dict[str, Any]) -> dict[str, Any]:
    match = state.get("match")
    return match if isinstance(match, dict) else {}


def outbox_ids(journal_path: Path) -> list[str]:
    """The result id of every row the journal's outbox holds, oldest first
    (rows stay once a leaderboard stored them)."""
    with contextlib.closing(sqlite3.connect(journal_path)) as connection:
        return [str(row[0]) for row in connection.execute("SELECT result_id FROM outbox")]


def check_the_match_result(result: dict[str, Any]) -> None:
    """The one result of Ann's 2-0: both legs, each with its log, winner and starter."""
    assert result["match_format"]["legs"] == 2, result
    assert result["winner_name"] == "Ann" and result["legs_won"] == [2, 0], result
    first, second = result["legs"]
    assert (first["leg"], first["starter"], first["winner"]) == (1, 0, 0)
    assert (second["leg"], second["starter"], second["winner"]) == (2, 1, 0)
    assert first["log"].splitlines() == ["# first: 0", *(" ".join(v) for v in STARTER_WINS)]
    assert second["log"].splitlines() == ["# first: 1", *(" ".join(v) for v in SECOND_WINS)]
    assert "log" not in result  # a match's logs are its legs'


async def test_a_301_match_first_to_two_legs_over_mqtt(
    tmp_path: Path, running: Running, watcher: Watcher
) -> None:
    """The issue's Done-when: Ann wins leg 1, Bob throws first in leg 2
    (alternate), Ann wins leg 2: legs 2-0, the match finished, one result
    carrying both legs."""
    await watcher.state_where(lambda s: s["board"]["connected"])
    await ok(
        watcher,
        {
            "command": "new_game",
            "game": "x01",
            "options": STRAIGHT_301,
            "players": ["Ann", "Bob"],
            "match": {"legs": 2},
        },
    )
    state = await watcher.state_where(lambda s: match_of(s).get("leg") == 1)
    assert match_of(state)["starter"] == 0 and state["current_player"] == 0

    await visits(watcher, STARTER_WINS)
    won = await watcher.wait_for("event", lambda e: e.get("type") == "leg_won")
    assert (won["player"], won["leg"], won["legs_won"], won["match_won"]) == (0, 1, [1, 0], False)
    state = await watcher.state_where(lambda s: match_of(s).get("leg_over") is True)
    assert state["phase"] == "takeout" and match_of(state)["legs_won"] == [1, 0]
    # A dart between legs is not scored: the leg is over until NEXT.
    refused = await watcher.command({"command": "dart", "segment": "T20"})
    assert refused["ok"] is False, refused

    await ok(watcher, {"command": "next"})
    started = await watcher.wait_for("event", lambda e: e.get("type") == "leg_started")
    assert (started["leg"], started["starter"]) == (2, 1)
    state = await watcher.state_where(lambda s: match_of(s).get("leg") == 2)
    assert state["current_player"] == 1 and state["players"][0]["score"] == 301
    assert match_of(state)["starter"] == 1

    await visits(watcher, SECOND_WINS)
    state = await watcher.state_where(lambda s: s.get("phase") == "finished")
    match = match_of(state)
    assert match["legs_won"] == [2, 0] and match["finished"] is True, match
    assert (match["winner"], state["winner"]) == (0, 0)
    assert [leg["starter"] for leg in match["played"]] == [0, 1]
    won = await watcher.wait_for("event", lambda e: e.get("type") == "leg_won" and e["leg"] == 2)
    assert won["match_won"] is True and won["legs_won"] == [2, 0]
    await watcher.wait_for("event", lambda e: e.get("type") == "game_over")

    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    check_the_match_result(result)
    assert len(watcher.of("result")) == 1
    await running.stop()
    assert outbox_ids(tmp_path / "journal.sqlite3") == [result["result_id"]]
    with Journal(tmp_path / "journal.sqlite3") as journal:
        [game] = journal.games.games()
        assert (game.status, game.match) == (
            "finished",
            {"legs": 2, "sets": None, "starts": "alternate", "decider": None},
        )
        assert game.revision == 1  # one result: the match's


def history(journal: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(OCHE), "history", "--journal", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def test_a_match_killed_mid_match_resumes_and_undoes_across_the_legs(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """``kill -9`` of ``oche run`` in leg 2: the restarted daemon has the
    match as it was (leg 1 won by Ann, Bob's dart of leg 2); UNDO takes back
    Bob's dart, then, across the leg's start, Ann's winning dart of leg 1;
    she wins it again, NEXT, and the match ends with one result."""
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    daemon = OcheRun(config)
    try:
        daemon.start()
        await watcher.state_where(lambda s: s["board"]["connected"])
        await ok(
            watcher,
            {
                "command": "new_game",
                "game": "x01",
                "options": STRAIGHT_301,
                "players": ["Ann", "Bob"],
                "match": {"legs": 2},
            },
        )
        await visits(watcher, STARTER_WINS)
        await watcher.state_where(lambda s: match_of(s).get("leg_over") is True)
        await ok(watcher, {"command": "next"})
        await throw(board, "S5")  # Bob's first dart of leg 2, at the board
        await watcher.state_where(lambda s: s.get("visit") == ["S5"])
        assert daemon.process is not None
        daemon.process.kill()  # kill -9: no clean close
        daemon.process.wait(timeout=TIMEOUT)
        watcher.messages.clear()

        daemon.start()
        state = await watcher.state_where(
            lambda s: s["board"]["connected"] and match_of(s).get("leg") == 2
        )
        assert (state["visit"], state["current_player"], state["phase"]) == (["S5"], 1, "throwing")
        assert match_of(state)["legs_won"] == [1, 0] and match_of(state)["starter"] == 1

        await ok(watcher, {"command": "undo"})  # Bob's S5
        state = await watcher.state_where(lambda s: s.get("visit") == [] and "match" in s)
        assert match_of(state)["leg"] == 2
        await ok(watcher, {"command": "undo"})  # across the leg's start: Ann's winning S1
        state = await watcher.state_where(lambda s: match_of(s).get("leg") == 1)
        assert state["visit"] == ["T20", "T20"] and state["current_player"] == 0
        assert match_of(state)["legs_won"] == [0, 0] and match_of(state)["leg_over"] is False
        await ok(watcher, {"command": "dart", "segment": "S1"})
        await watcher.state_where(lambda s: match_of(s).get("leg_over") is True)
        await ok(watcher, {"command": "next"})
        await watcher.state_where(lambda s: match_of(s).get("leg") == 2)
        await visits(watcher, SECOND_WINS)
        state = await watcher.state_where(lambda s: s.get("phase") == "finished")
        assert match_of(state)["legs_won"] == [2, 0]
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        check_the_match_result(result)
    finally:
        daemon.stop()
        board.close()
    assert daemon.clean_errors() == []
    assert len(watcher.of("result")) == 1
    assert outbox_ids(tmp_path / "journal.sqlite3") == [result["result_id"]]
    [entry] = history(tmp_path / "journal.sqlite3")
    assert (entry["status"], entry["winner"], entry["match"]["legs"]) == ("finished", "Ann", 2)
    assert entry["legs_won"] == [2, 0]


async def test_computer_players_throw_every_leg_and_their_cork_at_the_bull(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Two computer players: a match first to 1 leg with a cork (the only leg
    decides), whose winning cork dart is a bull; then a 301 match first to 2
    legs, in which they throw every leg and press NEXT after their own won
    leg (no takeout timer): each match ends with one result of every leg."""
    bots = "\n[bot]\ndart_interval_s = 0.02\ntakeout_s = 0.05\n"
    players = [{"name": "Robo", "cpu": 9}, {"name": "Tin", "cpu": 9}]
    async with (
        Running(tmp_path, mosquitto, extra=bots),
        Watcher(mosquitto.host, mosquitto.port) as watcher,
    ):
        await watcher.state_where(lambda s: s["board"]["connected"])
        command = {"command": "new_game", "game": "x01", "options": STRAIGHT_301}
        await ok(watcher, {**command, "players": players, "match": {"legs": 1, "decider": "cork"}})
        cork = await watcher.wait_for("event", lambda e: e.get("type") == "cork_won", timeout=60)
        events = watcher.of("event")
        darts = [e for e in events[: events.index(cork)] if e.get("type") == "dart"]
        last_round = {e["player"]: e["segment"] for e in darts[-2:]}
        assert last_round[cork["player"]] in ("SB", "DB"), darts  # DB beats SB beats the rest
        first = await watcher.wait_for("result", lambda p: isinstance(p, dict), timeout=120)
        [leg] = first["legs"]
        assert leg["starter"] == cork["player"] and first["match_format"]["decider"] == "cork"

        watcher.messages.clear()
        await ok(watcher, {**command, "players": players, "match": {"legs": 2}})
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict), timeout=120)
        state = await watcher.state_where(lambda s: s.get("phase") == "finished")
    match = match_of(state)
    assert match["finished"] is True and max(match["legs_won"]) == 2, match
    assert len(result["legs"]) == len(match["played"]) in (2, 3)
    assert [leg["starter"] for leg in result["legs"]] == [0, 1, 0][: len(result["legs"])]
    darts = [e for e in watcher.of("event") if e.get("type") == "dart"]
    assert darts and all(e["source"] == "cpu" for e in darts)
    assert len(watcher.of("result")) == 1
