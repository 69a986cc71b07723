"""The display's sound: which cues each MQTT event calls for (display/cues.py),
what the spoken caller says, and the synthesised sounds and their playback
(display/sound_bank.py).

Events and states come from the real daemon session (firmware_bridge's
GameSession over engine games), so the cues are checked against the payloads
the display will really get. Anything that opens an audio device runs in a
subprocess: SDL reads SDL_AUDIODRIVER when the mixer starts, and the mixer is
process-wide.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
import wave
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pygame
import pytest
from jsonschema import Draft202012Validator

from display import cues
from display.cues import (
    ANNOUNCEMENT_PRIORITY,
    CUES,
    RING_CUES,
    caller_text,
    collapse,
    cues_for,
    is_checkout,
    number_words,
    reachable_finish,
    ring_cue,
    ton_cue,
    visit_points,
)
from display.sound_bank import (
    MAX_SECONDS,
    SAMPLE_RATE,
    Caller,
    SilentSound,
    SoundBank,
    synthesize,
)
from engine import new_game, parse_event
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from mqtt_contract import EVENT_TYPES, TOPICS, StateView
from tests.paths import REPO

PEAK_LIMIT = 10 ** (-1 / 20) * 32768  # -1 dBFS in 16-bit samples
EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)

State = dict[str, Any]
Event = dict[str, Any]


# ------------------------------------------------------------------ helpers


@dataclass
class Step:
    """One journal token applied to a live session: its events and the states around it."""

    token: str
    events: list[Event]
    before: State
    after: State

    def event(self, kind: str) -> Event:
        found = [e for e in self.events if e["type"] == kind]
        assert len(found) == 1, f"{self.token}: {kind} in {[e['type'] for e in self.events]}"
        return found[0]

    @property
    def view(self) -> StateView:
        """The state after, parsed as the display parses it."""
        return StateView.from_json(self.after)

    def cues(self) -> list[str]:
        return [cue for e in self.events for cue in cues_for(e)]


def play(
    game: str,
    tokens: str,
    options: Mapping[str, Any] | None = None,
    players: tuple[str, ...] = ("Ann", "Bob"),
    teams: Mapping[str, list[str]] | None = None,
) -> list[Step]:
    """Run ``tokens`` through a daemon game session, as the journal would."""
    session = GameSession(SessionSetup(game, dict(options or {}), list(players), teams))
    steps = []
    for at, token in enumerate(tokens.split()):
        before = session.state()
        events = [event.to_json() for event in session.apply(parse_event(token), float(at))]
        steps.append(Step(token, events, before, session.state()))
    return steps


def last(game: str, tokens: str, options: Mapping[str, Any] | None = None) -> Step:
    return play(game, tokens, options)[-1]


X01_301 = {"start": 301}
# Ann 180 (121 left), Bob 3, Ann checks out 121 with T20 T11 D14.
X01_WIN = "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T11 D14"


CRIBBAGE_VS_COMPUTER = {"seed": 4, "computer": "second"}
# Ann discards tiles 1 and 1; her tiles 2 and then 1 make a run of 4 with the computer's.
PEG = "S1 S1 S2 S1"


# --------------------------------------------------- events -> cues (table)

# (id, game, options, tokens, event type in the last token's events, cues)
SESSION_CASES: list[tuple[str, str, Mapping[str, Any], str, str, list[str]]] = [
    ("award ton 80", "x01", X01_301, "T20 T20 T20", "award", ["one_eighty"]),
    ("award hat trick", "x01", X01_301, "SB DB SB", "award", ["hat_trick"]),
    ("award white horse", "cricket", {}, "T20 T19 T18", "award", ["white_horse"]),
    ("dart single", "x01", X01_301, "S20", "dart", ["single"]),
    ("dart double", "x01", X01_301, "D16", "dart", ["double"]),
    ("dart triple", "x01", X01_301, "T19", "dart", ["triple"]),
    ("dart outer bull", "x01", X01_301, "SB", "dart", ["bull"]),
    ("dart inner bull", "x01", X01_301, "DB", "dart", ["bull"]),
    ("dart miss", "x01", X01_301, "M", "dart", ["miss"]),
    (
        "dead dart after bust",
        "x01",
        X01_301,
        "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20 S5",
        "dart",
        [],
    ),
    ("bust", "x01", X01_301, "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20", "bust", ["bust"]),
    ("visit_end 180", "x01", X01_301, "T20 T20 T20", "visit_end", ["one_eighty"]),
    ("visit_end 26", "x01", X01_301, "S20 S5 S1", "visit_end", []),
    ("visit_end by NEXT", "x01", X01_301, "T20 T20 NEXT", "visit_end", ["ton"]),
    (
        "visit_end bust",
        "x01",
        X01_301,
        "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20 S5",
        "visit_end",
        [],
    ),
    ("visit_end win", "x01", X01_301, X01_WIN, "visit_end", []),
    (
        "visit_end double-in, unopened darts",
        "x01",
        {"start": 301, "in": "double"},
        "T20 T20 D20",
        "visit_end",
        [],
    ),
    ("visit_end cricket 180", "cricket", {}, "T20 T20 T20", "visit_end", []),
    ("takeout", "x01", X01_301, "S1 S1 S1", "takeout", ["takeout"]),
    ("player_change", "x01", X01_301, "S1 S1 S1", "player_change", ["player_change"]),
    ("player_change by NEXT", "x01", X01_301, "S1 NEXT", "player_change", ["player_change"]),
    ("undo", "x01", X01_301, "S1 UNDO", "undo", []),
    ("cribbage points", "domino-cribbage", CRIBBAGE_VS_COMPUTER, PEG, "points", ["peg"]),
    ("winner", "x01", X01_301, X01_WIN, "winner", ["game_shot"]),
    ("game_over", "x01", X01_301, X01_WIN, "game_over", []),
    ("winning dart", "x01", X01_301, X01_WIN, "dart", ["double"]),
    ("cricket close with a triple", "cricket", {}, "T20", "dart", ["triple", "close"]),
    ("cricket close with the third mark", "cricket", {}, "S19 D19", "dart", ["double", "close"]),
    ("cricket mark, not closed", "cricket", {}, "S19 S19", "dart", ["single"]),
    ("cricket hit on a closed target", "cricket", {}, "T20 S20", "dart", ["single"]),
    ("cricket close after undo", "cricket", {}, "T20 UNDO T20", "dart", ["triple", "close"]),
    ("cricket undo reopens", "cricket", {}, "T20 UNDO", "undo", []),
    ("cricket bull", "cricket", {}, "DB SB", "dart", ["bull", "close"]),
    ("shanghai dart does not close", "cricket-shanghai", {}, "S20 D20 T20", "dart", ["triple"]),
    ("shanghai visit end closes", "cricket-shanghai", {}, "S20 D20 T20", "visit_end", ["close"]),
    ("shanghai visit end by NEXT", "cricket-shanghai", {}, "S20 D20 M", "visit_end", []),
    (
        "shanghai visit closes two",
        "cricket-shanghai",
        {},
        "S20 D20 T20 NEXT M M M NEXT S19 D19 T19",
        "visit_end",
        ["close"],
    ),
    (
        "cricket team mate closes",
        "cricket",
        {},
        "S20 S20 M NEXT M M M NEXT S20",
        "dart",
        ["single", "close"],
    ),
]

# Events that are not about a game's darts: no cue, with or without states.
OTHER_EVENTS: list[Event] = [
    {
        "type": "game_started",
        "at": 1.0,
        "game": "x01",
        "options": X01_301,
        "players": ["Ann", "Bob"],
        "teams": None,
    },
    {"type": "stuck", "at": 1.0, "row": 3, "col": 5},
    {"type": "released", "at": 1.0, "row": 3, "col": 5},
    {"type": "board_connected", "at": 1.0, "source": "serial:/dev/ttyACM0"},
    {
        "type": "board_disconnected",
        "at": 1.0,
        "source": "serial:/dev/ttyACM0",
        "reason": "device unplugged",
    },
    {"type": "error", "at": 1.0, "kind": "crc", "message": "frame 42: bad CRC"},
    {"type": "hit", "at": 1.0, "segment": "T20", "scored": False, "reason": "takeout"},
    {"type": "button", "at": 1.0, "button": "next"},
    # The lobby's events show a banner (display/banners.py), no sound.
    {
        "type": "joined",
        "at": 1.0,
        "player": {"name": "Ann", "player_id": 3, "joined_by": "card", "joined_at": 1.0},
    },
    {
        "type": "left",
        "at": 1.0,
        "player": {"name": "Ann", "player_id": None, "joined_by": "name", "joined_at": 1.0},
    },
    {
        "type": "card_refused",
        "at": 1.0,
        "reason": "unknown",
        "message": "Card not registered: ask at the bar, or scan the code",
    },
    {"type": "bounce", "at": 1.0, "player": 0, "segment": "T20"},  # a correction, as undo
    {"type": "corrected", "at": 1.0, "player": 0, "dart": 2, "from": "S19", "to": "T19"},
    {
        "type": "credits",
        "at": 1.0,
        "change": -2,
        "credits": 1,
        "source": "game",
        "input": None,
        "reason": None,
    },  # spent: no cue; credits in sound the credit cue (below)
    {"type": "takeout_sensed", "at": 1.0, "ended_visit": True},  # the takeout cue came before
    {"type": "battery", "at": 1.0, "percent": 40},
]


@pytest.mark.parametrize("source", ["coin", "remote", "happy-hour"])
def test_credits_coming_in_sound_the_credit_cue(source: str) -> None:
    event = {
        "type": "credits",
        "at": 1.0,
        "change": 2,
        "credits": 3,
        "source": source,
        "input": 1 if source == "coin" else None,
        "reason": None,
    }
    assert list(EVENT_SCHEMA.iter_errors(event)) == []
    assert cues_for(event) == ["credit"]


@pytest.mark.parametrize(
    ("game", "options", "tokens", "kind", "expected"),
    [case[1:] for case in SESSION_CASES],
    ids=[case[0] for case in SESSION_CASES],
)
def test_event_cues(
    game: str, options: Mapping[str, Any], tokens: str, kind: str, expected: list[str]
) -> None:
    step = last(game, tokens, options)
    event = step.event(kind)
    assert list(EVENT_SCHEMA.iter_errors(event)) == []
    assert cues_for(event) == expected


@pytest.mark.parametrize("event", OTHER_EVENTS, ids=[e["type"] for e in OTHER_EVENTS])
def test_events_without_cues(event: Event) -> None:
    assert list(EVENT_SCHEMA.iter_errors(event)) == []
    assert cues_for(event) == []


MATCH_EVENTS: list[tuple[Event, list[str]]] = [
    (
        {"type": "leg_won", "at": 1.0, "player": 0, "leg": 1, "result": "checkout",
         "legs_won": [1, 0], "team": None, "set": None, "sets_won": None, "set_won": False,
         "match_won": False},
        ["game_shot"],
    ),
    ({"type": "leg_started", "at": 1.0, "leg": 2, "starter": 1, "set": None, "decider": False}, []),
    ({"type": "cork_won", "at": 1.0, "player": 1}, []),
    ({"type": "match_called", "at": 1.0, "call_id": "t4-m2", "players": ["Ann", "Bob"],
      "title": None}, []),
    ({"type": "call_cancelled", "at": 1.0, "call_id": "t4-m2"}, []),
]  # fmt: skip
"""A match's events (docs/matches.md): every leg won is a game shot; the
rest are the caller's (tests/display/test_match_play.py) or silent."""


