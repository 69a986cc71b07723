"""Match play and called matches on the display (docs/matches.md "On the
screens", docs/display.md), from hand-written states per the contract.

Every state here is the engine's state of a leg (``state_of``: a real game)
with the contract's ``match`` or ``call`` block written by hand as the daemon
publishes it (mqtt_contract/match_payload.py), and each is checked against
the state topic's schema first. Checks look at the text the scenes drew and
at pixels, as tests/display/test_scenes.py does; the leg-won moment and its
caller line go through the app with a fake ``espeak-ng``.
"""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path
from typing import Any

import pygame
import pytest
from jsonschema import Draft202012Validator

from display.app import DisplayApp, render_state
from display.banners import active_banners
from display.cues import caller_text, collapse, cues_for
from display.layout import COLORS, Layout
from display.scenes import MQTT_EVENT, IdleScene, scene_for
from display.scenes.match_view import LEG_WON_SECONDS
from display.sound_bank import Caller
from engine import game_ids, parse_event
from engine.match import Match
from engine.match_format import MatchFormat
from mqtt_contract import TOPICS, StateView
from tests.display.test_lobby import idle as lobby_idle
from tests.display.test_lobby import lobby_player
from tests.display.test_scenes import (
    LARGE,
    SIZE,
    SMALL,
    FakeFeed,
    assert_fits,
    assert_pure,
    pixels,
    render,
    state_of,
    texts,
    visible,
)
from tests.display.test_sound import fake_espeak, wait_until_quiet

STATE_SCHEMA = Draft202012Validator(TOPICS["state"].schema)

BOARD_2 = {
    "id": "board2",
    "name": "Board 2",
    "connected": True,
    "status": "connected",
    "stuck_cells": [],
}


def played(number: int, winner: int, starter: int, set_: int | None = None) -> dict[str, Any]:
    """A finished leg as the state's ``match.played`` lists it."""
    return {
        "leg": number,
        "set": set_,
        "starter": starter,
        "winner": winner,
        "winner_team": None,
        "result": "checkout",
    }


def match_block(**changes: Any) -> dict[str, Any]:
    """A 301 match first to 2 legs at 1-0 (Ann won leg 1), leg 2 started by
    Bob (alternate), as the state's ``match`` block; ``changes`` on top."""
    block: dict[str, Any] = {
        "format": {"legs": 2, "starts": "alternate"},
        "leg": 2,
        "set": None,
        "starter": 1,
        "legs_won": [1, 0],
        "sets_won": None,
        "decider": False,
        "leg_over": False,
        "cork": None,
        "finished": False,
        "winner": None,
        "winner_team": None,
        "played": [played(1, 0, 0)],
    }
    block.update(changes)
    return block


