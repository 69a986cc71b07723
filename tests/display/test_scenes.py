"""The scoreboard's scenes, banners and dartboard, checked on what is visible.

Every state here is a real one: the engine replays a game log (and, for a
visit in progress, a few more darts), then the daemon's ``phase`` and
``board`` keys are added as the MQTT state topic carries them. Checks look at
pixels and at the text the scene drew (``Layout.drawn_text``), never at the
scene's internals: a player's score region changes when the score does, a
banner's region changes when it appears, the lit beds are exactly the
visit's.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pygame
import pytest

from display.app import render_state
from display.banners import active_banners, banner_rect
from display.dartboard import BOARD_ORDER, LIT, bed_centre, draw_dartboard
from display.layout import Layout
from display.lobby import parse_lobby
from display.scenes import (
    MQTT_EVENT,
    CricketScene,
    CricketShanghaiScene,
    GenericScene,
    IdleScene,
    X01Scene,
    scene_class_for,
    scene_for,
)
from display.scenes.base import NOTICE_SECONDS, Scene
from display.scenes.x01 import checkout_route
from engine import game_class, game_ids, new_game, parse_event
from engine.game_log import replay_log
from mqtt_contract import StateView
from mqtt_contract.lobby_payload import LobbyState, ResultLines
from mqtt_contract.pairing_payload import PairingState

SIZE = (1280, 720)
SMALL = (800, 480)
LARGE = (3840, 2160)


def board(connected: bool = True, stuck: Sequence[Sequence[int]] = ()) -> dict[str, Any]:
    status = "disconnected" if not connected else ("stuck" if stuck else "connected")
    return {
        "id": "pub",
        "name": "Pub board",
        "connected": connected,
        "status": status,
        "stuck_cells": [list(cell) for cell in stuck],
    }


def state_of(
    game_id: str,
    log: str = "",
    darts: Iterable[str] = (),
    players: Sequence[str] = ("Ann", "Bob"),
    options: Mapping[str, object] | None = None,
    teams: Mapping[str, Sequence[str]] | None = None,
    phase: str | None = None,
    connected: bool = True,
) -> dict[str, Any]:
    """The MQTT state payload after replaying ``log`` and throwing ``darts``."""
    game = new_game(game_id, players, options, teams)
    replay_log(game, log)
    for dart in darts:
        game.push(parse_event(dart))
    state = game.state()
    if phase is None:
        if state["finished"]:
            phase = "finished"
        elif state["visit_over"] is not None:
            phase = "takeout"
        else:
            phase = "throwing"
    state["phase"] = phase
    state["board"] = board(connected)
    return state


X01_LOG = "T20 T20 T20\nS20 S5 S1\nT20 T19 S20\nT20 T20 S20\n"
"""501: Ann 180 and 137 (184 left), Bob 26 and 140 (335 left)."""
CRICKET_LOG = "T20 S20 S19\nT19 S20 M\n"
SHANGHAI_LOG = "T20 S20 D20\nD18 S18 M\nD19 S19 T19\nT17 D17 M\n"


def x01_state(**kw: Any) -> dict[str, Any]:
    return state_of("x01", X01_LOG, **kw)


def generic_state() -> dict[str, Any]:
    """A game the display has no scene for: an X01 state renamed, with keys of its own."""
    state = x01_state(darts=["S20"])
    state["game"] = "darts-golf"
    state["hole"] = 4
    for number, player in enumerate(state["players"]):
        player["handicap"] = 3 + number
        player["holes"] = [4, 3, 5]
        player["stats"]["birdies"] = number
    return state


SCENE_STATES = {
    "x01": lambda: x01_state(darts=["T20"]),
    "cricket": lambda: state_of("cricket", CRICKET_LOG, ["S18", "T20"]),
    "cricket-shanghai": lambda: state_of("cricket-shanghai", SHANGHAI_LOG, ["S18", "D18"]),
    "generic": generic_state,
    "idle": lambda: {"game": None, "phase": "idle", "board": board()},
}


def render(
    state: Mapping[str, Any] | None,
    size: tuple[int, int] = SIZE,
    availability: str = "online",
    clock: float = 0.0,
) -> tuple[pygame.Surface, Layout]:
    layout = Layout(*size)
    return render_state(state, size, availability, clock, layout), layout


def pixels(surface: pygame.Surface, rect: pygame.Rect) -> bytes:
    return pygame.image.tobytes(surface.subsurface(rect), "RGB")


def texts(layout: Layout) -> list[str]:
    return [text for text, _ in layout.drawn_text]


def visible(layout: Layout, text: str) -> pygame.Rect:
    """The rect ``text`` was drawn in (fails when it was not drawn)."""
    for drawn, rect in layout.drawn_text:
        if drawn == text:
            return rect
    raise AssertionError(f"{text!r} is not on screen; drawn: {texts(layout)}")


def assert_fits(state: Mapping[str, Any] | None, size: tuple[int, int]) -> Layout:
    """The state renders at ``size`` with all text inside the window and, in a
    game, every player's name readable (not shrunk to nothing)."""
    surface, layout = render(state, size)
    assert surface.get_size() == size
    bounds = surface.get_rect()
    assert layout.drawn_text, "nothing was written"
    for text, rect in layout.drawn_text:
        assert bounds.contains(rect), (text, rect, size)
    if state and state.get("game"):
        for player in state["players"]:
            shown = [r for t, r in layout.drawn_text if t.startswith(player["name"])]
            assert shown, f"{player['name']} is not on screen"
            assert shown[0].height >= size[1] // 60, (player["name"], shown[0])
    return layout