@pytest.mark.parametrize(
    ("event", "expected"), MATCH_EVENTS, ids=[e["type"] for e, _ in MATCH_EVENTS]
)
def test_match_event_cues(event: Event, expected: list[str]) -> None:
    assert list(EVENT_SCHEMA.iter_errors(event)) == []
    assert cues_for(event) == expected


def test_the_table_covers_every_event_type() -> None:
    covered = {case[4] for case in SESSION_CASES} | {e["type"] for e in OTHER_EVENTS}
    covered |= {event["type"] for event, _ in MATCH_EVENTS}
    assert covered == set(EVENT_TYPES)


def test_cues_come_from_the_events_alone() -> None:
    """The events of whole games, as they cross the wire (JSON), give every
    cue with no state at all: the ring cues, X01's ton calls (the visit_end
    names its game) and the cricket closes (the event says what it closed)."""
    games = [
        ("x01", X01_WIN, X01_301),
        ("cricket", "T20 S20 S19 NEXT T19 T19 T18 NEXT UNDO S17 NEXT S18 T18", {}),
        ("cricket-shanghai", "S20 D20 T20 NEXT S19 T19 D19", {}),
    ]
    heard = []
    for game, tokens, options in games:
        for step in play(game, tokens, options):
            wire = [json.loads(json.dumps(event)) for event in step.events]
            heard.append(collapse(cue for event in wire for cue in cues_for(event)))
    assert heard == [
        # X01: Ann 180, Bob 3, Ann checks out 121
        ["triple"],
        ["triple"],
        ["triple", "one_eighty"],
        [],
        ["single"],
        ["single"],
        ["single", "three_in_a_bed"],  # S1 S1 S1: the award's cue before the takeout
        [],
        ["triple"],
        ["triple"],
        ["double", "game_shot"],
        # Cricket: Ann's T20 closes 20; Bob's T19 and T18 close; UNDO takes
        # back his T18, his S17 ends the visit; Ann's S18 T18 close 18
        ["triple", "close"],
        ["single"],
        ["single", "marks_5"],  # T20 S20 S19: a 5-mark visit
        [],
        ["triple", "close"],
        ["triple"],
        ["triple", "marks_9"],  # T19 T19 T18: 9 marks, before the close
        [],
        ["player_change"],
        ["single", "marks_7"],  # T19 T19 S17 after the undo: 7 marks
        [],
        ["single"],
        ["triple", "close"],
        # Cricket-Shanghai: the darts close nothing, the visit's end does
        ["single"],
        ["double"],
        ["triple", "close"],
        [],
        ["single"],
        ["triple"],
        ["double", "close"],
    ]


