"""Corrections: ``CORRECT2=T19`` replaces dart 2 of the visit on the board with
the bed it really hit, and the game is the visit thrown right (docs/state.md,
"Corrections"), in every game thrown in visits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    ALL_BEDS,
    END_VISIT,
    UNDO,
    Bed,
    Correct,
    CorrectionError,
    Event,
    Game,
    NotationError,
    new_game,
    parse_event,
)
from engine.game_log import format_game_log, replay_log
from tests.engine.test_properties import (
    EVENT_POOL,
    PROPERTY_SETTINGS,
    Setup,
    feed,
    setups,
    skipped,
)

TO_40 = "T20 T20 T20 T20 S20 S1"
"""One player's 301 down to 40 in two visits (180, then 81)."""


def play(
    game_id: str, log: str, players: tuple[str, ...] = ("Ann", "Bo"), **options: object
) -> Game:
    game = new_game(game_id, players, options)
    for token in log.split():
        game.push(parse_event(token))
    return game


def test_token_round_trips_in_any_case() -> None:
    correction = parse_event("correct2=t19")
    assert correction == Correct(2, Bed.parse("T19"))
    assert str(correction) == "CORRECT2=T19"
    assert parse_event(" CORRECT3=M ") == Correct(3, Bed.parse("M"))
    with pytest.raises(NotationError, match="CORRECT1-CORRECT3"):
        parse_event("CORRECT4=T19")
    with pytest.raises(NotationError, match="a correction's bed"):
        parse_event("CORRECT1=T21")
    with pytest.raises(ValueError, match="dart 1 to 3"):
        Correct(0, Bed.parse("T19"))


def test_a_misread_dart_mid_visit_is_rescored() -> None:
    game = play("x01", "T20 S19 CORRECT2=T19", start=301)
    state = game.state()
    assert state["visit"] == ["T20", "T19"]
    assert state["players"][0]["score"] == 301 - 60 - 57
    assert state["current_player"] == 0
    assert game.events == (Bed.parse("T20"), Bed.parse("T19"))
    assert game.corrections == {1: Bed.parse("S19")}


def test_a_correction_in_takeout_changes_the_visit_just_thrown() -> None:
    game = play("x01", "T20 S19 S5 CORRECT1=S20", start=301)
    state = game.state()
    assert state["current_player"] == 1  # the visit stays closed, Bo is up
    assert state["last_visit"]["darts"] == ["S20", "S19", "S5"]
    assert state["players"][0]["score"] == 301 - 44


def test_a_correction_that_wins_drops_the_darts_after_it() -> None:
    game = play("x01", f"{TO_40} T20 S19 S1 CORRECT1=D20", players=("Ann",), start=301)
    assert game.is_finished
    assert game.state()["visit"] == ["D20"]
    assert game.events[-1] == Bed.parse("D20")
    assert game.corrections == {len(game.events) - 1: Bed.parse("T20")}


def test_a_correction_that_takes_a_win_back_reopens_the_game() -> None:
    game = play("x01", f"{TO_40} S20 D10 CORRECT2=S10", players=("Ann",), start=301)
    assert game.is_finished is False
    assert game.state()["players"][0]["score"] == 10
    assert game.state()["visit"] == ["S20", "S10"]


def test_a_correction_that_busts_drops_the_darts_after_it() -> None:
    game = play("x01", f"{TO_40} S20 S5 S1 CORRECT1=T20", players=("Ann",), start=301)
    assert game.state()["visit"] == ["T20"]
    assert game.visit_over is not None and game.visit_over.value == "bust"


def test_a_correction_makes_and_takes_back_a_bust() -> None:
    game = play("x01", f"{TO_40} S20 S5 CORRECT2=T20", players=("Ann",), start=301)
    assert game.visit_over is not None and game.visit_over.value == "bust"
    assert game.state()["players"][0]["score"] == 40
    game.push(parse_event("CORRECT2=S5"))
    assert game.visit_over is None
    assert game.state()["players"][0]["score"] == 15
    assert game.corrections == {}  # back to what the board read: nothing corrected


def test_a_bounced_dart_corrected_hit_the_bed_named() -> None:
    game = play("x01", "T20 S19 BOUNCE CORRECT2=T19", start=301)
    ann = game.state()["players"][0]
    assert game.state()["visit"] == ["T20", "T19"]
    assert ann["stats"]["bounce_outs"] == 0
    assert ann["score"] == 301 - 117


def test_undo_after_a_correction_keeps_the_corrected_dart() -> None:
    game = play("x01", "T20 S19 S5 CORRECT2=T19 UNDO", start=301)
    assert game.state()["visit"] == ["T20", "T19"]
    assert game.corrections == {1: Bed.parse("S19")}
    game.undo()
    assert game.corrections == {}


def test_a_second_correction_keeps_the_first_reading() -> None:
    game = play("x01", "T20 S19 CORRECT2=T19 CORRECT2=D19", start=301)
    assert game.state()["visit"] == ["T20", "D19"]
    assert game.corrections == {1: Bed.parse("S19")}


