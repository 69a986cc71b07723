"""Wire protocol v1: the documented vectors, the CRC, and a fuzzed decoder
that never raises and never turns damaged input into a hit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.board_decoder import BoardDecoder
from drivers.board_events import HitEvent
from drivers.protocol import (
    MAX_LINE,
    Configure,
    FrameError,
    Hello,
    Hit,
    crc16,
    decode_frame,
    encode_frame,
)
from tests.protocol_vectors import InvalidVector, ValidVector, invalid_vectors, valid_vectors


def bitwise_crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE written out bit by bit, to check the table-driven one."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1 == bitwise_crc16(b"123456789")


@given(st.binary(max_size=80))
def test_crc_matches_the_bitwise_definition(data: bytes) -> None:
    assert crc16(data) == bitwise_crc16(data)


@pytest.mark.parametrize("vector", valid_vectors(), ids=lambda v: v.line.decode())
def test_every_documented_frame_decodes_and_encodes_back(vector: ValidVector) -> None:
    frame = decode_frame(vector.line)
    assert vector.type == frame.TYPE
    assert frame.seq == vector.seq
    assert frame.fields() == vector.fields
    assert encode_frame(frame) == vector.line + b"\n"
    body = vector.line[1:-5]
    assert int(vector.line[-4:], 16) == bitwise_crc16(body)


@pytest.mark.parametrize("vector", invalid_vectors(), ids=lambda v: v.line.decode())
def test_every_documented_bad_line_is_rejected_with_its_kind(vector: InvalidVector) -> None:
    with pytest.raises(FrameError) as caught:
        decode_frame(vector.line)
    assert caught.value.kind == vector.kind
    assert vector.line.decode() in str(caught.value)


def test_the_issue_example_is_a_hit_at_row_3_column_7() -> None:
    assert decode_frame(b"$H,1,3,7*C66D") == Hit(1, 3, 7)


def test_encoding_refuses_fields_that_would_break_the_frame() -> None:
    with pytest.raises(FrameError):
        encode_frame(Hello(0, 1, 8, 8, "v1,2"))
    with pytest.raises(FrameError):
        encode_frame(Hello(0, 1, 8, 8, "x" * MAX_LINE))


def test_configure_frames_only_carry_known_settings() -> None:
    line = encode_frame(Configure(9, "debounce_ms", 25))
    assert decode_frame(line.rstrip(b"\n")) == Configure(9, "debounce_ms", 25)


def valid_frames() -> st.SearchStrategy[bytes]:
    return st.builds(
        lambda seq, row, col: encode_frame(Hit(seq, row, col)).rstrip(b"\n"),
        st.integers(0, 65535),
        st.integers(0, 255),
        st.integers(0, 255),
    )


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise_and_never_hit(data: bytes) -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(data) + decoder.feed(b"\n")
    assert not [event for event in events if isinstance(event, HitEvent)]


@settings(max_examples=300)
@given(valid_frames(), st.data())
def test_a_frame_with_any_one_byte_changed_never_hits(frame: bytes, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(frame) - 1))
    replacement = data.draw(st.integers(0, 255).filter(lambda b: b != frame[index]))
    damaged = frame[:index] + bytes([replacement]) + frame[index + 1 :]
    decoder = BoardDecoder("oche")
    events = decoder.feed(damaged + b"\n")
    assert not [event for event in events if isinstance(event, HitEvent)]
    assert decoder.counts["frames"] == 0


@settings(max_examples=200)
@given(valid_frames(), st.integers(1, 12))
def test_a_truncated_frame_never_hits(frame: bytes, cut: int) -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(frame[: max(0, len(frame) - cut)] + b"\n")
    assert not [event for event in events if isinstance(event, HitEvent)]


@settings(max_examples=100)
@given(st.lists(valid_frames(), min_size=1, max_size=8), st.data())
def test_good_frames_survive_any_chunking(frames: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(frame + b"\r\n" for frame in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = BoardDecoder("oche")
    events = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        events += decoder.feed(stream[start:end])
    hits = [event for event in events if isinstance(event, HitEvent)]
    expected = [decode_frame(frame) for frame in frames]
    assert [(hit.row, hit.col) for hit in hits] == [
        (frame.row, frame.col) for frame in expected if isinstance(frame, Hit)
    ]
