"""The typed state views (mqtt_contract/state_views.py): every state the
engine and the daemon publish parses, and the views say what the document says.

The states come from the golden games (every game of the engine), the JSON
examples of docs/state.md and docs/mqtt.md, daemon states built here and
checked against the ``state`` topic's schema, and random games
(hypothesis, the engine's own property strategies).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engine import STATE_SCHEMA, game_ids, new_game
from engine.game_log import replay_log
from mqtt_contract import TOPICS, Phase, PlayerView, StateView
from tests.engine.test_properties import PROPERTY_SETTINGS, Setup, events_strategy, setups, skipped
from tests.goldens import iter_cases

DOCS = Path(__file__).resolve().parent.parent / "docs"
STATE_TOPIC = Draft202012Validator(TOPICS["state"].schema)
ENGINE_STATE = Draft202012Validator(STATE_SCHEMA)
_COMMON = {"name", "score", "team", "out", "stats"}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def assert_player(view: PlayerView, raw: Mapping[str, Any]) -> None:
    """A player's view says what its object says."""
    assert view.name == raw["name"]
    assert view.score == _int(raw.get("score"))
    assert view.team == raw.get("team")
    assert view.out is bool(raw.get("out"))
    stats = raw.get("stats") or {}
    assert view.stats.items == tuple(stats.items())
    assert (view.stats.darts, view.stats.visits) == (stats.get("darts"), stats.get("visits"))
    for figure in ("mpr", "average", "points_per_visit"):
        if figure in stats:
            assert getattr(view.stats, figure) == pytest.approx(stats[figure])
    for figure in ("hits", "points", "fives", "busts", "runs", "wickets_taken", "legs_lost"):
        if figure in stats:
            assert getattr(view.stats, figure) == stats[figure]
    assert dict(view.extras) == {k: v for k, v in raw.items() if k not in _COMMON}
    assert view.opened is raw.get("opened", True)
    assert view.has_checkout is ("checkout" in raw)
    if isinstance(raw.get("checkout"), list):
        assert view.checkout == tuple(raw["checkout"])
    assert dict(view.marks) == raw.get("marks", {})
    assert dict(view.marks_after_visit) == raw.get("marks_after_visit", {})
    for key in ("number", "lives", "to_beat"):
        assert getattr(view, key) == raw.get(key)
    assert view.killer is bool(raw.get("killer"))
    assert view.batting is bool(raw.get("batting"))
    assert view.target == (None if raw.get("target") is None else str(raw["target"]))
    assert view.innings_runs == tuple(raw.get("innings_runs", ()))
    assert dict(view.beds) == raw.get("beds", {})
    assert view.cribbage.hand == tuple(raw.get("hand", ()))
    assert view.cribbage.kept == tuple(raw.get("kept", ()))
    assert view.cribbage.go is bool(raw.get("go"))
    assert view.cribbage.computer is bool(raw.get("computer"))
    skill = raw.get("skill")
    if isinstance(skill, Mapping):
        assert view.skill is not None
        assert view.skill.sigma_mm == pytest.approx(skill["sigma_mm"])
        assert view.skill.level == skill.get("level")
        assert len(view.skill.checkouts) == len(skill.get("checkouts", ()))
    else:
        assert view.skill is None
    cpu = raw.get("cpu")
    assert (view.cpu is None) is (cpu is None)
    if view.cpu is not None:
        assert view.cpu.level == cpu["level"]
    assert view.board == raw.get("board")


