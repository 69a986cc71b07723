"""The scenes of Baseball, Shanghai, Around the World and Fifty-one by Fives,
checked on what is visible.

As in test_scenes.py, every state is a real one: the engine replays a game
log (and, for a visit in progress, a few more darts) and the daemon's
``phase`` and ``board`` are added. Checks look at the text a scene drew
(``Layout.drawn_text``) and at pixel regions, found through the scenes'
public geometry (where a cell, a box or a bar is drawn).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame
import pytest

from display.layout import Layout
from display.scenes.around_the_world import AroundTheWorldScene
from display.scenes.base import Scene
from display.scenes.baseball import BaseballScene
from display.scenes.fifty_one_by_fives import FiftyOneByFivesScene
from display.scenes.registry import scene_class_for, scene_for
from display.scenes.shanghai import ShanghaiScene
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
    visible,
)

BASEBALL_LOG = "S1 D1 T1\nT20 S2 DB\nS2 S1 T2\nD2 M M\n"
"""Three innings: Ann 6 and 4, Bo 0 and 2; inning 3, Ann to throw."""
SHANGHAI_LOG = "S1 D1 M\nT1 S2 S20\nT2 T2 S1\nD2\n"
"""Ann 15, Bob 7; round 3 (target 3), Ann to throw."""
AROUND_LOG = "S1 S2 M\nS1 M M\n"
"""Ann on 3, Bob on 2; Ann to throw."""
FIFTY_LOG = "S10 S10 S10\nS20 S1 S1\n"
"""Ann 6 (30 is six fives), Bob 0 (22 is no multiple of 5); Ann to throw."""

EIGHT = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
TEAMS = {"Red": EIGHT[0::2], "Blue": EIGHT[1::2]}


def baseball(darts: tuple[str, ...] = (), log: str = BASEBALL_LOG, **kw: Any) -> dict[str, Any]:
    kw.setdefault("options", {"innings": 3})
    return state_of("baseball", log, darts, **kw)


def shanghai(darts: tuple[str, ...] = (), log: str = SHANGHAI_LOG, **kw: Any) -> dict[str, Any]:
    return state_of("shanghai", log, darts, **kw)


def around(darts: tuple[str, ...] = (), log: str = AROUND_LOG, **kw: Any) -> dict[str, Any]:
    return state_of("around-the-world", log, darts, **kw)


def fifty(darts: tuple[str, ...] = (), log: str = FIFTY_LOG, **kw: Any) -> dict[str, Any]:
    return state_of("fifty-one-by-fives", log, darts, **kw)


GAMES: dict[str, tuple[type[Scene], Callable[..., dict[str, Any]]]] = {
    "baseball": (BaseballScene, baseball),
    "shanghai": (ShanghaiScene, shanghai),
    "around-the-world": (AroundTheWorldScene, around),
    "fifty-one-by-fives": (FiftyOneByFivesScene, fifty),
}
"""Each game's scene and a mid-game state maker (a visit in progress with ``darts``)."""

MID_VISIT = {
    "baseball": ("S3",),
    "shanghai": ("S3", "D3"),
    "around-the-world": ("S3",),
    "fifty-one-by-fives": ("S20", "S20"),
}


def texts_in(layout: Layout, rect: pygame.Rect) -> list[str]:
    """The strings drawn inside ``rect``."""
    return [text for text, placed in layout.drawn_text if placed.width and rect.contains(placed)]


def scene_only(state: dict[str, Any], size: tuple[int, int] = SIZE) -> pygame.Surface:
    """The scene's picture without the banners (a finished game's banner
    covers the middle of the window)."""
    surface = pygame.Surface(size)
    scene_for(state).draw(surface, Layout(*size))
    return surface


def main_of(scene: Scene, size: tuple[int, int] = SIZE) -> tuple[Layout, pygame.Rect]:
    layout = Layout(*size)
    return layout, scene.regions(layout)["main"]


# ------------------------------------------------------------ every scene


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_number_game_has_its_own_scene(game: str) -> None:
    cls, make = GAMES[game]
    state = make()
    assert state["game"] == game
    assert scene_class_for(state) is cls
    assert isinstance(scene_for(state), cls)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE], ids=["800x480", "1280x720", "3840x2160"])
