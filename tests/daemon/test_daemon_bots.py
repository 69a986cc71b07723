"""Playing against the computer on a board: a real Mosquitto, a pty board and
the daemon throwing for its computer players (paced, ``source: "cpu"``),
refusing the board while they throw, undoing their darts, and a bot's visit
surviving ``kill -9`` of the real ``oche run`` with no dart doubled."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine import parse_event
from engine.bot_levels import level
from firmware_bridge.daemon.bots import Bots
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from firmware_bridge.daemon.journal import Journal, JournalGame
from firmware_bridge.daemon.off_loop import SolveWorker
from mqtt_contract import Phase
from tests.daemon_harness import TIMEOUT, Running, Watcher, config_text, press, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
INTERVAL = 0.05
PAUSE = 0.1


def bot_section(interval: float = INTERVAL, pause: float = PAUSE) -> str:
    return f"\n[bot]\ndart_interval_s = {interval}\ntakeout_s = {pause}\n"


@pytest.fixture
async def paced(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Running]:
    """The daemon in this process, its bots throwing every 50 ms."""
    daemon = Running(tmp_path, mosquitto, extra=bot_section())
    await daemon.start()
    try:
        async with Watcher(mosquitto.host, mosquitto.port) as watching:
            await watching.wait_for("availability", lambda p: p == "online")
        yield daemon
    finally:
        await daemon.stop()
        daemon.board.close()


def darts_of(watcher: Watcher, player: int | None = None) -> list[dict[str, Any]]:
    return [
        event
        for event in watcher.of("event")
        if event.get("type") == "dart" and player in (None, event["player"])
    ]


def journal_game(tmp_path: Path) -> JournalGame:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        [listed] = journal.games.games()
        return journal.games.game(listed.id)


def assert_every_bot_dart_follows_from_the_journal(game: JournalGame) -> list[str]:
    """Replay the journal: each dart a computer player threw is the one its
    seed and the events before it give (so no dart was thrown twice or
    redrawn after a restart). Returns the bots' darts."""
    assert game.bots is not None
    bots = Bots.from_json(game.game, game.bots)
    session = GameSession(SessionSetup(game.game, game.options, game.players, game.teams))
    thrown = []
    for token in game.events:
        event = parse_event(token)
        state = session.game.state()
        player = state["players"][state["current_player"]]["name"]
        if player in bots.players and token not in ("NEXT", "UNDO"):
            assert token == bots.throw(state, session.applied).notation, (token, len(thrown))
            thrown.append(token)
        session.apply(event, 0.0)
    return thrown


async def test_a_cricket_computer_asked_for_by_mpr_plays_that_level(
    paced: Running, watcher: Watcher
) -> None:
    """``{"cpu": {"mpr": m}}`` on a real daemon: level 5's MPR gives level 5,
    whose 501 average the state shows; one out of reach is refused, no game."""
    five = level(5)
    robo = {"name": "Robo", "cpu": {"mpr": 7}}
    refused = await watcher.command(
        {"command": "new_game", "game": "cricket", "players": ["Ann", robo]}
    )
    assert not refused["ok"] and "mpr" in refused["error"], refused
    response = await watcher.command(
        {
            "command": "new_game",
            "game": "cricket",
            "players": ["Ann", {"name": "Robo", "cpu": {"mpr": round(five.mpr, 2)}}],
        }
    )
    assert response["ok"], response
    state = await watcher.state_where(lambda s: s.get("game") == "cricket")
    cpu = state["players"][1]["cpu"]
    assert cpu["level"] == 5 and cpu["average"] == pytest.approx(five.leg_average, abs=0.5)