def assert_view(document: Mapping[str, Any]) -> StateView:
    """Parse ``document`` and check that its view says what it says."""
    view = StateView.from_json(document)
    assert view.game == document.get("game")
    assert view.phase == (Phase(document["phase"]) if "phase" in document else None)
    assert view.options == tuple((document.get("options") or {}).items())
    assert len(view.players) == len(document.get("players") or [])
    players = document.get("players") or []
    for index, (player, raw) in enumerate(zip(view.players, players, strict=True)):
        assert player.index == index
        assert_player(player, raw)
    for key in ("current_player", "round", "visit_over", "winner", "winner_team", "result"):
        assert getattr(view, key) == document.get(key), key
    assert view.visit == tuple(document.get("visit") or ())
    assert view.finished is bool(document.get("finished"))
    last = document.get("last_visit")
    if last is None:
        assert view.last_visit is None
    else:
        assert view.last_visit is not None
        assert (view.last_visit.player, view.last_visit.visit_over) == (
            last["player"],
            last["visit_over"],
        )
        assert view.last_visit.darts == tuple(last["darts"])
        assert view.last_visit.awards == tuple(last.get("awards") or ())
    assert view.visit_awards == tuple(document.get("visit_awards") or ())
    teams = document.get("teams")
    if teams is None:
        assert view.teams is None
    else:
        assert view.teams is not None
        assert [(t.name, list(t.players)) for t in view.teams] == [
            (t["name"], t["players"]) for t in teams
        ]
    board = document.get("board")
    assert view.board.present is isinstance(board, Mapping)
    if isinstance(board, Mapping):
        assert (view.board.id, view.board.name, view.board.connected) == (
            board.get("id"),
            board.get("name"),
            board.get("connected"),
        )
        assert [list(c) for c in view.board.stuck_cells] == board.get("stuck_cells", [])
        assert view.board.problem == board.get("problem")
    journal = document.get("journal")
    assert view.journal.present is isinstance(journal, Mapping)
    if isinstance(journal, Mapping):
        assert (view.journal.status, view.journal.message, view.journal.salvaged) == (
            journal["status"],
            journal["message"],
            journal["salvaged"],
        )
    credits = document.get("credits")
    assert view.credits.present is isinstance(credits, Mapping)
    if isinstance(credits, Mapping):
        assert (view.credits.mode, view.credits.credits, view.credits.price) == (
            credits["mode"],
            credits["credits"],
            credits["price"],
        )
        assert dict(view.credits.game_prices or {}) == credits.get("game_prices", {})
    remote = document.get("remote")
    assert view.remote.present is isinstance(remote, Mapping)
    if isinstance(remote, Mapping):
        assert (view.remote.role, view.remote.host, view.remote.throwing_at) == (
            remote["role"],
            remote["host"],
            remote["throwing_at"],
        )
        assert [b.board for b in view.remote.boards] == [b["board"] for b in remote["boards"]]
        assert view.remote.waiting == tuple(remote["waiting"])
    if document.get("game") == "domino-cribbage":
        table = view.cribbage
        assert (table.stage, table.dealer, table.target, table.count) == (
            document["stage"],
            document["dealer"],
            document["target"],
            document["count"],
        )
        assert table.crib == tuple(document["crib"])
        assert len(table.scoring) == len(document["scoring"])
        assert len(table.counts) == len(document["counts"])
        assert len(table.played) == len(document["played"])
        assert view.hand == document["hand"]
    if document.get("game") == "english-cricket":
        assert (view.innings, view.wickets) == (document["innings"], document["wickets"])
    return view


def daemon_state(state: dict[str, Any], phase: str | None = None, **extra: Any) -> dict[str, Any]:
    """``state`` as the daemon publishes it: with its board, phase and ``extra``
    blocks, checked against the ``state`` topic's schema."""
    document = copy.deepcopy(state)
    document["board"] = {
        "id": "pub",
        "name": "Pub board",
        "connected": True,
        "status": "stuck",
        "stuck_cells": [[1, 2]],
        "problem": None,
    }
    document["phase"] = phase or ("finished" if state["finished"] else "throwing")
    document |= extra
    STATE_TOPIC.validate(document)
    return document


# ------------------------------------------------------------ the states


GOLDEN = list(iter_cases())


@pytest.mark.parametrize("case", GOLDEN, ids=[case.name for case in GOLDEN])
def test_every_golden_game_state_parses_to_what_it_says(case: Any) -> None:
    state = case.replay().state()
    ENGINE_STATE.validate(state)
    assert_view(state)
    assert_view(daemon_state(state))


def test_the_golden_games_cover_every_game() -> None:
    assert {case.game for case in GOLDEN} == set(game_ids())


def _doc_states() -> list[dict[str, Any]]:
    """The JSON examples of docs/state.md and docs/mqtt.md that are states."""
    found = []
    for page in ("state.md", "mqtt.md"):
        text = (DOCS / page).read_text("utf-8")
        for block in re.findall(r"```json\n(.*?)```", text, re.S):
            try:
                data = json.loads(block)
            except ValueError:
                continue  # an excerpt
            players = data.get("players") if isinstance(data, dict) else None
            if (
                "game" in data
                and "command" not in data  # a call_match's players are objects too
                and isinstance(players, list)
                and players
                and all(isinstance(player, dict) for player in players)
            ):
                found.append(data)  # a state, not a command
    return found


