"""The Domino Cribbage scene, its keys, the app sending its commands, and
the setup starting the game, checked on what is visible.

As in test_scenes.py every state is a real one: the engine replays the picks
(``S<n>`` picks tile n, ``NEXT`` is Go or the next deal) from a fixed seed
and the daemon's ``phase`` and ``board`` keys are added. Checks look at the
text the scene drew (``Layout.drawn_text``) and at pixel regions.

Seed 7, Ann and Bob, Ann deals: Bob holds 1-1 1-3 2-2 2-3 4-4 6-6 (35 pips),
Ann 1-2 0-5 3-4 4-6 5-5 5-6 (46 pips); with ``S1`` four times both discard
their first two tiles and Bob leads the play.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pygame
import pytest

from display.app import DisplayApp
from display.layout import Layout
from display.scenes.domino_cribbage import (
    PEG_COLOURS,
    TILE_BACK,
    TILE_FACE,
    TILE_PIP,
    DominoCribbageScene,
)
from display.scenes.registry import scene_class_for, scene_for
from display.scenes.x01 import X01Scene
from display.setup_model import SetupModel
from engine import new_game, parse_event
from engine.errors import MoveError
from mqtt_contract import StateView, parse_command
from tests.display.test_scenes import (
    LARGE,
    SIZE,
    SMALL,
    FakeFeed,
    assert_fits,
    assert_pure,
    board,
    pixels,
    render,
    state_of,
    texts,
    visible,
    x01_state,
)

GAME = "domino-cribbage"
DISCARDS = "S1 S1 S1 S1"
"""Bob discards his first two tiles, then Ann hers: the play begins, Bob to lead."""
TO_GO = f"{DISCARDS} S1 S1 S1 S1 NEXT"
"""Bob 2-2, Ann 3-4, Bob 2-3, Ann 4-6 (count 26); Bob cannot go on: Go. Ann to move."""
TO_SHOW = f"{TO_GO} NEXT S1 S1 S1 NEXT S1"
"""Ann's Go scores her 1, the next count, the last tile: the hands are counted."""


def cribbage(log: str = "", seed: int = 7, **options: Any) -> dict[str, Any]:
    return state_of(GAME, log, options={"seed": seed, **options})


def played_out(seed: int = 5) -> dict[str, Any]:
    """A whole game against the computer (it plays Bob), Ann picking the first
    tile that the rules allow, up to the winner."""
    game = new_game(GAME, ["Ann", "Bob"], {"seed": seed, "computer": "second"})
    while not game.is_finished:
        if game.state()["stage"] == "show":
            game.push(parse_event("NEXT"))
            continue
        for move in ("S1", "S2", "S3", "S4", "S5", "S6", "NEXT"):
            try:
                game.push(parse_event(move))
                break
            except MoveError:
                continue
    state = game.state()
    state["phase"] = "finished"
    state["board"] = board()
    return state


STATES: dict[str, Callable[[], dict[str, Any]]] = {
    "discard": cribbage,
    "play": lambda: cribbage(TO_GO),
    "show": lambda: cribbage(TO_SHOW),
    "computer": lambda: cribbage("S2 S3 S1", computer="second", target=121),
    "over": played_out,
}


def parts(state: dict[str, Any], size: tuple[int, int] = SIZE) -> dict[str, pygame.Rect]:
    return DominoCribbageScene().parts(Layout(*size), StateView.from_json(state))


def texts_in(layout: Layout, rect: pygame.Rect) -> list[str]:
    return [text for text, placed in layout.drawn_text if rect.contains(placed)]


def colour_count(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int]) -> int:
    data = pixels(surface, rect)
    return sum(1 for i in range(0, len(data), 3) if tuple(data[i : i + 3]) == colour)


def key(code: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=code, mod=0, unicode="", scancode=0)


# ------------------------------------------------------------ the scene


def test_the_scene_is_picked_for_domino_cribbage() -> None:
    for make in STATES.values():
        assert scene_class_for(make()) is DominoCribbageScene
    assert isinstance(scene_for(cribbage()), DominoCribbageScene)


@pytest.mark.parametrize("name", sorted(STATES))
@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE], ids=["800x480", "1280x720", "3840x2160"])
def test_renders_at_every_size_with_the_text_inside(name: str, size: tuple[int, int]) -> None:
    state = STATES[name]()
    layout = assert_fits(state, size)
    assert str(state["target"]) in texts(layout)  # the end of the peg track


