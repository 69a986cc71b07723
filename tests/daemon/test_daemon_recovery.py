"""The daemon after a power cut at the worst moment, and against a command
that would run at every restart: a real Mosquitto, a pty board, a real
SQLite journal, and ``oche history`` read through the real executable."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from firmware_bridge.daemon.journal import Finish, Journal
from tests.daemon_harness import TIMEOUT, OcheRun, Running, Watcher, config_text, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
T0 = 1_700_000_000.0
# A 301 game Ann wins with her second visit (180, then 121 by T20 T11 D14).
WINNING_GAME = ["T20", "T20", "T20", "NEXT", "S1", "S1", "S1", "NEXT", "T20", "T11", "D14"]


def old_journal(tmp_path: Path, tokens: list[str], *, finished: bool = False) -> int:
    """A journal as an Oche that wrote a dart and its consequences in two steps
    leaves it when the power fails between them: ``tokens`` journaled, and the
    game finished (with its result in the outbox) only when ``finished``."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game_id = journal.games.start_game(
            "x01", {"start": 301}, ["Ann", "Bob"], None, "board1", T0
        )
        for index, token in enumerate(tokens):
            journal.games.append(game_id, token, T0 + 1 + index)
            if finished and index == len(WINNING_GAME) - 1:
                journal.games.record(
                    game_id, [], finish=Finish({"winner": 0}, T0 + 1 + index, "old-result", "{}")
                )
    return game_id