def test_a_later_corrected_dart_keeps_its_audit_when_an_earlier_is_corrected() -> None:
    game = play("x01", "T20 S19 S5 CORRECT3=S1 CORRECT1=S20", start=301)
    assert game.state()["last_visit"]["darts"] == ["S20", "S19", "S1"]
    assert game.corrections == {0: Bed.parse("T20"), 2: Bed.parse("S5")}


def test_refusals_name_the_dart_and_change_nothing() -> None:
    fresh = new_game("x01", ["Ann"], {"start": 301})
    with pytest.raises(CorrectionError, match="no dart has been thrown"):
        fresh.push(Correct(1, Bed.parse("T19")))
    game = play("x01", "T20", start=301)
    before = game.state()
    with pytest.raises(CorrectionError, match="no dart 2 to correct: the visit has 1 dart"):
        game.check(Correct(2, Bed.parse("T19")))
    with pytest.raises(CorrectionError, match="no dart 3"):
        game.correct(3, Bed.parse("T19"))
    assert game.state() == before


def test_cricket_marks_follow_the_corrected_dart() -> None:
    game = play("cricket", "S20 S19 CORRECT2=T20")
    ann = game.state()["players"][0]
    assert ann["marks"]["20"] == 3
    assert ann["marks"]["19"] == 0


def test_the_log_writes_the_corrected_dart_and_what_the_board_read() -> None:
    game = play("x01", "T20 S19 S5 CORRECT2=T19 T1 T2 NEXT", start=501)
    log = format_game_log(game)
    assert log == "T20 T19 S5  # dart 2 read as S19\nT1 T2\n"
    replayed = replay_log(new_game("x01", ("Ann", "Bo"), {"start": 501}), log)
    assert replayed.state() == game.state()


def test_a_log_with_a_correction_token_replays_it() -> None:
    replayed = replay_log(
        new_game("x01", ("Ann", "Bo"), {"start": 501}), "T20 S19 S5 CORRECT2=T19\n"
    )
    assert replayed.state()["players"][0]["score"] == 501 - 60 - 57 - 5


def test_domino_cribbage_has_nothing_to_correct() -> None:
    game = new_game("domino-cribbage", ["Ann", "Bo"], {"seed": 1})
    with pytest.raises(CorrectionError, match="a dart picks"):
        game.check(Correct(1, Bed.parse("S1")))
    with pytest.raises(CorrectionError, match="no visits to correct"):
        game.push(Correct(1, Bed.parse("S1")))


# ----------------------------------------------------------------- properties

_beds = st.sampled_from(ALL_BEDS)


def _visit_start(setup: Setup, stream: list[Event]) -> tuple[list[Event], Game]:
    """``stream`` fed as a careful client would, then the visit ended: the
    events taken and the game, at the start of a visit."""
    game = setup.new()
    taken: list[Event] = []
    for event in [*stream, END_VISIT]:
        if not skipped(game, event):
            game.push(event)
            taken.append(event)
    return taken, game


def _throw(game: Game, darts: list[Bed]) -> list[Bed]:
    """Throw ``darts`` as a board does, stopping once the visit stops
    scoring (a bust, a win: the board's takeout); the darts thrown."""
    thrown: list[Bed] = []
    for bed in darts:
        if game.visit_over is not None or not game.accepts_darts():
            break
        game.dart(bed)
        thrown.append(bed)
    return thrown


@PROPERTY_SETTINGS
@given(
    setups(),
    st.lists(st.sampled_from(EVENT_POOL), max_size=40),
    st.lists(_beds, min_size=1, max_size=3),
    st.data(),
)
def test_a_corrected_visit_is_the_visit_thrown_right(
    setup: Setup, stream: list[Event], visit: list[Bed], data: st.DataObject
) -> None:
    prefix, game = _visit_start(setup, stream)
    thrown = _throw(game, visit)
    if not thrown:
        return  # the game was over before the visit
    darts = len(game.on_board())
    dart = data.draw(st.integers(1, darts), label="dart")
    right = data.draw(_beds, label="right")
    raw: list[Event] = [*prefix, *thrown, Correct(dart, right)]
    game.correct(dart, right)

    fixed = list(thrown[:darts])
    fixed[dart - 1] = right
    expected = feed(setup.new(), prefix)
    _throw(expected, fixed)
    assert game.state() == expected.state()
    assert game.events == expected.events

    # the journal: the raw tokens, read back, give the same game
    journaled = setup.new()
    for event in raw:
        journaled.push(parse_event(str(event)))
    assert journaled.state() == expected.state()

    # the log written with the audit comment re-scores the same
    rescored = replay_log(setup.new(), format_game_log(game))
    assert rescored.state() == replay_log(setup.new(), format_game_log(expected)).state()

    # an undo after the correction is the undo of the visit thrown right
    if expected.can_undo():
        game.push(UNDO)
        expected.push(UNDO)
        assert game.state() == expected.state()