def test_renders_with_text_inside_and_every_name_visible(game: str, size: tuple[int, int]) -> None:
    _, make = GAMES[game]
    assert_fits(make(MID_VISIT[game]), size)
    assert_fits(make(), size)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["800x480", "3840x2160"])
def test_eight_players_in_teams_fit(game: str, size: tuple[int, int]) -> None:
    _, make = GAMES[game]
    layout = assert_fits(make(MID_VISIT[game], players=EIGHT, teams=TEAMS), size)
    shown = " ".join(texts(layout))
    assert "Red" in shown and "Blue" in shown
    assert_fits(make(MID_VISIT[game], players=EIGHT), size)  # eight on their own


@pytest.mark.parametrize("game", sorted(GAMES))
def test_drawing_never_changes_the_state_and_is_repeatable(game: str) -> None:
    _, make = GAMES[game]
    assert_pure(make(MID_VISIT[game]), make())
    assert_pure(make(players=EIGHT, teams=TEAMS), make())


# --------------------------------------------------------------- baseball


def test_baseball_runs_of_inning_three_appear_in_column_three() -> None:
    before = baseball()
    after = baseball(log=BASEBALL_LOG + "T3 S3 M\n")  # Ann: 4 runs in inning 3
    assert after["players"][0]["innings_runs"] == [6, 4, 4]
    scene = BaseballScene()
    layout = Layout(*SIZE)
    ann_3 = scene.cell_rect(layout, StateView.from_json(before), 0, 3)
    ann_2 = scene.cell_rect(layout, StateView.from_json(before), 0, 2)
    bob_3 = scene.cell_rect(layout, StateView.from_json(before), 1, 3)
    assert ann_3.width and ann_3 == scene.cell_rect(layout, StateView.from_json(after), 0, 3)
    before_image, before_layout = render(before)
    after_image, after_layout = render(after)
    assert texts_in(before_layout, ann_3) == []
    assert texts_in(after_layout, ann_3) == ["4"]
    assert texts_in(after_layout, ann_2) == ["4"]
    assert texts_in(after_layout, bob_3) == []  # Bo has not thrown in inning 3
    assert pixels(before_image, ann_3) != pixels(after_image, ann_3)
    # Mid-visit the runs are there already, and Bo's cells do not move.
    during_image, during_layout = render(baseball(("T3", "S3")))
    assert texts_in(during_layout, ann_3) == ["4"]
    assert pixels(before_image, ann_3) != pixels(during_image, ann_3)
    assert pixels(before_image, bob_3) == pixels(during_image, bob_3)
    assert "14" in texts(after_layout)  # Ann's total runs


def test_baseball_runs_show_during_the_visit_and_the_inning_is_highlighted() -> None:
    scene = BaseballScene()
    layout = Layout(*SIZE)
    state = baseball(("T3",))
    _, shown = render(state)
    assert texts_in(shown, scene.cell_rect(layout, StateView.from_json(state), 0, 3)) == ["3"]
    assert "Inning 3: only the 3 scores  ·  S3 1 run, D 2, T 3" in texts(shown)
    # The heading of the inning being played is lit: it looks different in inning 2.
    inning_2 = baseball(log="S1 D1 T1\nT20 S2 DB\n")
    assert inning_2["round"] == 2
    image_3, layout_3 = render(state)
    image_2, layout_2 = render(inning_2)
    heading_3 = next(r for t, r in layout_3.drawn_text if t == "3")
    assert "3" in texts(layout_2)
    column = scene.cell_rect(layout, StateView.from_json(state), 0, 3)
    band = pygame.Rect(column.x, heading_3.y, column.width, column.bottom - heading_3.y)
    assert pixels(image_3, band) != pixels(image_2, band)


def test_baseball_extra_innings_get_their_own_column() -> None:
    # One inning, Ann and Bo tie 1-1: extra inning 1 (round 2) on the bull.
    state = baseball(
        ("DB",), log="S1\nS1\nM\nM\nM\n", players=["Ann", "Bo", "Cy"], options={"innings": 1}
    )
    assert state["round"] == 2 and state["players"][2]["innings_runs"] == [0, 2]
    _, layout = render(state)
    assert "X1" in texts(layout)
    cell = BaseballScene().cell_rect(Layout(*SIZE), StateView.from_json(state), 2, 2)
    assert texts_in(layout, cell) == ["2"]
    assert any(t.startswith("Extra inning 1: only the bull scores") for t in texts(layout))