def assert_pure(state: Mapping[str, Any] | None, other: Mapping[str, Any] | None) -> None:
    """Drawing ``state`` at several clocks, banners included, changes nothing
    in it, and the same state and clock give the same pixels even with
    ``other`` drawn in between."""
    before = copy.deepcopy(state)
    scene = scene_for(state)
    surface = pygame.Surface(SIZE)
    for clock in (0.0, 0.4, 1.3):
        scene.clock = clock
        scene.draw(surface)
    render_state(state, SIZE, "offline", 2.0)
    assert state == before
    first, _ = render(state, clock=0.3)
    render(other, clock=5.0)
    second, _ = render(state, clock=0.3)
    assert pixels(first, first.get_rect()) == pixels(second, second.get_rect())


# ------------------------------------------------------------ scene choice


def test_the_scene_is_picked_by_game_id_with_fallbacks() -> None:
    assert scene_class_for(SCENE_STATES["x01"]()) is X01Scene
    assert scene_class_for(SCENE_STATES["cricket"]()) is CricketScene
    assert scene_class_for(SCENE_STATES["cricket-shanghai"]()) is CricketShanghaiScene
    assert issubclass(CricketShanghaiScene, CricketScene)
    assert scene_class_for(generic_state()) is GenericScene
    assert scene_class_for(SCENE_STATES["idle"]()) is IdleScene
    assert scene_class_for(None) is IdleScene
    assert isinstance(scene_for(x01_state()), X01Scene)


# ------------------------------------------------------- every scene, sizes


@pytest.mark.parametrize("name", sorted(SCENE_STATES))
@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE], ids=["800x480", "1280x720", "3840x2160"])
def test_every_scene_renders_and_keeps_its_text_inside(name: str, size: tuple[int, int]) -> None:
    assert_fits(SCENE_STATES[name](), size)


@pytest.mark.parametrize("name", sorted(SCENE_STATES))
def test_drawing_never_changes_the_state_and_is_repeatable(name: str) -> None:
    other = "x01" if name != "x01" else "cricket"
    assert_pure(SCENE_STATES[name](), SCENE_STATES[other]())


def test_banners_do_not_change_the_state() -> None:
    state = state_of("x01", X01_LOG, ["T20", "T20"], options={"start": 301}, connected=False)
    state["phase"] = "takeout"
    before = copy.deepcopy(state)
    render_state(state, SIZE, "offline")
    assert state == before


def test_eight_players_in_teams_fit_a_small_window() -> None:
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
    teams = {"Red": names[0::2], "Blue": names[1::2]}
    for game_id in ("x01", "cricket", "cricket-shanghai"):
        state = state_of(game_id, "T20 S19 D18\nS20 M M\n", players=names, teams=teams)
        surface, layout = render(state, SMALL)
        bounds = surface.get_rect()
        assert all(bounds.contains(rect) for _, rect in layout.drawn_text)
        assert "Ann (Red)" in texts(layout) and "Hal (Blue)" in texts(layout)


