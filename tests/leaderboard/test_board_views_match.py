"""A match on the web views (leaderboard/web/board_views/match.py): the board
page's scoreboard and the TV's card show the legs (and sets) per side, which
leg of which set, who throws first (a marked seat, said for a screen reader),
the deciding leg and its cork, the won leg waiting for NEXT, the match's
winner, and a match the venue called to the board ("Next: Ann v Bob on Pub
board"). The states are a leg played by the engine through the daemon's
session with the ``match`` and ``call`` blocks written by hand per the
contract (mqtt_contract/match_payload.py, docs/matches.md), each checked
against the state topic's schema."""

from __future__ import annotations

import copy
from typing import Any

from jsonschema import Draft202012Validator

from engine import new_game, parse_event
from leaderboard.api_models import LiveBoard
from leaderboard.web.board_views import board_card_html, scoreboard_html
from mqtt_contract import TOPICS
from tests.leaderboard.board_states import live_board_state
from tests.leaderboard.html_tree import Element, parse_html

STATE_SCHEMA = Draft202012Validator(TOPICS["state"].schema)
"""The state topic's schema: every hand-written state here is one a board may publish."""


def live(state: dict[str, Any], availability: str = "online") -> LiveBoard:
    problems = [f"{error.json_path}: {error.message}" for error in STATE_SCHEMA.iter_errors(state)]
    assert problems == [], problems
    return LiveBoard(board="pub", venue="the-pub", availability=availability, state=state)  # type: ignore[arg-type]


def scoreboard(state: dict[str, Any]) -> Element:
    return parse_html(str(scoreboard_html(live(state))))


def card(state: dict[str, Any]) -> Element:
    return parse_html(str(board_card_html(live(state))))


def played_leg(leg: int, set_: int | None, winner: int, starter: int = 0) -> dict[str, Any]:
    return {
        "leg": leg,
        "set": set_,
        "starter": starter,
        "winner": winner,
        "winner_team": None,
        "result": "checkout",
    }


def in_match(state: dict[str, Any], **block: Any) -> dict[str, Any]:
    """``state`` (a leg in play) as a leg of a first-to-3-legs match, Bob to
    start this second leg after Ann won the first; ``block`` overrides keys."""
    match: dict[str, Any] = {
        "format": {"legs": 3, "sets": None, "starts": "alternate", "decider": "none"},
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
        "played": [played_leg(1, None, 0)],
    }
    match.update(block)
    return {**copy.deepcopy(state), "match": match}


def x01_leg() -> dict[str, Any]:
    return live_board_state("x01")


def ann_checks_out(phase: str = "takeout") -> dict[str, Any]:
    """A 301 leg Ann has just won (T20 T20 T20, Bob S1 S1 S1, T20 T19 D2), as
    the engine ends it: in takeout while the match goes on, else finished."""
    game = new_game("x01", ["Ann", "Bob"], {"start": 301})
    for token in ["T20", "T20", "T20", "NEXT", "S1", "S1", "S1", "NEXT", "T20", "T19", "D2"]:
        game.push(parse_event(token))
    board = {"id": "pub", "name": "Pub board", "connected": True, "status": "connected"}
    return {**game.state(), "board": {**board, "stuck_cells": []}, "phase": phase}


def match_rows(tree: Element) -> list[list[str]]:
    """The match score table's rows: the side, then its figures."""
    (table,) = tree.by_class("bv-match-score")
    return [
        [row.by_tag("th")[0].text, *(cell.text for cell in row.by_tag("td"))]
        for row in table.by_tag("tr")
        if row.by_tag("td")
    ]


def test_a_single_game_shows_no_match() -> None:
    tree = scoreboard(x01_leg())
    assert not tree.by_class("bv-match") and "throws first" not in tree.text
    assert not card(x01_leg()).by_class("match")