def test_cues_of_hand_written_events() -> None:
    """Events written by hand, and those of an older daemon without the
    optional keys: what each says is what is heard, nothing is guessed."""
    assert cues_for({"type": "dart", "segment": "T20", "scored": True}) == ["triple"]
    assert cues_for({"type": "dart", "segment": "d3"}) == ["double"]  # scored by default
    assert cues_for({"type": "dart", "segment": "S3", "scored": False}) == []
    closing = {"type": "dart", "segment": "T20", "scored": True, "marks": 3, "closed": ["20"]}
    assert cues_for(closing) == ["triple", "close"]
    assert cues_for({**closing, "closed": []}) == ["triple"]
    visit = {"type": "visit_end", "player": 0, "darts": ["T20"] * 3, "total": 180}
    assert cues_for(visit) == []  # no game: not known to be X01
    assert cues_for({**visit, "game": "x01"}) == ["one_eighty"]
    assert cues_for({**visit, "game": "cricket"}) == []
    assert cues_for({**visit, "game": "cricket-shanghai", "closed": ["20", "19"]}) == ["close"]
    assert cues_for({"type": "winner", "player": 0, "team": None}) == ["game_shot"]
    assert cues_for({"type": "whatever"}) == []


def test_ring_cue() -> None:
    assert [ring_cue(s) for s in ("M", "SB", "DB", "S1", "D20", "T7", "t20")] == [
        "miss",
        "bull",
        "bull",
        "single",
        "double",
        "triple",
        "triple",
    ]
    with pytest.raises(ValueError, match="not a segment"):
        ring_cue("X3")


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        (0, None),
        (99, None),
        (100, "ton"),
        (139, "ton"),
        (140, "ton40"),
        (179, "ton40"),
        (180, "one_eighty"),
    ],
)
def test_ton_calls(total: int, expected: str | None) -> None:
    assert ton_cue(total) == expected
    event = {
        "type": "visit_end",
        "player": 0,
        "darts": [],
        "total": total,
        "score_change": -total,
        "visit_over": None,
        "game": "x01",
    }
    assert cues_for(event) == ([expected] if expected else [])
    assert cues_for({**event, "game": "cricket"}) == []


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ("T20 T13 M", None),
        ("T20 S20 S20", "ton"),
        ("T20 T19 D11", "ton"),
        ("T20 T20 D10", "ton40"),
        ("T20 T20 T19", "ton40"),
        ("T20 T20 T20", "one_eighty"),
    ],
)
def test_ton_calls_from_real_visits(tokens: str, expected: str | None) -> None:
    step = last("x01", tokens)
    assert cues_for(step.event("visit_end")) == ([expected] if expected else [])