def checked(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` once the state topic's schema takes it."""
    STATE_SCHEMA.validate(state)
    return state


def match_301(**changes: Any) -> dict[str, Any]:
    """Leg 2 of the 301 match (straight out) at 1-0, Bob to throw first."""
    state = state_of("x01", options={"start": 301, "out": "straight"})
    state["board"] = BOARD_2
    state["current_player"] = 1  # Bob starts leg 2
    state["match"] = match_block(**changes)
    return checked(state)


WIN_LOG = "T20 T20 T20\nS20 S20 S20\nT20 T20 S1\n"
"""A leg of 301 straight out Ann wins: 180, then 121 out."""


def leg_over_301() -> dict[str, Any]:
    """Leg 1 just won by Ann with a checkout: the match waits for NEXT."""
    state = state_of("x01", WIN_LOG, options={"start": 301, "out": "straight"})
    assert state["finished"] and state["winner"] == 0
    # the phase is takeout, so the match goes on: the state's game is not
    # finished (the schema says so), the match block says the leg is won
    state.update(phase="takeout", finished=False, winner=None, result=None, visit_over=None)
    state["board"] = BOARD_2
    state["match"] = match_block(leg=1, starter=0, leg_over=True)
    return checked(state)


def finished_301() -> dict[str, Any]:
    """The match over: Ann won leg 2 too, 2-0."""
    state = state_of("x01", WIN_LOG, options={"start": 301, "out": "straight"})
    state["board"] = BOARD_2
    state["match"] = match_block(
        legs_won=[2, 0], finished=True, winner=0, played=[played(1, 0, 0), played(2, 0, 1)]
    )
    return checked(state)


LEG_WON = {
    "type": "leg_won",
    "at": 1767225700.0,
    "player": 0,
    "leg": 1,
    "result": "checkout",
    "legs_won": [1, 0],
    "team": None,
    "set": None,
    "sets_won": None,
    "set_won": False,
    "match_won": False,
}
"""Ann wins leg 1 of the 301 match (docs/mqtt.md's example)."""

CALL = {
    "call_id": "t4-m2",
    "title": "Friday Cup, round 1",
    "game": "x01",
    "options": {"start": 501},
    "match": {"legs": 3},
    "players": [{"name": "Ann", "player_id": 1}, {"name": "Bob", "player_id": None}],
    "called_at": 1767225600.0,
}
"""The state's ``call`` block of a tournament's match called to Board 2."""


def bad_pixels(surface: pygame.Surface, rect: pygame.Rect) -> int:
    """How many pixels of ``rect`` are the starter's bull red (COLORS.bad exactly)."""
    area = surface.subsurface(rect.clip(surface.get_rect()))
    return sum(
        1
        for x in range(area.get_width())
        for y in range(area.get_height())
        if tuple(area.get_at((x, y)))[:3] == COLORS.bad
    )


def chip_marker_area(layout: Layout, name: str) -> pygame.Rect:
    """Left of a side's name in the match band (its first drawing): where its
    chip's starter marker goes."""
    rect = visible(layout, name)
    return pygame.Rect(rect.x - 3 * rect.height, rect.y, 3 * rect.height, rect.height)


# ------------------------------------------------------------ a 301 match


def test_a_301_match_at_1_0_shows_the_legs_the_leg_and_bob_throwing_first() -> None:
    surface, layout = render(match_301())
    for words in ("Leg 2", "first to 2 legs", "Legs 1-0", "Bob throws first", "Bob to throw"):
        visible(layout, words)
    band = visible(layout, "Legs 1-0")
    ann, bob = (chip_marker_area(layout, name) for name in ("Ann", "Bob"))
    assert ann.y == bob.y and ann.bottom <= band.bottom + band.height  # both in the band
    assert bad_pixels(surface, bob) > 0 and bad_pixels(surface, ann) == 0
    # the other way round, the marker moves to Ann
    swapped, swapped_layout = render(match_301(starter=0))
    visible(swapped_layout, "Ann throws first")
    assert bad_pixels(swapped, ann) > 0 and bad_pixels(swapped, bob) == 0
    # the legs each side won are on its chip
    legs = [text for text in texts(layout) if text in ("1", "0")]
    assert legs[:2] == ["1", "0"]


def test_a_single_game_has_no_match_band() -> None:
    plain = state_of("x01", options={"start": 301})
    _, layout = render(plain)
    assert not any(text.startswith("Legs ") or text.startswith("Leg ") for text in texts(layout))


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_screen_shows_the_match_and_keeps_its_text_inside(game_id: str) -> None:
    state = state_of(game_id)
    state["match"] = match_block()
    checked(state)
    for size in (SMALL, SIZE, LARGE):
        layout = assert_fits(state, size)
        visible(layout, "Legs 1-0")
        visible(layout, "Leg 2")


def test_a_set_match_shows_the_set_the_leg_of_the_set_and_the_sets() -> None:
    # set 1: Ann 3-0; set 2: Ann won leg 4, Bob leg 5; leg 6 is set 2's third
    legs = [played(n, 1 if n == 5 else 0, (n + 1) % 2, 1 if n <= 3 else 2) for n in range(1, 6)]
    state = match_301(
        format={"legs": 3, "sets": 2},
        leg=6,
        set=2,
        starter=1,
        legs_won=[1, 1],
        sets_won=[1, 0],
        played=legs,
    )
    _, layout = render(state)
    for words in ("Set 2, leg 3", "first to 2 sets of 3 legs", "Sets 1-0, legs 1-1", "sets 1"):
        visible(layout, words)
    assert "sets 0" in texts(layout)


# ---------------------------------------------------------- a leg won


def test_a_won_leg_waits_for_next_under_a_strip_not_the_winner_panel() -> None:
    state = leg_over_301()
    view = StateView.from_json(state)
    assert active_banners(view) == ["leg"]  # not "winner", not "takeout"
    _, layout = render(state)
    visible(layout, "Ann wins the first leg")
    visible(layout, "Legs 1-0  ·  press NEXT for the next leg")
    visible(layout, "Leg won  ·  press NEXT for the next leg")  # the header
    # a state that says the leg's game is finished is still the match's leg
    finished_leg = {**state, "phase": "finished", "finished": True, "winner": 0}
    assert active_banners(StateView.from_json(finished_leg)) == ["leg"]


def test_the_leg_won_banner_shows_for_two_seconds_then_uncovers_the_scoreboard() -> None:
    state = match_301()  # NEXT started leg 2 right away: Bob to throw
    scene = scene_for(state)
    before = copy.deepcopy(state)
    assert scene.process_event(pygame.event.Event(MQTT_EVENT, payload=LEG_WON)) is None
    surface, layout = pygame.Surface(SIZE), Layout(*SIZE)
    scene.draw(surface, layout)
    title = visible(layout, "Game shot, and the first leg")
    visible(layout, "Ann wins the leg  ·  Legs 1-0")
    bob_card = [rect for text, rect in layout.drawn_text if text == "301"][1]
    assert title.colliderect(bob_card.inflate(0, bob_card.height))  # it covers the cards...
    scene.update(LEG_WON_SECONDS - 0.1)
    layout = Layout(*SIZE)
    scene.draw(surface, layout)
    assert "Game shot, and the first leg" in texts(layout)
    scene.update(0.2)  # ... for two seconds at most
    layout = Layout(*SIZE)
    scene.draw(surface, layout)
    assert "Game shot, and the first leg" not in texts(layout)
    plain = scene_for(state)
    plain.clock = scene.clock
    unbannered = pygame.Surface(SIZE)
    plain.draw(unbannered)
    assert pixels(surface, surface.get_rect()) == pixels(unbannered, unbannered.get_rect())
    assert state == before  # drawing changed nothing


def test_the_leg_won_banner_and_its_caller_line_through_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spoken = fake_espeak(tmp_path, 0)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    feed = FakeFeed(leg_over_301())
    caller = Caller()
    app = DisplayApp(feed, SIZE, caller=caller)  # type: ignore[arg-type]
    surface = pygame.Surface(SIZE)
    try:
        app.frame(surface, 0.0)
        quiet = pixels(surface, surface.get_rect())
        feed.pending = [LEG_WON]
        app.frame(surface, 0.016)
        assert pixels(surface, surface.get_rect()) != quiet  # the banner is up
        wait_until_quiet(caller)
        app.frame(surface, LEG_WON_SECONDS)
        expected = render_state(feed.state, SIZE, clock=app.scene.clock)
        assert pixels(surface, surface.get_rect()) == pixels(expected, expected.get_rect())
    finally:
        caller.close()
    assert spoken.read_text().splitlines() == ["-s 160 Game shot, and the first leg"]


def test_the_caller_says_the_leg_the_set_and_the_match() -> None:
    assert caller_text(LEG_WON) == "Game shot, and the first leg"
    assert caller_text({**LEG_WON, "leg": 2, "legs_won": [1, 1], "player": 1}) == (
        "Game shot, and the second leg"
    )
    in_set = {**LEG_WON, "leg": 5, "set": 2, "legs_won": [2, 1], "sets_won": [1, 0]}
    assert caller_text(in_set) == "Game shot, and the third leg"  # the set's third
    assert caller_text({**in_set, "set_won": True, "legs_won": [3, 1]}) == "Game shot, and the set"
    last = {**LEG_WON, "leg": 2, "legs_won": [2, 0], "match_won": True}
    assert caller_text(last) == "Game shot, and the match"
    # the match's winner event says nothing more, a single game's still "game shot"
    finished = StateView.from_json(finished_301())
    winner = {"type": "winner", "at": 1767225800.0, "player": 0, "team": None}
    assert caller_text(winner, finished) is None
    assert caller_text(winner, StateView.from_json(state_of("x01"))) == "game shot"
    assert collapse([cue for event in (last, winner) for cue in cues_for(event)]) == ["game_shot"]
    assert cues_for(LEG_WON) == ["game_shot"]
    assert caller_text({"type": "leg_won", "player": 0}) is None  # malformed: quiet


def test_the_caller_names_the_cork_winner_the_starter_and_a_called_match() -> None:
    view = StateView.from_json(match_301())
    cork_won = {"type": "cork_won", "at": 1767225720.0, "player": 1}
    started = {"type": "leg_started", "at": 1767225710.0, "leg": 2, "starter": 1,
               "set": None, "decider": False}  # fmt: skip
    called = {"type": "match_called", "at": 1767225600.0, "call_id": "t4-m2",
              "players": ["Ann", "Bob"], "title": "Friday Cup, round 1"}  # fmt: skip
    assert caller_text(cork_won, view) == "Bob wins the cork"
    assert caller_text(started, view) == "Bob to throw first, game on"
    assert caller_text(started) is None  # no state: no name to say
    assert caller_text(called) == "Next match, Ann versus Bob"


# -------------------------------------------------------------- the cork


def cork_state(cork: list[str | None]) -> dict[str, Any]:
    """A cricket match at 1-1 in first to 2: the deciding leg's cork."""
    state = state_of("cricket")
    state["board"] = BOARD_2
    state["match"] = match_block(
        format={"legs": 2, "decider": "cork"},
        leg=3,
        starter=0,
        legs_won=[1, 1],
        decider=True,
        cork=cork,
        played=[played(1, 0, 0), played(2, 1, 1)],
    )
    return checked(state)


def test_the_cork_shows_whose_turn_at_the_bull_and_each_sides_dart() -> None:
    first = cork_state([None, None])
    assert "cork" in active_banners(StateView.from_json(first))
    _, layout = render(first)
    visible(layout, "Bull for the throw: Ann to throw")
    visible(layout, "Ann: -")
    second = cork_state(["DB", None])
    _, layout = render(second)
    visible(layout, "Bull for the throw: Bob to throw")
    visible(layout, "Ann: DB")
    visible(layout, "Bob: -")
    visible(layout, "Legs 1-1")
    assert "cork" not in active_banners(StateView.from_json(match_301()))


# ------------------------------------------------------- a called match


def test_a_called_match_on_the_idle_screen() -> None:
    state = checked({"game": None, "phase": "idle", "board": BOARD_2, "call": CALL})
    _, layout = render(state)
    visible(layout, "Next: Ann v Bob on Board 2")
    visible(layout, "Friday Cup, round 1  ·  throw a dart or press NEXT to start")
    assert "Start a game" not in texts(layout)
    untitled = checked(
        {**state, "board": {**BOARD_2, "name": "Pub"}, "call": {**CALL, "title": None}}
    )
    _, layout = render(untitled)
    visible(layout, "Next: Ann v Bob on Pub")  # the board's display name, not its id
    visible(layout, "throw a dart or press NEXT to start")


def test_a_called_match_on_the_lobby_screen() -> None:
    state = lobby_idle([lobby_player("Ann", "card", 1), lobby_player("Bob", "name")])
    state["board"] = BOARD_2
    state["call"] = CALL
    checked(state)
    scene = scene_for(state)
    assert isinstance(scene, IdleScene)
    _, layout = render(state)
    visible(layout, "Next: Ann v Bob on Board 2")
    visible(layout, "Next game: 2 players")


def test_a_called_match_over_a_finished_game() -> None:
    state = finished_301()
    state["call"] = {**CALL, "call_id": "t4-m3", "players": [{"name": "Cy"}, {"name": "Dan"}]}
    checked(state)
    assert active_banners(StateView.from_json(state)) == ["winner", "call"]
    _, layout = render(state)
    visible(layout, "Ann wins the match 2-0")
    visible(layout, "Next: Cy v Dan on Board 2")
    visible(layout, "Friday Cup, round 1  ·  throw a dart or press NEXT to start")
    visible(layout, "Finished  ·  the next match is called")  # not "set up a game"


# ------------------------------------------------------------ pure drawing


@pytest.mark.parametrize("name", ["301", "leg over", "cork", "idle call", "finished with a call"])
def test_drawing_a_match_never_changes_the_state(name: str) -> None:
    finished = {**finished_301(), "call": CALL}
    states = {
        "301": match_301(),
        "leg over": leg_over_301(),
        "cork": cork_state(["SB", None]),
        "idle call": {"game": None, "phase": "idle", "board": BOARD_2, "call": CALL},
        "finished with a call": finished,
    }
    assert_pure(states[name], match_301(starter=0))


# ------------------------------------------------- the engine's own match


def match_state(match: Match, schema: bool = True) -> dict[str, Any]:
    """An engine match's state as the daemon publishes it: the phase it
    gives (takeout while a won leg waits, finished once the match is over)
    and the board; checked against the state's schema unless ``schema`` is off."""
    state = match.state()
    if state["match"]["finished"]:
        phase = "finished"
    elif state["match"]["leg_over"] or state["visit_over"] is not None:
        phase = "takeout"
    else:
        phase = "throwing"
    state = {**state, "phase": phase, "board": BOARD_2}
    return checked(state) if schema else state


def play(match: Match, tokens: str, schema: bool = True) -> dict[str, Any]:
    for token in tokens.split():
        match.push(parse_event(token))
    return match_state(match, schema)


def test_an_engine_match_of_301_on_the_display() -> None:
    """The Done-when match, played by the engine: Ann wins leg 1, Bob throws
    first in leg 2 (alternate), Ann wins it too: 2-0."""
    match = Match("x01", ["Ann", "Bob"], {"start": 301, "out": "straight"},
                  format=MatchFormat.from_json({"legs": 2}))  # fmt: skip
    state = play(match, "T20 T20 T20 NEXT S20 S20 S20 NEXT T20 T20 S1")
    assert active_banners(StateView.from_json(state)) == ["leg"]
    _, layout = render(state)
    visible(layout, "Ann wins the first leg")
    visible(layout, "Legs 1-0  ·  press NEXT for the next leg")
    state = play(match, "NEXT")
    surface, layout = render(state)
    for words in ("Leg 2", "Legs 1-0", "Bob throws first", "Bob to throw"):
        visible(layout, words)
    assert bad_pixels(surface, chip_marker_area(layout, "Bob")) > 0
    assert bad_pixels(surface, chip_marker_area(layout, "Ann")) == 0
    state = play(match, "S1 S1 S1 NEXT T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20 S1")
    assert active_banners(StateView.from_json(state)) == ["winner"]
    _, layout = render(state)
    visible(layout, "Ann wins the match 2-0")


def test_an_engine_cork_on_the_display() -> None:
    """A one-leg cricket match is its own decider: the cork comes first."""
    match = Match("cricket", ["Ann", "Bob"], format=MatchFormat.from_json({"legs": 1}))
    # The engine's cork has no starter yet (match.starter null), which the
    # contract's MatchView.starter (an integer) does not allow: not checked
    # against the schema until the two agree; the display takes both.
    state = match_state(match, schema=False)
    assert "cork" in active_banners(StateView.from_json(state))
    _, layout = render(state)
    visible(layout, "Bull for the throw: Ann to throw")
    state = play(match, "DB", schema=False)
    _, layout = render(state)
    visible(layout, "Bull for the throw: Bob to throw")
    visible(layout, "Ann: DB")
    assert not any(text.endswith(" throws first") for text in texts(layout))  # not until won


def test_an_engine_set_won_on_the_display() -> None:
    """First to 2 sets of 1 leg: Ann's first leg wins her the first set."""
    match = Match("x01", ["Ann", "Bob"], {"start": 301, "out": "straight"},
                  format=MatchFormat.from_json({"legs": 1, "sets": 2}))  # fmt: skip
    state = play(match, "T20 T20 T20 NEXT S20 S20 S20 NEXT T20 T20 S1")
    _, layout = render(state)
    visible(layout, "Ann wins the set")
    visible(layout, "Sets 1-0, legs 1-0  ·  press NEXT for the next leg")
    state = play(match, "NEXT")
    _, layout = render(state)
    for words in ("Set 2, leg 1", "Sets 1-0, legs 0-0", "Bob throws first"):
        visible(layout, words)


def test_a_game_shot_cuts_the_callers_line_short_rather_than_be_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spoken = fake_espeak(tmp_path, 5)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")

    def lines(count: int) -> list[str]:
        """The lines spoken, once ``count`` of them began (each is written as it starts)."""
        deadline = time.monotonic() + 30  # generous, for a busy machine
        while time.monotonic() < deadline:
            said = spoken.read_text().splitlines() if spoken.exists() else []
            if len(said) >= count:
                return said
            time.sleep(0.02)
        raise AssertionError(f"{count} lines never spoken")

    caller = Caller()
    try:
        assert caller.say("three")
        assert lines(1) == ["-s 160 three"]
        assert not caller.say("bust")  # still speaking: an ordinary line is skipped
        assert caller.announce(LEG_WON, None)  # the game shot cuts it short
        assert lines(2)[1] == "-s 160 Game shot, and the first leg"
        assert caller.busy
        winner = {"type": "winner", "at": 1767225800.0, "player": 0, "team": None}
        assert caller.announce(winner, StateView.from_json(state_of("x01")))
        assert lines(3) == [
            "-s 160 three",
            "-s 160 Game shot, and the first leg",
            "-s 160 game shot",
        ]
    finally:
        caller.close()


def test_a_team_match_counts_legs_per_team() -> None:
    state = state_of("x01", players=("Ann", "Bob", "Cy", "Dee"),
                     teams={"Red": ["Ann", "Cy"], "Blue": ["Bob", "Dee"]})  # fmt: skip
    state["board"] = BOARD_2
    state["current_player"] = 1
    state["match"] = match_block(played=[{**played(1, 0, 0), "winner_team": 0}])
    checked(state)
    surface, layout = render(state)
    visible(layout, "Legs 1-0")
    visible(layout, "Bob (Blue) throws first")
    red, blue = (chip_marker_area(layout, name) for name in ("Red", "Blue"))
    assert bad_pixels(surface, blue) > 0 and bad_pixels(surface, red) == 0


def test_a_called_pairs_game_on_the_idle_screen() -> None:
    pairs = {
        **CALL,
        "players": [{"name": n} for n in ("Ann", "Bob", "Cy", "Dee")],
        "teams": [
            {"name": "Lions", "players": ["Ann", "Cy"]},
            {"name": "Tigers", "players": ["Bob", "Dee"]},
        ],
    }
    state = checked({"game": None, "phase": "idle", "board": BOARD_2, "call": pairs})
    _, layout = render(state)
    visible(layout, "Next: Ann & Cy v Bob & Dee on Board 2")