@pytest.mark.parametrize("game_id", game_ids())
def test_a_name_too_long_for_a_board_is_cut_with_an_ellipsis(game_id: str) -> None:
    """Names come capped from the daemon, but a state may carry a longer one
    (another publisher, a journal from an older Oche): every scene cuts it."""
    state = state_of(game_id)
    state["players"][0]["name"] = "A" * 5000
    surface, layout = render(state, SMALL)
    drawn = texts(layout)
    assert any("A" * 23 + "…" in text for text in drawn), drawn
    assert not any("A" * 24 in text for text in drawn)
    assert all(surface.get_rect().contains(rect) for _, rect in layout.drawn_text)


# ----------------------------------------------------- scores and marks


def test_x01_score_region_changes_when_a_dart_scores() -> None:
    before_state = x01_state()
    after_state = x01_state(darts=["T20"])
    before, layout = render(before_state)
    after, _ = render(after_state)
    score = visible(layout, "184")
    assert pixels(before, score) != pixels(after, score)
    bob = visible(layout, "335")
    assert pixels(before, bob) == pixels(after, bob)  # Bob's score did not change
    _, after_layout = render(after_state)
    visible(after_layout, "124")
    assert "T20" in texts(after_layout)  # the dart of the visit
    assert "Total 60" in texts(after_layout)


def test_x01_shows_the_three_dart_average_and_the_player_to_throw() -> None:
    state = x01_state()
    _, layout = render(state)
    averages = [f"{p['stats']['average']:.2f}" for p in state["players"]]
    for average in averages:
        visible(layout, average)
    assert "3-dart avg" in texts(layout)
    assert state["current_player"] == 0
    assert "Last visit: Bob" in texts(layout)  # between visits: the darts just thrown
    # the thrower's name is marked: it looks different once the turn passes
    bobs_turn = state_of("x01", X01_LOG, ["S1", "S1", "S1"])
    assert bobs_turn["current_player"] == 1
    turned, turned_layout = render(bobs_turn)
    ann = visible(layout, "Ann")
    bob = visible(turned_layout, "Bob")
    ann_turn, _ = render(state)
    assert pixels(ann_turn, ann) != pixels(turned, ann)
    assert pixels(ann_turn, bob) != pixels(turned, bob)
    _, mid_layout = render(x01_state(darts=["S1"]))
    assert "Ann to throw" in texts(mid_layout)


def test_x01_checkout_route_for_the_player_to_throw_at_170_or_less() -> None:
    route = checkout_route(100, 3, "double")
    if route is None:
        pytest.skip("engine.checkout is not available")
    # Ann: 301 - 180 - 21 = 100 left, her visit to begin; Bob on 301.
    log = "T20 T20 T20\nM M M\nS20 S1 M\nM M M\n"
    state = state_of("x01", log, options={"start": 301})
    assert state["players"][0]["score"] == 100
    _, layout = render(state)
    assert "Checkout" in texts(layout)
    for dart in route:
        assert dart in texts(layout)
    # Above 170 (Bob, 301) or not the thrower's turn: no route.
    bob_turn = state_of("x01", log.rsplit("M M M", 1)[0], options={"start": 301})
    assert bob_turn["current_player"] == 1
    _, layout = render(bob_turn)
    assert "Checkout" not in texts(layout)
    # Mid-visit the route uses the darts left: 100 in two darts.
    mid = state_of("x01", log, ["S20"], options={"start": 301})
    two = checkout_route(80, 2, "double")
    _, layout = render(mid)
    assert two is not None and all(dart in texts(layout) for dart in two)


def test_cricket_mark_region_changes_when_a_mark_is_added() -> None:
    before_state = state_of("cricket", CRICKET_LOG)
    after_state = state_of("cricket", CRICKET_LOG, ["S18"])
    assert after_state["players"][0]["marks"]["18"] == 1
    layout = Layout(*SIZE)
    cell = CricketScene().cell_rect(layout, StateView.from_json(before_state), 0, "18")
    other = CricketScene().cell_rect(layout, StateView.from_json(before_state), 1, "18")
    before, _ = render(before_state)
    after, _ = render(after_state)
    assert pixels(before, cell) != pixels(after, cell)
    assert pixels(before, other) == pixels(after, other)


def test_cricket_marks_are_drawn_as_slash_cross_and_circled_cross() -> None:
    """One, two and three marks give three different cells, none empty."""
    layout = Layout(*SIZE)
    cells = []
    for darts in (["S17"], ["D17"], ["T17"]):
        state = state_of("cricket", CRICKET_LOG, darts)
        surface, _ = render(state)
        cells.append(
            pixels(surface, CricketScene().cell_rect(layout, StateView.from_json(state), 0, "17"))
        )
    empty_state = state_of("cricket", CRICKET_LOG)
    empty, _ = render(empty_state)
    blank = pixels(
        empty, CricketScene().cell_rect(layout, StateView.from_json(empty_state), 0, "17")
    )
    assert len({*cells, blank}) == 4