def test_visit_points() -> None:
    assert visit_points({"total": 60, "score_change": -60, "visit_over": None}) == 60
    assert visit_points({"total": 160, "score_change": -40}) == 40  # double in: 2 darts dead
    assert visit_points({"total": 100, "score_change": None}) == 100  # after an undo
    assert visit_points({"total": 0, "score_change": 0, "visit_over": "bust"}) == 0


# --------------------------------------------------------------- collapse


def test_collapse_batches() -> None:
    steps = play("x01", "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20", X01_301)
    assert collapse(steps[2].cues()) == ["triple", "one_eighty"]
    assert collapse(steps[6].cues()) == ["single", "three_in_a_bed"]  # S1 S1 S1
    assert collapse(steps[-1].cues()) == ["triple", "bust"]
    assert collapse(last("x01", "S1 NEXT", X01_301).cues()) == ["player_change"]
    assert collapse(last("x01", X01_WIN, X01_301).cues()) == ["double", "game_shot"]
    assert collapse(last("cricket", "M M T20").cues()) == ["triple", "close"]
    assert collapse([]) == []
    assert set(ANNOUNCEMENT_PRIORITY) | RING_CUES == set(CUES)


# ----------------------------------------------------------------- caller


@pytest.mark.parametrize(
    ("tokens", "words"),
    [
        ("M M M", "no score"),
        ("S20 S5 S1", "twenty-six"),
        ("T20 S20 S20", "one hundred"),
        ("T20 T19 S4", "one hundred and twenty-one"),
        ("T20 T20 T20", "one hundred and eighty"),
    ],
)
def test_caller_visit_totals(tokens: str, words: str) -> None:
    step = last("x01", tokens)  # 501: nobody is on a finish after one visit
    assert caller_text(step.event("visit_end"), step.view) == words


