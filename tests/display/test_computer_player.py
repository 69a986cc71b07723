"""Playing against the computer on the display: the setup offers a computer
opponent with a level, the scoreboard marks computer players and says who is
throwing, and, end to end, a game the setup built is played by the real
daemon's computer player and shown as such."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygame
import pytest

from display.banners import active_banners, banner_rect
from display.layout import Layout
from display.scenes import SetupScene
from display.setup_model import COMPUTER_NAME, SetupModel
from engine import game_ids
from mqtt_contract import NewGame, StateView, parse_command
from tests.daemon_harness import Running, Watcher
from tests.display.test_scenes import SIZE, pixels, render, state_of, texts
from tests.display.test_setup import SIZES, board, walk_to_confirm
from tests.mosquitto_broker import MosquittoBroker

CPU_6 = {"level": 6, "sigma_mm": 19.5, "average": 65.0}


def with_cpu(state: dict[str, Any], index: int = 1, cpu: dict[str, Any] = CPU_6) -> dict[str, Any]:
    """``state`` as the daemon publishes it when player ``index`` is a computer player."""
    state["players"][index]["cpu"] = dict(cpu)
    return state


def computer_players(command: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The computer players the daemon reads from the setup's ``new_game``."""
    parsed = parse_command(json.dumps(command).encode())
    assert isinstance(parsed, NewGame), parsed
    return parsed.cpu


def set_up(game: str = "x01") -> SetupModel:
    model = SetupModel()
    model.select(model.games.index(game) + 1)
    walk_to_confirm(model)
    return model


# ------------------------------------------------------------------- setup


def test_the_setup_offers_a_computer_opponent_with_a_level() -> None:
    model = set_up()
    labels = [choice.label for choice in model.choices()]
    assert labels[3] == "Computer: off"
    model.select(4)
    assert model.step == "computer"
    choices = model.choices()
    assert [c.label for c in choices] == [f"Level {n}" for n in range(1, 11)] + ["None"]
    assert choices[0].detail == "average 20" and choices[9].detail == "average 101"
    model.select(6)  # a dart in any 6 picks level 6
    assert model.step == "confirm"
    assert model.choices()[3].label == "Computer: level 6"
    assert ("Computer", "level 6") in model.summary()
    command = model.start()
    assert command is not None
    assert command["players"] == ["Player 1", {"name": COMPUTER_NAME, "cpu": 6}]
    assert computer_players(command) == {COMPUTER_NAME: {"level": 6}}
    # Back out: None takes the computer away again.
    model.select(4)
    assert model.back() and model.step == "confirm"
    model.select(4)
    model.select(11)
    command = model.start()
    assert command is not None and command["players"] == ["Player 1", "Player 2"]


def test_a_named_seat_keeps_its_name_and_teams_take_the_computer() -> None:
    model = set_up("cricket")
    model.press("player")  # 3 players
    model.press("player")  # 4 players
    model.set_name(3, "Robo")
    model.select(4)
    model.select(9)
    model.select(2)  # two teams
    command = model.start()
    assert command is not None
    assert command["players"][3] == {"name": "Robo", "cpu": 9}
    assert command["teams"] == {"Team 1": ["Player 1", "Player 3"], "Team 2": ["Player 2", "Robo"]}
    assert computer_players(command) == {"Robo": {"level": 9}}


def test_a_game_played_by_picking_offers_no_computer_opponent() -> None:
    model = set_up("domino-cribbage")
    assert model.choices()[3].detail == "not for this game"
    model.select(4)
    assert model.step == "confirm" and model.error is not None
    assert "no computer opponent" in model.error


@pytest.mark.parametrize("game", [g for g in game_ids() if g != "domino-cribbage"])
def test_every_dart_game_starts_with_a_computer_opponent(game: str) -> None:
    model = set_up(game)
    model.select(4)
    model.select(3)
    command = model.start()
    assert command is not None, model.error
    assert computer_players(command) == {COMPUTER_NAME: {"level": 3}}