def test_baseball_team_is_one_row_with_its_members() -> None:
    state = baseball(log="S1 D1 T1\nS1\n", players=EIGHT, teams=TEAMS)
    _, layout = render(state, SMALL)
    shown = texts(layout)
    assert shown.count("Red") == 1 and shown.count("Blue") == 1
    for name in EIGHT:
        assert name in shown
    red_1 = BaseballScene().cell_rect(Layout(*SMALL), StateView.from_json(state), 0, 1)
    blue_1 = BaseballScene().cell_rect(Layout(*SMALL), StateView.from_json(state), 1, 1)
    assert texts_in(layout, red_1) == ["6"] and texts_in(layout, blue_1) == ["1"]


# --------------------------------------------------------------- shanghai


def test_shanghai_shows_the_rounds_target_big() -> None:
    scene = ShanghaiScene()
    target_rect = scene.target_rect(Layout(*SIZE))
    for state, target in (
        (shanghai(), 3),
        (shanghai(log=SHANGHAI_LOG + "M\nM\n"), 4),
        (shanghai(log="", options={"start": 19}), 19),
        (shanghai(log="M\nM\nM\nM\n", options={"start": 19}), 1),  # round 3 wraps to 1
    ):
        assert state["players"][0]["target"] == target
        _, layout = render(state)
        assert texts_in(layout, target_rect) == ["Target", str(target)]
        # and it is the biggest text on the scoreboard
        biggest = max(layout.drawn_text, key=lambda item: item[1].height)
        assert biggest[0] == str(target)


def test_shanghai_boxes_light_the_rings_hit_this_visit() -> None:
    scene = ShanghaiScene()
    boxes = scene.ring_boxes(Layout(*SIZE))
    start, _ = render(shanghai())
    two, two_layout = render(shanghai(("S3", "D3")))
    s_box, d_box, t_box = boxes
    assert pixels(start, s_box) != pixels(two, s_box)
    assert pixels(start, d_box) != pixels(two, d_box)
    assert pixels(start, t_box) == pixels(two, t_box)
    assert [texts_in(two_layout, box) for box in boxes] == [["S3"], ["D3"], ["T3"]]
    # Another number's rings light nothing.
    mixed, _ = render(shanghai(("S20", "D3")))
    assert pixels(start, s_box) == pixels(mixed, s_box)
    assert pixels(two, d_box) == pixels(mixed, d_box)
    # All three: a Shanghai, the game is won.
    won_state = shanghai(("S3", "T3", "D3"))
    assert won_state["result"] == "shanghai"
    _, won_layout = render(won_state)
    won = scene_only(won_state)
    assert pixels(scene_only(shanghai()), t_box) != pixels(won, t_box)
    assert "Shanghai!" in texts(won_layout)


def test_shanghai_rounds_left_and_totals() -> None:
    _, layout = render(shanghai())
    assert "5 rounds left" in texts(layout)  # round 3 of 7
    visible(layout, "15")  # Ann's total
    visible(layout, "7")  # Bob's
    last = shanghai(log="M\n" * 12)
    assert last["round"] == 7
    _, layout = render(last)
    assert "last round" in texts(layout)
    assert "7 rounds  ·  start 1" in texts(layout)


# ------------------------------------------------------- around the world


def test_around_the_world_highlight_moves_with_a_hit() -> None:
    scene = AroundTheWorldScene()
    layout = Layout(*SIZE)
    before_state = around()
    after_state = around(("S3",))
    assert after_state["players"][0]["target"] == 4
    cells = {
        n: scene.track_cell(layout, StateView.from_json(before_state), 0, n) for n in (2, 3, 4, 5)
    }
    bob = scene.track_cell(layout, StateView.from_json(before_state), 1, 3)
    before, before_layout = render(before_state)
    after, after_layout = render(after_state)
    assert pixels(before, cells[3]) != pixels(after, cells[3])  # target, now done
    assert pixels(before, cells[4]) != pixels(after, cells[4])  # to come, now the target
    assert pixels(before, cells[2]) == pixels(after, cells[2])  # done before and after
    assert pixels(before, cells[5]) == pixels(after, cells[5])
    assert pixels(before, bob) == pixels(after, bob)
    assert "next 3" in texts(before_layout) and "next 4" in texts(after_layout)
    # The target's look is the same wherever it is: cell 4 now looks as cell 3 did.
    assert texts_in(after_layout, cells[4]) == ["4"]
    assert "3/21  ·  hits 75%" in texts(after_layout)