def test_caller_require() -> None:
    step = last("x01", "T20 T20 T20", X01_301)
    assert caller_text(step.event("visit_end"), step.view) == (
        "one hundred and eighty, you require one hundred and twenty-one"
    )
    ann_on_121 = "T20 T20 T20 NEXT S1 S1 S1 NEXT "
    step = last("x01", ann_on_121 + "T20 S19 S10", X01_301)
    assert step.after["players"][0]["score"] == 32
    assert caller_text(step.event("visit_end"), step.view) == "eighty-nine, you require thirty-two"
    step = last("x01", ann_on_121 + "T20 T19 M", X01_301)
    assert caller_text(step.event("visit_end"), step.view) == (
        "one hundred and seventeen, you require four"
    )
    step = last("x01", "T20 T20 D11", X01_301)  # 159 left: no three-dart finish
    assert step.after["players"][0]["score"] == 159
    assert caller_text(step.event("visit_end"), step.view) == "one hundred and forty-two"


def test_caller_require_respects_out() -> None:
    visit = {
        "type": "visit_end",
        "player": 0,
        "darts": [],
        "total": 30,
        "score_change": -30,
        "visit_over": None,
        "game": "x01",
    }

    def left_on(score: int, out: str) -> str | None:
        state = new_game("x01", ["Ann", "Bob"], {"out": out}).state()
        state["players"][0]["score"] = score
        return caller_text(visit, StateView.from_json(state))

    assert left_on(170, "double") == "thirty, you require one hundred and seventy"
    assert left_on(169, "double") == "thirty"
    assert left_on(171, "double") == "thirty"
    assert left_on(171, "master") == "thirty, you require one hundred and seventy-one"
    assert left_on(3, "master") == "thirty, you require three"
    assert left_on(177, "straight") == "thirty, you require one hundred and seventy-seven"
    assert left_on(179, "straight") == "thirty"  # out of reach in three darts
    assert left_on(1, "double") == "thirty"
    assert left_on(1, "straight") == "thirty, you require one"


def test_caller_other_events() -> None:
    steps = play("x01", X01_WIN, X01_301)
    win = steps[-1]
    assert caller_text(win.event("winner"), win.view) == "game shot"
    assert caller_text(win.event("visit_end"), win.view) is None  # "game shot" says it
    assert caller_text(win.event("game_over"), win.view) is None
    bust = last("x01", "T20 T20 T20 NEXT S1 S1 S1 NEXT T20 T20 S5", X01_301)
    assert caller_text(bust.event("visit_end"), bust.view) is None  # "bust" was said
    assert caller_text({"type": "bust", "player": 0}, bust.view) == "bust"
    cricket = last("cricket", "T20 T20 T20")
    assert caller_text(cricket.event("visit_end"), cricket.view) is None
    assert caller_text(cricket.event("dart"), cricket.view) is None
    assert caller_text({"type": "visit_end", "total": 60}, None) is None  # no game: not X01
    assert caller_text({"type": "visit_end", "total": 60, "game": "x01"}, None) == "sixty"