@pytest.mark.parametrize("name", sorted(STATES))
def test_drawing_never_changes_the_state_and_is_a_pure_function(name: str) -> None:
    assert_pure(STATES[name](), STATES["show" if name != "show" else "play"]())


def test_the_peg_track_moves_when_a_player_scores() -> None:
    before_state, after_state = cribbage(TO_GO), cribbage(f"{TO_GO} NEXT")
    assert [p["score"] for p in after_state["players"]] == [1, 0]  # Ann's Go: 1 point
    before, _ = render(before_state)
    after, layout = render(after_state)
    where = parts(after_state)
    assert pixels(before, where["track0"]) != pixels(after, where["track0"])
    assert pixels(before, where["track1"]) == pixels(after, where["track1"])
    assert colour_count(after, where["track0"], PEG_COLOURS[0]) > 0
    assert "1" in texts_in(layout, where["score0"])
    assert "Ann: go 1" in texts(layout)  # what the move scored


def test_the_hand_to_move_is_face_up_under_its_numbers() -> None:
    state = cribbage()
    assert state["current_player"] == 1
    surface, layout = render(state)
    where = parts(state)
    numbers = [visible(layout, str(n)) for n in range(1, 7)]
    assert all(where["mover"].contains(rect) for rect in numbers)
    assert [rect.x for rect in numbers] == sorted(rect.x for rect in numbers)
    assert "Bob's hand" in texts(layout)
    assert "Bob: choose 2 tiles for Ann's crib" in texts(layout)
    assert colour_count(surface, where["mover"], TILE_FACE) > 0
    assert colour_count(surface, where["other"], TILE_FACE) == 0  # Ann's tiles: backs
    assert colour_count(surface, where["other"], TILE_BACK) > 0

    # Bob's pips against Ann's once she is to move: 35 against 46.
    ann_state = cribbage("S1 S1")
    ann, ann_layout = render(ann_state)
    assert "Ann: choose 2 tiles for your crib" in texts(ann_layout)
    bob_pips = colour_count(surface, where["mover"], TILE_PIP)
    ann_pips = colour_count(ann, parts(ann_state)["mover"], TILE_PIP)
    assert ann_pips / bob_pips == pytest.approx(46 / 35, rel=0.04)


def test_the_computers_hand_is_open() -> None:
    state = STATES["computer"]()
    assert state["players"][1]["computer"] and state["current_player"] == 0
    surface, layout = render(state)
    assert "Computer" in texts(layout)
    assert colour_count(surface, parts(state)["other"], TILE_FACE) > 0


def test_the_count_is_shown_and_follows_the_picks() -> None:
    first = cribbage(f"{DISCARDS} S1")  # Bob lays 2-2
    second = cribbage(f"{DISCARDS} S1 S1")  # Ann lays 3-4
    assert (first["count"], second["count"]) == (4, 11)
    _, layout = render(first)
    where = parts(first)
    assert "4" in texts_in(layout, where["count"])
    _, layout = render(second)
    assert "11" in texts_in(layout, where["count"])
    assert "4" not in texts_in(layout, where["count"])
    assert {"4", "11"} <= set(texts_in(layout, where["count_tiles"]))  # the count after each tile
    _, layout = render(cribbage(TO_GO))
    assert "Bob: Go" in texts(layout)


def test_the_crib_is_face_down_until_the_show() -> None:
    one, other = cribbage(DISCARDS), cribbage(DISCARDS, seed=11)
    assert one["crib"] != other["crib"] and one["dealer"] == other["dealer"]
    first, first_layout = render(one)
    second, _ = render(other)
    crib = parts(one)["crib"]
    assert pixels(first, crib) == pixels(second, crib)  # nothing tells the cribs apart
    assert colour_count(first, crib, TILE_BACK) > 0
    assert colour_count(first, crib, TILE_FACE) == 0
    assert not set(one["crib"]) & set(texts(first_layout))

    shown = cribbage(TO_SHOW)
    surface, layout = render(shown)
    crib_row = parts(shown)["show2"]
    assert "Ann's crib" in texts_in(layout, crib_row)
    assert colour_count(surface, crib_row, TILE_FACE) > 0
    assert colour_count(surface, crib_row, TILE_BACK) == 0


