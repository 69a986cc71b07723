"""Corrections on the board (docs/mqtt.md, ``correct``): the session's plan and
events, a property over every visit game (a visit corrected is the visit
thrown right, live and from the journal), then the daemon end to end over a
real Mosquitto: re-scored, journaled, after a restart, in ``oche export`` and
``oche replay``, refusals that change nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engine import ALL_BEDS, END_VISIT, Bed, Event, parse_event
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.journal import Journal
from leaderboard.scoring import score_result
from mqtt_contract import TOPICS, Phase
from tests.daemon_harness import Running, Watcher, throw
from tests.engine.test_properties import EVENT_POOL, PROPERTY_SETTINGS, Setup, setups, skipped
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
X01 = SessionSetup("x01", {"start": 301}, ["Ann", "Bob"])
EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)


def play(
    session: GameSession, moves: Sequence[Event | str], now: float = 0.0
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for move in moves:
        event = parse_event(move) if isinstance(move, str) else move
        events += [caused.to_json() for caused in session.apply(event, now)]
    return events


def correct(
    session: GameSession, dart: int, segment: str, now: float = 1.0
) -> list[dict[str, Any]]:
    return play(session, session.plan_correct(dart, Bed.parse(segment)), now)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# ----------------------------------------------------------- the session


def test_a_dart_of_the_visit_in_progress_is_rescored() -> None:
    session = GameSession(X01)
    play(session, ["T20", "S19"])
    events = correct(session, 2, "T19")
    assert events == [
        {"type": "corrected", "at": 1.0, "player": 0, "dart": 2, "from": "S19", "to": "T19"}
    ]
    assert not list(EVENT_SCHEMA.iter_errors(events[0]))
    state = session.state()
    assert (state["visit"], state["phase"]) == (["T20", "T19"], "throwing")
    assert state["players"][0]["score"] == 301 - 117


def test_in_takeout_the_visit_just_thrown_is_corrected_and_the_takeout_goes_on() -> None:
    session = GameSession(X01, takeout_s=5.0)
    play(session, ["T20", "S19", "S5"], now=10.0)
    events = correct(session, 3, "T5", now=11.0)
    assert types(events) == ["corrected"]
    assert events[0]["player"] == 0  # Ann's visit, though Bob is up
    assert (session.phase, session.takeout_deadline) == (Phase.TAKEOUT, 15.0)
    assert session.state()["last_visit"]["darts"] == ["T20", "S19", "T5"]
    assert session.state()["players"][0]["score"] == 301 - 94


def test_after_next_there_is_no_visit_on_the_board_to_correct() -> None:
    session = GameSession(X01)
    with pytest.raises(Refusal, match="no dart has been thrown"):
        session.plan_correct(1, Bed.parse("T20"))
    play(session, ["T20", "T20", "T20", "NEXT"])
    with pytest.raises(Refusal, match="no visit on the board to correct; UNDO takes back"):
        session.plan_correct(1, Bed.parse("S20"))


def test_a_dart_not_thrown_or_already_right_is_refused_by_name() -> None:
    session = GameSession(X01)
    play(session, ["T20"])
    before = session.state()
    with pytest.raises(Refusal, match="no dart 2 to correct: the visit has 1 dart"):
        session.plan_correct(2, Bed.parse("T19"))
    with pytest.raises(Refusal, match="dart 1 counts as T20 already"):
        session.plan_correct(1, Bed.parse("T20"))
    assert session.state() == before


def test_a_correction_that_busts_says_so_and_goes_to_takeout() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT", "T20", "S20"])
    events = correct(session, 2, "T20")  # 121 - 60 - 60 = 1: bust
    assert types(events) == ["corrected", "bust", "takeout"]
    assert session.phase == Phase.TAKEOUT
    assert session.state()["players"][0]["score"] == 121


def test_a_correction_that_wins_finishes_and_one_that_unwins_reopens() -> None:
    session = GameSession(X01)
    play(session, ["T20", "T20", "T20", "NEXT", "M", "M", "M", "NEXT", "T20", "T11", "D14"])
    assert session.state()["phase"] == "finished"
    events = correct(session, 3, "S14")  # the final visit: no checkout after all
    assert types(events) == ["corrected", "takeout", "player_change"]
    assert session.state()["phase"] == "takeout" and not session.game.is_finished
    events = correct(session, 3, "D14")  # the visit just thrown, in takeout: a win again
    assert "winner" in types(events) and session.phase == Phase.FINISHED


def test_domino_cribbage_refuses_a_correction_clearly() -> None:
    session = GameSession(SessionSetup("domino-cribbage", {"seed": 3}, ["Ann", "Bob"]))
    with pytest.raises(Refusal, match="Domino Cribbage has no visits to correct"):
        session.plan_correct(1, Bed.parse("S1"))


# --------------------------------------------------------------- property


def _session_of(setup: Setup) -> GameSession:
    return GameSession(SessionSetup(setup.game_id, setup.options, setup.players, setup.teams))


def _throw(session: GameSession, darts: Sequence[Bed]) -> list[Event]:
    """Darts thrown at the board while it scores them (none in takeout, after a win)."""
    thrown: list[Event] = []
    for bed in darts:
        if session.phase != Phase.THROWING:
            break
        planned = session.plan_manual_dart(bed)
        for event in planned:
            session.apply(event, 0.0)
        thrown += planned
    return thrown


@PROPERTY_SETTINGS
@given(
    setups(),
    st.lists(st.sampled_from(EVENT_POOL), max_size=40),
    st.lists(st.sampled_from(ALL_BEDS), min_size=1, max_size=3),
    st.data(),
)
def test_a_visit_corrected_on_the_board_is_the_visit_thrown_right(
    setup: Setup, stream: list[Event], visit: list[Bed], data: st.DataObject
) -> None:
    session = _session_of(setup)
    journal: list[Event] = []
    for event in [*stream, END_VISIT]:
        if not skipped(session.game, event):
            session.apply(event, 0.0)
            journal.append(event)
    assume(session.phase == Phase.THROWING)
    thrown = _throw(session, visit)
    assume(thrown)
    dart = data.draw(st.integers(1, len(thrown)), label="dart")
    right = data.draw(st.sampled_from(ALL_BEDS), label="right")
    assume(right != thrown[dart - 1])
    planned = session.plan_correct(dart, right)
    for event in planned:
        session.apply(event, 0.0)

    fixed = [bed for bed in thrown if isinstance(bed, Bed)]
    fixed[dart - 1] = right
    expected = _session_of(setup)
    for event in journal:
        expected.apply(event, 0.0)
    _throw(expected, fixed)
    assert session.state() == expected.state()

    # a restart replays the journal's tokens: the same game and phase
    replayed = _session_of(setup)
    for event in [*journal, *thrown, *planned]:
        replayed.apply(parse_event(str(event)), 0.0)
    assert replayed.state() == expected.state()


# ------------------------------------------------------------ end to end


async def test_correct_rescores_the_visit_end_to_end_and_after_a_restart(
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
        # Refused before any dart: said, and nothing changes.
        response = await watcher.command({"command": "correct", "dart": 1, "segment": "T19"})
        assert response == {**response, "ok": False}
        assert "no dart has been thrown" in response["error"]
        await throw(daemon.board, "T20", "S19")
        await watcher.state_where(lambda s: s.get("visit") == ["T20", "S19"])
        response = await watcher.command({"command": "correct", "dart": 3, "segment": "T19"})
        assert response["ok"] is False and "no dart 3 to correct" in response["error"]
        response = await watcher.command({"command": "correct", "dart": 2, "segment": "t19"})
        assert response["ok"], response
        event = await watcher.wait_for("event", lambda e: e.get("type") == "corrected")
        assert (event["player"], event["dart"], event["from"], event["to"]) == (0, 2, "S19", "T19")
        state = await watcher.state_where(lambda s: s.get("visit") == ["T20", "T19"])
        assert state["players"][0]["score"] == 301 - 117
        assert state["phase"] == "throwing"
        await throw(daemon.board, "S5")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        # In takeout the visit just thrown is still on the board.
        assert (await watcher.command({"command": "correct", "dart": 1, "segment": "S20"}))["ok"]
        await watcher.state_where(lambda s: s["players"][0]["score"] == 301 - 20 - 57 - 5)
        assert (await watcher.command({"command": "next"}))["ok"]
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
        response = await watcher.command({"command": "correct", "dart": 1, "segment": "S1"})
        assert response["ok"] is False and "no visit on the board" in response["error"]
        refused_state = watcher.of("state")[-1]
        assert refused_state["players"][0]["score"] == 219
        for payload in watcher.of("event"):
            assert not list(EVENT_SCHEMA.iter_errors(payload)), payload
    finally:
        await daemon.stop()
    with Journal(tmp_path / "journal.sqlite3") as journal:
        latest = journal.games.latest_game("board1")
    assert latest is not None
    assert latest.events == ["T20", "S19", "CORRECT2=T19", "S5", "CORRECT1=S20", "NEXT"]

    # A restart replays the journal: the corrected visit comes back as it was.
    watcher.messages.clear()
    again = Running(tmp_path, mosquitto)
    await again.start()
    try:
        state = await watcher.state_where(lambda s: s.get("game") == "x01")
        assert state["last_visit"]["darts"] == ["S20", "T19", "S5"]
        assert [p["score"] for p in state["players"]] == [219, 301]
        assert (state["current_player"], state["phase"]) == (1, "throwing")
    finally:
        await again.stop()

    # oche export writes the corrected darts and what the board read; oche replay agrees.
    export = subprocess.run(
        [str(OCHE), "export", str(latest.id), "--journal", str(tmp_path / "journal.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "S20 T19 S5  # dart 1 read as T20; dart 2 read as S19\n" in export
    replayed = subprocess.run(
        [str(OCHE), "replay", "-"], input=export, capture_output=True, text=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    assert [p["score"] for p in json.loads(replayed.stdout)["players"]] == [219, 301]


async def test_a_corrected_checkout_is_in_the_result_the_leaderboard_scores(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        response = await watcher.command(
            {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann"]}
        )
        assert response["ok"], response
        await throw(daemon.board, "T20", "T20", "T20")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        assert (await watcher.command({"command": "next"}))["ok"]
        await throw(daemon.board, "T20", "T11", "S14")  # 121 - 93 = 28: D14 misread as S14
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        assert (await watcher.command({"command": "correct", "dart": 3, "segment": "D14"}))["ok"]
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        assert result["log"].splitlines()[-1] == "T20 T11 D14  # dart 3 read as S14"
        assert result["winner"] == 0
        # Corrected back, the win is taken back: the game reopens, as after an undo.
        assert (await watcher.command({"command": "correct", "dart": 3, "segment": "S14"}))["ok"]
        state = await watcher.state_where(lambda s: s.get("finished") is False)
        assert (state["players"][0]["score"], state["phase"]) == (14, "takeout")
        with Journal(tmp_path / "journal.sqlite3") as journal:
            latest = journal.games.latest_game("board1")
            assert latest is not None and latest.status == "playing"
    # The leaderboard re-scores the log: the corrected double is Ann's checkout.
    scored = score_result(result)
    assert scored.visits[-1].darts == ("T20", "T11", "D14")
    assert scored.players[0].won and scored.players[0].darts == 6
