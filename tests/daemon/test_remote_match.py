"""A remote match end to end: two real daemons, each on its own pty board
and journal, one game between them (docs/remote.md). On one Mosquitto here;
tests/daemon/test_remote_bridged.py plays it across two bridged brokers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from firmware_bridge.cli.history_command import history_entries
from mqtt_contract import NOT_YOUR_TURN, TOPICS
from tests.daemon.remote_pair import (
    BOUNCE,
    GUEST,
    GUEST_AT,
    HOST_AT,
    NEXT,
    Pair,
    remote_pair,
    scores,
    start_match,
    thrower_board,
    to_the_guests_visit,
)
from tests.daemon_harness import QUIET, press, throw
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"


async def guest_history(pair: Pair) -> list[dict[str, Any]]:
    """``oche history --json`` on the guest's journal, run as a user runs it
    (beside the running daemon): its remote matches, newest first."""
    path = pair.guest.config.journal.resolved_path()
    done = await asyncio.to_thread(
        subprocess.run,
        [str(OCHE), "history", "--journal", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [entry for entry in json.loads(done.stdout) if entry.get("role") == "guest"]


async def test_a_whole_match_between_two_boards(tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        state = await start_match(pair)
        assert [p["board"] for p in state["players"]] == [HOST_AT, GUEST_AT]
        assert thrower_board(state) == HOST_AT
        # The guest shows the same game, on its own board object, as a guest.
        mirrored = await pair.guest_watch.state_where(
            lambda s: (
                s.get("remote", {}).get("match") == state["remote"]["match"]
                and s["phase"] == "throwing"
            )
        )
        assert mirrored["remote"]["role"] == "guest"
        assert mirrored["board"]["id"] == GUEST
        assert [p["name"] for p in mirrored["players"]] == ["Ann", "Cy"]

        # Cy throws at the guest's board while Ann is up: not taken.
        await throw(pair.guest.board, "T20")
        await pair.host_watch.wait_for(
            "event", lambda e: e.get("type") == "hit" and e.get("reason") == NOT_YOUR_TURN
        )
        # Ann's visit at the host.
        await to_the_guests_visit(pair)
        # Ann, at the host, cannot throw in Cy's visit.
        await throw(pair.host.board, "T20")
        await pair.host_watch.wait_for(
            "event",
            lambda e: e.get("type") == "hit" and e.get("reason") == NOT_YOUR_TURN,
        )
        # Cy's visit at the guest's board: forwarded, scored at the host,
        # mirrored back to the guest.
        await throw(pair.guest.board, "T20", "T20", "T20")
        await pair.guest_watch.state_where(
            lambda s: s["phase"] == "takeout" and bool(s.get("players")) and scores(s) == [121, 121]
        )
        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == HOST_AT)
        # Ann checks out 121: T20 T19 D2.
        await throw(pair.host.board, "T20", "T19", "D2")
        final = await pair.host_watch.state_where(lambda s: s["phase"] == "finished")
        assert final["players"][final["winner"]]["name"] == "Ann"
        await pair.guest_watch.state_where(lambda s: s["phase"] == "finished")

        # One result, from the host, with each player's board and the match.
        result = await pair.host_watch.wait_for("result", lambda r: True)
        assert {p["name"]: p["board"] for p in result["players"]} == {
            "Ann": HOST_AT,
            "Cy": GUEST_AT,
        }
        assert result["match"] == state["remote"]["match"]
        await asyncio.sleep(QUIET)  # a bounded look: the guest publishes no result
        assert pair.guest_watch.of("result") == []
        assert len(pair.host_watch.of("result")) == 1

        # The guest heard the host's events on its own topic (its sound cues).
        darts = [e for e in pair.guest_watch.of("event") if e.get("type") == "dart"]
        assert len(darts) == 9

        # Every state either board published is valid.
        from jsonschema import Draft202012Validator

        validator = Draft202012Validator(TOPICS["state"].schema)
        for watch in (pair.host_watch, pair.guest_watch):
            for published in watch.of("state"):
                assert list(validator.iter_errors(published)) == [], published

        # Both journals know the match, and agree on what was forwarded.
        with pair.journal(pair.host) as journal:
            host_history = history_entries(journal)
        with pair.journal(pair.guest) as journal:
            guest_history = history_entries(journal)
        assert host_history[0]["winner"] == "Ann"
        assert any(entry.get("role") == "guest" for entry in guest_history)


async def test_a_remote_match_of_legs_plays_its_next_leg_across_the_boards(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A remote match first to 2 legs (docs/matches.md): Ann wins leg 1 at
    the host; the guest shows the leg won, Cy's NEXT at the guest's board
    starts leg 2, which Cy throws first, at the guest."""
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        await start_match(pair, match={"legs": 2})
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "S1", "S1", "S1")
        await pair.host_watch.state_where(lambda s: s["phase"] == "takeout")
        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == HOST_AT)
        await throw(pair.host.board, "T20", "T19", "D2")  # Ann checks out 121: leg 1
        won = await pair.guest_watch.state_where(
            lambda s: (s.get("match") or {}).get("leg_over") is True
        )
        assert won["match"]["legs_won"] == [1, 0] and won["phase"] == "takeout"
        assert pair.host_watch.of("result") == []  # the match goes on

        await press(pair.guest.board, NEXT)  # the guest's NEXT starts leg 2
        state = await pair.host_watch.state_where(lambda s: (s.get("match") or {}).get("leg") == 2)
        assert state["match"]["starter"] == 1 and thrower_board(state) == GUEST_AT
        assert scores(state) == [301, 301]
        await throw(pair.guest.board, "T20")  # Cy throws first in leg 2, at the guest
        mirrored = await pair.guest_watch.state_where(
            lambda s: (s.get("match") or {}).get("leg") == 2 and s.get("visit") == ["T20"]
        )
        assert scores(mirrored) == [301, 241]
        started = [e for e in pair.guest_watch.of("event") if e.get("type") == "leg_started"]
        assert [e["starter"] for e in started] == [1]