def test_the_docs_example_states_parse() -> None:
    examples = _doc_states()
    assert examples
    for example in examples:
        assert_view(example)


def test_the_daemons_additions_parse() -> None:
    game = replay_log(new_game("x01", ["Ann", "Bob"], {"start": 301}), "T20 T20 T20\nS1\n")
    state = game.state()
    state["players"][1]["cpu"] = {"level": 6, "sigma_mm": 20.0, "average": 50.0}
    document = daemon_state(
        state,
        credits={
            "mode": "coin",
            "free_play": False,
            "credits": 3,
            "price": 1,
            "happy_hour": True,
            "game_prices": {"x01": 2},
            "player_prices": {"3": 1},
            "coins_today": 5,
        },
        journal={"status": "full", "message": "the journal is full", "salvaged": None},
    )
    view = assert_view(document)
    assert view.phase is Phase.THROWING
    assert view.board.stuck_cells == ((1, 2),)
    assert view.credits.player_prices == {"3": 1}
    assert view.credits.coins_today == 5 and view.credits.happy_hour
    cpu = view.players[1].cpu
    assert cpu is not None and (cpu.level, cpu.sigma_mm, cpu.average) == (6, 20.0, 50.0)
    for index, player in enumerate(state["players"]):
        player["board"] = ("oche/pub1", "oche/pub2")[index]
    remote = daemon_state(
        state,
        phase="waiting-remote",
        remote={
            "match": "m-0001",
            "role": "guest",
            "host": "oche/pub1",
            "throwing_at": "oche/pub2",
            "boards": [
                {
                    "board": "oche/pub1",
                    "name": "Pub 1",
                    "online": True,
                    "joined": True,
                    "applied": 0,
                },
                {
                    "board": "oche/pub2",
                    "name": "Pub 2",
                    "online": False,
                    "joined": True,
                    "applied": 3,
                },
            ],
            "waiting": ["oche/pub2"],
        },
    )
    view = assert_view(remote)
    assert view.phase is Phase.WAITING_REMOTE
    assert view.remote.boards[1].online is False and view.players[1].board == "oche/pub2"


def test_an_idle_board_and_a_state_of_nothing_parse() -> None:
    idle = {"game": None, "phase": "idle", "board": {"id": "pub", "connected": False}}
    view = StateView.from_json(idle)
    assert view.game is None and view.phase is Phase.IDLE and view.players == ()
    assert view.board.present and view.board.connected is False
    empty = StateView.from_json({})
    assert empty == StateView() and not empty.board.present and empty.board.connected is None


def test_a_key_of_the_wrong_type_reads_as_its_default() -> None:
    """Lenient, as a scoreboard must be: another daemon's or a hand-made state."""
    view = StateView.from_json(
        {
            "game": "x01",
            "players": [{"name": "Ann", "score": "lots", "stats": [], "marks": 3}, "Bob"],
            "current_player": True,
            "visit": "T20",
            "teams": {"Red": [0]},
            "credits": "free",
        }
    )
    ann, bob = view.players
    assert ann.score is None and not ann.stats.present and ann.marks == ()
    assert bob.name is None and bob.index == 1
    assert view.current_player is None and view.visit == () and view.teams is None
    assert not view.credits.present


# ------------------------------------------------------------ the property


@PROPERTY_SETTINGS
@given(setups(), events_strategy, st.booleans())
def test_every_state_the_engine_makes_parses(setup: Setup, stream: list[Any], daemon: bool) -> None:
    game = setup.new()
    for event in stream:
        if skipped(game, event):
            continue
        game.push(event)
    state = game.state()
    ENGINE_STATE.validate(state)
    assert_view(daemon_state(state) if daemon else state)


def test_a_domino_cribbage_game_parses_in_every_stage() -> None:
    game = new_game("domino-cribbage", ["Ann", "Bob"], {"seed": 3})
    stages = set()
    for _ in range(400):
        if game.is_finished:
            break
        state = game.state()
        stages.add(state["stage"])
        assert_view(daemon_state(state))
        hand = state["players"][state["current_player"]]["hand"]
        if state["stage"] in ("discard", "play") and hand:
            for number in range(1, len(hand) + 1):
                try:
                    game.dart(_bed(number))
                    break
                except Exception:
                    continue
            else:
                game.end_visit()
        else:
            game.end_visit()
    assert {"discard", "play", "show"} <= stages


def _bed(number: int) -> Any:
    from engine import Bed

    return Bed(number, 1)