@pytest.mark.slow
async def test_a_human_plays_the_computer_to_the_end(
    tmp_path: Path, paced: Running, watcher: Watcher
) -> None:
    response = await watcher.command(
        {
            "command": "new_game",
            "game": "x01",
            "options": {"start": 301},
            "players": ["Ann", {"name": "Robo", "cpu": 10}],
        }
    )
    assert response["ok"], response
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert "cpu" not in state["players"][0]
    assert state["players"][1]["cpu"]["level"] == 10
    assert state["players"][1]["cpu"]["average"] == pytest.approx(101, abs=1)
    while True:
        state = await watcher.state_where(
            lambda s: (
                s["finished"]
                or (s["current_player"] == 0 and s["phase"] == "throwing" and not s["visit"])
            )
        )
        if state["finished"]:
            break
        await throw(paced.board, "S1", "S1", "S1")  # Ann scores 3 a visit: Robo wins
        await watcher.state_where(lambda s: s["phase"] == "takeout")
        await press(paced.board, 0)  # NEXT: Robo's turn
        await watcher.state_where(lambda s: s["current_player"] == 1 or s["finished"])
    assert state["winner"] == 1 and state["result"] == "checkout"
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert result["winner_name"] == "Robo"
    assert [p["name"] for p in result["players"]] == ["Ann", "Robo"]

    ann, robo = darts_of(watcher, 0), darts_of(watcher, 1)
    assert {dart["source"] for dart in ann} == {"board"}
    assert {dart["source"] for dart in robo} == {"cpu"}
    assert sum(1 for dart in robo if dart["dart"] == 1) >= 2  # more than one visit
    for before, after in itertools.pairwise(robo):
        if after["dart"] == before["dart"] + 1:  # same visit: paced, not all at once
            assert after["at"] - before["at"] >= INTERVAL
    # Robo's takeout ended by itself (no NEXT pressed for it): Ann's visits
    # started after a player_change back to her each time.
    changes = [e for e in watcher.of("event") if e.get("type") == "player_change"]
    assert any(change["player"] == 0 and change["previous"] == 1 for change in changes)
    journaled = journal_game(tmp_path)
    assert journaled.bots is not None and journaled.bots["players"]["Robo"]["level"] == 10
    assert len(assert_every_bot_dart_follows_from_the_journal(journaled)) == len(robo)
    # The export names the computer player; the replay needs nothing special.
    journal = str(tmp_path / "journal.sqlite3")
    export = subprocess.run(
        [str(OCHE), "export", str(journaled.id), "--journal", journal],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert '# cpu: {"Robo": {"level": 10, ' in export
    replayed = subprocess.run(
        [str(OCHE), "replay", "-"], input=export, capture_output=True, text=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["winner"] == 1


@pytest.mark.slow
async def test_the_board_is_refused_while_the_computer_throws(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto, extra=bot_section(interval=0.3, pause=30))
    await daemon.start()
    try:
        await watcher.wait_for("availability", lambda p: p == "online")
        response = await watcher.command(
            {
                "command": "new_game",
                "game": "x01",
                "players": [{"name": "Robo", "cpu": {"average": 55}}, "Ann"],
            }
        )
        assert response["ok"], response
        state = await watcher.state_where(lambda s: s.get("game") == "x01")
        assert state["players"][0]["cpu"]["average"] == pytest.approx(55, abs=0.5)
        await throw(daemon.board, "T20")
        hit = await watcher.wait_for("event", lambda e: e.get("type") == "hit")
        assert (hit["segment"], hit["scored"], hit["reason"]) == ("T20", False, "cpu-turn")
        level = state["players"][0]["cpu"]["level"]
        for command in ({"command": "dart", "segment": "T20"}, {"command": "miss"}):
            refused = await watcher.command(command)
            assert not refused["ok"]
            assert f"Robo (CPU {level}) is throwing" in refused["error"]
        # Robo throws its visit and waits in takeout; a board hit now is still its turn.
        await watcher.state_where(lambda s: s["phase"] == "takeout")
        await throw(daemon.board, "S5")
        hit = await watcher.wait_for(
            "event", lambda e: e.get("type") == "hit" and e.get("segment") == "S5"
        )
        assert hit["reason"] == "cpu-turn"
        # NEXT by hand may cut its takeout short; then Ann's darts count again.
        assert (await watcher.command({"command": "next"}))["ok"]
        await watcher.state_where(lambda s: s["current_player"] == 1)
        await throw(daemon.board, "T19")
        # Robo's own darts may have landed in T19 too: Ann's is the one for player 1.
        dart = await watcher.wait_for(
            "event", lambda e: e.get("type") == "dart" and e.get("player") == 1
        )
        assert (dart["segment"], dart["source"]) == ("T19", "board")
        assert [d["source"] for d in darts_of(watcher, 0)] == ["cpu"] * 3
    finally:
        await daemon.stop()
        daemon.board.close()


async def test_undo_takes_back_a_computer_dart_and_it_throws_again(
    tmp_path: Path, paced: Running, watcher: Watcher
) -> None:
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "players": [{"name": "Robo", "cpu": 4}, "Ann"]}
    )
    assert response["ok"], response
    await watcher.state_where(lambda s: s.get("current_player") == 1)  # Robo's visit is over
    first_visit = [d["segment"] for d in darts_of(watcher, 0)]
    assert len(first_visit) == 3
    assert (await watcher.command({"command": "undo"}))["ok"]
    undone = await watcher.wait_for("event", lambda e: e.get("type") == "undo")
    assert undone["player"] == 0
    # Robo throws its third dart again (a fresh one) and passes the turn.
    rethrown = await watcher.wait_for(
        "event", lambda e: e.get("type") == "dart" and e["at"] > undone["at"]
    )
    assert (rethrown["player"], rethrown["dart"], rethrown["source"]) == (0, 3, "cpu")
    state = await watcher.state_where(lambda s: s["current_player"] == 1 and not s["visit"])
    assert state["last_visit"]["darts"] == [*first_visit[:2], rethrown["segment"]]
    assert state["players"][0]["stats"]["darts"] == 3
    journaled = journal_game(tmp_path)
    assert journaled.events[3:5] == ["NEXT", "UNDO"] or journaled.events[3] == "UNDO"
    assert len(assert_every_bot_dart_follows_from_the_journal(journaled)) == 4


