"""The Skill Test scene, checked on what is visible: progress and the hits lit
on a player's small board while they throw; sigma, level, advice and the heat
map with the best aim marked once they are done. States are real ones (the
engine replays a log); the X01 scene shows the state's own checkout hint."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

from display.banners import active_banners
from display.dartboard import LIT
from display.dartboard import bed_centre as board_pixel
from display.layout import Layout
from display.scenes.registry import scene_class_for, scene_for
from display.scenes.skill_test import (
    HEAT_KEPT,
    HEAT_KIND,
    SIGMA,
    SkillTestScene,
    aim_pixel,
    heat_colours,
)
from display.sprites import Sprites
from engine import new_game
from engine.board_geometry import SOFT
from engine.game_log import replay_log
from engine.solves import deferring
from mqtt_contract import StateView
from tests.display.test_scenes import (
    SIZE,
    SMALL,
    assert_fits,
    assert_pure,
    pixels,
    render,
    state_of,
    texts,
    visible,
)

NINE = {"darts": 9}
ANN_DONE = "T20 S20 S1\nS5 S20 T20\nS20 S20 M\nT20 T20 S1\nS20 D20 S5\n"
"""Ann's nine darts and Bo's first six: Ann is done, Bo has three to throw."""


def skill_state(log: str = ANN_DONE, darts: tuple[str, ...] = (), **kw: Any) -> dict[str, Any]:
    kw.setdefault("options", NINE)
    return state_of("skill-test", log, darts, **kw)


def near(colour: tuple[int, ...], wanted: tuple[int, int, int], slack: int = 40) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(colour[:3], wanted, strict=True))


def test_the_scene_is_the_skill_test_s() -> None:
    assert scene_class_for(skill_state()) is SkillTestScene


def test_while_throwing_the_card_shows_progress_and_lights_the_hits() -> None:
    state = skill_state("T20 S20 S1\nS5 M M\n", options={"darts": 30})
    surface, layout = render(state)
    shown = texts(layout)
    assert "3/30" in shown and "27" in shown and "in T20" in shown
    scene = scene_for(state)
    square = scene.board_square(layout, StateView.from_json(state), 0)
    for bed in ("T20", "S1"):  # Ann's hits are lit on her small board
        x, y = board_pixel(square, bed) or (0, 0)
        assert near(tuple(surface.get_at((x, y))), LIT), bed
    x, y = board_pixel(square, "T19") or (0, 0)  # not hit: not lit
    assert not near(tuple(surface.get_at((x, y))), LIT)


def test_once_done_the_card_shows_sigma_level_advice_and_the_heat_map() -> None:
    state = skill_state()
    ann = state["players"][0]
    skill = ann["skill"]
    surface, layout = render(state)
    shown = texts(layout)
    assert f"{SIGMA} {skill['sigma_mm']:.1f} mm" in shown
    assert any(text.startswith(f"level {skill['level']}") for text in shown)
    assert any(text.startswith(f"aim {skill['best_aim']['bed']}") for text in shown)
    assert any(text.startswith("40: ") for text in shown)
    assert "6/9" in shown  # Bo still throwing
    scene = scene_for(state)
    square = scene.board_square(layout, StateView.from_json(state), 0)
    best = skill["best_aim"]
    x, y = aim_pixel(square, SOFT, best["x_mm"], best["y_mm"])  # the soft-tip board by default
    assert near(tuple(surface.get_at((x, y))), (255, 255, 255), 10)  # the aim's cross
    hottest = tuple(int(c) for c in heat_colours(1.0))
    # Somewhere on Ann's board the heat map's hottest colour shows (blended with the board).
    sub = surface.subsurface(square)
    hot = [
        (px, py)
        for px in range(0, square.width, 3)
        for py in range(0, square.height, 3)
        if near(tuple(sub.get_at((px, py))), hottest, 70)
    ]
    assert hot
    # Bo's board is a plain board: no heat map colours there.
    bo_square = scene.board_square(layout, StateView.from_json(state), 1)
    bo = surface.subsurface(bo_square)
    assert not [
        (px, py)
        for px in range(0, bo_square.width, 3)
        for py in range(0, bo_square.height, 3)
        if near(tuple(bo.get_at((px, py))), hottest, 30)
    ]


def skill_texts(skill: dict[str, Any]) -> list[str]:
    """What a done player's card writes for the estimate: sigma, level and interval."""
    low, high = skill["interval"]
    return [
        f"{SIGMA} {skill['sigma_mm']:.1f} mm",
        f"level {skill['level']}  ({low:.2f}-{high:.2f})",
    ]


