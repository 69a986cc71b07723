"""Beds and event tokens: the notation every log, journal and command line uses."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import ALL_BEDS, DB, END_VISIT, MISS, SB, UNDO, Bed, NotationError, parse_event
from engine.errors import EngineError

EXPECTED_NOTATIONS = {f"{ring}{n}" for ring in "SDT" for n in range(1, 21)} | {"SB", "DB", "M"}


def test_there_are_63_distinct_beds_with_the_expected_notations() -> None:
    assert len(ALL_BEDS) == 63
    assert len(set(ALL_BEDS)) == 63
    assert {bed.notation for bed in ALL_BEDS} == EXPECTED_NOTATIONS


@pytest.mark.parametrize("bed", ALL_BEDS, ids=str)
def test_every_bed_round_trips_through_its_notation(bed: Bed) -> None:
    assert Bed.parse(str(bed)) == bed
    assert str(bed) == bed.notation
    assert str(bed) == str(bed).upper()


@pytest.mark.parametrize("bed", ALL_BEDS, ids=str)
def test_every_bed_parses_in_lower_case_and_padded(bed: Bed) -> None:
    assert Bed.parse(str(bed).lower()) == bed
    assert Bed.parse(f"  {str(bed).lower()}\t") == bed


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("t20", "T20"),
        ("T20", "T20"),
        ("d7", "D7"),
        ("s1", "S1"),
        ("sb", "SB"),
        ("Sb", "SB"),
        ("db", "DB"),
        ("dB", "DB"),
        ("m", "M"),
        ("M", "M"),
    ],
)
def test_parsing_is_case_insensitive_and_output_is_canonical(text: str, canonical: str) -> None:
    assert str(Bed.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "points"),
    [("T20", 60), ("D20", 40), ("S20", 20), ("T1", 3), ("D1", 2), ("SB", 25), ("DB", 50), ("M", 0)],
)
def test_points(text: str, points: int) -> None:
    assert Bed.parse(text).points == points


def test_the_module_constants_are_the_bulls_and_the_miss() -> None:
    assert Bed.parse("SB") == SB
    assert Bed.parse("DB") == DB
    assert Bed.parse("M") == MISS


def test_inner_bull_is_a_double_and_outer_bull_is_not() -> None:
    assert DB.is_double
    assert DB.is_bull
    assert not DB.is_triple
    assert not SB.is_double
    assert SB.is_bull
    assert not MISS.is_double
    assert MISS.is_miss
    assert not DB.is_miss


@pytest.mark.parametrize("bed", ALL_BEDS, ids=str)
def test_ring_flags_match_the_notation(bed: Bed) -> None:
    text = str(bed)
    assert bed.is_double == (text.startswith("D"))
    assert bed.is_triple == text.startswith("T")
    assert bed.is_miss == (text == "M")
    assert bed.is_bull == (text in ("SB", "DB"))


def test_max_points_are_sixty_and_only_triple_twenty_scores_it() -> None:
    assert max(bed.points for bed in ALL_BEDS) == 60
    assert [bed for bed in ALL_BEDS if bed.points == 60] == [Bed.parse("T20")]


BAD_TOKENS = ["T21", "S0", "TB", "X", "", "D25", "20", "T", "S 20", "S20x", "DBB", "MM", "-"]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_bad_tokens_raise_notation_error_quoting_the_token(token: str) -> None:
    with pytest.raises(NotationError) as caught:
        Bed.parse(token)
    error = caught.value
    assert isinstance(error, ValueError)
    assert isinstance(error, EngineError)
    assert error.token == token
    assert repr(token) in str(error)


def test_notation_error_is_catchable_as_value_error() -> None:
    with pytest.raises(ValueError, match="T21"):
        Bed.parse("T21")


@pytest.mark.parametrize(("number", "multiplier"), [(21, 1), (25, 3), (0, 1), (5, 0), (20, 4)])
def test_impossible_beds_cannot_be_constructed(number: int, multiplier: int) -> None:
    with pytest.raises(NotationError):
        Bed(number, multiplier)


@pytest.mark.parametrize("word", ["NEXT", "next", "Next", " nExT "])
def test_parse_event_reads_next_in_any_case(word: str) -> None:
    assert parse_event(word) is END_VISIT


@pytest.mark.parametrize("word", ["UNDO", "undo", "Undo", "uNdO\n"])
def test_parse_event_reads_undo_in_any_case(word: str) -> None:
    assert parse_event(word) is UNDO


@pytest.mark.parametrize("bed", ALL_BEDS, ids=str)
def test_parse_event_reads_darts(bed: Bed) -> None:
    assert parse_event(str(bed).lower()) == bed


def test_events_print_as_the_tokens_parse_event_reads() -> None:
    assert str(END_VISIT) == "NEXT"
    assert str(UNDO) == "UNDO"
    for event in (END_VISIT, UNDO, *ALL_BEDS):
        assert parse_event(str(event)) == event


@pytest.mark.parametrize("token", ["NEX", "UNDOO", "T21", "", "END"])
def test_parse_event_rejects_other_tokens_naming_them(token: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_event(token)
    assert caught.value.token == token
    assert repr(token) in str(caught.value)


_NEAR_MISS_TEXT = st.text(alphabet="SDTBMNXUEOsdtbmnxueo0123456789 \t", max_size=5)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=6), _NEAR_MISS_TEXT))
@example("t20")
@example(" db ")
@example("T21")
@example("")
def test_any_text_parses_to_its_upper_case_form_or_raises_notation_error(text: str) -> None:
    try:
        bed = Bed.parse(text)
    except NotationError as error:
        assert error.token == text
        return
    assert bed.notation == text.strip().upper()
    assert bed in ALL_BEDS
