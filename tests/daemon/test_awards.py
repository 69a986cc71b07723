"""Awards live on a real daemon (issue #26's "Done when"): darts thrown at a
board on a pseudo-terminal, scored by the daemon and published through a real
Mosquitto, give one ``award`` event per award right after the visit's
``visit_end``; the state's ``last_visit.awards`` says the same, and so does
the journal's replay (its exported log notes each visit's awards)."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from firmware_bridge.cli.history_command import export_text, replay_journal_game
from firmware_bridge.daemon.journal import Journal
from mqtt_contract import TOPICS
from tests.daemon_harness import Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)
NEXT = 0
T0 = 1_700_000_000.0

VISITS = [
    ("x01", ("T20", "T20", "T20"), "ton-80", {"points": 180}),
    ("x01", ("SB", "DB", "SB"), "hat-trick", {"points": 100}),
    ("x01", ("T19", "T19", "T19"), "three-in-a-bed", {"points": 171}),
    ("cricket", ("T20", "T19", "T18"), "white-horse", {"marks": 9}),
]


@pytest.mark.parametrize(("game", "darts", "award", "figure"), VISITS, ids=[v[2] for v in VISITS])
async def test_a_visit_earns_its_award_live_in_the_state_and_in_the_replay(
    game: str,
    darts: tuple[str, ...],
    award: str,
    figure: dict[str, int],
    running: Running,
    watcher: Watcher,
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {"command": "new_game", "game": game, "players": ["Ann", "Bob"]}
    )
    assert response["ok"] is True, response
    await throw(running.board, *darts)
    event = await watcher.wait_for("event", lambda e: e.get("type") == "award")
    assert event == {
        "type": "award",
        "at": event["at"],
        "award": award,
        "player": 0,
        "name": "Ann",
        "darts": list(darts),
        **figure,
        "game": game,
    }
    assert list(EVENT_SCHEMA.iter_errors(event)) == []
    types = [e["type"] for e in watcher.of("event")]
    assert types.index("award") == types.index("visit_end") + 1  # right after its visit
    assert types.count("award") == 1
    state = await watcher.state_where(lambda s: s.get("last_visit") is not None)
    assert state["last_visit"]["awards"] == [award]
    assert state["last_visit"]["darts"] == list(darts)

    await press(running.board, NEXT)  # takeout over: Bob is up
    await watcher.state_where(lambda s: s.get("phase") == "throwing")
    with Journal(running.config.journal.resolved_path()) as journal:
        entry = journal.games.latest_game("board1")
    assert entry is not None
    replayed, refused = replay_journal_game(entry)
    assert refused == []
    assert replayed.state()["last_visit"] == state["last_visit"]
    assert f"{' '.join(darts)}  # award: {award}" in export_text(entry).splitlines()


async def test_an_undo_takes_the_award_back_and_announces_none(
    running: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
    )
    assert response["ok"] is True, response
    await throw(running.board, "T20", "T20", "T20")
    await watcher.wait_for("event", lambda e: e.get("type") == "award")
    assert (await watcher.command({"command": "undo"}))["ok"] is True
    state = await watcher.state_where(lambda s: s.get("last_visit") is None)
    assert state["visit"] == ["T20", "T20"]
    await watcher.wait_for("event", lambda e: e.get("type") == "undo")
    assert (await watcher.command({"command": "dart", "segment": "T20"}))["ok"] is True
    state = await watcher.state_where(lambda s: s.get("last_visit") is not None)
    assert state["last_visit"]["awards"] == ["ton-80"]
    await watcher.count("event", lambda e: e.get("type") == "award", at_least=2)
    awards = [e for e in watcher.of("event") if e.get("type") == "award"]
    assert [e["award"] for e in awards] == ["ton-80", "ton-80"]  # thrown twice, said twice


async def test_a_resumed_game_keeps_its_awards_and_announces_none_again(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        game_id = journal.games.start_game("x01", {}, ["Ann", "Bob"], None, "board1", T0)
        for index, token in enumerate(["T20", "T20", "T20", "NEXT"]):
            journal.games.append(game_id, token, T0 + 1 + index)
    daemon = Running(tmp_path, mosquitto)
    await daemon.start()
    try:
        state = await watcher.state_where(lambda s: s.get("last_visit") is not None)
        assert state["last_visit"]["awards"] == ["ton-80"]
        assert (await watcher.command({"command": "dart", "segment": "S1"}))["ok"] is True
        await watcher.wait_for("event", lambda e: e.get("type") == "dart")
        assert [e for e in watcher.of("event") if e.get("type") == "award"] == []
    finally:
        await daemon.stop()
