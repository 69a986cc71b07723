"""A skill test played on a board through the daemon and a real Mosquitto: the
retained state shows the player's estimate once their darts are thrown, and
the ``result`` document carries it in the player's stats, for leaderboards.
The estimate is measured on the board's geometry (``[bot] geometry``, the
bots'), and a test alone is a practice: no winner, and the leaderboard's
re-scoring of it agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import new_game
from engine.game_log import replay_log
from leaderboard.scoring import score_result
from tests.daemon_harness import Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

NEXT = 0


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
    mid = await watcher.state_where(lambda s: s.get("current_player") == 1)
    assert mid["players"][0]["skill"]["darts"] == 3 and mid["players"][1]["skill"] is None
    await throw(running.board, "S5", "S20", "D20")
    final = await watcher.state_where(lambda s: s.get("finished") is True)
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
        final = await watcher.state_where(lambda s: s.get("finished") is True)
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
