"""The game setup: the pure model, the scene's inputs and drawing, the app's
way in and out, and, end to end, a game set up on the display and started by
the real daemon."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pygame
import pytest

from display.app import DisplayApp, open_app
from display.layout import Layout
from display.scenes import MQTT_EVENT, IdleScene, SetupScene, X01Scene
from display.setup_model import (
    SetupModel,
    offered_options,
    option_values,
    segment_number,
)
from display.sound_bank import SoundBank
from display.state_feed import StateFeed
from engine import game_class, game_ids, new_game
from mqtt_contract import parse_command
from tests.daemon_harness import until
from tests.display.test_scenes import FakeFeed, board

SIZES = [(800, 480), (1920, 1080)]


def key(code: int, text: str = "") -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=code, mod=0, unicode=text, scancode=0)


def mqtt(payload: dict[str, Any]) -> pygame.event.Event:
    return pygame.event.Event(MQTT_EVENT, payload=payload)


def check(command: dict[str, Any]) -> None:
    """The command is one the daemon parses and the engine starts."""
    parse_command(json.dumps(command).encode())
    new_game(command["game"], command["players"], command["options"], command.get("teams"))


def walk_to_confirm(model: SetupModel) -> None:
    while model.step != "confirm":
        assert model.confirm() is None


# ------------------------------------------------------------------- model


@pytest.mark.parametrize("game", game_ids())
def test_every_game_can_be_set_up(game: str) -> None:
    model = SetupModel()
    model.select(model.games.index(game) + 1)
    walk_to_confirm(model)
    command = model.confirm()  # "Start" is highlighted
    assert command is not None
    assert command["command"] == "new_game" and command["game"] == game
    assert command["players"] == ["Player 1", "Player 2"]
    spec = game_class(game).options_spec
    assert set(command["options"]) == {o.name for o in offered_options(spec)}
    per_game = {o.name for o in spec if o.per_game}
    assert not set(command["options"]) & per_game  # a seed is the daemon's to pick
    check(command)


def test_only_lineups_the_game_takes_can_be_chosen() -> None:
    model = SetupModel()
    model.select(model.games.index("domino-cribbage") + 1)
    walk_to_confirm(model)
    assert model.player_count == 2
    model.press("player")  # cycles through the counts the game takes: only 2
    assert model.player_count == 2
    assert model.choices()[1].detail == "not for this game"  # the teams toggle
    model.select(2)
    assert model.teams is False
    model.select(3)  # back to the players step
    assert model.choices()[2].detail == "not for this game"
    assert model.select(3) is None  # three players
    assert model.error == "Domino Cribbage is for exactly two players"
    assert model.player_count == 2 and model.step == "players"


def test_english_cricket_with_four_players_is_played_in_two_teams() -> None:
    model = SetupModel()
    model.select(model.games.index("english-cricket") + 1)
    assert model.step == "players"
    model.select(4)
    assert model.step == "confirm" and model.teams is True
    model.select(2)  # teams off: four players alone are four sides, refused
    assert model.teams is True
    command = model.select(1)
    assert command is not None
    assert command["teams"] == {
        "Team 1": ["Player 1", "Player 3"],
        "Team 2": ["Player 2", "Player 4"],
    }
    check(command)


@pytest.mark.parametrize("game", game_ids())
def test_every_option_value_offered_is_accepted(game: str) -> None:
    for option in offered_options(game_class(game).options_spec):
        values = option_values(option)
        assert option.default in values
        if option.choices:
            assert set(values) == set(option.choices)
        for value in values:
            new_game(game, ["A", "B"], {option.name: value})  # two: some games need two


def test_rounds_offers_a_short_list_from_its_minimum() -> None:
    rounds = next(o for o in game_class("x01").options_spec if o.name == "rounds")
    assert option_values(rounds)[:5] == (0, 5, 10, 15, 20)


def test_segments_pick_by_number() -> None:
    assert [segment_number(s) for s in ("S5", "D5", "t5", "M", "SB", "DB", "S21", None)] == [
        5, 5, 5, None, None, None, None, None,
    ]  # fmt: skip
    model = SetupModel()
    model.select(segment_number("T1") or 0)  # x01 is the first game
    assert model.game == "x01" and model.step == "options"
    before = (model.step, model.option_index, dict(model.options))
    assert model.select(20) is None  # beyond the seven start values: ignored
    assert (model.step, model.option_index, dict(model.options)) == before
    model.select(segment_number("D1") or 0)  # start 301
    assert model.options["start"] == 301 and model.option_index == 1


def test_options_choices_come_from_the_spec() -> None:
    model = SetupModel()
    model.select(model.games.index("x01") + 1)
    assert [c.label for c in model.choices()] == [
        str(v) for v in (301, 401, 501, 601, 701, 901, 1001)
    ]
    model.select(1)
    assert [c.label for c in model.choices()] == ["straight", "double", "master"]


def test_player_button_wraps_and_teams_are_valid() -> None:
    model = SetupModel()
    assert model.player_count == 2
    counts = []
    for _ in range(8):
        model.press("player")
        counts.append(model.player_count)
    assert counts == [3, 4, 5, 6, 7, 8, 1, 2]
    model.press("player")
    model.press("player")  # 4 players
    walk_to_confirm(model)
    model.select(2)  # teams on
    command = model.press("start")
    assert command is not None
    assert command["teams"] == {
        "Team 1": ["Player 1", "Player 3"],
        "Team 2": ["Player 2", "Player 4"],
    }
    check(command)
    lineup = new_game(command["game"], command["players"], None, command["teams"])
    assert lineup is not None


def test_back_confirm_and_buttons() -> None:
    model = SetupModel()
    assert not model.back()
    model.press("next")  # confirm the highlighted game (the first)
    assert model.step == "options"
    assert model.back() and model.step == "game"
    model.press("game")
    assert model.highlight == 1 and model.game == model.games[1]
    model.next_item()
    model.previous_item()
    assert model.highlight == 1
    model.confirm()
    walk_to_confirm(model)
    assert model.back() and model.step == "players"
    model.press("game")
    assert model.step == "game"


def test_names_and_a_refused_start() -> None:
    model = SetupModel()
    model.set_name(0, "Ann")
    model.set_name(1, "ann")  # the same name twice: the engine refuses
    assert model.press("start") is None and model.error
    model.set_name(1, "Bob")
    command = model.press("start")
    assert command is not None and command["players"] == ["Ann", "Bob"]


# ------------------------------------------------------------------- scene


def texts(layout: Layout) -> list[str]:
    return [text for text, _ in layout.drawn_text]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("step", ["game", "options", "players", "confirm", "names"])
def test_scene_renders_every_step(size: tuple[int, int], step: str) -> None:
    scene = SetupScene()
    scene.set_state({"game": None, "phase": "idle", "board": board()})
    if step != "game":
        scene.model.select(1)  # x01
    if step in ("players", "confirm", "names"):
        scene.model.option_index = len(scene.model.spec) - 1
        scene.model.select(1)
    if step in ("confirm", "names"):
        scene.model.select(2)
    if step == "names":
        scene.process_event(key(pygame.K_TAB))
    surface = pygame.Surface(size)
    layout = Layout(*size)
    model_before = copy.deepcopy(scene.model.__dict__)
    scene.draw(surface, layout)
    assert scene.model.__dict__ == model_before  # drawing changes nothing
    assert scene.outbox == []
    for text, rect in layout.drawn_text:
        assert surface.get_rect().contains(rect), text
    if step != "names":
        labels = [c.label for c in scene.model.choices()]
        assert all(label in texts(layout) for label in labels)
        assert str(len(labels)) in texts(layout)  # the badges


def test_keyboard_flow_ends_with_the_command() -> None:
    scene = SetupScene()
    for event in (key(pygame.K_1), key(pygame.K_1), key(pygame.K_RETURN), key(pygame.K_RETURN),
                  key(pygame.K_RETURN), key(pygame.K_RETURN), key(pygame.K_2),
                  key(pygame.K_TAB)):  # fmt: skip
        assert scene.process_event(event) is None
    for char in "Ann":
        scene.process_event(key(ord(char.lower()), char))
    scene.process_event(key(pygame.K_TAB))
    for char in "Bob":
        scene.process_event(key(ord(char.lower()), char))
    scene.process_event(key(pygame.K_RETURN))
    assert scene.editing is None
    scene.process_event(key(pygame.K_SPACE))
    assert scene.outbox == [
        {
            "command": "new_game",
            "game": "x01",
            "options": {
                "start": 301,
                "in": "straight",
                "out": "double",
                "bull": "split",
                "rounds": 0,
            },
            "players": ["Ann", "Bob"],
        }
    ]


@pytest.mark.parametrize("touch", [False, True])
def test_a_click_or_touch_on_tile_two_picks_choice_two(touch: bool) -> None:
    scene = SetupScene()
    scene.size = (800, 480)
    rect = scene.tile_rects(Layout(800, 480))[1]
    if touch:
        event = pygame.event.Event(
            pygame.FINGERDOWN, x=rect.centerx / 800, y=rect.centery / 480, touch_id=0, finger_id=0
        )
    else:
        event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1)
    assert scene.process_event(event) is None
    assert scene.model.game == scene.model.games[1] and scene.model.step != "game"


def test_hits_and_buttons_from_the_board_pick() -> None:
    scene = SetupScene()
    scene.process_event(mqtt({"type": "hit", "segment": "M", "scored": False, "reason": "idle"}))
    scene.process_event(mqtt({"type": "hit", "segment": "DB", "scored": False, "reason": "idle"}))
    assert scene.model.step == "game" and not scene.notices
    scene.process_event(mqtt({"type": "hit", "segment": "T1", "scored": False, "reason": "idle"}))
    assert scene.model.game == "x01" and scene.model.step == "options"
    scene.process_event(mqtt({"type": "button", "button": "start"}))
    assert scene.outbox and scene.outbox[0]["game"] == "x01"


# --------------------------------------------------------------------- app


def test_app_opens_setup_sends_and_follows_the_game() -> None:
    idle = {"game": None, "phase": "idle", "board": board()}
    feed = FakeFeed(idle)
    app = DisplayApp(feed, (800, 480))  # type: ignore[arg-type]
    surface = pygame.Surface((800, 480))
    app.frame(surface, 0.1)
    assert isinstance(app.scene, IdleScene)
    app.handle(key(pygame.K_g, "g"))
    assert isinstance(app.scene, SetupScene)
    app.handle(key(pygame.K_ESCAPE))
    assert isinstance(app.scene, IdleScene)
    feed.pending.append({"type": "button", "at": 1.0, "button": "game"})
    app.frame(surface, 0.1)
    assert isinstance(app.scene, SetupScene)
    app.handle(key(pygame.K_q, "q"))  # not a quit in setup
    feed.show(dict(idle))
    app.frame(surface, 0.1)
    assert isinstance(app.scene, SetupScene)  # a new idle state keeps the setup
    app.handle(key(pygame.K_SPACE, " "))
    assert feed.sent and feed.sent[-1]["command"] == "new_game"
    game = new_game("cricket", ["Player 1", "Player 2"])
    feed.show({**game.state(), "phase": "throwing", "board": board()})
    app.frame(surface, 0.1)
    assert not isinstance(app.scene, SetupScene)


def test_app_keys_in_a_game_and_in_the_setup() -> None:
    """Every key of the app's own, in a game and in the setup: commands and
    quitting only in a game (q is a letter in the setup), fullscreen and the
    volume in both, Esc leaves the setup, any key but a modifier opens it."""
    idle = {"game": None, "phase": "idle", "board": board()}
    running = {**new_game("x01", ["Ann", "Bob"]).state(), "phase": "throwing", "board": board()}
    feed = FakeFeed(running)
    bank = SoundBank(volume=0.5)
    app = DisplayApp(feed, (800, 480), sound=bank)  # type: ignore[arg-type]
    surface = pygame.Surface((800, 480))
    pygame.display.init()
    try:
        app._open_window()
        app.frame(surface, 0.1)
        app.running = True
        for code, command in ((pygame.K_n, "next"), (pygame.K_u, "undo"), (pygame.K_m, "miss")):
            app.handle(key(code))
            assert feed.sent[-1] == {"command": command}
        app.handle(key(pygame.K_PLUS))
        assert bank.volume == pytest.approx(0.6)
        app.handle(key(pygame.K_MINUS))
        app.handle(key(pygame.K_KP_MINUS))
        assert bank.volume == pytest.approx(0.4)
        app.handle(key(pygame.K_EQUALS))
        app.handle(key(pygame.K_KP_PLUS))
        assert bank.volume == pytest.approx(0.6)
        app.handle(key(pygame.K_s, "s"))
        assert bank.muted
        app.handle(key(pygame.K_s, "s"))
        assert not bank.muted
        app.handle(key(pygame.K_f, "f"))
        assert app.fullscreen
        app.handle(key(pygame.K_f, "f"))
        assert not app.fullscreen
        app.handle(key(pygame.K_g, "g"))
        assert not app.in_setup  # a game is running
        assert app.running and len(feed.sent) == 3

        feed.show(dict(idle))
        app.frame(surface, 0.1)
        app.handle(key(pygame.K_LSHIFT))
        assert not app.in_setup  # a modifier alone opens nothing
        app.handle(key(pygame.K_x, "x"))
        assert app.in_setup
        for code in (pygame.K_n, pygame.K_u, pygame.K_m, pygame.K_q, pygame.K_s):
            app.handle(key(code, chr(code)))
        assert app.running and app.in_setup and not bank.muted and len(feed.sent) == 3
        app.handle(key(pygame.K_MINUS))
        assert bank.volume == pytest.approx(0.5)
        app.handle(key(pygame.K_f, "f"))
        assert app.fullscreen and app.in_setup
        app.handle(key(pygame.K_f, "f"))
        app.handle(key(pygame.K_ESCAPE))
        assert not app.in_setup and app.running
        app.handle(key(pygame.K_ESCAPE))
        assert not app.running
    finally:
        pygame.display.quit()


# ------------------------------------------------------------- end to end


async def test_setup_on_the_display_starts_the_game_on_the_daemon(
    running: Any, watcher: Any, mosquitto: Any
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"] and s.get("phase") == "idle")
    feed = StateFeed(mosquitto.url, "board1", "oche")
    with feed:
        assert await asyncio.to_thread(feed.wait_for_state, 5.0) is not None
        app = DisplayApp(feed, (800, 480))
        surface = pygame.Surface((800, 480))
        app.frame(surface, 0.1)
        assert isinstance(app.scene, IdleScene)
        keys = [key(pygame.K_g, "g"), key(pygame.K_1, "1"), key(pygame.K_1, "1")]
        keys += [key(pygame.K_RETURN)] * 4 + [key(pygame.K_2, "2"), key(pygame.K_TAB)]
        keys += [key(ord(c.lower()), c) for c in "Ann"] + [key(pygame.K_TAB)]
        keys += [key(ord(c.lower()), c) for c in "Bob"] + [key(pygame.K_RETURN)]
        keys += [key(pygame.K_SPACE, " ")]
        for event in keys:
            app.handle(event)
            app.frame(surface, 0.02)
        state = await watcher.state_where(lambda s: s.get("game") == "x01")
        assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
        assert state["options"]["start"] == 301 and state["phase"] == "throwing"

        def playing() -> bool:
            app.frame(surface, 0.02)  # the app takes in what its feed brought
            return isinstance(app.scene, X01Scene)

        await until(playing)


def test_the_display_section_of_the_config_reaches_the_display(tmp_path: Path) -> None:
    from firmware_bridge.cli.display_command import resolve_target

    config = tmp_path / "oche.toml"
    config.write_text(
        '[board]\nid = "b7"\n[display]\nvolume = 0.3\nmuted = true\nfullscreen = true\n', "utf-8"
    )
    target = resolve_target(None, None, None, str(config))
    assert target.board == "b7"
    assert (target.display.volume, target.display.muted, target.display.fullscreen) == (
        0.3,
        True,
        True,
    )
    app = open_app(StateFeed("mqtt://127.0.0.1:1", "b7"), sound=False, volume=0.3)
    assert app.sound is not None and app.sound.muted and app.sound.volume == 0.3
