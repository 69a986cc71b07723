"""Bounce-outs on the board (docs/credits.md, "Bounce-outs"): the session's
plan and events, then the daemon end to end with a real Mosquitto, a pty
board's BOUNCE button, the journal and a restart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import Event, parse_event
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.journal import Finish, Journal
from mqtt_contract import TOPICS, Phase
from tests.daemon_harness import Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

X01 = SessionSetup("x01", {"start": 301}, ["Ann", "Bob"])
NEXT, BOUNCE_BUTTON = 0, 3
EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)


def play(session: GameSession, moves: Sequence[Event | str], now: float = 0.0) -> list[dict]:
    events: list[dict[str, Any]] = []
    for move in moves:
        event = parse_event(move) if isinstance(move, str) else move
        events += [caused.to_json() for caused in session.apply(event, now)]
    return events


def bounce(session: GameSession, now: float = 1.0) -> list[dict]:
    return play(session, session.plan_bounce(), now)


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


# ----------------------------------------------------------- the session


def test_a_bounce_mid_visit_takes_the_dart_back_as_a_miss() -> None:
    session = GameSession(X01)
    play(session, ["T20", "S5"])
    events = bounce(session)
    assert events == [{"type": "bounce", "at": 1.0, "player": 0, "segment": "S5"}]
    assert not list(EVENT_SCHEMA.iter_errors(events[0]))
    state = session.state()
    assert (state["visit"], state["phase"]) == (["T20", "M"], "throwing")
    assert state["players"][0]["stats"]["bounce_outs"] == 1
    assert state["players"][0]["score"] == 241


def test_in_takeout_the_third_dart_bounces_and_the_takeout_goes_on() -> None:
    session = GameSession(X01, takeout_s=5.0)
    play(session, ["T20", "T20", "T20"], now=10.0)
    assert (session.phase, session.takeout_deadline) == (Phase.TAKEOUT, 15.0)
    events = bounce(session, now=11.0)
    assert events == [{"type": "bounce", "at": 11.0, "player": 0, "segment": "T20"}]
    assert (session.phase, session.takeout_deadline) == (Phase.TAKEOUT, 15.0)
    state = session.state()
    assert state["last_visit"]["darts"] == ["T20", "T20", "M"]
    assert state["players"][0]["score"] == 181
    assert session.thrower() == 0


def test_after_next_passed_the_turn_there_is_nothing_to_bounce() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20"])
    play(session, session.plan_next())
    with pytest.raises(Refusal, match="the visit has ended"):
        session.plan_bounce()
    play(session, session.plan_next())  # Bob ends his visit at once: misses, NEXT
    with pytest.raises(Refusal, match="the visit has ended"):
        session.plan_bounce()


def test_nothing_thrown_and_twice_in_a_row_are_refused() -> None:
    session = GameSession(X01)
    with pytest.raises(Refusal, match="no dart has been thrown"):
        session.plan_bounce()
    play(session, ["T20"])
    bounce(session)
    with pytest.raises(Refusal, match="bounce-out already"):
        session.plan_bounce()


def test_a_bounced_bust_dart_leaves_the_visit_live() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT", "T20", "T20"])
    assert session.phase == Phase.TAKEOUT  # 121 -> 61 -> 1: bust
    events = bounce(session)
    assert types(events) == ["bounce"]
    assert session.phase == Phase.THROWING
    assert session.state()["visit_over"] is None
    assert session.state()["players"][0]["score"] == 61


def test_a_bounced_checkout_reopens_the_game() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT", "T20", "T11"])
    events = play(session, ["D14"])
    assert "winner" in types(events) and session.phase == Phase.FINISHED
    events = bounce(session)
    # The miss closes Ann's visit: takeout, and the turn passes to Bob.
    assert types(events) == ["bounce", "takeout", "player_change"]
    assert session.phase == Phase.TAKEOUT
    assert not session.game.is_finished
    assert session.state()["players"][0]["score"] == 28


def test_a_bounce_that_changes_a_round_limited_result_announces_it() -> None:
    setup = SessionSetup("shanghai", {"rounds": 7}, ["Ann"])
    session = GameSession(setup)
    for _ in range(6):
        play(session, ["M", "M", "M", "NEXT"])
    events = play(session, ["S7", "D7", "T7"])
    assert [e["result"] for e in events if e["type"] == "game_over"] == ["shanghai"]
    events = bounce(session)
    assert types(events) == ["bounce", "winner", "game_over"]
    assert events[-1]["result"] == "round-limit"
    assert session.phase == Phase.FINISHED


def test_domino_cribbage_refuses_a_bounce_clearly() -> None:
    session = GameSession(SessionSetup("domino-cribbage", {"seed": 3}, ["Ann", "Bob"]))
    with pytest.raises(Refusal, match="Domino Cribbage has no bounce-outs"):
        session.plan_bounce()


def test_a_journal_replay_brings_the_bounce_back() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20", "NEXT", "S5"])
    bounce(session)
    tokens = [str(event) for event in session.game.events]
    assert tokens == ["T20", "T20", "T20", "S5", "BOUNCE"]
    again = GameSession(X01)
    play(again, tokens)
    assert again.state() == session.state()


# ------------------------------------------------------------ end to end


async def test_the_bounce_button_and_command_end_to_end_and_after_a_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto)
    await daemon.start()
    try:
        await watcher.state_where(lambda s: s["board"]["connected"])
        response = await watcher.command(
            {
                "command": "new_game",
                "game": "x01",
                "options": {"start": 301},
                "players": ["Ann", "Bob"],
            }
        )
        assert response["ok"], response
        board = daemon.board
        # Ann's third dart registers and falls out: the BOUNCE button, in takeout.
        await throw(board, "T20", "T20", "T20")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(board, BOUNCE_BUTTON)
        event = await watcher.wait_for("event", lambda e: e.get("type") == "bounce")
        assert (event["player"], event["segment"]) == (0, "T20")
        state = await watcher.state_where(lambda s: s["players"][0]["score"] == 181)
        assert state["last_visit"]["darts"] == ["T20", "T20", "M"]
        assert state["players"][0]["stats"]["bounce_outs"] == 1
        assert state["phase"] == "takeout"
        # Pressed again: the last dart is a bounce-out already; said, nothing changes.
        await press(board, BOUNCE_BUTTON)
        refused = await watcher.wait_for("event", lambda e: e.get("type") == "error")
        assert refused["kind"] == "refused" and "bounce-out already" in refused["message"]
        await press(board, NEXT)
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
        # After NEXT the turn has passed: the command says why it is refused.
        response = await watcher.command({"command": "bounce"})
        assert response["ok"] is False and "the visit has ended" in response["error"]
        # Bob's first dart bounces out by the command.
        await throw(board, "S19")
        await watcher.state_where(lambda s: s.get("visit") == ["S19"])
        assert (await watcher.command({"command": "bounce"}))["ok"]
        await watcher.state_where(lambda s: s.get("visit") == ["M"])
    finally:
        await daemon.stop()
    with Journal(tmp_path / "journal.sqlite3") as journal:
        tokens = journal.games.latest_game("board1").events  # type: ignore[union-attr]
    assert tokens == ["T20", "T20", "T20", "BOUNCE", "NEXT", "S19", "BOUNCE"]
    validator = Draft202012Validator(TOPICS["event"].schema)
    for payload in watcher.of("event"):
        assert not list(validator.iter_errors(payload)), payload

    # A restart replays the journal: the bounces come back exactly.
    watcher.messages.clear()
    again = Running(tmp_path, mosquitto)
    await again.start()
    try:
        state = await watcher.state_where(lambda s: s.get("game") == "x01")
        assert state["visit"] == ["M"]
        assert [p["stats"]["bounce_outs"] for p in state["players"]] == [1, 1]
        assert [p["score"] for p in state["players"]] == [181, 301]
        assert state["phase"] == "throwing"
    finally:
        await again.stop()


async def test_a_bounced_checkout_reopens_the_journaled_game(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await watcher.command(
            {
                "command": "new_game",
                "game": "x01",
                "options": {"start": 301},
                "players": ["Ann", "Bob"],
            }
        )
        await throw(daemon.board, "T20", "T20", "T20")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(daemon.board, NEXT)
        await watcher.state_where(lambda s: s.get("current_player") == 1)
        await watcher.command({"command": "next"})  # Bob: three misses, and his NEXT
        await watcher.state_where(lambda s: s.get("current_player") == 0)
        await throw(daemon.board, "T20", "D1", "D20")  # 121 - 60 - 2 - 40 = 19
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(daemon.board, NEXT)
        await watcher.state_where(lambda s: s.get("current_player") == 1)
        await watcher.command({"command": "next"})
        await watcher.state_where(lambda s: s.get("current_player") == 0)
        await throw(daemon.board, "S3", "D8")  # 19 -> 16 -> 0: checkout
        await watcher.state_where(lambda s: s.get("finished") is True)
        assert (await watcher.command({"command": "bounce"}))["ok"]
        state = await watcher.state_where(lambda s: s.get("finished") is False)
        assert state["players"][0]["score"] == 16
        assert state["phase"] == "throwing"
        with Journal(tmp_path / "journal.sqlite3") as journal:
            latest = journal.games.latest_game("board1")
            assert latest is not None and latest.status == "playing"
            assert journal.outbox.pending_results() == []  # delivered, or withdrawn undelivered
        # Ann's third dart wins again: a second result, with the bounce in its log.
        await throw(daemon.board, "D8")
        result = await watcher.wait_for(
            "result", lambda p: isinstance(p, dict) and "BOUNCE" in p["log"]
        )
        assert result["log"].splitlines()[-1] == "S3 D8 BOUNCE D8"
        assert result["players"][0]["stats"]["bounce_outs"] == 1
        assert result["players"][0]["stats"]["darts"] == 9  # the bounced D8 was thrown
        first = [r for r in watcher.of("result") if "BOUNCE" not in r["log"]]
        assert all(r["result_id"] != result["result_id"] for r in first)  # a new result


def test_the_journal_reopens_and_finishes_a_re_decided_game_in_one_record(
    tmp_path: Path,
) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game_id = journal.games.start_game("shanghai", {"rounds": 7}, ["Ann"], None, "board1", 1.0)
        first = Finish({"winner": 0, "result": "shanghai"}, 2.0, "first", "{}")
        journal.games.record(game_id, [("T7", 2.0)], finish=first)
        second = Finish({"winner": 0, "result": "round-limit"}, 3.0, "second", "{}")
        journal.games.record(game_id, [("BOUNCE", 3.0)], reopen=True, finish=second)
        game = journal.games.game(game_id)
        assert (game.status, game.result) == ("finished", {"winner": 0, "result": "round-limit"})
        assert game.events == ["T7", "BOUNCE"]
        # The first result was not delivered yet: withdrawn, the new one waits.
        assert journal.outbox.pending_results() == [("second", "{}")]


async def test_a_bounce_re_decides_a_round_limited_game_end_to_end(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto):
        await watcher.state_where(lambda s: s["board"]["connected"])
        response = await watcher.command(
            {
                "command": "new_game",
                "game": "shanghai",
                "options": {"rounds": 7},
                "players": ["Ann"],
            }
        )
        assert response["ok"], response
        for round_ in range(2, 8):
            assert (await watcher.command({"command": "next"}))["ok"]
            await watcher.state_where(lambda s, r=round_: s.get("round") == r)
        for segment in ("S7", "D7", "T7"):
            assert (await watcher.command({"command": "dart", "segment": segment}))["ok"]
        await watcher.wait_for("result", lambda p: isinstance(p, dict))
        assert (await watcher.command({"command": "bounce"}))["ok"]
        result = await watcher.wait_for(
            "result", lambda p: isinstance(p, dict) and p["result"] == "round-limit"
        )
        assert result["log"].splitlines()[-1] == "S7 D7 T7 BOUNCE"
        state = await watcher.state_where(lambda s: s.get("result") == "round-limit")
        assert (state["phase"], state["finished"], state["players"][0]["score"]) == (
            "finished",
            True,
            21,
        )
    with Journal(tmp_path / "journal.sqlite3") as journal:
        latest = journal.games.latest_game("board1")
        assert latest is not None and latest.status == "finished"
        assert latest.result == {"winner": 0, "result": "round-limit"}
