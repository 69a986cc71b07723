"""A called match with teams (a league's pairs) and one with a player at
another board (a league's remote fixture), docs/matches.md: ``call_match``
with ``teams`` starts a team game in the call's side order and its result
names the teams; a call whose players throw at another board starts a
remote match hosted by the called board, the guest board mirroring it, and
its one result carries the call. Real daemons, a real Mosquitto."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.daemon.remote_pair import GUEST, GUEST_AT, HOST_AT, NEXT, remote_pair, thrower_board
from tests.daemon.test_match_calls import Board, board, connected, ok, problems, refused
from tests.daemon_harness import Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

__all__ = ["board"]

OPTIONS = {"start": 301, "out": "straight"}
PAIRS: dict[str, Any] = {
    "command": "call_match",
    "call_id": "league-1-g4",
    "title": "Thursday League: Lions v Tigers, game 4",
    "game": "x01",
    "options": OPTIONS,
    "players": [
        {"name": "Ann", "player_id": 3},
        {"name": "Cy"},
        {"name": "Bob", "player_id": 4},
        {"name": "Dee"},
    ],
    "teams": [
        {"name": "Lions", "players": ["Ann", "Cy"]},
        {"name": "Tigers", "players": ["Bob", "Dee"]},
    ],
}


async def test_a_called_pairs_game_starts_a_team_game_whose_result_names_the_teams(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    bad = {
        **PAIRS,
        "call_id": "x-1",
        "teams": [
            {"name": "Lions", "players": ["Ann", "Zed"]},
            {"name": "Tigers", "players": ["Bob", "Dee"]},
        ],
    }
    assert "'Zed' is not one of the call's players" in await refused(watcher, bad)
    await ok(watcher, PAIRS)
    state = await watcher.state_where(lambda s: "call" in s)
    assert problems("state", state) == []
    assert state["call"]["teams"] == PAIRS["teams"]

    await ok(watcher, {"command": "next"})  # NEXT starts it: a team game, Lions first
    state = await watcher.state_where(lambda s: s["phase"] == "throwing")
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob", "Cy", "Dee"]
    assert [t["name"] for t in state["teams"]] == ["Lions", "Tigers"]

    # Ann 180, Bob 3, Cy 121 out: the Lions win (team scores are shared in x01).
    for number, visit in enumerate([["T20"] * 3, ["S1"] * 3, ["T20", "T20", "S1"]]):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    result = await watcher.wait_for("result", lambda r: isinstance(r, dict))
    assert result["call_id"] == "league-1-g4"
    assert [t["name"] for t in result["teams"]] == ["Lions", "Tigers"]
    assert result["winner"] in result["teams"][0]["players"]
    assert [(p["name"], p["player_id"]) for p in result["players"]] == [
        ("Ann", 3),
        ("Bob", 4),
        ("Cy", None),
        ("Dee", None),
    ]
    assert problems("result", result) == []


async def test_a_call_with_a_player_at_another_board_hosts_a_remote_match(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        call = {
            "command": "call_match",
            "call_id": "league-2-g1",
            "title": "Thursday League: Lions v Tigers, game 1",
            "game": "x01",
            "options": OPTIONS,
            "players": [{"name": "Ann", "player_id": 3}, {"name": "Cy", "board": GUEST}],
        }
        response = await pair.host_watch.command(call)
        assert response["ok"], response
        state = await pair.host_watch.state_where(lambda s: "call" in s)
        assert problems("state", state) == []
        assert state["call"]["players"][1]["board"] == GUEST

        await throw(pair.host.board, "T20")  # the home board's dart confirms: not scored
        state = await pair.host_watch.state_where(
            lambda s: s["phase"] == "throwing" and s.get("remote", {}).get("waiting") == []
        )
        assert [p["board"] for p in state["players"]] == [HOST_AT, GUEST_AT]
        assert [p["score"] for p in state["players"]] == [301, 301]
        assert "call" not in state
        await pair.guest_watch.state_where(
            lambda s: s.get("remote", {}).get("match") == state["remote"]["match"]
        )

        await throw(pair.host.board, "T20", "T20", "T20")
        await press(pair.host.board, NEXT)
        await pair.host_watch.state_where(
            lambda s: s["players"][0]["score"] == 121 and s["current_player"] == 1
        )
        await throw(pair.guest.board, "S1", "S1", "S1")  # Cy, at the guest's board
        await pair.host_watch.state_where(lambda s: s["players"][1]["score"] == 298)
        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(
            lambda s: thrower_board(s) == HOST_AT and s["phase"] == "throwing"
        )
        await throw(pair.host.board, "T20", "T20", "S1")
        last = await pair.host_watch.state_where(lambda s: s["phase"] == "finished")
        assert last["players"][0]["score"] == 0, last
        result = await pair.host_watch.wait_for("result", lambda r: isinstance(r, dict))
        assert result["call_id"] == "league-2-g1"
        assert result["match"] == state["remote"]["match"]
        assert [(p["name"], p["player_id"]) for p in result["players"]] == [
            ("Ann", 3),
            ("Cy", None),
        ]
        assert not [r for r in pair.guest_watch.of("result") if isinstance(r, dict)]
        assert problems("result", result) == []


async def test_a_call_with_a_bad_remote_board_is_refused_when_called(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    call = {
        "command": "call_match",
        "call_id": "league-3-g1",
        "game": "x01",
        "players": [{"name": "Ann"}, {"name": "Cy", "board": "pub 2"}],
    }
    error = await refused(watcher, call)
    assert "Cy's board 'pub 2'" in error
    assert "call" not in watcher.of("state")[-1]


async def test_a_remote_pairs_call_hosts_a_remote_team_game(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        players = [
            {"name": "Ann"},
            {"name": "Bob", "board": GUEST},
            {"name": "Cy"},
            {"name": "Dee", "board": GUEST},
        ]
        call = {**PAIRS, "call_id": "league-4-g2", "players": players}
        response = await pair.host_watch.command(call)
        assert response["ok"], response
        await pair.host_watch.state_where(lambda s: "call" in s)
        await press(pair.host.board, NEXT)  # the home board's NEXT starts it
        state = await pair.host_watch.state_where(
            lambda s: s["phase"] == "throwing" and s.get("remote", {}).get("waiting") == []
        )
        assert [(p["name"], p["board"]) for p in state["players"]] == [
            ("Ann", HOST_AT),
            ("Bob", GUEST_AT),
            ("Cy", HOST_AT),
            ("Dee", GUEST_AT),
        ]
        assert [t["name"] for t in state["teams"]] == ["Lions", "Tigers"]
        mirrored = await pair.guest_watch.state_where(
            lambda s: s.get("remote", {}).get("match") == state["remote"]["match"]
        )
        assert [t["name"] for t in mirrored["teams"]] == ["Lions", "Tigers"]
