"""The state JSON schema: docs/state.schema.json is STATE_SCHEMA, the schema is
valid, every game's state matches it (fixed games and random dart streams) and
broken states are rejected."""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engine import (
    ALL_BEDS,
    END_VISIT,
    UNDO,
    Bed,
    EngineError,
    Event,
    Game,
    LineupError,
    OptionError,
    PickingGame,
    game_class,
    game_ids,
    new_game,
)
from engine.events import parse_event
from engine.state_schema import CRICKET_FAMILY, MARKS_KEYS, STATE_SCHEMA
from tests.paths import REPO

ROOT = REPO
VALIDATOR = Draft202012Validator(STATE_SCHEMA)

TEAMS = {"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee"]}
FOUR = ["Ann", "Bob", "Cy", "Dee"]


def schema_errors(state: dict[str, Any]) -> list[str]:
    """The schema's complaints about ``state`` as it travels (through JSON)."""
    wire = json.loads(json.dumps(state))
    assert wire == state, "the state does not survive a JSON round trip"
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}"
        for error in VALIDATOR.iter_errors(wire)
    ]


def assert_valid(state: dict[str, Any]) -> None:
    assert schema_errors(state) == []


def play(
    game_id: str,
    log: str,
    options: dict[str, object] | None = None,
    players: list[str] | None = None,
    teams: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The state after pushing the space-separated events of ``log``."""
    game = new_game(game_id, players or ["Ann", "Bob"], options, teams)
    for token in log.split():
        game.push(parse_event(token))
    return game.state()


# --------------------------------------------------------------- the schema


def test_docs_schema_file_is_state_schema() -> None:
    text = (ROOT / "docs" / "state.schema.json").read_text("utf-8")
    assert text == json.dumps(STATE_SCHEMA, indent=2) + "\n"
    assert json.loads(text) == STATE_SCHEMA


def test_schema_is_valid_draft_2020_12() -> None:
    assert STATE_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(STATE_SCHEMA)


def test_schema_conditions_name_registered_games() -> None:
    assert {"x01", *CRICKET_FAMILY} <= set(game_ids())


def test_schema_module_imports_only_typing_and_engine() -> None:
    tree = ast.parse((ROOT / "engine" / "state_schema.py").read_text("utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
    assert all(
        name in {"__future__", "typing"} or name.split(".")[0] == "engine" for name in imported
    ), imported


# ------------------------------------------------------- states of the games

# (game, log, options, teams, check): ``check`` says the log reached the
# situation the case is about, so a changed engine cannot make it vacuous.
Check = Callable[[dict[str, Any]], bool]
CASES: dict[str, tuple[str, str, dict[str, object], bool, Check]] = {
    "x01-start": ("x01", "", {}, False, lambda s: s["visit"] == [] and s["round"] == 1),
    "x01-mid-visit": ("x01", "T20", {"start": 301}, False, lambda s: s["visit"] == ["T20"]),
    "x01-double-in-not-opened": (
        "x01",
        "S20 S5",
        {"in": "double"},
        False,
        lambda s: s["players"][0]["opened"] is False and s["players"][0]["score"] == 501,
    ),
    "x01-bust": (
        "x01",
        "T20 T20 T20  M M M  T20 T20",
        {"start": 301},
        False,
        lambda s: s["visit_over"] == "bust" and s["players"][0]["score"] == 121,
    ),
    "x01-win-with-dead-dart": (
        "x01",
        "T20 T20 T20  M M M  S1 S20 M  M M M  T20 D20 M",
        {"start": 301},
        False,
        lambda s: s["winner"] == 0 and s["visit_over"] == "win" and s["result"] == "checkout",
    ),
    "x01-round-limit-draw": (
        "x01",
        "T20 T20 T20  T20 T20 T20",
        {"start": 301, "rounds": 1},
        False,
        lambda s: s["finished"] and s["winner"] is None and s["visit_over"] == "game-over",
    ),
    "x01-teams-mid-visit": (
        "x01",
        "T20 T20 T20  M M M  S1",
        {"start": 301},
        True,
        lambda s: s["current_player"] == 2 and s["players"][2]["score"] == 120,
    ),
    "x01-teams-win": (
        "x01",
        "T20 T20 T20  M M M  S1 S20 M  M M M  S20 S20 S20  M M M  D20",
        {"start": 301},
        True,
        lambda s: s["winner"] == 0 and s["winner_team"] == 0 and s["current_player"] == 2,
    ),
    "cricket-start": ("cricket", "", {}, False, lambda s: s["players"][0]["score"] == 0),
    "cricket-mid-visit": (
        "cricket",
        "T20 S20 S20  S20",
        {},
        False,
        lambda s: s["players"][1]["marks"]["20"] == 1 and s["players"][0]["score"] == 40,
    ),
    "cricket-cut-throat": (
        "cricket",
        "T20 S20 S20",
        {"mode": "cut-throat"},
        False,
        lambda s: s["players"][1]["score"] == 40,
    ),
    "cricket-win-with-dead-dart": (
        "cricket",
        "T20 T19 T18  M M M  T17 T16 T15  M M M  DB SB M",
        {},
        False,
        lambda s: s["winner"] == 0 and s["visit"] == ["DB", "SB", "M"],
    ),
    "cricket-round-limit-marks-decide": (
        "cricket",
        "T20 M M  T19 S18 M",
        {"rounds": 1},
        False,
        lambda s: s["winner"] == 1 and s["result"] == "round-limit",
    ),
    "cricket-teams-win": (
        "cricket",
        "T20 T19 T18  M M M  T17 T16 T15  M M M  DB SB",
        {},
        True,
        lambda s: s["winner"] == 0 and s["winner_team"] == 0 and s["players"][2]["score"] == 0,
    ),
    "cricket-shanghai-start": (
        "cricket-shanghai",
        "",
        {},
        False,
        lambda s: s["players"][0]["marks"] == s["players"][0]["marks_after_visit"],
    ),
    "cricket-shanghai-mid-visit": (
        "cricket-shanghai",
        "T20 S20",
        {},
        False,
        lambda s: (
            s["players"][0]["marks"]["20"] == 0 and s["players"][0]["marks_after_visit"]["20"] == 1
        ),
    ),
    "cricket-shanghai-strict-bull": (
        "cricket-shanghai",
        "DB SB SB",
        {"bull_order": "strict"},
        False,
        lambda s: s["players"][0]["marks"]["bull"] == 2,
    ),
    "cricket-shanghai-win": (
        "cricket-shanghai",
        "T20 S20 D20  M M M  D19 T19 S19  M M M  S18 T18 D18  M M M  "
        "T17 D17 S17  M M M  D16 S16 T16  M M M  S15 D15 T15  M M M  DB SB SB",
        {},
        False,
        lambda s: s["winner"] == 0 and s["players"][0]["score"] == 21,
    ),
    "cricket-shanghai-teams": (
        "cricket-shanghai",
        "T20 S20 D20  M M M  D19",
        {},
        True,
        lambda s: (
            s["players"][2]["marks"]["20"] == 3 and s["players"][2]["marks_after_visit"]["19"] == 0
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_game_states_match_schema(case: str) -> None:
    game_id, log, options, with_teams, check = CASES[case]
    players, teams = (FOUR, TEAMS) if with_teams else (None, None)
    state = play(game_id, log, options, players, teams)
    assert check(state), state
    assert_valid(state)


def test_every_registered_game_starts_valid() -> None:
    for game_id in game_ids():
        assert_valid(new_game(game_id, ["Ann", "Bob"]).state())
        try:
            teams = new_game(game_id, FOUR, None, TEAMS)
        except LineupError:  # domino cribbage is for two players, never teams
            continue
        assert_valid(teams.state())


def test_schema_is_open_for_future_games() -> None:
    state = play("x01", "T20")
    state["game"] = "killer"
    state["options"] = {"lives": 3}
    for player in state["players"]:
        del player["opened"]
        player["lives"] = 3
        player["stats"]["kills"] = 0
    assert_valid(state)


# ------------------------------------------------------- random dart streams


def beds(text: str) -> tuple[Bed, ...]:
    return tuple(Bed.parse(token) for token in text.split())


_AIMED = beds("T20 T19 T18 T17 T16 T15 D20 D19 D16 D10 D8 D2 S20 S15 S1 SB DB")


@st.composite
def games(draw: st.DrawFn, game_id: str) -> Game:
    options: dict[str, object] = {}
    for option in game_class(game_id).options_spec:
        if option.choices:
            # The first choice twice as often: 301 is the start that most often finishes.
            first = st.just(option.choices[0])
            options[option.name] = draw(st.one_of(first, st.sampled_from(option.choices)))
        elif isinstance(option.default, bool):
            options[option.name] = draw(st.booleans())
        elif isinstance(option.default, int):
            low = option.minimum or 0
            options[option.name] = draw(st.integers(low, low + 4))
    dart_game = not issubclass(game_class(game_id), PickingGame)
    count = draw(st.integers(1, 4)) if dart_game else 2  # domino cribbage: two players
    players = [f"P{i}" for i in range(count)]
    teams = None
    if dart_game and count >= 2 and draw(st.booleans()):
        split = draw(st.integers(1, count - 1))
        teams = {"Red": players[:split], "Blue": players[split:]}
    try:
        return new_game(game_id, players, options, teams)
    except (LineupError, OptionError):  # e.g. English Cricket is for two sides only
        assume(False)
        raise


_SWEEPS = (*(beds(f"S{n} D{n} T{n}") for n in range(15, 21)), beds("SB SB DB"))
"""Whole cricket-family sectors; thrown in any order as a visit of their own
(after a NEXT) they let random Cricket-Shanghai games finish too."""


def _flatten(chunks: list[Any]) -> list[Event]:
    return [event for chunk in chunks for event in chunk]


events = st.lists(
    st.one_of(
        st.sampled_from(ALL_BEDS).map(lambda bed: [bed]),
        st.sampled_from(_AIMED).map(lambda bed: [bed]),
        st.sampled_from(_SWEEPS).flatmap(st.permutations).map(lambda darts: [END_VISIT, *darts]),
        st.sampled_from([[END_VISIT], [UNDO]]),
    ),
    min_size=20,
    max_size=60,
).map(_flatten)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", game_ids())
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), stream=events)
def test_random_dart_streams_match_schema(
    game_id: str, data: st.DataObject, stream: list[Event]
) -> None:
    game = data.draw(games(game_id), label="game")
    assert_valid(game.state())
    for event in stream:
        try:
            game.check(event)  # skip what the game refuses now
        except EngineError:
            continue
        game.push(event)
        assert_valid(game.state())


# ------------------------------------------------------------ broken states


def _set_mark(state: dict[str, Any]) -> None:
    state["players"][0]["marks"]["20"] = 4


def _drop_winner(state: dict[str, Any]) -> None:
    del state["winner"]


def _four_darts(state: dict[str, Any]) -> None:
    state["visit"] = ["T20", "S20", "S20", "M"]


def _bad_notation(state: dict[str, Any]) -> None:
    state["visit"] = ["T21"]


def _mutate(path: list[str | int], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(state: dict[str, Any]) -> None:
        target: Any = state
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


def _delete(path: list[str | int]) -> Callable[[dict[str, Any]], None]:
    def apply(state: dict[str, Any]) -> None:
        target: Any = state
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return apply


# (game the broken state starts from, how it is broken)
BROKEN: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "marks-value-4": ("cricket", _set_mark),
    "missing-winner": ("cricket", _drop_winner),
    "visit-with-4-darts": ("cricket", _four_darts),
    "notation-T21": ("cricket", _bad_notation),
    "notation-lower-case": ("x01", _mutate(["visit", 0], "t20")),
    "notation-S0": ("x01", _mutate(["visit", 0], "S0")),
    "marks-value-negative": ("cricket", _mutate(["players", 1, "marks", "bull"], -1)),
    "marks-extra-key": ("cricket", _mutate(["players", 0, "marks", "14"], 0)),
    "marks-missing-bull": ("cricket", _delete(["players", 0, "marks", "bull"])),
    "cricket-without-marks": ("cricket", _delete(["players", 1, "marks"])),
    "shanghai-without-marks-after-visit": (
        "cricket-shanghai",
        _delete(["players", 0, "marks_after_visit"]),
    ),
    "shanghai-marks-after-visit-4": (
        "cricket-shanghai",
        _mutate(["players", 0, "marks_after_visit", "20"], 4),
    ),
    "x01-without-opened": ("x01", _delete(["players", 0, "opened"])),
    "score-as-text": ("x01", _mutate(["players", 0, "score"], "441")),
    "stats-without-visits": ("x01", _delete(["players", 0, "stats", "visits"])),
    "negative-darts": ("cricket", _mutate(["players", 0, "stats", "darts"], -1)),
    "empty-visit-over": ("x01", _mutate(["visit_over"], "")),
    "numeric-visit-over": ("x01", _mutate(["visit_over"], 7)),
    "won-visit-while-playing": ("x01", _mutate(["visit_over"], "win")),
    "missing-result": ("x01", _delete(["result"])),
    "winner-while-playing": ("x01", _mutate(["winner"], 0)),
    "team-index-without-teams": ("x01", _mutate(["players", 0, "team"], 0)),
    "round-zero": ("cricket", _mutate(["round"], 0)),
    "no-players": ("cricket", _mutate(["players"], [])),
    "single-team": ("x01", _mutate(["teams"], [{"name": "Red", "players": [0, 1]}])),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_schema_rejects_broken_states(case: str) -> None:
    game_id, breaker = BROKEN[case]
    state = play(game_id, "T20 S20 S20  S20")
    assert_valid(state)
    broken = copy.deepcopy(state)
    breaker(broken)
    assert broken != state
    assert schema_errors(broken) != []


def test_marks_keys_are_what_the_games_show() -> None:
    for game_id in CRICKET_FAMILY:
        player = play(game_id, "")["players"][0]
        assert tuple(player["marks"]) == MARKS_KEYS


def test_the_complete_example_in_state_md_is_what_the_engine_prints() -> None:
    """docs/state.md shows a real state: replaying its snippet gives its JSON."""
    text = (REPO / "docs" / "state.md").read_text("utf-8")
    section = text.split("## A complete example", 1)[1]
    tokens = section.split('for token in "', 1)[1].split('"', 1)[0]
    shown = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    game = new_game("cricket", ["Ann", "Bob"])
    for token in tokens.split():
        game.push(parse_event(token))
    assert shown == game.state()