def history(tmp_path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(OCHE), "history", "--journal", str(tmp_path / "journal.sqlite3"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def undelivered(tmp_path: Path) -> list[tuple[str, str]]:
    """The outbox once the daemon has marked what the broker acknowledged."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        for _ in range(int(TIMEOUT / 0.05)):
            pending = journal.outbox.pending_results()
            if not pending:
                break
            await asyncio.sleep(0.05)
        return pending


async def test_a_winning_dart_journaled_without_its_finish_gets_its_result_on_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    game_id = old_journal(tmp_path, WINNING_GAME)
    daemon = Running(tmp_path, mosquitto)
    await daemon.start()
    try:
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        assert (result["winner_name"], result["result"]) == ("Ann", "checkout")
        assert result["finished_at"] == T0 + len(WINNING_GAME)  # the winning dart's time
        assert result["log"].splitlines() == ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"]
        state = await watcher.state_where(lambda s: s.get("phase") == "finished")
        assert state["winner"] == 0
        assert await undelivered(tmp_path) == []
    finally:
        await daemon.stop()
    [game] = history(tmp_path)
    assert (game["id"], game["status"], game["winner"]) == (game_id, "finished", "Ann")
    assert game["result"] == {"winner": 0, "result": "checkout"}

    # A second restart finds the result delivered: it is not published again,
    # and a new game does not turn the finished one into an abandoned one.
    watcher.messages.clear()
    again = Running(tmp_path, mosquitto)
    await again.start()
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        response = await watcher.command(
            {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
        )
        assert response["ok"], response
    finally:
        await again.stop()
    assert watcher.of("result") == []
    assert [g["status"] for g in history(tmp_path)] == ["playing", "finished"]


async def test_an_undo_of_the_win_journaled_without_reopening_resumes_the_game(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    game_id = old_journal(tmp_path, [*WINNING_GAME, "UNDO"], finished=True)
    daemon = Running(tmp_path, mosquitto)
    await daemon.start()
    try:
        state = await watcher.state_where(
            lambda s: s.get("game") == "x01" and s["board"]["connected"]
        )
        assert (state["phase"], state["finished"], state["visit"]) == (
            "throwing",
            False,
            ["T20", "T11"],
        )
        assert [g["status"] for g in history(tmp_path)] == ["playing"]
        # The withdrawn result is never delivered; the game plays on to a new one.
        await throw(daemon.board, "S20")  # 8 left
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await watcher.command({"command": "next"})
        await throw(daemon.board, "T20", "T20", "S1")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await watcher.command({"command": "next"})
        await throw(daemon.board, "D4")
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        assert result["winner_name"] == "Ann"
        assert result["log"].splitlines()[-3:] == ["T20 T11 S20", "T20 T20 S1", "D4"]
        assert await undelivered(tmp_path) == []
    finally:
        await daemon.stop()
    assert len(watcher.of("result")) == 1
    [game] = history(tmp_path)
    assert (game["id"], game["status"], game["winner"]) == (game_id, "finished", "Ann")


async def test_a_retained_command_is_never_run(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    watcher: Watcher,
    caplog: pytest.LogCaptureFixture,
) -> None:
    old_journal(tmp_path, ["T20", "T20"])
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.publish("oche/board1/cmd", '{"command":"end_game"}', qos=1, retain=True)
    caplog.set_level(logging.WARNING, logger="firmware_bridge")
    for _restart in range(2):
        daemon = Running(tmp_path, mosquitto)
        await daemon.start()
        try:
            await watcher.state_where(lambda s: s.get("game") == "x01")
            for _ in range(int(TIMEOUT / 0.05)):
                if "retained command" in caplog.text:
                    break
                await asyncio.sleep(0.05)
            # A command sent after the retained one is answered, so the
            # retained one has been read (and dropped) by now.
            response = await watcher.command({"command": "undo"})
            assert response["ok"], response
        finally:
            await daemon.stop()
        warnings = [r.getMessage() for r in caplog.records if "retained command" in r.getMessage()]
        assert len(warnings) == 1 and "oche/board1/cmd" in warnings[0], warnings
        caplog.clear()
    assert [g["status"] for g in history(tmp_path)] == ["playing"]
    assert not [e for e in watcher.of("event") if e.get("type") == "game_over"]
    assert watcher.of("state")[-1]["visit"] == []  # both darts undone, one per restart


async def test_a_dart_the_journal_cannot_write_changes_nothing_and_is_refused(
    running: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    await watcher.command({"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]})
    assert (await watcher.command({"command": "dart", "segment": "T20"}))["ok"]
    path = running.config.journal.resolved_path()
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TRIGGER full_disk BEFORE INSERT ON events "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
    refused = await watcher.command({"command": "next"})  # two misses and NEXT: all or none
    assert refused["ok"] is False and "disk is full" in refused["error"], refused
    state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
    assert (state["current_player"], state["players"][0]["score"]) == (0, 441)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER full_disk")
    assert (await watcher.command({"command": "dart", "segment": "T19"}))["ok"]
    state = await watcher.state_where(lambda s: s.get("visit") == ["T20", "T19"])
    assert state["players"][0]["score"] == 501 - 60 - 57


async def test_a_restart_after_a_win_keeps_the_winner_on_screen_until_the_next_game(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link), "utf-8")
    try:
        with OcheRun(config) as first:
            await watcher.state_where(lambda s: s["board"]["connected"])
            started = await watcher.command(
                {
                    "command": "new_game",
                    "game": "x01",
                    "options": {"start": 301},
                    "players": ["Ann", "Bob"],
                }
            )
            assert started["ok"], started
            for token in WINNING_GAME:
                command = (
                    {"command": "next"}
                    if token == "NEXT"
                    else {"command": "dart", "segment": token}
                )
                assert (await watcher.command(command))["ok"]
            won = await watcher.state_where(lambda s: s.get("phase") == "finished")
            await watcher.wait_for("result", lambda p: isinstance(p, dict))
            assert await undelivered(tmp_path) == []
            first.stop()
        assert first.returncode == 0, first.stderr
        watcher.messages.clear()
        with OcheRun(config) as second:
            # Every state now is the restarted daemon's: the winner stays on screen.
            after = await watcher.state_where(lambda s: s["board"]["connected"])
            assert (after["phase"], after["finished"], after["winner"]) == ("finished", True, 0)
            assert {k: v for k, v in after.items() if k != "board"} == {
                k: v for k, v in won.items() if k != "board"
            }
            async with Watcher(mosquitto.host, mosquitto.port) as late:  # a display starting now
                retained = await late.state_where(lambda s: True)
                assert retained["phase"] == "finished"
            response = await watcher.command(
                {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
            )
            assert response["ok"], response
            fresh = await watcher.state_where(lambda s: s.get("phase") == "throwing")
            assert [p["score"] for p in fresh["players"]] == [501, 501]
            second.stop()
        assert second.returncode == 0, second.stderr
    finally:
        board.close()
    assert watcher.of("result") == []  # the result was delivered once, before the restart
    assert [g["status"] for g in history(tmp_path)] == ["playing", "finished"]
