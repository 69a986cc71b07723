"""A skill test played on a board through the daemon and a real Mosquitto: the
retained state shows the player's estimate once their darts are thrown, and
the ``result`` document carries it in the player's stats, for leaderboards."""

from __future__ import annotations

import pytest

from engine import new_game
from engine.game_log import replay_log
from tests.daemon_harness import Running, Watcher, press, throw

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
