"""The stream decoder every driver shares: maps, compatibility protocols,
sequence gaps and rate-limited errors."""

from __future__ import annotations

import pytest

from drivers.board_decoder import BoardDecoder, ErrorLimiter
from drivers.board_events import (
    ButtonEvent,
    CoinEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
)
from drivers.matrix_map import parse_map
from drivers.protocol import (
    Button,
    Coin,
    Configure,
    FirmwareError,
    Frame,
    Heartbeat,
    Hello,
    Hit,
    Released,
    Stuck,
    encode_frame,
)
from engine import Bed

MAP = parse_map(
    """
[board]
name = "test"
rows = 4
cols = 4

[cells]
"0,0" = "S20"
"0,1" = "S20"
"0,2" = "T20"
"1,0" = "DB"
"3,3" = "button:next"

[buttons]
2 = "undo"
"""
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def wire(*frames: Frame) -> bytes:
    return b"".join(encode_frame(frame) for frame in frames)


def test_cells_become_beds_and_buttons_through_the_map() -> None:
    decoder = BoardDecoder("oche", MAP)
    events = decoder.feed(
        wire(Hit(0, 0, 0), Hit(1, 0, 1), Hit(2, 1, 0), Hit(3, 3, 3), Button(4, 2))
    )
    assert events == [
        HitEvent(Bed.parse("S20"), 0, 0),
        HitEvent(Bed.parse("S20"), 0, 1),
        HitEvent(Bed.parse("DB"), 1, 0),
        ButtonEvent("next"),
        ButtonEvent("undo"),
    ]
    assert decoder.counts["frames"] == 5


def test_without_a_map_hits_carry_only_the_cell() -> None:
    events = BoardDecoder("oche").feed(wire(Hit(0, 2, 3), Button(1, 5)))
    assert events == [HitEvent(None, 2, 3), ButtonEvent("button-5")]


def test_unmapped_and_off_matrix_cells_are_errors_not_hits() -> None:
    decoder = BoardDecoder("oche", MAP)
    events = decoder.feed(wire(Hit(0, 2, 2), Hit(1, 9, 9), Hit(2, 0, 2)))
    assert [type(event) for event in events] == [ErrorEvent, ErrorEvent, HitEvent]
    assert decoder.counts["unmapped-cell"] == 1
    assert decoder.counts["out-of-range"] == 1
    assert "2,2" in events[0].message  # type: ignore[union-attr]


def test_hello_sets_the_matrix_size_used_without_a_map() -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(wire(Hello(0, 1, 2, 2, "v1"), Hit(1, 1, 1), Hit(2, 2, 0)))
    assert decoder.hello == Hello(0, 1, 2, 2, "v1")
    assert events[0] == HitEvent(None, 1, 1)
    assert isinstance(events[1], ErrorEvent) and events[1].kind == "out-of-range"


def test_a_hello_that_disagrees_with_the_map_is_reported() -> None:
    events = BoardDecoder("oche", MAP).feed(wire(Hello(0, 1, 8, 10, "v1")))
    assert [(e.kind) for e in events if isinstance(e, ErrorEvent)] == ["map-mismatch"]


def test_stuck_released_heartbeat_and_firmware_errors() -> None:
    decoder = BoardDecoder("oche", MAP)
    events = decoder.feed(
        wire(Stuck(0, 0, 2), Released(1, 0, 2), Heartbeat(2, 5000), FirmwareError(3, 4))
    )
    assert events[:2] == [StuckEvent(0, 2), ReleasedEvent(0, 2)]
    assert isinstance(events[2], ErrorEvent) and events[2].kind == "firmware"
    assert decoder.uptime_ms == 5000


def test_host_frames_from_the_device_are_rejected() -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(wire(Configure(0, "scan_hz", 500)))
    assert isinstance(events[0], ErrorEvent) and events[0].kind == "unexpected-frame"


def test_sequence_gaps_count_lost_frames_and_wrap_around() -> None:
    decoder = BoardDecoder("oche")
    decoder.feed(wire(Hit(65534, 0, 0), Hit(65535, 0, 0), Hit(0, 0, 0), Hit(5, 0, 0)))
    assert decoder.counts["lost-frames"] == 4
    decoder.feed(wire(Hello(0, 1, 4, 4, "rebooted"), Hit(1, 0, 0)))
    assert decoder.counts["lost-frames"] == 4


def test_reset_drops_a_partial_line_and_the_sequence() -> None:
    decoder = BoardDecoder("oche")
    decoder.feed(wire(Hit(7, 0, 0)) + b"$H,8,0")
    decoder.reset()
    events = decoder.feed(wire(Hit(100, 1, 1)))
    assert events == [HitEvent(None, 1, 1)]
    assert decoder.counts["lost-frames"] == 0


def test_over_long_line_is_dropped_whole_and_the_next_frame_survives() -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(b"$" + b"9" * 300 + wire(Hit(1, 0, 0))[1:] + wire(Hit(2, 1, 1)))
    assert [type(e) for e in events] == [ErrorEvent, HitEvent]
    assert decoder.counts["too-long"] == 1


def test_nul_bytes_and_blank_lines() -> None:
    decoder = BoardDecoder("oche")
    events = decoder.feed(b"\x00\x00\x00\n\n\r\n" + wire(Hit(1, 0, 0)))
    assert [type(e) for e in events] == [ErrorEvent, HitEvent]
    assert decoder.counts["garbage"] == 1


def test_errors_are_rate_limited_per_kind_and_say_how_many_were_held() -> None:
    clock = FakeClock()
    decoder = BoardDecoder("oche", limiter=ErrorLimiter(interval=1.0, clock=clock))
    first = decoder.feed(b"junk\n" * 50)
    assert len(first) == 1
    assert decoder.counts["garbage"] == 50
    clock.now = 1.5
    later = decoder.feed(b"junk\n")
    assert len(later) == 1
    assert "49 more" in later[0].message  # type: ignore[union-attr]


def test_the_limiter_lets_each_key_through_once_an_interval_and_counts_the_rest() -> None:
    """What the remote host's per-sender reports use: keys are independent,
    and a key's held-back count is said with its next report."""
    clock = FakeClock()
    limiter = ErrorLimiter(interval=10.0, clock=clock)
    assert [limiter.let_through("pub3") for _ in range(4)] == ["", None, None, None]
    assert limiter.let_through("pub4") == ""
    clock.now = 10.0
    assert limiter.let_through("pub3") == " (and 3 more since the last report)"
    assert limiter.let_through("pub3") is None
    assert limiter.let_through("pub4") == ""  # quiet for an interval: through again
    clock.now = 25.0
    assert limiter.let_through("pub3") == " (and 1 more since the last report)"


@pytest.mark.parametrize(
    ("line", "bed"),
    [
        (b"120", "S20"),
        (b"220", "D20"),
        (b"320", "T20"),
        (b"101", "S1"),
        (b"125", "SB"),
        (b"225", "DB"),
    ],
)
def test_darts_codes(line: bytes, bed: str) -> None:
    assert BoardDecoder("darts-codes").feed(line + b"\r\n") == [HitEvent(Bed.parse(bed))]


@pytest.mark.parametrize("line", [b"325", b"121", b"100", b"020", b"12", b"1200", b"abc", b"T20"])
def test_bad_darts_codes_are_errors(line: bytes) -> None:
    decoder = BoardDecoder("darts-codes")
    events = decoder.feed(line + b"\n")
    assert [type(e) for e in events] == [ErrorEvent]
    assert decoder.counts["frames"] == 0


def test_row_col_lines_go_through_the_map() -> None:
    decoder = BoardDecoder("row-col", MAP)
    events = decoder.feed(b"0,2\n 1 , 0 \n3,3\n2,2\nx,y\n")
    assert events[:3] == [
        HitEvent(Bed.parse("T20"), 0, 2),
        HitEvent(Bed.parse("DB"), 1, 0),
        ButtonEvent("next"),
    ]
    assert [e.kind for e in events[3:] if isinstance(e, ErrorEvent)] == ["unmapped-cell", "garbage"]


def test_unknown_protocol_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown board protocol 'nmea'"):
        BoardDecoder("nmea")


def test_a_gap_is_reported_even_when_the_frame_after_it_is_rejected() -> None:
    decoder = BoardDecoder("oche", MAP, limiter=ErrorLimiter(interval=1.0, clock=FakeClock()))
    events = decoder.feed(wire(Hit(0, 0, 0), Hit(5, 9, 0)))
    kinds = [event.kind for event in events if isinstance(event, ErrorEvent)]
    assert kinds == ["lost-frames", "out-of-range"]
    assert decoder.counts["lost-frames"] == 4


def test_a_coin_frame_is_a_coin_event_with_its_count_and_boot() -> None:
    decoder = BoardDecoder()
    events = decoder.feed(
        wire(Hello(0, 1, 4, 4, "fw"), Coin(1, 1, 0, "3F2A9C01"), Coin(1, 2, 0, "3F2A9C01"))
        + wire(Hit(1, 0, 0), Coin(2, 1, 1, "3F2A9C01"), Coin(2, 2, 65535, "3F2A9C01"))
    )
    assert events == [
        CoinEvent(1, 0, "3F2A9C01"),
        CoinEvent(2, 0, "3F2A9C01"),
        HitEvent(None, 0, 0),
        CoinEvent(1, 1, "3F2A9C01"),
        CoinEvent(2, 65535, "3F2A9C01"),
    ]
    assert decoder.counts["frames"] == 6
    assert decoder.counts["lost-frames"] == 0


def test_a_gap_before_a_coin_frame_is_counted_once() -> None:
    decoder = BoardDecoder(limiter=ErrorLimiter(0))
    events = decoder.feed(wire(Hit(0, 0, 0), Coin(3, 1, 4, "0000ABCD"), Hit(3, 0, 1)))
    assert events == [
        HitEvent(None, 0, 0),
        ErrorEvent("lost-frames", "2 frame(s) lost before seq 3"),
        CoinEvent(1, 4, "0000ABCD"),
        HitEvent(None, 0, 1),
    ]
    assert decoder.counts["lost-frames"] == 2