def test_cricket_points_are_shown_per_player() -> None:
    state = state_of("cricket", CRICKET_LOG, ["S18", "T20"])
    _, layout = render(state)
    assert [p["score"] for p in state["players"]] == [80, 0]
    visible(layout, "80")
    assert "MPR 4.50" in texts(layout)


def test_shanghai_shows_what_the_visit_will_fill_then_fills_it() -> None:
    start = state_of("cricket-shanghai", SHANGHAI_LOG)
    during = state_of("cricket-shanghai", SHANGHAI_LOG, ["S18", "D18"])
    ended = state_of("cricket-shanghai", SHANGHAI_LOG + "S18 D18 M\n")
    ann = during["players"][0]
    assert ann["marks"]["18"] == 0 and ann["marks_after_visit"]["18"] == 2
    assert ended["players"][0]["marks"]["18"] == 2
    layout = Layout(*SIZE)
    cell = CricketShanghaiScene().cell_rect(layout, StateView.from_json(start), 0, "18")
    images = [pixels(render(state)[0], cell) for state in (start, during, ended)]
    assert images[0] != images[1] != images[2]
    assert images[0] != images[2]
    # 17 is untouched by the visit: its boxes look the same throughout.
    cell_17 = CricketShanghaiScene().cell_rect(layout, StateView.from_json(start), 0, "17")
    assert pixels(render(start)[0], cell_17) == pixels(render(during)[0], cell_17)
    _, shown = render(during)
    assert "6/21" in texts(shown)
    assert any("+2 this visit" in text for text in texts(shown))


def test_generic_scene_shows_every_player_key_and_stat() -> None:
    state = generic_state()
    surface, layout = render(state)
    assert isinstance(scene_for(state), GenericScene)
    shown = texts(layout)
    for player in state["players"]:
        assert str(player["score"]) in shown
        assert str(player["handicap"]) in shown
    for label in ("handicap", "holes", "birdies", "average", "opened"):
        assert label in shown
    # and its score region follows the state
    other = copy.deepcopy(state)
    other["players"][1]["score"] = 12
    changed, _ = render(other)
    score = visible(layout, str(state["players"][1]["score"]))
    assert pixels(surface, score) != pixels(changed, score)


def test_idle_scene_shows_board_status_and_how_to_start() -> None:
    idle = {"game": None, "phase": "idle", "board": board()}
    _, layout = render(idle)
    assert "Start a game" in texts(layout)
    assert "Pub board: connected" in texts(layout)
    _, layout = render({**idle, "board": board(stuck=[[3, 5]])})
    assert "Pub board: 1 stuck cell masked" in texts(layout)
    _, waiting = render(None)
    assert "Waiting for the daemon..." in texts(waiting)


MISSING_PORT = "/dev/oche-board: cannot open: No such file or directory: is the board plugged in?"


