"""A skill test played on a board through the daemon and a real Mosquitto: the
retained state shows the player's estimate once their darts are thrown (solved
off the daemon's loop: ``null`` until then, while darts and commands are
answered), and the ``result`` document carries it in the player's stats, for
leaderboards.
The estimate is measured on the board's geometry (``[bot] geometry``, the
bots'), and a test alone is a practice: no winner, and the leaderboard's
re-scoring of it agrees."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from engine import new_game
from engine.game_log import replay_log
from firmware_bridge.daemon.off_loop import SolveWorker
from leaderboard.scoring import score_result
from tests.daemon_harness import TIMEOUT, Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

NEXT = 0


def reported(state: dict[str, Any]) -> bool:
    """The test is over and every player's report is in the state (each is
    solved off the daemon's loop, so the first finished state may lack them)."""
    return state.get("finished") is True and all(p["skill"] for p in state["players"])


@pytest.mark.slow  # the first estimate loads numpy and solves an X01 plan: about 2 s
async def test_the_result_carries_each_player_s_estimate(
    running: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    command = {
        "command": "new_game",
        "game": "skill-test",
        "players": ["Ann", "Bo"],
        "options": {"darts": 3, "target": "T20"},
    }
    response = await watcher.command(command)
    assert response["ok"] is True, response
    await throw(running.board, "T20", "S20", "S1")
    await press(running.board, NEXT)  # takeout over: Bo throws
    mid = await watcher.state_where(
        lambda s: s.get("current_player") == 1 and s["players"][0]["skill"] is not None
    )
    assert mid["players"][0]["skill"]["darts"] == 3 and mid["players"][1]["skill"] is None
    await throw(running.board, "S5", "S20", "D20")
    final = await watcher.state_where(reported)
    assert final["options"]["geometry"] == "soft"  # [bot] geometry's default: the bots' board
    expected = replay_log(
        new_game("skill-test", ["Ann", "Bo"], {"darts": 3}), "T20 S20 S1\nS5 S20 D20\n"
    ).state()
    assert [p["skill"] for p in final["players"]] == [p["skill"] for p in expected["players"]]
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert result["game"] == "skill-test" and result["result"] == "darts-thrown"
    for published, player in zip(result["players"], expected["players"], strict=True):
        stats = published["stats"]
        assert stats["sigma_mm"] == player["skill"]["sigma_mm"]
        assert [stats["sigma_low"], stats["sigma_high"]] == player["skill"]["interval"]
        assert stats["level"] == player["skill"]["level"]


@pytest.mark.slow  # numpy and an X01 plan, as above
async def test_a_practice_alone_is_measured_on_the_board_s_geometry_and_won_by_no_one(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto, overrides=('bot.geometry="steel"',)) as running:
        await watcher.state_where(lambda s: s["board"]["connected"])
        command = {
            "command": "new_game",
            "game": "skill-test",
            "players": ["Ann"],
            "options": {"darts": 3},
        }
        assert (await watcher.command(command))["ok"] is True
        await throw(running.board, "T20", "S20", "S1")
        final = await watcher.state_where(reported)
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert final["options"]["geometry"] == "steel"  # the board's, not the option's default
    skill = final["players"][0]["skill"]
    expected = replay_log(
        new_game("skill-test", ["Ann"], {"darts": 3, "geometry": "steel"}), "T20 S20 S1\n"
    ).state()
    assert skill == expected["players"][0]["skill"] and skill["geometry"] == "steel"
    assert (final["winner"], final["result"]) == (None, "practice-complete")
    assert not [e for e in watcher.of("event") if e.get("type") == "winner"]  # no "game shot"
    assert (result["winner"], result["result"]) == (None, "practice-complete")
    scored = score_result(result)  # the leaderboard replays it to the same outcome
    [ann] = scored.players
    assert (ann.won, ann.placement, ann.highlight) == (False, 1, skill["sigma_mm"])


@pytest.mark.slow  # numpy and an X01 plan, as above
async def test_darts_and_commands_are_answered_while_a_report_is_solved(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The report is held until the test lets it go: what a slow board (a
    # Raspberry Pi solves one in seconds) shows while it is being worked out.
    # Held in this process: the daemon solves in a thread (its fallback).
    async with Running(tmp_path, mosquitto, solve_worker=SolveWorker(process=False)) as running:
        await darts_and_commands_answered_while_a_report_is_held(running, watcher, monkeypatch)


async def darts_and_commands_answered_while_a_report_is_held(
    running: Running, watcher: Watcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.skill_report

    solving, go = threading.Event(), threading.Event()
    report = engine.skill_report.skill_report

    def held_report(*args: Any, **kwargs: Any) -> dict[str, Any]:
        solving.set()
        go.wait(TIMEOUT)
        return report(*args, **kwargs)

    monkeypatch.setattr(engine.skill_report, "skill_report", held_report)
    await watcher.state_where(lambda s: s["board"]["connected"])
    command = {
        "command": "new_game",
        "game": "skill-test",
        "players": ["Ann", "Bo"],
        "options": {"darts": 3, "target": "D7"},  # hits no other test solves
    }
    assert (await watcher.command(command))["ok"] is True
    await throw(running.board, "D7", "S7", "S19")
    await press(running.board, NEXT)
    await throw(running.board, "S16", "D7")  # Bo's darts count while Ann's report is solved
    mid = await watcher.state_where(lambda s: s["players"][1]["remaining"] == 1)
    assert mid["players"][0]["remaining"] == 0 and mid["players"][0]["skill"] is None
    assert "sigma_mm" not in mid["players"][0]["stats"]
    assert solving.is_set()
    last = await watcher.command({"command": "dart", "segment": "T7"})
    assert last["ok"] is True, last  # answered while the report waits
    done = await watcher.state_where(lambda s: s.get("finished") is True)
    assert [p["skill"] for p in done["players"]] == [None, None]
    assert done["result"] == "darts-thrown"
    assert not watcher.of("result")  # the result waits for the reports it carries
    refused = await watcher.command({"command": "dart", "segment": "S1"})
    assert refused["ok"] is False  # the game is over: still answered at once
    go.set()
    final = await watcher.state_where(reported)
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    expected = replay_log(
        new_game("skill-test", ["Ann", "Bo"], {"darts": 3, "target": "D7"}),
        "D7 S7 S19\nS16 D7 T7\n",
    ).state()
    assert [p["skill"] for p in final["players"]] == [p["skill"] for p in expected["players"]]
    assert [p["stats"] for p in result["players"]] == [p["stats"] for p in expected["players"]]


@pytest.mark.slow  # numpy and an X01 plan, as above
async def test_a_board_stopped_while_its_report_is_solved_records_the_result_on_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.skill_report

    go = threading.Event()
    report = engine.skill_report.skill_report

    def held_report(*args: Any, **kwargs: Any) -> dict[str, Any]:
        go.wait(TIMEOUT)
        return report(*args, **kwargs)

    monkeypatch.setattr(engine.skill_report, "skill_report", held_report)
    command = {
        "command": "new_game",
        "game": "skill-test",
        "players": ["Ann"],
        "options": {"darts": 3, "target": "D9"},  # hits no other test solves
    }
    # Held in this process: the daemon solves in a thread (its fallback).
    async with Running(tmp_path, mosquitto, solve_worker=SolveWorker(process=False)) as running:
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert (await watcher.command(command))["ok"] is True
        await throw(running.board, "D9", "S9", "S12")
        done = await watcher.state_where(lambda s: s.get("finished") is True)
        assert done["players"][0]["skill"] is None  # the board stops before its report
    go.set()
    assert not watcher.of("result")
    async with Running(tmp_path, mosquitto):  # the won game's finish is journaled now
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        final = await watcher.state_where(reported)
    expected = replay_log(
        new_game("skill-test", ["Ann"], {"darts": 3, "target": "D9"}), "D9 S9 S12\n"
    ).state()
    assert final["players"][0]["skill"] == expected["players"][0]["skill"]
    assert result["players"][0]["stats"] == expected["players"][0]["stats"]
    assert result["result"] == "practice-complete"