@pytest.mark.parametrize("size", SIZES)
def test_the_computer_step_renders_every_level(size: tuple[int, int]) -> None:
    scene = SetupScene(set_up())
    scene.set_state({"game": None, "phase": "idle", "board": board()})
    scene.model.select(4)
    surface = pygame.Surface(size)
    layout = Layout(*size)
    scene.draw(surface, layout)
    shown = texts(layout)
    assert "Play against the computer: which level?" in shown
    assert all(choice.label in shown for choice in scene.model.choices())
    for text, rect in layout.drawn_text:
        assert surface.get_rect().contains(rect), text


# -------------------------------------------------------------- scoreboard


def test_the_scoreboard_marks_the_computer_and_says_it_is_throwing() -> None:
    human = with_cpu(state_of("x01", "T20 T20 T20\n", players=["Ann", "Robo"]), 1)
    assert human["current_player"] == 1
    human_turn = with_cpu(state_of("x01", "T20 T20 T20\nS1 S1 S1\n", players=["Ann", "Robo"]))
    assert "cpu" in active_banners(StateView.from_json(human)) and "cpu" not in active_banners(
        StateView.from_json(human_turn)
    )
    _, layout = render(human)
    shown = texts(layout)
    assert "Robo (CPU 6) is throwing" in shown
    assert "Robo (CPU 6)" in shown  # its card
    assert "Ann" in shown and "Ann (CPU" not in " ".join(shown)
    rect = banner_rect(Layout(*SIZE), "cpu")
    assert pixels(render(human_turn)[0], rect) != pixels(render(human)[0], rect)
    _, layout = render(human_turn)
    assert not any("is throwing" in text for text in texts(layout))


def test_after_its_visit_the_computer_has_no_darts_to_remove() -> None:
    takeout = with_cpu(
        state_of("x01", "S1 S1 S1\n", ["T20", "T20", "T20"], players=["Ann", "Robo"]), 1
    )
    takeout["phase"] = "takeout"
    assert takeout["last_visit"]["player"] == 1
    assert active_banners(StateView.from_json(takeout)) == ["cpu"]
    _, layout = render(takeout)
    assert "Robo (CPU 6) is throwing" in texts(layout)
    assert "Remove darts" not in texts(layout)
    human = state_of("x01", "", ["S1", "S1", "S1"], players=["Ann", "Robo"])
    human["phase"] = "takeout"
    assert active_banners(StateView.from_json(with_cpu(human, 1))) == ["takeout"]


# ------------------------------------------------------------- end to end


@pytest.mark.slow
async def test_a_game_set_up_on_the_display_is_thrown_by_the_daemon(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    daemon = Running(tmp_path, mosquitto, extra="\n[bot]\ndart_interval_s = 0.5\ntakeout_s = 5\n")
    await daemon.start()
    try:
        async with Watcher(mosquitto.host, mosquitto.port) as watcher:
            await watcher.wait_for("availability", lambda p: p == "online")
            model = set_up()
            model.select(4)
            model.select(2)
            model.set_name(0, "Ann")
            model.press("player")  # 3 players: Ann, Player 2, then the computer
            command = model.start()
            assert command is not None
            assert (await watcher.command(command))["ok"]
            state = await watcher.state_where(lambda s: s.get("game") == "x01")
            assert [p.get("cpu", {}).get("level") for p in state["players"]] == [None, None, 2]
            _, layout = render(state)
            assert "Computer (CPU 2)" in texts(layout)
            assert "Computer (CPU 2) is throwing" not in texts(layout)
            for _ in range(2):  # Ann and Player 2 pass: NEXT scores their darts as misses
                assert (await watcher.command({"command": "next"}))["ok"]
            state = await watcher.state_where(lambda s: s["current_player"] == 2)
            _, layout = render(state)
            assert "Computer (CPU 2) is throwing" in texts(layout)
            dart = await watcher.wait_for("event", lambda e: e.get("source") == "cpu")
            assert dart["player"] == 2
    finally:
        await daemon.stop()
        daemon.board.close()
