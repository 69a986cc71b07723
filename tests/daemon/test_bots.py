"""Computer players in the contract and the daemon's record of them: what
``new_game`` takes and refuses (with the reason), the schemas that carry
them, the journal that keeps them (and a version-1 journal migrated), and
the darts a seed and the journal decide."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import new_game
from engine.board_geometry import SOFT, STEEL
from engine.bot_levels import level
from firmware_bridge.daemon.bots import Bots, resolve_bots
from firmware_bridge.daemon.journal import SCHEMA_VERSION, Journal
from firmware_bridge.daemon.journal import schema as journal_schema
from mqtt_contract import TOPICS, CommandError, NewGame, cpu_label, parse_command

T0 = 1_700_000_000.0


def new_game_command(players: Any, **more: Any) -> bytes:
    return json.dumps(
        {"command": "new_game", "id": 7, "game": "x01", "players": players, **more}
    ).encode()


def started(payload: bytes) -> NewGame:
    """The ``new_game`` command ``payload`` parses into."""
    command = parse_command(payload)
    assert isinstance(command, NewGame), command
    return command


def refusal(players: Any, **more: Any) -> str:
    with pytest.raises(CommandError) as caught:
        parse_command(new_game_command(players, **more))
    assert caught.value.id == 7
    return str(caught.value)


def test_new_game_takes_computer_players_by_level_or_average() -> None:
    command = started(
        new_game_command(
            ["Ann", {"name": " Robo ", "cpu": 6}, {"name": "Tin", "cpu": {"average": 55}}]
        )
    )
    assert command.player_names == ("Ann", " Robo ", "Tin")  # names as given
    assert command.cpu == {"Robo": {"level": 6}, "Tin": {"average": 55.0}}
    plain = started(new_game_command(["Ann", "Bob"]))
    assert plain.cpu == {}
    teams_command = {
        "command": "new_game",
        "game": "x01",
        "teams": {"Red": ["Ann", {"name": "Robo", "cpu": 2}], "Blue": ["Bob", "Cy"]},
    }
    teams = started(json.dumps(teams_command).encode())
    assert teams.team_names == {"Red": ("Ann", "Robo"), "Blue": ("Bob", "Cy")}
    assert teams.player_names == ("Ann", "Bob", "Robo", "Cy")
    assert teams.cpu == {"Robo": {"level": 2}}


@pytest.mark.parametrize(
    ("player", "complaint"),
    [
        ({"name": "Robo", "cpu": 0}, '"players"[1]["cpu"]: a level is 1 to 10, not 0'),
        ({"name": "Robo", "cpu": 11}, "a level is 1 to 10, not 11"),
        (
            {"name": "Robo", "cpu": True},
            'must be a level 1-10, {"average": A} or {"mpr": M}, got boolean',
        ),
        ({"name": "Robo", "cpu": "6"}, "got string"),
        ({"name": "Robo", "cpu": 5.5}, "got number"),
        ({"name": "Robo", "cpu": {"average": 10}}, "10 is out of range: the levels span 20 to 101"),
        ({"name": "Robo", "cpu": {"average": 120.5}}, "120.5 is out of range"),
        ({"name": "Robo", "cpu": {"average": "55"}}, '["average"] must be a number, got string'),
        ({"name": "Robo", "cpu": {"level": 5}}, "got keys 'level'"),
        ({"name": "Robo", "cpu": {}}, "got keys none"),
        ({"cpu": 4}, 'needs "name"'),
        ({"name": "Robo", "cpu": 4, "colour": "red"}, "unknown key 'colour'"),
        ({"name": 5, "cpu": 4}, '["name"] must be a string, got integer'),
        ({"name": "  ", "cpu": 4}, """"players"[1]["name"] '  ' is empty"""),
        (["Robo"], '"players"[1] must be a string or an object, got array'),
    ],
)
def test_a_bad_computer_player_is_refused_saying_what_is_wrong(player: Any, complaint: str) -> None:
    message = refusal(["Ann", player])
    assert message.startswith("new_game: ")
    assert complaint in message


def test_a_player_object_with_only_a_name_is_a_player_at_this_board() -> None:
    """docs/remote.md: "Ann" and {"name": "Ann"} are the same player."""
    command = started(new_game_command([{"name": "Ann"}, "Bob"]))
    assert command.player_names == ("Ann", "Bob")
    assert command.cpu == {} and command.boards == {}
    teams = started(
        json.dumps(
            {"command": "new_game", "game": "x01", "teams": {"A": [{"name": "Ann"}], "B": ["Bob"]}}
        ).encode()
    )
    assert teams.team_names == {"A": ("Ann",), "B": ("Bob",)}


FORMS = (
    'a player is a name or {"name": ...}, with "cpu": LEVEL for a computer player '
    'or "board": BOARD for a player at another board'
)


@pytest.mark.parametrize(
    ("player", "complaint"),
    [
        ({"nmae": "Ann"}, f"\"players\"[0] has unknown key 'nmae'; {FORMS}"),
        ({}, f'"players"[0] needs "name": {FORMS}'),
        ({"board": "pub2"}, f'"players"[0] needs "name": {FORMS}'),
        ({"name": "Ann", "level": 3}, f"\"players\"[0] has unknown key 'level'; {FORMS}"),
        ({"name": "Ann", "board": 2}, '"players"[0]["board"] must be a string, got integer'),
        (
            {"name": "Robo", "cpu": 4, "board": "pub2"},
            '"players"[0] has both "cpu" and "board": a computer player throws at the board',
        ),
    ],
)
def test_a_bad_player_object_is_refused_naming_what_is_wrong(player: Any, complaint: str) -> None:
    message = refusal([player, "Bob"])
    assert complaint in message, message


def test_the_schemas_take_what_the_parser_takes() -> None:
    command = Draft202012Validator(TOPICS["cmd"].schema)
    good = json.loads(new_game_command(["Ann", {"name": "R", "cpu": {"average": 20}}]))
    assert list(command.iter_errors(good)) == []
    for bad in ({"name": "R", "cpu": 11}, {"name": "R", "cpu": {"average": 19}}, {"nam": "R"}):
        assert list(command.iter_errors({**good, "players": ["Ann", bad]})) != []
    human = {**good, "players": [{"name": "Ann"}, {"name": "Cy", "board": "pub2"}]}
    assert list(command.iter_errors(human)) == []
    state = Draft202012Validator(TOPICS["state"].schema)
    game_state = new_game("x01", ["Ann", "Robo"], {}, None).state()
    game_state["players"][1]["cpu"] = {"level": 6, "sigma_mm": 19.2, "average": 65.0}
    board = {"id": "b", "name": "B", "connected": True, "status": "connected", "stuck_cells": []}
    assert list(state.iter_errors({**game_state, "phase": "throwing", "board": board})) == []
    game_state["players"][1]["cpu"] = {"level": 12, "sigma_mm": 19.2, "average": 65.0}
    assert list(state.iter_errors({**game_state, "phase": "throwing", "board": board})) != []
    event = Draft202012Validator(TOPICS["event"].schema)
    dart = {"type": "dart", "at": T0, "player": 1, "segment": "T20", "source": "cpu"}
    assert list(event.iter_errors(dart)) == []
    assert list(event.iter_errors({**dart, "source": "robot"})) != []


def test_screens_name_a_computer_player_by_its_level() -> None:
    assert cpu_label("Robo", 6) == "Robo (CPU 6)"
    assert cpu_label("Ann", None) == "Ann"


@pytest.mark.slow
def test_bots_by_level_and_by_average_throw_with_the_levels_spread() -> None:
    bots = resolve_bots("x01", {"Robo": {"level": 6}, "Tin": {"average": 38}}, STEEL)
    assert bots.players["Robo"].sigma_mm == level(6).sigma_mm
    assert bots.players["Tin"].level == 3 and bots.players["Tin"].average == pytest.approx(38)
    # Level 3 plays 38.01 and its sigma is stored to 0.1 micron: an average of 38 is that sigma.
    assert bots.players["Tin"].sigma_mm == pytest.approx(level(3).sigma_mm, rel=1e-4)
    again = Bots.from_json("x01", json.loads(json.dumps(bots.as_json())))
    assert again.seed == bots.seed and again.geometry == STEEL
    assert again.players["Robo"].sigma_mm == pytest.approx(bots.players["Robo"].sigma_mm, abs=1e-3)
    assert bots.reseeded().seed != bots.seed


def test_a_game_played_by_picking_refuses_a_computer_player() -> None:
    with pytest.raises(ValueError, match="domino-cribbage is played by picking"):
        resolve_bots("domino-cribbage", {"Robo": {"level": 3}}, SOFT)


def test_a_damaged_record_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="journaled computer players are damaged"):
        Bots.from_json("x01", {"seed": 1, "geometry": "wood", "players": {}})


@pytest.mark.slow
def test_the_dart_follows_from_the_seed_and_the_events_applied() -> None:
    bots = resolve_bots("x01", {"Robo": {"level": 5}}, SOFT)
    state = new_game("x01", ["Robo"], {"start": 301}, None).state()
    darts = [bots.throw(state, applied).notation for applied in range(40)]
    assert darts == [bots.throw(state, applied).notation for applied in range(40)]
    assert len(set(darts)) > 3  # a spread, not one bed
    other = bots.reseeded()
    assert [other.throw(state, applied).notation for applied in range(40)] != darts


def test_the_journal_keeps_the_bots_and_migrates_a_version_1_file(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    connection = sqlite3.connect(path)
    with connection:
        journal_schema.MIGRATIONS[1](connection)
        connection.execute(f"PRAGMA application_id = {journal_schema.APPLICATION_ID}")
        connection.execute("PRAGMA user_version = 1")
        connection.execute(
            "INSERT INTO games (game, options, players, teams, board, started_at, status) "
            "VALUES ('x01', '{}', '[\"Ann\"]', NULL, 'b', ?, 'playing')",
            (T0,),
        )
    connection.close()
    record = {"seed": 5, "geometry": "soft", "players": {"Robo": {"level": 1}}}
    with Journal(path) as journal:
        [old] = journal.games.games()
        assert old.bots is None
        game_id = journal.games.start_game("x01", {}, ["Ann", "Robo"], None, "b", T0 + 1, record)
        assert journal.games.game(game_id).bots == record
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
