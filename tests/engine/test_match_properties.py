"""Properties of a match over random event streams: its legs are the same
games played alone with the same first sides, a replay of its flat events is
the same match, and an undo across a leg boundary followed by the same darts
again gives the same state."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_BEDS,
    BOUNCE,
    END_VISIT,
    UNDO,
    Bed,
    Correct,
    EngineError,
    Event,
    MatchFormat,
    new_game,
)
from engine.checkout import checkout
from engine.match import Match
from engine.match_format import Decider, Starts

PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
X01_301 = {"start": 301, "out": "straight"}
T20 = Bed.parse("T20")
HIGH = tuple(bed for bed in ALL_BEDS if bed.is_triple or bed.is_bull or bed.number >= 15)
EVENTS: tuple[Event, ...] = (
    Bed.parse("M"),
    *ALL_BEDS,
    *(HIGH * 4),
    *([END_VISIT] * 10),
    *([UNDO] * 5),
    BOUNCE,
    Correct(1, T20),
    Correct(3, Bed.parse("D20")),
)
FORMATS = st.builds(
    MatchFormat,
    legs=st.integers(1, 3),
    sets=st.none() | st.integers(1, 2),
    starts=st.sampled_from(Starts),
    decider=st.none() | st.sampled_from(Decider),
)
GAMES = st.sampled_from([("x01", X01_301), ("cricket", {})])
PLAYERS = st.sampled_from([["Ann", "Bob"], ["Ann", "Bob", "Cy"]])


def fed(match: Match, stream: list[Event]) -> list[Event]:
    """Push each event the match takes (the others it refuses, changing
    nothing); the events taken."""
    taken = []
    for event in stream:
        before = match.state()
        try:
            match.check(event)
        except EngineError:
            assert match.state() == before
            continue
        match.push(event)
        taken.append(event)
    return taken


def finish_leg(match: Match) -> None:
    """Throw until the leg in progress is won (301 straight out: checkouts,
    else treble 20s), through a cork if there is one."""
    while not (match.leg_over or match.is_finished):
        if match.cork is not None:
            match.push(Bed.parse("DB") if match.cork.count(None) == len(match.cork) else T20)
            continue
        game = match.leg
        left = 3 - len(game.visit)
        route = checkout(game.score(game.current_player), left, "straight")
        for bed in route or (T20,):
            match.push(bed)


def same(one: Match, other: Match) -> None:
    assert other.state() == one.state()
    assert other.events == one.events
    assert [r.game.state() for r in other.legs] == [r.game.state() for r in one.legs]


@PROPERTY_SETTINGS
@given(GAMES, PLAYERS, FORMATS, st.lists(st.sampled_from(EVENTS), max_size=250))
def test_a_match_s_legs_are_the_games_played_alone(
    game: tuple[str, dict[str, Any]], players: list[str], fmt: MatchFormat, stream: list[Event]
) -> None:
    game_id, options = game
    match = Match(game_id, players, options, format=fmt)
    fed(match, stream)
    games = [record.game for record in match.legs]
    if not match.leg.is_finished:
        games.append(match.leg)
    for leg in games:
        alone = new_game(game_id, players, options, first_side=leg.first_side)
        alone.push_all(leg.events)
        assert alone.state() == leg.state()
    assert sum(match.legs_won()) == sum(r.outcome.winner is not None for r in match.legs)


@PROPERTY_SETTINGS
@given(GAMES, PLAYERS, FORMATS, st.lists(st.sampled_from(EVENTS), max_size=250))
def test_a_replay_of_the_flat_events_is_the_same_match(
    game: tuple[str, dict[str, Any]], players: list[str], fmt: MatchFormat, stream: list[Event]
) -> None:
    game_id, options = game
    match = Match(game_id, players, options, format=fmt)
    taken = fed(match, stream)
    effective = Match(game_id, players, options, format=fmt)
    effective.push_all(match.events)
    same(match, effective)
    raw = Match(game_id, players, options, format=fmt)
    raw.push_all(taken)
    same(match, raw)


@PROPERTY_SETTINGS
@given(
    PLAYERS,
    FORMATS.filter(lambda f: f.legs > 1 or (f.sets or 1) > 1),
    st.lists(st.sampled_from(EVENTS), max_size=60),
    st.lists(st.sampled_from(EVENTS), max_size=60),
)
def test_undo_across_a_leg_boundary_then_the_same_darts_again_is_the_same_state(
    players: list[str], fmt: MatchFormat, first: list[Event], second: list[Event]
) -> None:
    match = Match("x01", players, X01_301, format=fmt)
    fed(match, first)
    finish_leg(match)
    if match.is_finished:
        return
    fed(match, [UNDO])  # back into the won leg, and its dart again
    finish_leg(match)
    match.push(END_VISIT)  # the next leg (or its cork)
    started = match.state()
    events = match.events
    if match.cork is None:
        winning = match.legs[-1].game.events[-1]
        match.push(UNDO)
        assert not match.leg_over and match.cork is None and match.leg.can_undo()
        match.push(winning)
        match.push(END_VISIT)
        assert match.state() == started and match.events == events
    fed(match, second)
    again = Match("x01", players, X01_301, format=fmt)
    again.push_all(match.events)
    same(match, again)
