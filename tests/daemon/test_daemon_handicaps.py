"""Handicaps end to end (issue #26): a real daemon and Mosquitto play a
handicapped 501 to a finish, its result carries both starts, and ``oche
leaderboard import`` of it gives Bob an average of only what he scored."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli.main import main
from tests.daemon_harness import OCHE, Running, Watcher, press, throw


async def test_a_handicapped_501_plays_to_a_result_with_both_starts(
    running: Running, watcher: Watcher, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    players = [{"name": "Ann", "start": 501}, {"name": "Bob", "start": 401}]
    response = await watcher.command({"command": "new_game", "game": "x01", "players": players})
    assert response["ok"] is True, response
    state = await watcher.state_where(lambda s: s.get("game") == "x01")
    assert [(p["score"], p["start"]) for p in state["players"]] == [(501, 501), (401, 401)]
    board = running.board
    for visit in ("T20 T20 T20",) * 4 + ("S20 S20 S20",):
        await throw(board, *visit.split())
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(board, 0)  # NEXT
    await throw(board, "S1", "D20")  # Bob: 41 out from 401
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert result["winner_name"] == "Bob"
    assert [(p["name"], p["start"]) for p in result["players"]] == [("Ann", 501), ("Bob", 401)]
    assert result["options"]["handicaps"] == "501,401"

    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(result) + "\n", "utf-8")
    database = f"sqlite:///{tmp_path / 'board.db'}"
    assert main(["leaderboard", "import", str(results), "--db", database]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["imported"], summary["rejected"]) == (1, [])
    show = ["leaderboard", "show", "--game", "x01", "--period", "all", "--json", "--db", database]
    assert main(show) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    by_name = {row["player"]: row for row in rows}
    assert by_name["Bob"]["three_dart_average"] == pytest.approx(3 * 401 / 8, abs=0.01)
    assert by_name["Ann"]["three_dart_average"] == pytest.approx(3 * 420 / 9, abs=0.01)

    # `oche export` of the journaled game replays to the same handicapped finish.
    journal = str(running.config.journal.path)
    assert main(["history", "--journal", journal, "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)
    assert main(["export", str(game["id"]), "--journal", journal]) == 0
    log = capsys.readouterr().out
    replayed = subprocess.run(
        [str(OCHE), "replay", "-"], input=log, capture_output=True, text=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    final = json.loads(replayed.stdout)
    assert [(p["score"], p["start"]) for p in final["players"]] == [(81, 501), (0, 401)]


async def test_a_handicap_the_game_does_not_take_is_refused(
    running: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    for game, player, words in (
        ("killer", {"name": "Bob", "start": 401}, "takes no handicaps"),
        ("x01", {"name": "Bob", "start": 1}, "a start of 1 cannot be played"),
        ("cricket", {"name": "Bob", "marks": {"20": 4}}, "marks"),
    ):
        command = {"command": "new_game", "game": game, "players": ["Ann", player]}
        response = await watcher.command(command)
        assert response["ok"] is False and words in response["error"], response
