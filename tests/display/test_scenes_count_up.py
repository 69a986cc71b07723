"""The scenes of Count-Up and Cricket Count-Up, checked on what is visible:
every state is a real one the engine replayed (as in test_scenes.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame
import pytest

from display.layout import Layout
from display.scenes.base import Scene
from display.scenes.count_up import CountUpScene
from display.scenes.cricket_count_up import CricketCountUpScene
from display.scenes.registry import scene_class_for, scene_for
from mqtt_contract import StateView
from tests.display.test_scenes import (
    LARGE,
    SIZE,
    SMALL,
    assert_fits,
    assert_pure,
    pixels,
    render,
    state_of,
    texts,
)
from tests.display.test_scenes_number_games import EIGHT, TEAMS, texts_in

COUNT_UP_LOG = "T20 SB DB\nS20 S1 M\n"
"""Round 1: Ann 160 (the fat bull), Bo 21; round 2, Ann to throw."""
CRICKET_LOG = "T20 D19 S18\nSB DB M\n"
"""Round 1: Ann 6 marks, Bo 3; round 2, Ann to throw."""


def count_up(darts: tuple[str, ...] = (), log: str = COUNT_UP_LOG, **kw: Any) -> dict[str, Any]:
    return state_of("count-up", log, darts, **kw)


def cricket_count_up(
    darts: tuple[str, ...] = (), log: str = CRICKET_LOG, **kw: Any
) -> dict[str, Any]:
    return state_of("cricket-count-up", log, darts, **kw)


def cell_of(scene: CountUpScene, state: dict[str, Any], side: int, number: int) -> pygame.Rect:
    """Where the scene writes ``side``'s score of round ``number``."""
    layout = Layout(*SIZE)
    main = scene.regions(layout)["main"]
    return scene.cell_rect(layout, main, StateView.from_json(state), side, number)


GAMES: dict[str, tuple[type[Scene], Callable[..., dict[str, Any]]]] = {
    "count-up": (CountUpScene, count_up),
    "cricket-count-up": (CricketCountUpScene, cricket_count_up),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_has_its_own_scene(game: str) -> None:
    cls, make = GAMES[game]
    state = make()
    assert scene_class_for(state) is cls
    assert isinstance(scene_for(state), cls)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE], ids=["800x480", "1280x720", "3840x2160"])
def test_renders_with_text_inside_even_eight_in_teams(game: str, size: tuple[int, int]) -> None:
    _, make = GAMES[game]
    assert_fits(make(("T20",)), size)
    assert_fits(make(), size)
    layout = assert_fits(make(("T20",), players=EIGHT, teams=TEAMS), size)
    shown = " ".join(texts(layout))
    assert "Red" in shown and "Blue" in shown


@pytest.mark.parametrize("game", sorted(GAMES))
def test_drawing_never_changes_the_state(game: str) -> None:
    _, make = GAMES[game]
    assert_pure(make(("T20",)), make())


def test_count_up_shows_each_round_the_total_and_the_ppd() -> None:
    state = count_up()
    _, layout = render(state)
    shown = texts(layout)
    assert "160" in shown and "21" in shown
    assert "PPD 53.33" in shown and "PPD 7.00" in shown
    assert any("fat bull" in text for text in shown)
    cell = cell_of(CountUpScene(), state, 0, 1)
    assert "160" in texts_in(layout, cell.inflate(4, 4))


def test_count_up_round_cell_changes_when_a_dart_scores() -> None:
    scene = CountUpScene()
    before, after = count_up(), count_up(("T20",))
    cell = cell_of(scene, after, 0, 2)
    image_before, _ = render(before)
    image_after, layout = render(after)
    assert pixels(image_before, cell) != pixels(image_after, cell)
    assert "60" in texts_in(layout, cell.inflate(4, 4))


def test_count_up_split_bull_says_so() -> None:
    _, layout = render(count_up(options={"bull": "split"}))
    shown = texts(layout)
    assert any("split bull" in text for text in shown)
    assert "135" in shown  # T20 SB DB: 60 + 25 + 50


def test_cricket_count_up_shows_marks_mpr_and_the_targets() -> None:
    _, layout = render(cricket_count_up())
    shown = texts(layout)
    assert "6" in shown and "3" in shown
    assert "MPR 6.00" in shown and "MPR 3.00" in shown
    assert any("20:3" in text and "19:2" in text for text in shown)


def test_a_finished_game_says_final() -> None:
    log = "T20 T20 T20\nM M M\n"
    _, layout = render(count_up(log=log, options={"rounds": 1}))
    assert "Final" in texts(layout)


def test_the_visit_boxes_count_the_fat_bull_as_fifty() -> None:
    _, layout = render(count_up(("SB",)))
    shown = texts(layout)
    assert shown[shown.index("SB") + 1] == "50"
    _, layout = render(count_up(("SB",), options={"bull": "split"}))
    shown = texts(layout)
    assert shown[shown.index("SB") + 1] == "25"