@pytest.mark.parametrize("size", [SIZE, (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_a_finished_practice_shows_the_estimate_not_a_winner(size: tuple[int, int]) -> None:
    """Alone, the test is a practice: "Practice complete" above the card,
    which stays the final panel (nothing is drawn over its sigma, level and
    interval), and no "wins!" panel."""
    state = skill_state(ANN_DONE.rsplit("T20 T20 S1", 1)[0], players=("Ann",))
    assert state["finished"] and state["winner"] is None
    assert state["result"] == "practice-complete"
    assert "winner" not in active_banners(StateView.from_json(state))
    surface, layout = render(state, size)
    shown = texts(layout)
    assert "Practice complete" in shown
    assert not [text for text in shown if "wins" in text]
    skill = state["players"][0]["skill"]
    plain = pygame.Surface(size)
    scene_for(state).draw(plain, Layout(*size))  # the scene alone: no banner over it
    for text in skill_texts(skill):
        rect = visible(layout, text)
        assert rect.height >= size[1] // 50, text
        assert pixels(surface, rect) == pixels(plain, rect), f"{text} is covered"
    detail = visible(
        layout, f"9 darts at T20  ·  {SIGMA} {skill['sigma_mm']:.1f} mm  ·  level {skill['level']}"
    )
    assert detail.height >= size[1] // 50


def test_a_finished_test_of_two_says_who_hit_the_target_most_above_the_cards() -> None:
    state = skill_state(ANN_DONE + "T20 T20 T20\n")  # Bob: six in T20 to Ann's one
    assert state["finished"] and state["winner"] == 1 and state["result"] == "darts-thrown"
    assert "winner" not in active_banners(StateView.from_json(state))
    surface, layout = render(state)
    shown = texts(layout)
    assert "Bob wins" in shown and "most darts in T20: 6" in shown
    assert "Bob wins!" not in shown  # the full-size winner panel is not drawn
    plain = pygame.Surface(SIZE)
    scene_for(state).draw(plain, Layout(*SIZE))
    for player in state["players"]:
        for text in skill_texts(player["skill"]):
            rect = visible(layout, text)
            assert pixels(surface, rect) == pixels(plain, rect), f"{text} is covered"


def test_the_header_names_the_board_the_estimate_is_measured_on() -> None:
    _, soft = render(skill_state())
    assert "target T20  ·  9 darts  ·  soft-tip board" in texts(soft)
    _, steel = render(skill_state(options={**NINE, "geometry": "steel"}))
    assert "target T20  ·  9 darts  ·  steel board" in texts(steel)


def test_a_wider_thrower_gets_another_heat_map() -> None:
    tight = skill_state("T20 T20 T20\nT20 T20 S20\nT20 S20 T20\n", players=("Ann",))
    wide = skill_state("S5 S1 T20\nM S12 S20\nS18 D20 S9\n", players=("Ann",))
    assert tight["players"][0]["skill"]["sigma_mm"] < wide["players"][0]["skill"]["sigma_mm"]
    one, layout = render(tight)
    two, _ = render(wide)
    square = scene_for(tight).board_square(layout, StateView.from_json(tight), 0)
    assert pygame.image.tobytes(one.subsurface(square), "RGB") != pygame.image.tobytes(
        two.subsurface(square), "RGB"
    )


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_every_state_fits(size: tuple[int, int]) -> None:
    assert_fits(skill_state(), size)
    assert_fits(skill_state("T20", players=("Ann", "Bo", "Cy", "Dee", "Eve")), size)


def test_heat_maps_are_kept_but_not_without_bound() -> None:
    sprites = Sprites()
    for log in ("T20 T20 S20\n", "S1 S5 T20\n", "M S20 S20\n"):
        state = skill_state(log * 3, players=("Ann",))
        scene = scene_for(state, sprites)
        for size in (SIZE, SMALL):
            scene.draw(pygame.Surface(size), Layout(*size))
    assert sprites.count(HEAT_KIND) == 6  # three spreads at two sizes
    assert sprites.limits[HEAT_KIND] == HEAT_KEPT


def test_drawing_changes_nothing() -> None:
    assert_pure(skill_state(), skill_state("T20 S20"))


def test_a_broken_skill_object_draws_as_still_throwing() -> None:
    state = skill_state()
    state["players"][0]["skill"] = {"sigma_mm": "wide"}
    surface = pygame.Surface(SIZE)
    layout = Layout(*SIZE)
    scene_for(state).draw(surface, layout)
    assert "9/9" in texts(layout)


def test_a_finished_test_whose_reports_are_being_worked_out_shows_the_darts() -> None:
    """The daemon's first finished state, its reports not solved yet
    (``skill: null``: :mod:`engine.solves`), draws each card's darts, all
    thrown, and the outcome line; the report comes in the next state."""
    engine_game = new_game("skill-test", ["Ann", "Bob"], {"darts": 3, "target": "D3"})
    with deferring():  # as the daemon builds it: nothing waits for a solve
        state = replay_log(engine_game, "D3 S3 S17\nD3 D3 M\n").state()
    state["phase"] = "finished"
    assert state["finished"] and [p["skill"] for p in state["players"]] == [None, None]
    _, layout = render(state)
    shown = texts(layout)
    assert shown.count("3/3") == 2 and "Bob wins" in shown
    assert not [text for text in shown if text.startswith(SIGMA)]


def test_x01_shows_the_state_s_checkout_hint() -> None:
    table = state_of("x01", "T20 T20 T20\nM M M\nT19 S14 M\nM M M\n", options={"start": 301})
    sigma = state_of(
        "x01",
        "T20 T20 T20\nM M M\nT19 S14 M\nM M M\n",
        options={"start": 301, "checkout_sigma_mm": 20},
    )
    _, plain = render(table)
    _, own = render(sigma)
    assert table["players"][0]["checkout"] == ["DB"] and "DB" in texts(plain)
    route = sigma["players"][0]["checkout"]
    assert route and route != ["DB"]
    assert all(dart in texts(own) for dart in route) and "DB" not in texts(own)