def test_around_the_world_multi_and_start_in_the_header_and_on_the_track() -> None:
    plain_state = around(log="")
    multi_state = around(("T5",), log="", options={"multi": True, "start": 5})
    assert multi_state["players"][0]["target"] == 8
    plain, plain_layout = render(plain_state)
    multi, multi_layout = render(multi_state)
    assert "start 1  ·  multi off" in texts(plain_layout)
    assert "start 5  ·  multi on: D +2, T +3" in texts(multi_layout)
    scene = AroundTheWorldScene()
    layout = Layout(*SIZE)
    one = scene.track_cell(layout, StateView.from_json(plain_state), 0, 1)
    assert pixels(plain, one) != pixels(multi, one)  # the start, or off the course
    course = "S15 S16 S17\nM\nS18 S19 S20\nM\n"
    on_bull_state = around(log=course, options={"start": 15})
    assert on_bull_state["players"][0]["target"] == 25
    _, on_bull_layout = render(on_bull_state)
    won_state = around(("SB",), log=course, options={"start": 15})
    _, won_layout = render(won_state)
    on_bull, won = scene_only(on_bull_state), scene_only(won_state)
    assert "next Bull" in texts(on_bull_layout) and "won" in texts(won_layout)
    bull = scene.track_cell(layout, StateView.from_json(plain_state), 0, 25)
    assert texts_in(on_bull_layout, bull) == ["Bull"]
    assert pixels(on_bull, bull) != pixels(won, bull)  # the target, then done


# ---------------------------------------------------- fifty-one by fives


def test_fifty_one_shows_what_the_visit_adds_so_far() -> None:
    _, layout = render(fifty(("S20", "S20")))  # 40: eight fives, Ann on 6 of 51
    shown = texts(layout)
    assert "adds 8 so far" in shown
    assert "40 = 8 x 5" in shown
    assert "2 of 3 darts scored" in shown
    _, layout = render(fifty(("S20", "S1")))
    assert "21 is not a multiple of 5" in texts(layout)
    assert "adds nothing yet" in texts(layout)
    _, layout = render(fifty(("S20", "M")))
    assert "adds nothing" in texts(layout)
    assert "a miss: not all scored" in texts(layout)


def test_fifty_one_warns_of_a_bust() -> None:
    options = {"target": 10}
    safe_state = fifty(("S10",), options=options)  # 6 + 2 of 10
    bust_state = fifty(("S20", "S20"), options=options)  # 6 + 8 passes 10
    _, safe = render(safe_state)
    _, bust = render(bust_state)
    assert not any(t.startswith("Bust") for t in texts(safe))
    assert "Bust: 6 + 8 passes 10" in texts(bust)
    assert "4 to go: a visit of 20 wins" in texts(safe)
    # The engine agrees: the visit ends and adds nothing.
    ended = fifty(("S20", "S20", "S5"), options=options)
    assert ended["players"][0]["score"] == 6 and ended["players"][0]["stats"]["busts"] == 1


def test_fifty_one_score_bar_grows_with_the_score() -> None:
    scene = FiftyOneByFivesScene()
    layout, main = main_of(scene)
    cards_area, _ = scene.panel_rects(layout, main)
    ann_card, bob_card = scene.card_rects(layout, cards_area, 2)
    ann_bar = scene.bar_rect(layout, ann_card).inflate(-layout.px(10), -2)
    bob_bar = scene.bar_rect(layout, bob_card).inflate(-layout.px(10), -2)
    before_state = fifty()
    after_state = fifty(("S5", "S5", "S5"))  # Ann: 6 + 3
    assert after_state["players"][0]["score"] == 9
    before, before_layout = render(before_state)
    after, after_layout = render(after_state)
    assert pixels(before, ann_bar) != pixels(after, ann_bar)
    assert pixels(before, bob_bar) == pixels(after, bob_bar)
    visible(before_layout, "/ 51")
    assert "45" in texts(before_layout) and "42" in texts(after_layout)  # to go
    # A visit in progress that will add shows on the thrower's bar.
    pending, _ = render(fifty(("S20",)))
    assert pixels(before, ann_bar) != pixels(pending, ann_bar)