def test_the_legs_per_side_the_leg_and_who_throws_first() -> None:
    state = in_match(x01_leg())
    tree = scoreboard(state)
    (head,) = tree.by_class("bv-match-head")
    assert head.text == "Leg 2 first to 3 legs · Bob throws first"
    assert match_rows(tree) == [["Ann", "1"], ["● Bob (throws first)", "0"]]
    (caption,) = tree.by_tag("caption")
    assert caption.text == "Legs 1-0"
    # the seat of the player who throws first is marked, and says so
    firsts = [seat for seat in tree.by_class("bv-seat") if "(throws first)" in seat.text]
    assert len(firsts) == 1 and "Bob" in firsts[0].text
    assert firsts[0].by_class("bv-first-mark")[0].attrs["aria-hidden"] == "true"
    (line,) = card(state).by_class("match")
    assert line.text == "Legs 1-0 · Leg 2"
    marked = [li for li in card(state).by_tag("li") if "(throws first)" in li.text]
    assert len(marked) == 1 and "Bob" in marked[0].text


def test_with_sets_the_sets_and_the_leg_of_the_set() -> None:
    played = [played_leg(1, 1, 0), played_leg(2, 1, 0), played_leg(3, 2, 1, starter=1)]
    state = in_match(
        x01_leg(),
        format={"legs": 2, "sets": 3, "starts": "alternate", "decider": "none"},
        leg=4,
        set=2,
        starter=0,
        legs_won=[0, 1],
        sets_won=[1, 0],
        played=played,
    )
    tree = scoreboard(state)
    assert tree.by_class("bv-match-position")[0].text == "Set 2, leg 2"
    assert tree.by_class("bv-match-format")[0].text == "first to 3 sets of 2 legs"
    headings = [
        th.text for th in tree.by_class("bv-match-score")[0].by_tag("thead")[0].by_tag("th")
    ]
    assert headings == ["Side", "Sets", "Legs"]
    assert match_rows(tree) == [["● Ann (throws first)", "1", "0"], ["Bob", "0", "1"]]
    assert card(state).by_class("match")[0].text == "Sets 1-0, legs 0-1 · Set 2, leg 2"


def test_a_won_leg_waits_for_next_without_a_game_over() -> None:
    state = in_match(
        ann_checks_out(),
        leg=1,
        starter=0,
        legs_won=[1, 0],
        leg_over=True,
        played=[played_leg(1, None, 0)],
    )
    tree = scoreboard(state)
    (banner,) = tree.by_class("bv-banner-leg-won")
    assert banner.text == "Ann wins the first leg"
    assert not tree.by_class("bv-banner-finished") and not tree.by_class("bv-banner-takeout")
    assert tree.by_class("bv-turn")[0].text == "Remove the darts, then NEXT starts the next leg"
    assert "throws first" not in tree.by_class("bv-match-head")[0].text


def test_a_won_set_says_the_set() -> None:
    state = in_match(
        ann_checks_out(),
        format={"legs": 2, "sets": 2, "starts": "alternate", "decider": "none"},
        leg=2,
        set=1,
        legs_won=[2, 0],
        sets_won=[1, 0],
        leg_over=True,
        played=[played_leg(1, 1, 0), played_leg(2, 1, 0, starter=1)],
    )
    assert scoreboard(state).by_class("bv-banner-leg-won")[0].text == "Ann wins the set"


def test_the_deciding_leg_and_its_cork() -> None:
    decider = in_match(x01_leg(), leg=3, starter=0, legs_won=[1, 1], decider=True)
    assert scoreboard(decider).by_class("bv-banner-decider")[0].text == "Deciding leg"
    cork = in_match(x01_leg(), leg=3, legs_won=[2, 2], decider=True, cork=["DB", None])
    tree = scoreboard(cork)
    assert tree.by_class("bv-banner-cork")[0].text == "Deciding leg: bull for the throw"
    assert tree.by_class("bv-turn")[0].text == "Bob to throw at the bull"
    assert match_rows(tree) == [["Ann", "2", "DB"], ["Bob", "2", "to throw"]]
    assert "throws first" not in tree.text  # the cork decides it
    assert "bull for the throw" in card(cork).by_class("match")[0].text