def test_the_attract_screen_says_why_the_board_is_not_connected() -> None:
    idle = {"game": None, "phase": "idle", "board": {**board(False), "problem": MISSING_PORT}}
    for size in (SIZE, (1920, 1080)):
        _, layout = render(idle, size)
        shown = texts(layout)
        assert "Pub board: disconnected" in shown
        # Under the status, in words that read from the oche (wrapped, not shrunk).
        wrapped = [text for text in shown if text in MISSING_PORT and text != MISSING_PORT]
        assert " ".join(wrapped) == MISSING_PORT
        assert all(visible(layout, text).height >= size[1] // 45 for text in wrapped)
        # and the strip over the header says it too
        assert "Board disconnected" in shown and MISSING_PORT in shown


def test_a_board_set_up_wrongly_gets_the_board_strip_with_the_diagnosis() -> None:
    wrong = "this looks like a DaSCR or dARts board (it sent '320'): set board.protocol"
    state = x01_state()
    state["board"] = {**board(), "problem": wrong}
    banner_changes(x01_state(), state, "board")
    _, layout = render(state)
    assert "Board set up wrongly" in texts(layout) and wrong in texts(layout)
    assert "Pub board: set up wrongly" in texts(layout)
    state["board"]["problem"] = None  # read again: the strip goes
    assert "board" not in active_banners(StateView.from_json(state))


@pytest.mark.parametrize("size", [SIZE, (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_the_attract_screen_lists_every_game_legibly(size: tuple[int, int]) -> None:
    _, layout = render({"game": None, "phase": "idle", "board": board()}, size)
    hint = visible(layout, "Press GAME or any key to set up a game (or send new_game over MQTT)")
    for game_id in game_ids():
        name = visible(layout, game_class(game_id).name)
        # as tall as the hint at least: the one-line list was a third of that
        assert name.height >= hint.height, (game_id, name, hint)


def test_idle_board_animates_with_the_clock_only() -> None:
    idle = {"game": None, "phase": "idle", "board": board()}
    a, _ = render(idle, clock=0.0)
    b, _ = render(idle, clock=1.0)
    c, _ = render(idle, clock=0.0)
    full = a.get_rect()
    assert pixels(a, full) != pixels(b, full)
    assert pixels(a, full) == pixels(c, full)


# ------------------------------------------------------------- banners


def banner_changes(
    plain: Mapping[str, Any] | None,
    flagged: Mapping[str, Any] | None,
    banner: str,
    availability: str = "online",
) -> None:
    """The banner's region looks different once the banner applies."""
    layout = Layout(*SIZE)
    rect = banner_rect(layout, banner)
    before, _ = render(plain)
    after, _ = render(flagged, availability=availability)
    assert banner not in active_banners(StateView.from_json(plain))
    assert banner in active_banners(StateView.from_json(flagged), availability)
    assert pixels(before, rect) != pixels(after, rect), banner


def test_takeout_banner() -> None:
    plain = state_of("x01", X01_LOG, phase="throwing")
    takeout = state_of("x01", X01_LOG, phase="takeout")
    banner_changes(plain, takeout, "takeout")
    _, layout = render(takeout)
    assert "Remove darts" in texts(layout)


def test_bust_banner_mid_visit_and_after_a_third_dart_bust() -> None:
    # 301: Ann on 98 throws T20 T20: bust on the second dart.
    log = "T20 S20 S5\nS20 S1 S18\nT20 T19 S1\nT20 T20 S20\n"
    plain = state_of("x01", log, options={"start": 301}, phase="throwing")
    bust = state_of("x01", log, ["T20", "T20"], options={"start": 301})
    assert bust["visit_over"] == "bust"
    banner_changes(plain, bust, "bust")
    _, layout = render(bust)
    assert "BUST" in texts(layout) and "Ann stays on 98" in texts(layout)
    # A bust on the third dart: the turn has passed, last_visit says bust.
    third = state_of("x01", log, ["S20", "S20", "T20"], options={"start": 301})
    assert third["visit"] == [] and third["last_visit"]["visit_over"] == "bust"
    assert "bust" in active_banners(StateView.from_json(third))
    # Once the next player throws, the bust is history.
    later = state_of("x01", log, ["S20", "S20", "T20", "S1"], options={"start": 301})
    assert "bust" not in active_banners(StateView.from_json(later))


def test_winner_banner_with_match_stats() -> None:
    log = "T20 S20 S5\nS20 S1 S18\nT20 T19 S1\nT20 T20 S20\nT20 S18 S20\nT20 S2 D20\nT20 D19\n"
    playing = state_of("x01", log.rsplit("\n", 2)[0] + "\n", options={"start": 301})
    won = state_of("x01", log, options={"start": 301})
    assert won["finished"] and won["winner"] == 0
    banner_changes(playing, won, "winner")
    _, layout = render(won)
    shown = texts(layout)
    assert "Ann wins!" in shown
    assert f"{won['players'][0]['stats']['average']:.2f}" in shown
    assert "3-dart avg" in shown
    teams = state_of(
        "cricket",
        "T20 T20 T20\nM\nT19 T19 T19\nM\nT18 T18 T18\nM\nT17 T17 T17\nM\nT16 T16 T16\nM\n"
        "T15 T15 T15\nM\nDB DB DB\n",
        players=["Ann", "Bob", "Cy", "Dee"],
        teams={"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee"]},
    )
    assert teams["finished"] and teams["winner_team"] == 0
    _, layout = render(teams)
    assert "Red win!" in texts(layout)


def test_winner_banner_leaves_out_darts_and_visits_where_no_dart_was_thrown() -> None:
    """Domino cribbage is played by picking tiles: its darts and visits are 0
    for everyone, so the table shows its own statistics instead."""
    game = new_game("domino-cribbage", ["Ann", "Bob"], {"seed": 0, "computer": "both"})
    while not game.is_finished:
        game.end_visit()
    won = {**game.state(), "phase": "finished", "board": board()}
    assert all(p["stats"]["darts"] == p["stats"]["visits"] == 0 for p in won["players"])
    assert "winner" in active_banners(StateView.from_json(won))
    _, layout = render(won)
    shown = texts(layout)
    assert f"{won['players'][won['winner']]['name']} wins!" in shown
    assert "darts" not in shown and "visits" not in shown
    for label in ("pegged", "hands", "crib", "best hand"):
        assert label in shown
    assert str(won["players"][0]["stats"]["pegged"]) in shown
    assert f"target reached  ·  hand {won['hand']}" in shown

    x01 = state_of("x01", "T20 T20 T20\nT20 T20 T20\nT20 T20 T20\nT20 T20 T20\nT20 T19 D12\n")
    assert x01["finished"]
    _, layout = render(x01)
    assert "darts" in texts(layout)
    assert "9" in texts(layout)  # Ann's nine-darter


def test_board_disconnected_banner() -> None:
    plain = x01_state()
    gone = x01_state(connected=False)
    banner_changes(plain, gone, "board")
    _, layout = render(gone)
    assert "Board disconnected" in texts(layout)


def test_journal_banner_when_it_is_full_and_after_a_salvage() -> None:
    plain = x01_state()
    plain["journal"] = {"status": "ok", "message": None, "salvaged": None}
    full = {
        **plain,
        "journal": {
            "status": "full",
            "message": "the journal is full: darts are not counted",
            "salvaged": None,
        },
    }
    banner_changes(plain, full, "journal")
    _, layout = render(full)
    assert {"Journal full", "the journal is full: darts are not counted"} <= set(texts(layout))
    line = "the journal was damaged: set aside as journal.sqlite3.damaged-2026-12-02T011500"
    salvaged = {**plain, "journal": {"status": "ok", "message": None, "salvaged": line}}
    banner_changes(plain, salvaged, "journal")
    _, layout = render(salvaged)
    assert "Journal repaired" in texts(layout)
    assert any(text.startswith("the journal was damaged") for text in texts(layout))
    idle = {"game": None, "phase": "idle", "board": board(), "journal": full["journal"]}
    assert "journal" in active_banners(
        StateView.from_json(idle)
    )  # no game yet: no game can be started either
    _, layout = render({**full, "board": board(connected=False)})
    shown = [visible(layout, text) for text in ("Journal full", "Board disconnected")]
    assert not shown[0].colliderect(shown[1])


def test_daemon_offline_keeps_the_last_state_marked_stale() -> None:
    state = x01_state()
    banner_changes(state, state, "offline", availability="offline")
    online, _ = render(state)
    offline, layout = render(state, availability="offline")
    assert "Daemon offline" in texts(layout)
    # the scores are still there, dimmed: same text, darker pixels
    score = visible(layout, "184")
    assert pixels(online, score) != pixels(offline, score)
    _, lost = render(state, availability="no-broker")
    assert "No connection to the broker" in texts(lost)


def test_banners_stack_without_hiding_each_other() -> None:
    state = state_of("x01", X01_LOG, phase="takeout", connected=False)
    _, layout = render(state, availability="offline")
    shown = texts(layout)
    for text in ("Daemon offline", "Board disconnected", "Remove darts"):
        assert text in shown
    rects = [visible(layout, t) for t in ("Daemon offline", "Board disconnected", "Remove darts")]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.colliderect(b)


# ------------------------------------------------------------ dartboard


def test_dartboard_lights_exactly_the_beds_it_is_given() -> None:
    rect = pygame.Rect(0, 0, 400, 400)
    plain = pygame.Surface(rect.size)
    draw_dartboard(plain, rect, ())
    beds = [f"{k}{n}" for n in BOARD_ORDER for k in "SDT"] + ["SB", "DB"]
    for lit in (["T20"], ["S5", "D1"], ["SB"], ["DB"], ["T19", "S3", "D16"]):
        surface = pygame.Surface(rect.size)
        draw_dartboard(surface, rect, lit)
        for bed in beds:
            centre = bed_centre(rect, bed)
            assert centre is not None
            changed = surface.get_at(centre) != plain.get_at(centre)
            assert changed == (bed in lit), (lit, bed)
            if bed in lit:
                colour = surface.get_at(centre)
                assert abs(colour.r - LIT[0]) + abs(colour.g - LIT[1]) + abs(colour.b - LIT[2]) < 60


def test_scene_lights_the_visit_beds_on_its_dartboard() -> None:
    state = state_of("cricket", CRICKET_LOG, ["S18", "T20", "DB"], phase="throwing")
    assert state["visit"] == [] and state["last_visit"]["darts"] == ["S18", "T20", "DB"]
    in_visit = state_of("cricket", CRICKET_LOG, ["S18", "T20"])
    plain = state_of("cricket", CRICKET_LOG)
    layout = Layout(*SIZE)
    board_rect = CricketScene().regions(layout)["board"]
    lit, _ = render(in_visit)
    unlit, _ = render(plain)
    for bed in ("S18", "T20", "DB", "SB", "S20", "D20", "T18", "S1"):
        centre = bed_centre(board_rect, bed)
        assert centre is not None
        assert (lit.get_at(centre) != unlit.get_at(centre)) == (bed in ("S18", "T20")), bed
    # Between visits nothing is lit, during the takeout the last visit is.
    between, _ = render(state)
    takeout, _ = render({**state, "phase": "takeout"})
    centre = bed_centre(board_rect, "DB")
    assert centre is not None
    assert between.get_at(centre) == unlit.get_at(centre)
    assert takeout.get_at(centre) != unlit.get_at(centre)


# -------------------------------------------------------- scene loop bits


def test_notices_from_events_show_for_a_few_seconds() -> None:
    state = x01_state()
    scene: Scene = scene_for(state)
    payload = {
        "type": "hit",
        "at": 1.0,
        "segment": "T20",
        "scored": False,
        "reason": "takeout: contacts while removing darts are not scored",
    }
    assert scene.process_event(pygame.event.Event(MQTT_EVENT, payload=payload)) is None
    other = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_x)
    assert scene.process_event(other) is other
    surface = pygame.Surface(SIZE)
    layout = Layout(*SIZE)
    scene.draw(surface, layout)
    assert "T20 not scored: takeout" in texts(layout)
    scene.update(NOTICE_SECONDS + 0.1)
    layout = Layout(*SIZE)
    scene.draw(surface, layout)
    assert not any("not scored" in text for text in texts(layout))


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("not-your-turn", "another board's turn"),
        ("not-your-turn: Cy is throwing at Pub 2", "another board's turn"),
        ("waiting-remote", "the remote match is waiting"),
        ("waiting-remote: the match waits for Pub 2", "the remote match is waiting"),
        ("cpu-turn", "cpu-turn"),
        ("no game", "no game"),
    ],
)
def test_an_ignored_hit_s_notice_gives_its_reason_in_words(reason: str, words: str) -> None:
    scene: Scene = scene_for(x01_state())
    payload = {"type": "hit", "at": 1.0, "segment": "S5", "scored": False, "reason": reason}
    scene.process_event(pygame.event.Event(MQTT_EVENT, payload=payload))
    layout = Layout(*SIZE)
    scene.draw(pygame.Surface(SIZE), layout)
    assert f"S5 not scored: {words}" in texts(layout)


