"""Wire protocol v1: the documented vectors, the CRC, and a fuzzed decoder
that never raises and never turns damaged input into a hit."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import protocol
from drivers.board_decoder import BoardDecoder
from drivers.board_events import ErrorEvent, HitEvent
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
from drivers.serial_source import SerialSource
from tests.firmware.mcu import frames
from tests.paths import REPO
from tests.protocol_vectors import (
    InvalidVector,
    SettingRow,
    StreamVector,
    ValidVector,
    invalid_vectors,
    settings_table,
    stream_vectors,
    valid_vectors,
)

SETTINGS = settings_table()
HOST_SETTINGS = [row for row in SETTINGS if row.host_may_set]


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


def test_the_host_knows_the_documented_settings_a_c_frame_may_set() -> None:
    assert len(HOST_SETTINGS) >= 3 and len(SETTINGS) > len(HOST_SETTINGS)
    assert tuple(row.name for row in HOST_SETTINGS) == protocol.CONFIG_KEYS
    assert [
        (s.name, s.unit, s.minimum, s.maximum, s.default) for s in protocol.SETTINGS.values()
    ] == [(row.name, row.unit, row.minimum, row.maximum, row.default) for row in HOST_SETTINGS]


@pytest.mark.parametrize("row", HOST_SETTINGS, ids=lambda row: row.name)
async def test_the_host_accepts_exactly_the_documented_range(row: SettingRow) -> None:
    """The check, what the serial source agrees to send and what the decoder
    reads all take minimum..maximum and refuse one past either end, with an
    error that names the setting and its range."""
    source = SerialSource("/dev/null")  # never connected: checks, then sends nothing
    for value in (row.minimum, row.maximum):
        assert protocol.check_setting(row.name, value) == value
        assert await source.configure(row.name, value) is False
        frame = Configure(1, row.name, value)
        assert decode_frame(encode_frame(frame)[:-1]) == frame
    refused = f"{row.name} must be a whole number from {row.minimum} to {row.maximum} "
    for value in (row.minimum - 1, row.maximum + 1):
        with pytest.raises(ValueError, match=refused):
            protocol.check_setting(row.name, value)
        with pytest.raises(ValueError, match=refused):
            await source.configure(row.name, value)
        if value >= 0:  # a frame cannot carry a negative number
            with pytest.raises(FrameError, match=f"{row.name} {value} is outside") as caught:
                decode_frame(encode_frame(Configure(1, row.name, value))[:-1])
            assert caught.value.kind == "fields"
    for value in (True, str(row.default), float(row.default)):
        with pytest.raises(ValueError, match=refused):
            protocol.check_setting(row.name, value)


@pytest.mark.parametrize(
    "row", [row for row in SETTINGS if not row.host_may_set], ids=lambda row: row.name
)
async def test_the_host_never_sends_a_setting_only_oche_config_holds(row: SettingRow) -> None:
    with pytest.raises(ValueError, match=f"unknown board setting '{row.name}'"):
        protocol.check_setting(row.name, row.default)
    with pytest.raises(ValueError, match=f"unknown board setting '{row.name}'"):
        await SerialSource("/dev/null").configure(row.name, row.default)
    with pytest.raises(FrameError, match="unknown setting") as caught:
        decode_frame(encode_frame(Configure(1, row.name, row.default))[:-1])
    assert caught.value.kind == "fields"


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


@pytest.mark.parametrize("vector", stream_vectors(), ids=lambda v: v.line.decode())
def test_noisy_and_torn_lines_cost_only_themselves(vector: StreamVector) -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(vector.line + b"\n")
    frames = [decode_frame(frame) for frame in vector.frames]
    assert decoder.counts["garbage"] == vector.rejected
    host_frames = decoder.counts["unexpected-frame"]  # "?" and "C" are no board frames
    assert decoder.counts["frames"] + host_frames == len(frames)
    assert [(e.row, e.col) for e in events if isinstance(e, HitEvent)] == [
        (f.row, f.col) for f in frames if isinstance(f, Hit)
    ]
    torn = [e for e in events if isinstance(e, ErrorEvent) and e.kind == "garbage"]
    assert len(torn) == min(1, vector.rejected)  # rate-limited, but always reported


def test_a_torn_frame_is_named_in_its_error() -> None:
    [torn, hit] = BoardDecoder("oche").feed(b"$H,5,0,$H,1,3,7*C66D\n")
    assert isinstance(torn, ErrorEvent) and torn.kind == "garbage"
    assert "torn" in torn.message and "$H,5,0," in torn.message
    assert hit == HitEvent(None, 3, 7)


def test_a_hello_for_another_protocol_is_refused_and_says_which() -> None:
    decoder = BoardDecoder("oche")
    [error] = decoder.feed(b"$I,0,2,8,10,oche-mcu-2.0.0*D494\n")
    assert isinstance(error, ErrorEvent) and error.kind == "fields"
    assert "protocol 2" in error.message and "$I,0,2,8,10" in error.message
    assert decoder.hello is None


def noise() -> st.SearchStrategy[bytes]:
    """Any bytes but a line end: what a board reset or line noise leaves."""
    return st.binary(max_size=200).filter(lambda data: b"\n" not in data)


@settings(max_examples=300)
@given(noise(), valid_frames())
def test_a_valid_frame_after_any_noise_on_its_line_is_decoded_exactly(
    garbage: bytes, frame: bytes
) -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(garbage + frame + b"\n")
    expected = decode_frame(frame)
    assert isinstance(expected, Hit)
    assert [e for e in events if isinstance(e, HitEvent)] == [
        HitEvent(None, expected.row, expected.col)
    ]
    assert decoder.counts["frames"] == 1


@settings(max_examples=100)
@given(st.lists(st.tuples(noise(), valid_frames()), min_size=1, max_size=6), st.data())
def test_frames_after_noise_survive_any_chunking(
    lines: list[tuple[bytes, bytes]], data: st.DataObject
) -> None:
    stream = b"".join(garbage + frame + b"\n" for garbage, frame in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = BoardDecoder("oche")
    events = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        events += decoder.feed(stream[start:end])
    hits = [(e.row, e.col) for e in events if isinstance(e, HitEvent)]
    expected = [decode_frame(frame) for _, frame in lines]
    assert hits == [(f.row, f.col) for f in expected if isinstance(f, Hit)]


@settings(max_examples=200)
@given(valid_frames(), st.integers(1, 12), valid_frames())
def test_a_frame_torn_by_a_reset_costs_only_itself(first: bytes, cut: int, second: bytes) -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(first[: max(1, len(first) - cut)] + second + b"\n")
    expected = decode_frame(second)
    assert isinstance(expected, Hit)
    assert [e for e in events if isinstance(e, HitEvent)] == [
        HitEvent(None, expected.row, expected.col)
    ]
    assert decoder.counts["garbage"] == 1


def test_the_host_names_every_firmware_error_code_as_the_firmware_docs_do() -> None:
    codes = {frames.ERR_BAD_FRAME, frames.ERR_UNKNOWN_SETTING, frames.ERR_OUT_OF_RANGE}
    assert set(protocol.FIRMWARE_ERRORS) == {*codes, frames.ERR_OVERRUN}
    table = (REPO / "docs" / "firmware.md").read_text("utf-8").split("## Error codes", 1)[1]
    documented = dict(re.findall(r"^\| `(\d)` \| ([^|]+?) \|", table, re.M))
    assert {int(code): text for code, text in documented.items()} == protocol.FIRMWARE_ERRORS


@settings(max_examples=200)
@given(
    st.integers(0, 65535),
    st.integers(1, protocol.MAX_COIN_INPUT),
    st.integers(0, protocol.COUNT_MODULO - 1),
    st.integers(0, 2**32 - 1),
)
def test_a_coin_frame_round_trips_and_the_firmware_encodes_it_alike(
    seq: int, coin_input: int, count: int, boot: int
) -> None:
    frame = protocol.Coin(seq, coin_input, count, f"{boot:08X}")
    line = encode_frame(frame)
    assert len(line) - 1 <= MAX_LINE
    assert protocol.decode_frame(line.rstrip(b"\n")) == frame
    assert frames.encode(frames.COIN, seq, (coin_input, count, f"{boot:08X}")) == line


def test_coin_frames_are_the_only_extension_and_old_hosts_reject_them_by_type(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert {"P"} == protocol.EXTENSION_TYPES
    line = encode_frame(protocol.Coin(3, 1, 7, "3F2A9C01")).rstrip(b"\n")
    v1 = {letter: cls for letter, cls in protocol.FRAME_TYPES.items() if letter != "P"}
    monkeypatch.setattr(protocol, "FRAME_TYPES", v1)  # a host from before coins
    with pytest.raises(FrameError) as caught:
        protocol.decode_frame(line)
    assert caught.value.kind == "unknown-type"