def test_the_match_s_winner_is_named_with_the_score() -> None:
    state = in_match(
        ann_checks_out("finished"),
        leg=3,
        legs_won=[3, 0],
        finished=True,
        winner=0,
        played=[played_leg(1, None, 0), played_leg(2, None, 0), played_leg(3, None, 0)],
    )
    tree = scoreboard(state)
    assert tree.by_class("bv-banner-finished")[0].text == "Ann wins the match 3-0"
    assert "throws first" not in tree.text


def test_in_a_team_match_the_sides_are_the_teams() -> None:
    teams = {"Reds": ["Ann", "Cat"], "Blues": ["Bob", "Dan"]}
    state = live_board_state("x01", players=("Ann", "Bob", "Cat", "Dan"), teams=teams)
    tree = scoreboard(in_match(state, starter=1, legs_won=[0, 1]))
    rows = match_rows(tree)
    assert [row[1:] for row in rows] == [["0"], ["1"]]
    assert rows[0][0] == "Reds" and rows[1][0].startswith("● Blues")
    firsts = [seat for seat in tree.by_class("bv-seat") if "(throws first)" in seat.text]
    assert len(firsts) == 1 and "Bob (Blues)" in firsts[0].text


def test_a_called_pairs_game_names_both_pairs() -> None:
    state: dict[str, Any] = {
        "game": None,
        "phase": "idle",
        "board": {"id": "pub", "name": "Board 2", "connected": True, "status": "connected",
                  "stuck_cells": []},
        "call": {
            "call_id": "league-1-g4",
            "title": None,
            "game": "x01",
            "options": None,
            "match": None,
            "players": [{"name": n} for n in ("Ann", "Bob", "Cy", "Dee")],
            "teams": [
                {"name": "Lions", "players": ["Ann", "Cy"]},
                {"name": "Tigers", "players": ["Bob", "Dee"]},
            ],
            "called_at": 1767225600.0,
        },
    }  # fmt: skip
    (call,) = scoreboard(state).by_class("bv-call")
    assert call.by_class("bv-call-words")[0].text == "Next: Ann & Cy v Bob & Dee on Board 2"


def test_a_called_match_waits_on_a_free_board() -> None:
    state: dict[str, Any] = {
        "game": None,
        "phase": "idle",
        "board": {
            "id": "pub",
            "name": "Pub board",
            "connected": True,
            "status": "connected",
            "stuck_cells": [],
        },
        "call": {
            "call_id": "t4-m2",
            "title": "Friday Cup, round 1",
            "game": "x01",
            "options": {"start": 501},
            "match": {"legs": 3},
            "players": [{"name": "Ann", "player_id": 1}, {"name": "<b>Bob</b>"}],
            "called_at": 1767225600.0,
        },
    }
    tree = scoreboard(state)
    (call,) = tree.by_class("bv-call")
    assert call.attrs["aria-label"] == "Called match"
    assert call.by_class("bv-call-words")[0].text == "Next: Ann v <b>Bob</b> on Pub board"
    assert call.by_class("bv-call-what")[0].text == "Friday Cup, round 1 · X01 · first to 3 legs"
    assert call.by_class("bv-call-hint")[0].text == "Throw a dart or press NEXT to start"
    assert "Free" not in tree.text
    assert "&lt;b&gt;Bob" in str(scoreboard_html(live(state)))
    tv = card(state)
    assert tv.by_class("call")[0].text == "Next: Ann v <b>Bob</b> on Pub board"
    assert "Free" not in tv.text
    # after a game, the board shows both the finished game and the match called next
    finished = ann_checks_out("finished")
    finished["call"] = state["call"]
    both = scoreboard(finished)
    assert both.by_class("bv-banner-finished") and both.by_class("bv-call")