def test_number_words() -> None:
    expected = {
        0: "zero",
        7: "seven",
        13: "thirteen",
        20: "twenty",
        26: "twenty-six",
        99: "ninety-nine",
        100: "one hundred",
        101: "one hundred and one",
        121: "one hundred and twenty-one",
        170: "one hundred and seventy",
        180: "one hundred and eighty",
        501: "five hundred and one",
        1000: "one thousand",
        1001: "one thousand and one",
        1100: "one thousand one hundred",
    }
    assert {n: number_words(n) for n in expected} == expected
    with pytest.raises(ValueError):
        number_words(-1)


def test_checkouts() -> None:
    impossible = {159, 162, 163, 165, 166, 168, 169}
    double = {n for n in range(0, 200) if is_checkout(n, "double")}
    assert double == set(range(2, 171)) - impossible
    assert is_checkout(50, "double")  # the inner bull is a double
    master = {n for n in range(0, 200) if is_checkout(n, "master")}
    assert master >= double and max(master) == 180 and 1 not in master and 171 in master
    straight = {n for n in range(0, 200) if is_checkout(n, "straight")}
    assert min(straight) == 1 and max(straight) == 180
    assert set(range(1, 181)) - straight == {163, 166, 169, 172, 173, 175, 176, 178, 179}
    with pytest.raises(ValueError, match="unknown out rule"):
        is_checkout(40, "triple")


@pytest.mark.parametrize("out", ["double", "master", "straight"])
def test_checkout_fallback_agrees_with_the_engine(out: str) -> None:
    """is_checkout asks engine.checkout when it is there; the brute-force
    fallback gives the same answers."""
    checkout = pytest.importorskip("engine.checkout").checkout
    for remaining in range(-1, 400):
        expected = checkout(remaining, 3, out) is not None
        assert reachable_finish(remaining, out) == expected, remaining
        assert is_checkout(remaining, out) == expected, remaining


def test_checkout_without_the_engine_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cues, "_engine_checkout", lambda: None)
    assert [n for n in range(150, 175) if not is_checkout(n)] == [
        159, 162, 163, 165, 166, 168, 169, 171, 172, 173, 174,
    ]  # fmt: skip


# -------------------------------------------------------------- synthesis


@pytest.mark.parametrize("cue", CUES)
def test_cue_samples(cue: str) -> None:
    samples = synthesize(cue)
    assert samples.dtype == np.int16 and samples.ndim == 1
    assert 0.05 * SAMPLE_RATE < len(samples) <= MAX_SECONDS * SAMPLE_RATE
    level = samples.astype(np.float64)
    peak = np.max(np.abs(level))
    assert peak <= PEAK_LIMIT
    assert np.sqrt(np.mean(level**2)) > 1000  # non-silent: RMS above -30 dBFS
    edge = round(0.0005 * SAMPLE_RATE)  # 0.5 ms: the fades start and end at zero
    assert abs(level[0]) <= 1 and abs(level[-1]) <= 1
    assert np.max(np.abs(level[:edge])) < 0.05 * peak
    assert np.max(np.abs(level[-edge:])) < 0.05 * peak


def test_cues_are_distinct() -> None:
    sounds = {cue: synthesize(cue).astype(np.float64) for cue in CUES}
    for (a, x), (b, y) in itertools.combinations(sounds.items(), 2):
        n = max(len(x), len(y))
        x_, y_ = np.pad(x, (0, n - len(x))), np.pad(y, (0, n - len(y)))
        rms = max(np.sqrt(np.mean(x_**2)), np.sqrt(np.mean(y_**2)))
        assert np.sqrt(np.mean((x_ - y_) ** 2)) > 0.3 * rms, f"{a} sounds like {b}"


def test_synthesis_is_deterministic_and_checked() -> None:
    assert np.array_equal(synthesize("miss"), synthesize("miss"))
    copy = synthesize("single")
    copy[:] = 0
    assert synthesize("single").any()  # callers get copies
    with pytest.raises(ValueError, match="unknown cue 'boing'"):
        synthesize("boing")


def test_write_wav(tmp_path: Path) -> None:
    bank = SoundBank()
    path = bank.write_wav("one_eighty", tmp_path / "180.wav")
    with wave.open(str(path), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 44100)
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    assert np.array_equal(frames, bank.samples("one_eighty"))