def test_a_refused_command_of_the_display_is_a_notice() -> None:
    """The feed hands the display's refused commands over as ``refused``
    payloads (display/state_feed.py); every scene shows them as notices."""
    refused = {"type": "refused", "id": "display-1", "command": "undo", "error": "nothing to undo"}
    for state in (x01_state(), {"game": None, "phase": "idle", "board": board()}):
        scene: Scene = scene_for(state)
        event = pygame.event.Event(MQTT_EVENT, payload=refused)
        assert scene.process_event(event) is None
        layout = Layout(*SIZE)
        scene.draw(pygame.Surface(SIZE), layout)
        assert "Refused: nothing to undo" in texts(layout)


# ------------------------------------------------------------ the app loop


class FakeFeed:
    """What DisplayApp reads from a StateFeed, without a broker."""

    def __init__(self, state: dict[str, Any] | None) -> None:
        self.state = state
        self.serial = 1 if state is not None else 0
        self.availability: str | None = "online"
        self.connected = True
        self.pending: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.leaderboards: tuple[Any, ...] = ()
        self.lines: ResultLines | None = None
        self.pairing: PairingState | None = None

    @property
    def lobby(self) -> LobbyState | None:
        """The state's lobby, as the feed parses it."""
        return None if self.state is None else parse_lobby(self.state)

    def snapshot(self) -> tuple[StateView | None, int, str | None, bool]:
        view = None if self.state is None else StateView.from_json(self.state)
        return view, self.serial, self.availability, self.connected

    def events(self) -> list[dict[str, Any]]:
        events, self.pending = self.pending, []
        return events

    def send_command(self, command: dict[str, Any]) -> None:
        self.sent.append(command)

    def show(self, state: dict[str, Any]) -> None:
        self.state, self.serial = state, self.serial + 1


