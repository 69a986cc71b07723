"""The Killer, Legs and English Cricket scoreboards, checked on what is visible.

As in test_scenes.py every state is a real one, replayed through the engine,
and the checks look at the text a scene drew (``Layout.drawn_text``) and at
pixel regions. The scenes register themselves when their modules are
imported, which this file does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame
import pytest

from display.layout import COLORS, Layout
from display.scenes.english_cricket import EnglishCricketScene
from display.scenes.killer import KillerScene
from display.scenes.legs import LegsScene
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
    visible,
)

THREE = ("Ann", "Bob", "Cy")
EIGHT = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")
TWO_TEAMS = {"Red": list(EIGHT[0::2]), "Blue": list(EIGHT[1::2])}
FOUR_TEAMS = {"N": ["Ann", "Eve"], "E": ["Bob", "Fay"], "S": ["Cy", "Gus"], "W": ["Dee", "Hal"]}

KILLER_LOG = "S1\nS2\nS3\n"
"""Ann picks 1, Bob 2, Cy 3; Ann to throw."""
LEGS_LOG = "S20 S20 S20\nT20 S1 M\n"
"""Ann sets 60, Bob beats it with 61; Ann to throw against 61."""
CRICKET_LOG = "T20 T20 T20\n"
"""Ann bats 180: 140 runs; Bob to bowl."""
FIRST_INNINGS = "T20 T20 T20\nDB DB DB\nM M M\nDB DB SB\n"
"""The documented first innings: Ann 140 all out; Bob bats next."""


STATES: dict[str, Callable[[], dict[str, Any]]] = {
    "killer": lambda: state_of("killer", KILLER_LOG + "D1 D2\n", ["D3"], players=THREE),
    "killer-choosing": lambda: state_of("killer", "S1\n", players=THREE),
    "killer-teams": lambda: state_of(
        "killer", "S1\nS2\nS3\nS4\nD1 D2\n", players=EIGHT, teams=FOUR_TEAMS
    ),
    "legs": lambda: state_of("legs", LEGS_LOG, ["S20", "S5"]),
    "legs-teams": lambda: state_of("legs", LEGS_LOG + "M M M\n", players=EIGHT, teams=TWO_TEAMS),
    "english-cricket": lambda: state_of("english-cricket", CRICKET_LOG, ["DB", "S1"]),
    "english-cricket-teams": lambda: state_of(
        "english-cricket", FIRST_INNINGS, ["T20"], players=EIGHT, teams=TWO_TEAMS
    ),
}

SCENES = {"killer": KillerScene, "legs": LegsScene, "english-cricket": EnglishCricketScene}


def value_above(layout: Layout, label: str) -> str:
    """The text drawn straight above ``label`` (a value over its caption)."""
    below = visible(layout, label)
    above = [
        (below.top - rect.bottom, text)
        for text, rect in layout.drawn_text
        if rect.bottom <= below.top and rect.left < below.centerx < rect.right
    ]
    assert above, f"nothing above {label!r}"
    return min(above)[1]


def has_colour(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int]) -> bool:
    """Some pixel of ``rect`` is exactly ``colour``."""
    data = pixels(surface, rect)
    return any(tuple(data[i : i + 3]) == colour for i in range(0, len(data), 3))


def on_scoreboard(layout: Layout, text: str) -> pygame.Rect:
    """Where ``text`` was drawn on the scoreboard (not in the header or the visit boxes)."""
    main = KillerScene().regions(Layout(layout.width, layout.height))["main"]
    for drawn, rect in layout.drawn_text:
        if drawn == text and main.contains(rect):
            return rect
    raise AssertionError(f"{text!r} is not on the scoreboard; drawn: {texts(layout)}")


def nearest_name(layout: Layout, text: str, names: tuple[str, ...]) -> str:
    """Of ``names`` (drawn once each), the one closest to ``text`` across the scoreboard."""
    rect = on_scoreboard(layout, text)
    return min(names, key=lambda name: abs(on_scoreboard(layout, name).centerx - rect.centerx))


# ------------------------------------------------------------ every scene


@pytest.mark.parametrize("name", sorted(STATES))
def test_the_game_gets_its_own_scene(name: str) -> None:
    state = STATES[name]()
    expected = SCENES[state["game"]]
    assert scene_class_for(state) is expected
    assert isinstance(scene_for(state), expected)


@pytest.mark.parametrize("name", sorted(STATES))
@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE], ids=["800x480", "1280x720", "3840x2160"])
def test_renders_with_all_text_inside_and_every_name_shown(
    name: str, size: tuple[int, int]
) -> None:
    assert_fits(STATES[name](), size)


@pytest.mark.parametrize("name", sorted(STATES))
def test_drawing_never_changes_the_state_and_is_repeatable(name: str) -> None:
    assert_pure(STATES[name](), STATES["legs" if name != "legs" else "killer"]())


# ------------------------------------------------------------------ killer


def test_killer_shows_numbers_and_choosing_before_the_first_visit() -> None:
    _, layout = render(state_of("killer", "S1\n", players=THREE))
    assert texts(layout).count("choosing") == 2  # Bob and Cy have not picked yet
    assert nearest_name(layout, "1", THREE) == "Ann"
    assert "D1 makes a killer" in texts(layout)
    _, layout = render(state_of("killer", KILLER_LOG, players=THREE))
    assert "choosing" not in texts(layout)
    for number, name in ((2, "Bob"), (3, "Cy")):
        assert nearest_name(layout, str(number), THREE) == name


def test_killer_badge_appears_after_the_own_double() -> None:
    before_state = state_of("killer", KILLER_LOG, players=THREE)
    after_state = state_of("killer", KILLER_LOG, ["D1"], players=THREE)
    before, before_layout = render(before_state)
    after, after_layout = render(after_state)
    assert "KILLER" not in texts(before_layout)
    assert texts(after_layout).count("KILLER") == 1
    assert nearest_name(after_layout, "KILLER", THREE) == "Ann"
    assert "D1 makes a killer" in texts(before_layout)
    assert "D1 makes a killer" not in texts(after_layout)
    layout = Layout(*SIZE)
    badge = KillerScene().card_part(layout, StateView.from_json(before_state), 0, "badge")
    assert badge.contains(visible(after_layout, "KILLER"))
    assert pixels(before, badge) != pixels(after, badge)
    other = KillerScene().card_part(layout, StateView.from_json(before_state), 1, "badge")
    assert pixels(before, other) == pixels(after, other)


def test_killer_a_life_goes_when_a_killer_hits_the_double() -> None:
    killer = state_of("killer", KILLER_LOG, ["D1"], players=THREE)
    hit = state_of("killer", KILLER_LOG, ["D1", "D2"], players=THREE)
    assert [p["lives"] for p in hit["players"]] == [3, 2, 3]
    before, before_layout = render(killer)
    after, after_layout = render(hit)
    layout = Layout(*SIZE)
    bob_lives = KillerScene().card_part(layout, StateView.from_json(killer), 1, "lives")
    cy_lives = KillerScene().card_part(layout, StateView.from_json(killer), 2, "lives")
    assert pixels(before, bob_lives) != pixels(after, bob_lives)
    assert pixels(before, cy_lives) == pixels(after, cy_lives)
    assert texts(before_layout).count("3/3") == 3
    assert texts(after_layout).count("3/3") == 2
    assert nearest_name(after_layout, "2/3", THREE) == "Bob"


def test_killer_out_player_is_greyed_and_struck() -> None:
    log = KILLER_LOG + "D1 D1\n"  # killer, then one of her two lives lost on her own double
    misses = ["M"] * 6  # Bob's and Cy's visits
    one_left = state_of("killer", log, misses, players=THREE, options={"lives": 2})
    out = state_of("killer", log, [*misses, "D1"], players=THREE, options={"lives": 2})
    assert not one_left["players"][0]["out"] and out["players"][0]["out"]
    assert not out["finished"]
    before, before_layout = render(one_left)
    after, after_layout = render(out)
    assert "OUT" not in texts(before_layout)
    assert nearest_name(after_layout, "OUT", THREE) == "Ann"
    layout = Layout(*SIZE)
    number = KillerScene().card_part(layout, StateView.from_json(out), 0, "number")
    assert pixels(before, number) != pixels(after, number)  # greyed
    # and struck through: a line crosses the number and sticks out on both sides
    digit = on_scoreboard(after_layout, "1")
    for x in (digit.x - 2, digit.right + 1):
        assert after.get_at((x, digit.centery))[:3] == COLORS.dim
        assert before.get_at((x, digit.centery))[:3] != COLORS.dim
    assert "KILLER" not in texts(after_layout)  # an out side shows OUT, not its badge


def test_killer_subtitle_names_the_any_ring_variant() -> None:
    _, plain = render(state_of("killer", KILLER_LOG, players=THREE))
    _, any_ring = render(
        state_of("killer", KILLER_LOG, players=THREE, options={"any_ring_kills": True, "lives": 5})
    )
    assert not any("any ring kills" in text for text in texts(plain))
    assert any("any ring kills" in text for text in texts(any_ring))
    assert any("5 lives" in text for text in texts(any_ring))
    assert "any 1 makes a killer" in texts(any_ring)


# -------------------------------------------------------------------- legs


def test_legs_score_to_beat_is_the_previous_visit_total() -> None:
    _, layout = render(state_of("legs", LEGS_LOG))  # Bob's T20 S1 M: 61
    assert value_above(layout, "to beat") == "61"
    assert "Ann needs 62 or more" in texts(layout)
    _, layout = render(state_of("legs", "S20 S20 S20\nS20 S5 M\n"))  # Bob's 25
    assert value_above(layout, "to beat") == "25"
    # After Ann's failed 60 the target is her 60, whoever threw it.
    _, layout = render(state_of("legs", LEGS_LOG + "S20 S20 S20\n"))
    assert value_above(layout, "to beat") == "60"
    _, first = render(state_of("legs"))
    assert value_above(first, "to beat") == "-"
    assert any("first visit sets the target" in text for text in texts(first))


def test_legs_running_total_against_the_score_to_beat() -> None:
    short, short_layout = render(state_of("legs", LEGS_LOG, ["S20", "S5"]))
    assert value_above(short_layout, "this visit") == "25"
    assert value_above(short_layout, "to beat") == "61"
    assert "37 more to beat 61" in texts(short_layout)
    beaten, beaten_layout = render(state_of("legs", LEGS_LOG, ["T20", "S5"]))
    assert value_above(beaten_layout, "this visit") == "65"
    assert "Beaten: 65 > 61" in texts(beaten_layout)
    # Ahead or behind shows in the running total's colour, not only its digits.
    assert has_colour(short, visible(short_layout, "25"), COLORS.accent)
    assert not has_colour(short, visible(short_layout, "25"), COLORS.good)
    assert has_colour(beaten, visible(beaten_layout, "65"), COLORS.good)


def test_legs_lives_go_and_out_players_are_greyed() -> None:
    start_state = state_of("legs", LEGS_LOG)
    start, start_layout = render(start_state)
    # Ann's 60 does not beat 61, Bob's 180 beats 60: Ann to throw again.
    lost, lost_layout = render(state_of("legs", LEGS_LOG + "S20 S20 S20\nT20 T20 T20\n"))
    assert texts(start_layout).count("3 lives left") == 2
    assert nearest_name(lost_layout, "2 lives left", ("Ann", "Bob")) == "Ann"
    layout = Layout(*SIZE)
    ann_lives = LegsScene().card_part(layout, StateView.from_json(start_state), 0, "lives")
    bob_lives = LegsScene().card_part(layout, StateView.from_json(start_state), 1, "lives")
    assert pixels(start, ann_lives) != pixels(lost, ann_lives)
    assert pixels(start, bob_lives) == pixels(lost, bob_lives)
    # One life each, three players: Bob's 19 does not beat Ann's 20, he is out.
    out_state = state_of("legs", "S20\nS19\n", players=THREE, options={"lives": 1})
    assert out_state["players"][1]["out"] and not out_state["finished"]
    _, out_layout = render(out_state)
    assert nearest_name(out_layout, "OUT", THREE) == "Bob"
    assert texts(out_layout).count("1 life left") == 2


# ---------------------------------------------------------- English Cricket


def test_english_cricket_wicket_boxes_fill_after_bulls_in_a_bowling_visit() -> None:
    layout = Layout(*SIZE)
    boxes = EnglishCricketScene().wicket_rects(layout)
    assert len(boxes) == 10
    images = {}
    for key, darts in (
        ("none", []),
        ("DB", ["DB"]),
        ("DB SB", ["DB", "SB"]),
        ("later", ["DB", "SB", "M", "S1"]),  # Ann bats again: the three stay down
    ):
        surface, drawn = render(state_of("english-cricket", CRICKET_LOG, darts))
        images[key] = ([pixels(surface, box) for box in boxes], texts(drawn))
    none, _ = images["none"]
    db, db_texts = images["DB"]
    db_sb, db_sb_texts = images["DB SB"]
    later, later_texts = images["later"]
    assert db[0] != none[0] and db[1] != none[1] and db[2] == none[2]
    assert db_sb[2] != none[2] and db_sb[3] == none[3]
    assert later[:3] != none[:3] and later[3:] == none[3:]
    assert later[0] != db_sb[0]  # no longer this visit's wickets
    assert any(text.startswith("Wickets 2/10") for text in db_texts)
    assert "Bob bowls: 2 wickets" in db_texts
    assert "Bob bowls: 3 wickets" in db_sb_texts
    assert any(text.startswith("Wickets 3/10") for text in later_texts)


def test_english_cricket_batting_visit_shows_the_runs_it_makes() -> None:
    _, layout = render(state_of("english-cricket", "", ["T20", "S1"]))
    assert "Ann bats: 61 = 21 runs" in texts(layout)
    _, layout = render(state_of("english-cricket", "", ["S20", "S20"]))
    assert "Ann bats: 40, no runs (runs from 41)" in texts(layout)
    _, layout = render(state_of("english-cricket", CRICKET_LOG))
    assert "Last visit: Ann made 180 = 140 runs" in texts(layout)
    assert nearest_name(layout, "140", ("Ann", "Bob")) == "Ann"


def test_english_cricket_batter_and_bowler_swap_at_the_second_innings() -> None:
    _, first = render(state_of("english-cricket", CRICKET_LOG))
    assert "Innings 1 of 2" in texts(first)
    assert "Ann bats  ·  Bob bowls" in texts(first)
    assert nearest_name(first, "BATTING", ("Ann", "Bob")) == "Ann"
    assert nearest_name(first, "BOWLING", ("Ann", "Bob")) == "Bob"
    second_state = state_of("english-cricket", FIRST_INNINGS)
    assert second_state["innings"] == 2
    _, second = render(second_state)
    assert "Innings 2 of 2" in texts(second)
    assert "Bob bats  ·  Ann bowls" in texts(second)
    assert nearest_name(second, "BATTING", ("Ann", "Bob")) == "Bob"
    assert nearest_name(second, "BOWLING", ("Ann", "Bob")) == "Ann"
    assert "Bob needs 141 to lead" in texts(second)
    assert "Last visit: Bob takes the tenth wicket: Ann all out for 140" in texts(second)
    assert any(text.startswith("Wickets 0/10") for text in texts(second))


def test_english_cricket_team_sides_list_their_players() -> None:
    state = state_of("english-cricket", CRICKET_LOG, players=EIGHT, teams=TWO_TEAMS)
    _, layout = render(state, SMALL)
    assert "Red" in texts(layout) and "Blue" in texts(layout)
    assert nearest_name(layout, "BATTING", ("Red", "Blue")) == "Red"
    assert "Ann (Red)" in texts(layout) and "Hal (Blue)" in texts(layout)
    assert "Red bats  ·  Blue bowls" in texts(layout)