# ----------------------------------------------------- volume and mute


def test_volume_and_mute_scale_the_output() -> None:
    bank = SoundBank(volume=0.5)
    full = bank.samples("ton").astype(np.float64)
    assert np.array_equal(bank.output("ton"), np.round(full * 0.5).astype(np.int16))
    assert bank.set_volume(0.25) == 0.25 and bank.volume == 0.25
    assert np.array_equal(bank.output("ton"), np.round(full * 0.25).astype(np.int16))
    assert bank.set_volume(7) == 1.0
    assert np.array_equal(bank.output("ton"), bank.samples("ton"))
    assert bank.set_volume(-2) == 0.0
    assert not bank.output("ton").any()
    bank.set_volume(0.8)
    assert bank.toggle_mute() is True and bank.muted
    assert len(bank.output("ton")) == 0
    assert bank.toggle_mute() is False and not bank.muted
    assert bank.output("ton").any()
    assert SoundBank(volume=3).volume == 1.0
    assert SoundBank(muted=True).muted


def test_without_audio_every_cue_is_silent_but_plays(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """In-process: the mixer refuses to start (no device)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", refuse)
    bank = SoundBank()
    with caplog.at_level(logging.WARNING, logger="display.sound_bank"):
        assert bank.init() is False
        for cue in CUES:
            assert isinstance(bank.sound(cue), SilentSound)
            bank.play(cue)
        bank.play_all(["triple", "one_eighty"])
        assert bank.init() is False
    assert not bank.available
    assert [r.message for r in caplog.records].count(
        "no audio, the display's sounds are silent: No available audio device"
    ) == 1
    with pytest.raises(ValueError, match="unknown cue"):
        bank.play("boing")


# -------------------------------------------- real playback (subprocesses)

PLAYER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    import pygame
    from display.sound_bank import SoundBank

    cue, volume, muted = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1"
    bank = SoundBank(volume=volume, muted=muted)
    print("audio", bank.init(), pygame.mixer.get_init())
    if bank.available and not muted:
        frequency, size, channels = pygame.mixer.get_init()
        raw = bank.sound(cue).get_raw()
        expected = np.repeat(bank.output(cue), channels).astype("<i2").tobytes()
        print("raw matches", raw == expected)
    for name in ("single", "double", "game_shot"):
        bank.sound(name)  # every cue is ready, silent or not
    bank.play(cue)
    deadline = time.monotonic() + 3
    while bank.available and pygame.mixer.get_busy() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.15)  # let the last buffers reach the driver
    if not bank.available:
        bank.play_all(["triple", "ton"])
    bank.close()
    print("done")
    """
)