def key(code: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=code, mod=0, unicode="", scancode=0)


def test_app_switches_scenes_sends_commands_and_quits() -> None:
    from display.app import DisplayApp

    feed = FakeFeed(x01_state())
    app = DisplayApp(feed, SMALL)  # type: ignore[arg-type]
    pygame.display.init()
    try:
        screen = app._open_window()
        assert screen.get_size() == SMALL
        app.frame(screen, 1 / 60)
        assert isinstance(app.scene, X01Scene)
        x01_scene = app.scene
        feed.show(x01_state(darts=["T20"]))
        app.frame(screen, 1 / 60)
        assert app.scene is x01_scene  # same game: the scene (and its clock) stays
        assert app.scene.clock == pytest.approx(2 / 60)
        feed.show(state_of("cricket", CRICKET_LOG))
        app.frame(screen, 1 / 60)
        assert isinstance(app.scene, CricketScene)
        feed.show({"game": None, "phase": "idle", "board": board()})
        app.frame(screen, 1 / 60)
        assert isinstance(app.scene, IdleScene)

        for code, command in ((pygame.K_n, "next"), (pygame.K_u, "undo"), (pygame.K_m, "miss")):
            app.handle(key(code))
            assert feed.sent[-1] == {"command": command}
        feed.pending.append({"type": "error", "at": 1.0, "kind": "crc", "message": "bad CRC"})
        app.frame(screen, 1 / 60)
        assert any("bad CRC" in text for _, text in app.scene.notices)

        app.handle(key(pygame.K_f))
        assert app.fullscreen
        app.handle(key(pygame.K_f))
        assert not app.fullscreen
        app.running = True
        app.handle(key(pygame.K_q))
        assert not app.running
        app.running = True
        app.handle(key(pygame.K_ESCAPE))
        assert not app.running
    finally:
        pygame.display.quit()