def test_the_show_lists_each_count_and_its_total() -> None:
    state = cribbage(TO_SHOW)
    assert state["stage"] == "show" and len(state["counts"]) == 3
    _, layout = render(state)
    where = parts(state)
    for index, count in enumerate(state["counts"]):
        row = texts_in(layout, where[f"show{index}"])
        assert f"Total {count['total']}" in row
        breakdown = "  ·  ".join(
            f"{key} {count[key]['points']}" for key in ("fifteens", "pairs", "runs")
        )
        assert breakdown in row
    assert "NEXT deals the next hand" in texts(layout)
    assert "Ann: last tile 1  ·  Bob: hand 5  ·  Ann: hand 2, crib 9" in texts(layout)


def test_the_winner_is_named_at_the_end() -> None:
    state = played_out()
    winner = state["players"][state["winner"]]["name"]
    scores = "-".join(str(p["score"]) for p in state["players"])
    _, layout = render(state)
    assert f"{winner} wins {scores}" in texts(layout)


# ----------------------------------------------------------------- keys


def test_digit_keys_pick_tiles_and_space_or_enter_say_next() -> None:
    scene = DominoCribbageScene()
    scene.set_state(cribbage())
    for number in range(1, 7):
        assert scene.process_event(key(getattr(pygame, f"K_{number}"))) is None
    assert scene.process_event(key(pygame.K_KP3)) is None
    assert scene.process_event(key(pygame.K_SPACE)) is None
    assert scene.process_event(key(pygame.K_RETURN)) is None
    assert scene.outbox == [
        *({"command": "dart", "segment": f"S{n}"} for n in range(1, 7)),
        {"command": "dart", "segment": "S3"},
        {"command": "next"},
        {"command": "next"},
    ]
    for command in scene.outbox:
        parse_command(json.dumps(command).encode())  # the daemon takes them

    finished = DominoCribbageScene()
    finished.set_state(played_out())
    assert finished.process_event(key(pygame.K_1)) is not None  # the game is over
    assert finished.outbox == []


def test_the_app_sends_the_cribbage_scenes_commands_once() -> None:
    feed = FakeFeed(cribbage())
    app = DisplayApp(feed, SMALL)  # type: ignore[arg-type]
    surface = pygame.Surface(SMALL)
    app.frame(surface, 0.1)
    assert isinstance(app.scene, DominoCribbageScene)
    app.handle(key(pygame.K_3))
    assert feed.sent == [{"command": "dart", "segment": "S3"}]
    app.handle(key(pygame.K_SPACE))
    app.handle(key(pygame.K_n))  # the app's own NEXT key: sent once, not twice
    assert feed.sent[1:] == [{"command": "next"}, {"command": "next"}]
    assert app.scene.outbox == []

    feed.show(x01_state())
    app.frame(surface, 0.1)
    assert isinstance(app.scene, X01Scene)
    sent = len(feed.sent)
    app.handle(key(pygame.K_3))
    app.frame(surface, 0.1)
    assert len(feed.sent) == sent  # number keys pick tiles in Domino Cribbage only


# ---------------------------------------------------------------- setup


def test_the_setup_starts_domino_cribbage_without_a_seed() -> None:
    model = SetupModel()
    model.select(model.games.index(GAME) + 1)
    asked = []
    while model.step == "options":
        option = model.current_option
        assert option is not None
        asked.append((option.name, [c.label for c in model.choices()]))
        model.select({"target": 2, "computer": 2}[option.name])  # 121, second
    assert asked == [("target", ["61", "121"]), ("computer", ["none", "second", "both"])]
    assert not any("seed" in what for what, _ in model.summary())
    model.select(2)  # two players
    command = model.press("start")
    assert command is not None
    assert command["options"] == {"target": 121, "computer": "second"}
    assert command["players"] == ["Player 1", "Player 2"]
    parse_command(json.dumps(command).encode())
    game = new_game(command["game"], command["players"], command["options"])
    assert game.state()["players"][1]["computer"]

    model.press("player")  # PLAYER skips the counts the game does not take
    assert model.player_count == 2


def test_the_game_tile_does_not_offer_a_seed() -> None:
    model = SetupModel()
    detail = model.choices()[model.games.index(GAME)].detail
    assert "target" in detail and "seed" not in detail
    surface = pygame.Surface(SIZE)
    layout = Layout(*SIZE)
    scene = DominoCribbageScene()
    scene.set_state(cribbage())
    scene.draw(surface, layout)
    assert not any("seed" in text for text in texts(layout))  # nor does the header
