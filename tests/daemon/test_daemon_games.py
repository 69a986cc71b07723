"""Every game of the engine, live on the board: a golden game thrown at a
board on a pseudo-terminal (buttons for NEXT and MISS), scored by the daemon
and published through a real Mosquitto, ends as ``oche replay`` says.

Each game's first golden case that ends the game (and takes back nothing) is
thrown dart by dart; after each log line NEXT is pressed, which ends the
takeout, or ends a short visit (the daemon fills it with misses, which score
nothing in any game), or, at the end, is refused harmlessly. In domino
cribbage the tokens are picks and NEXT, and line ends mean nothing.
"""

from __future__ import annotations

import pytest

from engine import PickingGame, game_class, game_ids
from tests.daemon_harness import Running, Watcher, press, throw
from tests.goldens import GoldenCase, iter_cases

NEXT, MISS = 0, 2


def finishing_case(game_id: str) -> GoldenCase:
    for case in iter_cases():
        log = case.log.upper()
        wanted = case.game == game_id and "UNDO" not in log and "BOUNCE" not in log
        if wanted and case.replay().is_finished:
            return case
    raise AssertionError(f"{game_id}: no golden case plays the game to its end")


async def play_token(running: Running, token: str) -> None:
    word = token.upper()
    if word == "NEXT":
        await press(running.board, NEXT)
    elif word == "M":
        await press(running.board, MISS)
    else:
        await throw(running.board, word)


@pytest.mark.parametrize("game_id", game_ids())
async def test_a_golden_game_ends_live_as_replay_says(
    game_id: str, running: Running, watcher: Watcher
) -> None:
    case = finishing_case(game_id)
    await watcher.state_where(lambda s: s["board"]["connected"])
    command = {
        "command": "new_game",
        "game": game_id,
        "players": case.players,
        "options": case.options,
    }
    if case.teams:
        command["teams"] = case.teams
    response = await watcher.command(command)
    assert response["ok"] is True, response
    in_visits = not issubclass(game_class(game_id), PickingGame)
    for line in case.log.splitlines():
        for token in line.split("#", 1)[0].split():
            await play_token(running, token)
        if in_visits and line.split("#", 1)[0].strip():
            await press(running.board, NEXT)
    expected = case.replay().state()
    state = await watcher.state_where(lambda s: s.get("finished") is True)
    assert (state["winner"], state["winner_team"], state["result"]) == (
        expected["winner"],
        expected["winner_team"],
        expected["result"],
    )
    assert [p["score"] for p in state["players"]] == [p["score"] for p in expected["players"]]
    result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    assert result["game"] == game_id and result["winner"] == expected["winner"]