def run_player(
    tmp_path: Path, driver: str, cue: str, volume: float = 1.0, muted: bool = False
) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / f"{driver}-{volume}-{muted}.raw"
    env = {
        **os.environ,
        "SDL_AUDIODRIVER": driver,
        "SDL_DISKAUDIOFILE": str(out),
        "PYTHONPATH": str(REPO),
    }
    process = subprocess.run(
        [sys.executable, "-c", PLAYER_SCRIPT, cue, str(volume), "1" if muted else "0"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.rstrip().endswith("done")
    return process, out


def energy(samples: np.ndarray[Any, Any]) -> float:
    """Sum of squares: unlike an RMS, the silence around a sound does not change it."""
    return float(np.sum(samples.astype(np.float64) ** 2))


def recorded(path: Path) -> np.ndarray[Any, Any]:
    """What the SDL disk driver wrote: 16-bit stereo frames."""
    return np.fromfile(path, dtype=np.int16).reshape(-1, 2)


def test_disk_audio_plays_the_cue(tmp_path: Path) -> None:
    process, out = run_player(tmp_path, "disk", "ton")
    assert "audio True (44100, -16, 2)" in process.stdout
    assert "raw matches True" in process.stdout
    frames = recorded(out)
    cue = synthesize("ton")
    assert np.sqrt(energy(frames[:, 0]) / SAMPLE_RATE) > 300  # RMS over a second: not silent
    assert np.array_equal(frames[:, 0], frames[:, 1])  # the mono cue on both sides
    assert abs(energy(frames[:, 0]) / energy(cue) - 1) < 0.02  # all of it was played
    assert abs(int(np.max(np.abs(frames))) - int(np.max(np.abs(cue)))) <= 1


@pytest.mark.slow
def test_disk_audio_volume_and_mute(tmp_path: Path) -> None:
    _, loud = run_player(tmp_path, "disk", "triple", volume=1.0)
    _, quiet = run_player(tmp_path, "disk", "triple", volume=0.25)
    _, muted = run_player(tmp_path, "disk", "triple", volume=1.0, muted=True)
    ratio = np.sqrt(energy(recorded(quiet)) / energy(recorded(loud)))
    assert 0.24 < ratio < 0.26
    assert muted.exists() and not recorded(muted).any()


def test_no_audio_driver_falls_back_to_silence(tmp_path: Path) -> None:
    process, _ = run_player(tmp_path, "nonexistent", "one_eighty")
    assert "audio False None" in process.stdout
    assert process.stderr.count("no audio, the display's sounds are silent") == 1


ADAPT_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pygame
    from display.sound_bank import SoundBank, synthesize

    frequency, size, channels = (int(a) for a in sys.argv[1:4])
    pygame.mixer.init(frequency, size, channels, 512, allowedchanges=0)  # the display's own
    opened = pygame.mixer.get_init()
    bank = SoundBank(volume=0.5)
    assert bank.init(), "no audio"
    for cue in ("single", "ton", "game_shot"):
        sound = bank.sound(cue)
        expected = len(synthesize(cue)) / 44100
        assert abs(sound.get_length() - expected) < 0.001, (cue, sound.get_length(), expected)
        sound.play()
    bank.close()
    assert pygame.mixer.get_init() == opened, "closed the display's mixer"
    print("ok")
    """
)


@pytest.mark.parametrize(
    "mixer", [(22050, 8, 1), (48000, -16, 2), (44100, 16, 2), (44100, 32, 2)], ids=str
)
def test_the_bank_adapts_to_a_mixer_opened_before(mixer: tuple[int, int, int]) -> None:
    """The display may start pygame's mixer in its own format first."""
    process = subprocess.run(
        [sys.executable, "-c", ADAPT_SCRIPT, *map(str, mixer)],
        cwd=REPO,
        env={**os.environ, "SDL_AUDIODRIVER": "dummy", "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "ok"


# ----------------------------------------------------------------- caller


def fake_espeak(directory: Path, seconds: float) -> Path:
    """An ``espeak-ng`` that records its arguments and takes ``seconds`` to speak."""
    log = directory / "spoken.txt"
    script = directory / "espeak-ng"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec sleep {seconds}\n')
    script.chmod(0o755)
    return log


def said_so_far(log: Path) -> str:
    """What the fake ``espeak-ng`` has been asked to say: nothing before its first call."""
    return log.read_text() if log.exists() else ""


def wait_until_quiet(caller: Caller) -> None:
    deadline = time.monotonic() + 30  # generous, for a busy machine
    while caller.busy and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not caller.busy


def test_caller_speaks_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spoken = fake_espeak(tmp_path, 0.6)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    caller = Caller()
    assert caller.available
    try:
        started = time.monotonic()
        assert caller.say("one hundred and eighty")
        assert time.monotonic() - started < 0.3  # did not wait for the speech
        assert caller.busy
        assert not caller.say("bust")  # still speaking: skipped
        wait_until_quiet(caller)
        step = last("x01", "S20 S5 S1")
        assert caller.announce(step.event("visit_end"), step.view)
        wait_until_quiet(caller)
        assert not caller.say(None) and not caller.say("")
        assert caller.say("game shot")
        started = time.monotonic()
        caller.close()  # stops the utterance
        assert time.monotonic() - started < 0.5
    finally:
        caller.close()
    assert not caller.busy
    lines = spoken.read_text().splitlines()  # "game shot" may be cut before its echo
    assert lines[:2] == ["-s 160 one hundred and eighty", "-s 160 twenty-six"]


def test_caller_without_espeak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing in it
    with caplog.at_level(logging.INFO, logger="display.sound_bank"):
        caller = Caller()
        assert not caller.available
        assert not caller.say("game shot")
        assert not caller.announce({"type": "winner", "player": 0}, None)
    assert [r.message for r in caplog.records] == [
        "espeak-ng is not installed: the spoken caller is off"
    ]
    fake_espeak(tmp_path, 0)
    assert not Caller(enabled=False).available  # off even when installed