@pytest.mark.parametrize(("in_process", "sigma"), [(True, "13.7"), (False, "13.3")])
async def test_a_spread_hint_is_solved_off_the_loop_while_the_computer_aims(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    monkeypatch: pytest.MonkeyPatch,
    in_process: bool,
    sigma: str,
) -> None:
    """The state a computer player aims by leaves Ann's spread hint to the
    off-loop worker: the X01 plan behind it is never solved on the loop (in
    the solving process: never in the daemon's; in a thread: not the loop's)."""
    import engine.checkout_plan

    solved_on: list[threading.Thread] = []
    plan = engine.checkout_plan.plan_for

    def recorded(sigma_mm: float, out: str = "double") -> Any:
        solved_on.append(threading.current_thread())
        return plan(sigma_mm, out)

    monkeypatch.setattr(engine.checkout_plan, "plan_for", recorded)
    worker = SolveWorker(process=in_process)
    players = ["Ann", {"name": "Robo", "cpu": 5}]
    options = {"start": 301, "checkout_sigma_mm": f"{sigma},none"}  # spreads no other test solves
    async with Running(tmp_path, mosquitto, solve_worker=worker, extra=bot_section()):
        await watcher.wait_for("availability", lambda p: p == "online")
        cold = 4 * TIMEOUT if in_process else TIMEOUT  # a fresh process solves all of it cold
        response = await watcher.command(
            {"command": "new_game", "game": "x01", "players": players, "options": options}, cold
        )
        assert response["ok"], response
        for segment in ("T20", "T20", "T19"):  # 124 left: Ann's hint needs the plan
            assert (await watcher.command({"command": "dart", "segment": segment}))["ok"]
        assert (await watcher.command({"command": "next"}))["ok"]
        await watcher.state_where(
            lambda s: s["current_player"] == 0 and s["players"][0]["checkout"] is not None, cold
        )
        if in_process:
            assert worker.pid is not None and worker.pid != os.getpid()
            assert not solved_on  # the plan came from the solving process
        else:
            assert worker.pid is None
            assert solved_on and threading.main_thread() not in solved_on


async def test_a_rematch_keeps_the_computer_player_with_a_new_seed(
    tmp_path: Path, paced: Running, watcher: Watcher
) -> None:
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "players": ["Ann", {"name": "Robo", "cpu": 7}]}
    )
    assert response["ok"], response
    assert (await watcher.command({"command": "rematch"}))["ok"]
    await watcher.count("event", lambda e: e.get("type") == "game_started", 2)
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert state["players"][1]["cpu"]["level"] == 7 and "cpu" not in state["players"][0]
    with Journal(tmp_path / "journal.sqlite3") as journal:
        second, first = journal.games.games()
    assert first.bots is not None and second.bots is not None
    assert first.bots["players"] == second.bots["players"]
    assert first.bots["seed"] != second.bots["seed"]


