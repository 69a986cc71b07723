"""Bounce-outs: ``BOUNCE`` makes the last dart a miss that counts as a
bounce-out (docs/state.md, "Bounce-outs"), in every game thrown in visits."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    BOUNCE,
    END_VISIT,
    MISS,
    UNDO,
    Bed,
    Bounce,
    Event,
    Game,
    GameLogError,
    NotationError,
    NothingToBounceError,
    Undo,
    as_thrown,
    new_game,
    parse_event,
)
from engine.game_log import format_game_log, replay_log
from tests.engine.test_properties import EVENT_POOL, PROPERTY_SETTINGS, Setup, setups, skipped


def play(
    game_id: str, log: str, players: tuple[str, ...] = ("Ann", "Bo"), **options: object
) -> Game:
    game = new_game(game_id, players, options)
    for token in log.split():
        game.push(parse_event(token))
    return game


def test_token_round_trips_in_any_case() -> None:
    assert parse_event("BOUNCE") is BOUNCE
    assert parse_event("bounce") is BOUNCE
    assert str(BOUNCE) == "BOUNCE"
    assert isinstance(parse_event(" Bounce "), Bounce)
    with pytest.raises(NotationError, match="NEXT, UNDO, BOUNCE"):
        parse_event("BOUNCED")


def test_bounce_of_a_dart_mid_visit_is_a_miss_counted_as_a_bounce_out() -> None:
    game = play("x01", "T20 S5 BOUNCE", start=301)
    state = game.state()
    ann = state["players"][0]
    assert state["visit"] == ["T20", "M"]
    assert ann["score"] == 241
    assert ann["stats"]["darts"] == 2  # the bounced dart was thrown
    assert ann["stats"]["bounce_outs"] == 1
    assert ann["stats"]["points"] == 60
    assert state["current_player"] == 0  # one dart left in the visit
    assert [str(event) for event in game.events] == ["T20", "S5", "BOUNCE"]


def test_only_the_last_dart_and_only_once() -> None:
    game = new_game("x01", ["Ann"])
    with pytest.raises(NothingToBounceError, match="no dart has been thrown"):
        game.push(BOUNCE)
    game.push_all([Bed.parse("T20"), BOUNCE])
    with pytest.raises(NothingToBounceError, match="bounce-out already"):
        game.push(BOUNCE)
    game.push_all([Bed.parse("S1"), END_VISIT])  # NEXT ended the visit early
    with pytest.raises(NothingToBounceError, match="the visit has ended"):
        game.check(BOUNCE)
    assert game.bounceable() is None
    assert game.state()["players"][0]["stats"]["bounce_outs"] == 1


def test_the_third_dart_bounces_during_takeout_and_the_visit_closes_again() -> None:
    game = play("x01", "T20 T20 T20", start=501)
    assert game.current_player == 1  # the engine passed the turn at the third dart
    assert game.bounceable() == (0, Bed.parse("T20"))
    game.push(BOUNCE)
    state = game.state()
    assert state["current_player"] == 1
    assert state["last_visit"] == {
        "player": 0,
        "darts": ["T20", "T20", "M"],
        "visit_over": None,
        "awards": ["low-ton"],  # the Ton 80 it was is re-settled as the 120 it is
    }
    assert state["players"][0]["score"] == 381
    assert state["players"][0]["stats"]["bounce_outs"] == 1
    assert state["players"][1]["stats"]["bounce_outs"] == 0


def test_a_bounced_checkout_reopens_the_game() -> None:
    game = play("x01", "T20 T20 T20  M M M  T20 T7 D20", start=301)
    assert game.outcome() is not None
    game.push(BOUNCE)
    state = game.state()
    assert not game.is_finished
    assert (state["finished"], state["winner"], state["result"]) == (False, None, None)
    assert state["players"][0]["score"] == 40
    assert state["last_visit"]["darts"] == ["T20", "T7", "M"]
    assert state["current_player"] == 1
    game.push_all(map(parse_event, ["M", "M", "M", "D20"]))
    assert game.outcome() is not None and game.outcome().winner == 0  # type: ignore[union-attr]
    assert game.state()["players"][0]["stats"] == {
        "darts": 7,
        "visits": 3,
        "bounce_outs": 1,
        "points": 301,
        "points_per_dart": 43.0,
        "average": 129.0,
    }


def test_a_bounced_bust_dart_leaves_the_visit_live() -> None:
    game = play("x01", "T20 T20 T20  M M M  T20 T20", start=301)  # 121 -> 61 -> 1: bust
    assert game.visit_over is not None
    game.push(BOUNCE)
    assert game.visit_over is None
    assert game.state()["players"][0]["score"] == 61
    game.push(Bed.parse("D20"))
    state = game.state()
    assert state["players"][0]["score"] == 21
    assert state["last_visit"] == {
        "player": 0,
        "darts": ["T20", "M", "D20"],
        "visit_over": None,
        "awards": ["low-ton"],
    }


def test_cricket_marks_of_a_bounced_dart_are_taken_back() -> None:
    game = play("cricket", "T20 T20 BOUNCE")
    ann = game.state()["players"][0]
    assert ann["marks"]["20"] == 3
    assert ann["score"] == 0  # the second T20's 60 points bounced out
    assert ann["stats"]["marks"] == 3
    assert ann["stats"]["bounce_outs"] == 1
    game.push(Bed.parse("T19"))  # the visit's third dart, after the bounced one
    assert game.state()["players"][0]["marks"]["19"] == 3
    assert game.current_player == 1


def test_undo_after_a_bounce_takes_back_the_bounced_dart_and_its_count() -> None:
    game = play("x01", "T20 S5 BOUNCE UNDO", start=301)
    assert [str(event) for event in game.events] == ["T20"]
    assert game.state()["players"][0]["stats"]["bounce_outs"] == 0


def test_as_thrown_puts_a_miss_where_a_dart_bounced() -> None:
    events: list[Event] = [Bed.parse("T20"), BOUNCE, Bed.parse("S1"), END_VISIT]
    assert as_thrown(events) == [MISS, Bed.parse("S1"), END_VISIT]


def test_log_writes_bounce_after_its_dart_and_replays_it() -> None:
    game = play("x01", "T20 T20 T20 BOUNCE  S1 BOUNCE S2 S3  T20 NEXT", start=301)
    text = format_game_log(game)
    assert text == "T20 T20 T20 BOUNCE\nS1 BOUNCE S2 S3\nT20\n"
    noted = format_game_log(game, awards=True)
    assert noted.splitlines()[0] == "T20 T20 T20 BOUNCE  # award: low-ton"  # re-settled
    assert (
        format_game_log(replay_log(new_game("x01", ["Ann", "Bo"], {"start": 301}), noted)) == text
    )
    replayed = replay_log(new_game("x01", ["Ann", "Bo"], {"start": 301}), text)
    assert replayed.state() == game.state()
    assert replayed.events == game.events
    assert format_game_log(replayed) == text


def test_a_fourth_dart_after_a_bounced_third_is_still_refused_in_a_log() -> None:
    with pytest.raises(GameLogError, match="at most three darts"):
        replay_log(new_game("x01", ["Ann", "Bo"]), "T20 T20 T20 BOUNCE S1\n")


def test_domino_cribbage_has_no_bounce_outs() -> None:
    game = new_game("domino-cribbage", ["Ann", "Bo"], {"seed": 7})
    with pytest.raises(NothingToBounceError, match="has no bounce-outs"):
        game.check(BOUNCE)
    with pytest.raises(NothingToBounceError, match="has no bounce-outs"):
        game.push(BOUNCE)
    assert game.bounceable() is None


# ------------------------------------------------------------- the property

BOUNCE_POOL: tuple[Event, ...] = (*EVENT_POOL, *([BOUNCE] * 10))


def _without_bounce_outs(state: dict[str, object]) -> dict[str, object]:
    players = state["players"]
    assert isinstance(players, list)
    for player in players:
        player["stats"].pop("bounce_outs")
    return state


@PROPERTY_SETTINGS
@given(setups(), st.lists(st.sampled_from(BOUNCE_POOL), max_size=120))
def test_a_bounce_is_the_dart_thrown_as_a_miss(setup: Setup, stream: list[Event]) -> None:
    """A game with bounces == the same game with those darts thrown as misses
    (taken back and thrown again as ``M``), except the bounce statistic."""
    bounced, missed = setup.new(), setup.new()
    count = 0
    for event in stream:
        if isinstance(event, Bounce):
            if bounced.bounceable() is None:
                continue
            bounced.push(BOUNCE)
            missed.push_all([UNDO, MISS])
            count += 1
        elif not skipped(bounced, event):
            bounced.push(event)
            missed.push(event)
        assert _without_bounce_outs(bounced.state()) == _without_bounce_outs(missed.state())
    state = bounced.state()
    kept = sum(isinstance(event, Bounce) for event in bounced.events)
    assert sum(p["stats"]["bounce_outs"] for p in state["players"]) == kept <= count
    assert all(not isinstance(event, Undo) for event in bounced.events)
    assert as_thrown(bounced.events) == list(missed.events)
    # journal-style replay of the effective tokens gives the same game
    tokens = [str(event) for event in bounced.events]
    again = setup.new()
    again.push_all(parse_event(token) for token in tokens)
    assert again.state() == state
    # and the text log round-trips (a visit left open is ended by its line)
    text = format_game_log(bounced)
    replayed = replay_log(setup.new(), text)
    assert format_game_log(replayed) == text
    noted = format_game_log(bounced, awards=True)  # the awards noted read back the same
    assert format_game_log(replay_log(setup.new(), noted), awards=True) == noted


@PROPERTY_SETTINGS
@given(setups(), st.lists(st.sampled_from(BOUNCE_POOL), max_size=120))
def test_undo_thrower_is_who_is_up_once_the_undo_is_done(setup: Setup, stream: list[Event]) -> None:
    """``undo_thrower`` (what a remote host asks before an undo or a bounce:
    whose dart it takes back) is what undoing a copy shows, without undoing."""
    game = setup.new()
    for event in [*stream, UNDO]:
        if isinstance(event, Bounce) and game.bounceable() is None:
            continue
        if not skipped(game, event):
            game.push(event)
        thrower = game.undo_thrower()
        if not game.can_undo():
            assert thrower is None
            continue
        probe = copy.deepcopy(game)
        probe.undo()
        assert thrower == probe.current_player
        bounceable = game.bounceable()
        if bounceable is not None:  # a bounce changes the same dart: the same thrower
            assert bounceable[0] == thrower