def test_app_run_loop_ends_on_quit() -> None:
    from display.app import DisplayApp

    feed = FakeFeed(None)
    app = DisplayApp(feed, SMALL)  # type: ignore[arg-type]
    pygame.init()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run() == 0
    assert not app.running


def test_app_frames_match_render_state_with_the_static_picture_cached() -> None:
    """The app draws the static picture once per state and blits it; its
    frames must be the very pixels render_state gives for the state and clock."""
    from display.app import DisplayApp

    states = [
        state_of("cricket-shanghai", SHANGHAI_LOG, ["S18", "D18"]),  # pulsing boxes, lit beds
        state_of("cricket-shanghai", SHANGHAI_LOG, ["S18", "D18", "T18"]),
        {"game": None, "phase": "idle", "board": board()},  # the attract board turns
    ]
    feed = FakeFeed(states[0])
    app = DisplayApp(feed, SMALL)  # type: ignore[arg-type]
    pygame.display.init()
    try:
        screen = app._open_window()
        for state in states:
            feed.show(state)
            for _ in range(3):
                app.frame(screen, 0.37)
                expected = render_state(state, SMALL, "online", app.scene.clock)
                assert pixels(screen, screen.get_rect()) == pixels(expected, expected.get_rect())
    finally:
        pygame.display.quit()


def test_x01_and_cricket_cards_show_each_handicap() -> None:
    """Issue #26: a handicapped player's card says so ("from 401", the spot marks)."""
    state = state_of("x01", "T20 T20 T20", options={"handicaps": "501,401"})
    _, layout = render(state)
    assert {"from 501", "from 401"} <= set(texts(layout))
    cricket = state_of("cricket", "S20", options={"handicaps": "-,20:3 bull:2"})
    _, layout = render(cricket)
    assert any(text.endswith("spot 20:3 bull:2") for text in texts(layout)), texts(layout)