async def test_the_guest_leaving_ends_the_match_on_both_boards(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        await start_match(pair)
        response = await pair.guest_watch.command({"command": "end_game"})
        assert response["ok"], response
        await pair.host_watch.state_where(lambda s: s["phase"] == "idle")
        await pair.guest_watch.state_where(lambda s: s["phase"] == "idle")
        # The guest plays its own games again.
        response = await pair.guest_watch.command(
            {"command": "new_game", "game": "x01", "players": ["Solo"]}
        )
        assert response["ok"], response


async def test_a_guest_refuses_a_host_it_does_not_allow(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto, guest_allow=("pub7",)) as pair:
        await pair.host_watch.command(
            {
                "command": "new_game",
                "game": "x01",
                "players": ["Ann", {"name": "Cy", "board": GUEST}],
            }
        )
        refused = await pair.host_watch.wait_for(
            "event", lambda e: e.get("type") == "error" and e.get("kind") == "remote-refused"
        )
        assert "oche/pub1" in refused["message"] and "allow" in refused["message"]
        waiting = await pair.host_watch.state_where(lambda s: s["phase"] == "waiting-remote")
        assert waiting["remote"]["waiting"] == [GUEST_AT]
        # The guest is not in the match: its board plays on its own.
        await pair.guest_watch.state_where(lambda s: s["phase"] == "idle")


async def test_a_match_waits_for_a_board_that_is_not_there(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        # pub3 runs no daemon: the match waits for it, and says so.
        response = await pair.host_watch.command(
            {
                "command": "new_game",
                "game": "x01",
                "players": ["Ann", {"name": "Zed", "board": "pub3"}],
            }
        )
        assert response["ok"], response
        waiting = await pair.host_watch.state_where(lambda s: s["phase"] == "waiting-remote")
        assert waiting["remote"]["waiting"] == ["oche/pub3"]
        await throw(pair.host.board, "T20")
        await pair.host_watch.wait_for(
            "event", lambda e: e.get("type") == "hit" and e.get("reason") == "waiting-remote"
        )
        response = await pair.host_watch.command({"command": "end_game"})
        assert response["ok"], response
        await pair.host_watch.state_where(lambda s: s["phase"] == "idle")


async def test_a_bounce_out_at_the_guest_is_taken_back_at_the_host(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """The guest's BOUNCE is forwarded like its other buttons: the host takes
    back Cy's last dart (a miss in its place, a bounce-out in the statistics),
    and both boards show it. Ann's board cannot bounce Cy's dart."""
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        await start_match(pair)
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "T20")
        await pair.guest_watch.state_where(lambda s: scores(s) == [121, 241])
        refused = await pair.host_watch.command({"command": "bounce"})
        assert not refused["ok"] and refused["error"].startswith("not-your-turn"), refused
        assert (await pair.guest_watch.command({"command": "bounce"}))["ok"]
        state = await pair.host_watch.state_where(lambda s: scores(s) == [121, 301])
        assert state["visit"] == ["M"] and state["players"][1]["stats"]["bounce_outs"] == 1
        mirrored = await pair.guest_watch.state_where(lambda s: scores(s) == [121, 301])
        assert mirrored["players"][1]["stats"]["bounce_outs"] == 1
        bounce = await pair.guest_watch.wait_for("event", lambda e: e.get("type") == "bounce")
        assert (bounce["player"], bounce["segment"]) == (1, "T20")


async def test_the_guests_history_shows_a_won_match_finished_at_once(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """The guest journals the match finished, with the winner, as soon as the
    host's state says the game is won, not when the host starts another game.
    A win taken back (Cy's checkout dart bounced out) makes it playing again;
    the next win finishes it anew, and a rematch closes it."""
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        await start_match(pair)
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "T20", "T20", "T20")
        await pair.host_watch.state_where(lambda s: scores(s) == [121, 121])
        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == HOST_AT)
        await throw(pair.host.board, "S1", "S1", "S1")
        await pair.host_watch.state_where(lambda s: scores(s) == [118, 121])
        await press(pair.host.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == GUEST_AT)
        await throw(pair.guest.board, "T20", "T11", "D14")  # Cy checks out 121
        await pair.guest_watch.state_where(lambda s: s["phase"] == "finished")

        [match] = await guest_history(pair)
        assert (match["status"], match["winner"], match["host"]) == ("finished", "Cy", HOST_AT)
        assert match["finished_at"] is not None and match["end_reason"] is None

        # Cy's checkout dart falls out: BOUNCE at the guest takes the win back.
        await press(pair.guest.board, BOUNCE)
        await pair.guest_watch.state_where(lambda s: s["phase"] == "takeout")
        [match] = await guest_history(pair)
        assert (match["status"], match["winner"], match["finished_at"]) == ("playing", None, None)

        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == HOST_AT)
        await throw(pair.host.board, "T20", "T18", "D2")  # Ann checks out 118
        await pair.guest_watch.state_where(lambda s: s["phase"] == "finished")
        [match] = await guest_history(pair)
        assert (match["status"], match["winner"]) == ("finished", "Ann")
        assert [p["score"] for p in match["result"]["players"]] == [0, 28]

        # A rematch: the won match stays finished, the new one is playing.
        assert (await pair.host_watch.command({"command": "rematch"}))["ok"]
        await pair.guest_watch.state_where(
            lambda s: (
                s.get("remote", {}).get("match") not in (None, match["id"])
                and s["phase"] == "throwing"
            )
        )
        rematch, won = await guest_history(pair)
        assert (won["id"], won["status"], won["winner"]) == (match["id"], "finished", "Ann")
        assert won["end_reason"] == "finished"  # the host's end, before the rematch's join
        assert (rematch["status"], rematch["winner"]) == ("playing", None)