async def test_a_game_played_by_picking_refuses_a_computer_player(
    paced: Running, watcher: Watcher
) -> None:
    refused = await watcher.command(
        {
            "command": "new_game",
            "game": "domino-cribbage",
            "players": ["Ann", {"name": "R", "cpu": 3}],
        }
    )
    assert not refused["ok"] and "played by picking" in refused["error"]
    state = await watcher.state_where(lambda s: "phase" in s)
    assert state["phase"] == "idle"


@pytest.mark.slow
async def test_two_computer_players_play_cricket_to_the_end_by_themselves(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto, extra=bot_section(interval=0.01, pause=0.01))
    await daemon.start()
    try:
        await watcher.wait_for("availability", lambda p: p == "online")
        response = await watcher.command(
            {
                "command": "new_game",
                "game": "cricket",
                "players": [{"name": "Robo", "cpu": 8}, {"name": "Tin", "cpu": 6}],
            }
        )
        assert response["ok"], response
        result = await watcher.wait_for(
            "result", lambda p: isinstance(p, dict), timeout=TIMEOUT * 6
        )
        assert result["result"] == "closed-all"
    finally:
        await daemon.stop()
        daemon.board.close()
    darts = darts_of(watcher)
    assert darts and {dart["source"] for dart in darts} == {"cpu"}
    assert all("marks" in dart for dart in darts)  # the cricket family's events, as ever
    thrown = assert_every_bot_dart_follows_from_the_journal(journal_game(tmp_path))
    assert len(thrown) == len(darts)


# ------------------------------------------------------------------ kill -9


def start_oche(config: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("OCHE_CONFIG", "JOURNAL_STREAM")}
    return subprocess.Popen(
        [str(OCHE), "run", "--config", str(config)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow
async def test_a_computer_visit_survives_kill_9_with_no_dart_doubled(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    text = config_text(tmp_path, mosquitto.url, board.link, extra=bot_section(0.25, 0.25))
    config.write_text(text, "utf-8")
    process = start_oche(config)
    try:
        await watcher.wait_for("availability", lambda p: p == "online")
        response = await watcher.command(
            {
                "command": "new_game",
                "game": "x01",
                "options": {"start": 301},
                "players": [{"name": "Robo", "cpu": 9}, {"name": "Tin", "cpu": 7}],
            }
        )
        assert response["ok"], response
        second = await watcher.wait_for(
            "event", lambda e: e.get("type") == "dart" and e["dart"] == 2, timeout=TIMEOUT * 6
        )
        process.send_signal(signal.SIGKILL)  # mid-visit: its third dart is still to come
        process.wait(timeout=TIMEOUT)
        killed_at = len(watcher.messages)
        # Where the journal says the game stood when the process died.
        journaled = journal_game(tmp_path)
        session = GameSession(SessionSetup("x01", journaled.options, journaled.players))
        for token in journaled.events:
            session.apply(parse_event(token), 0.0)
        expected = (session.game.current_player, len(session.game.visit) + 1)
        if session.phase == Phase.TAKEOUT:  # (its third dart beat the kill)
            expected = (session.game.current_player, 1)
        # On a loaded machine the kill may land a dart or a NEXT later than
        # planned: what is expected follows from the journal, whatever it holds.
        assert second["segment"] in journaled.events
        process = start_oche(config)

        async def first_dart_after_the_kill() -> dict[str, Any]:
            while True:
                for name, payload in watcher.messages[killed_at:]:
                    if name.endswith("/event") and payload.get("type") == "dart":
                        return payload  # type: ignore[no-any-return]
                await asyncio.sleep(0.05)

        resumed = await asyncio.wait_for(first_dart_after_the_kill(), TIMEOUT * 6)
        assert (resumed["player"], resumed["dart"]) == expected
        assert resumed["source"] == "cpu"
        await watcher.wait_for("result", lambda p: isinstance(p, dict), timeout=TIMEOUT * 6)
        assert killed_at < len(watcher.messages)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=TIMEOUT)
        board.close()
    game = journal_game(tmp_path)
    assert game.status == "finished" and "UNDO" not in game.events
    visits = " ".join(game.events).split("NEXT")
    assert all(1 <= len(visit.split()) <= 3 for visit in visits)  # no dart doubled
    thrown = assert_every_bot_dart_follows_from_the_journal(game)
    assert len(thrown) == len(game.events) - game.events.count("NEXT")
