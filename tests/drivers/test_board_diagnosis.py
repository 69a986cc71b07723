"""A board set up wrongly is named once, not reported line by line: a DaSCR
board read at the wrong speed (the bytes a 9600-baud sender gives a port read
at 115200, made by tests/drivers/uart.py: a pty ignores the speed), a DaSCR
board's lines while the protocol is ``oche``, and the other protocol
mix-ups. Bad bytes are quoted one way everywhere."""

from __future__ import annotations

import pytest

from drivers.board_decoder import BoardDecoder, ErrorLimiter
from drivers.board_events import BoardEvent, ButtonEvent, ErrorEvent, HitEvent
from drivers.protocol import Button, FrameError, Hit, encode_frame, quote_bytes
from engine import Bed
from tests.drivers.uart import misread
from tests.paths import REPO

RECORDING = REPO / "tests" / "drivers" / "recordings" / "dascr-session.txt"


def dascr_lines() -> list[bytes]:
    """The board's lines of the recorded DaSCR session, as it printed them."""
    lines = []
    for raw in RECORDING.read_text("utf-8").splitlines():
        if raw.startswith("< "):
            lines.append(raw[2:].encode("ascii") + b"\r\n")
    return lines


DASCR_STREAM = b"".join(dascr_lines())
"""The whole recorded session: hits, b, m, u, a 0, firmware text and noise."""
DASCR_ONLY = b"".join(
    line for line in dascr_lines() if line.strip() in (b"b", b"m", b"u") or len(line) == 5
)
"""Only the session's hits and one-letter lines: what every DaSCR board sends."""

WRONG_SPEED_HINT = (
    "the serial speed is probably wrong; DaSCR and dARts boards send at 9600 baud "
    '(board.protocol = "dascr" sets it), Oche\'s firmware at 115200 (board.baudrate)'
)


HIT = encode_frame(Hit(7, 0, 2))
"""An Oche firmware's T20 (on the test maps), as it sends it."""


def unlimited(protocol: str) -> BoardDecoder:
    """A decoder whose errors are not rate-limited: what it reports once, it reports once."""
    return BoardDecoder(protocol, limiter=ErrorLimiter(0.0))


def feed_in_chunks(decoder: BoardDecoder, data: bytes, size: int = 37) -> list[BoardEvent]:
    events: list[BoardEvent] = []
    for start in range(0, len(data), size):
        events += decoder.feed(data[start : start + size])
    return events


def errors(events: list[BoardEvent]) -> list[ErrorEvent]:
    return [event for event in events if isinstance(event, ErrorEvent)]


# ------------------------------------------------------------- wrong speed


def test_the_junk_is_what_a_9600_baud_board_read_at_115200_gives() -> None:
    junk = misread(DASCR_STREAM)
    assert junk and b"\n" not in junk  # never a line end: one endless line
    assert set(junk) <= {0x00, 0x80, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC, 0xFE, 0xFF}
    assert misread(DASCR_STREAM, 9600, 9600) == DASCR_STREAM  # the right speed reads it all


@pytest.mark.parametrize("protocol", ["dascr", "oche", "darts-codes", "row-col"])
def test_a_board_at_the_wrong_speed_is_one_wrong_speed_error(protocol: str) -> None:
    decoder = unlimited(protocol)
    events = feed_in_chunks(decoder, misread(DASCR_STREAM * 3))
    [error] = errors(events)
    assert events == [error]  # no hits, no error per line
    assert error.kind == "wrong-speed"
    assert error.message.startswith("garbled bytes ('\\x00")
    assert error.message.endswith(f"...): {WRONG_SPEED_HINT}")
    assert decoder.counts["too-long"] >= 1  # the lines themselves are still counted


def test_the_wrong_speed_is_said_again_after_a_reconnect() -> None:
    decoder = unlimited("dascr")
    junk = misread(DASCR_STREAM)
    assert [e.kind for e in errors(feed_in_chunks(decoder, junk))] == ["wrong-speed"]
    decoder.reset()  # the port opened again: it may be another board, or the same one
    assert [e.kind for e in errors(feed_in_chunks(decoder, junk))] == ["wrong-speed"]


def test_the_wrong_speed_the_other_way_is_said_too() -> None:
    """An Oche board (115200) read at 9600: other junk, the same diagnosis."""
    frames = b"".join(encode_frame(Hit(seq, 0, 2)) for seq in range(200))
    junk = misread(frames, 115200, 9600)
    decoder = unlimited("oche")
    assert [e.kind for e in errors(feed_in_chunks(decoder, junk))] == ["wrong-speed"]


def test_a_few_bad_bytes_on_a_good_line_are_noise_not_a_wrong_speed() -> None:
    decoder = unlimited("dascr")
    [error] = decoder.feed(b"3\xe0\x0020\r\n")
    assert isinstance(error, ErrorEvent) and error.kind == "garbage"
    assert decoder.feed(b"320\r\n") == [HitEvent(Bed.parse("T20"))]


# ---------------------------------------------------------- wrong protocol


def test_a_dascr_board_on_the_oche_protocol_is_one_wrong_protocol_error() -> None:
    decoder = unlimited("oche")
    events = feed_in_chunks(decoder, DASCR_ONLY * 2)
    assert events == [
        ErrorEvent(
            "wrong-protocol",
            "this looks like a DaSCR or dARts board (it sent '320'), not the oche protocol: "
            'set board.protocol = "dascr" (9600 baud)',
        )
    ]
    assert decoder.counts["garbage"] == DASCR_ONLY.count(b"\n") * 2  # every line counted


def test_lines_that_are_no_dascr_line_are_still_reported() -> None:
    decoder = unlimited("oche")
    kinds = [e.kind for e in errors(feed_in_chunks(decoder, DASCR_STREAM))]
    # The recording's "0", "Error in Main Loop" and "#~" are no protocol's lines.
    assert kinds == ["wrong-protocol", "garbage", "garbage", "garbage"]


def test_a_stray_dascr_like_line_from_an_oche_board_is_plain_garbage() -> None:
    decoder = unlimited("oche")
    assert decoder.feed(encode_frame(Button(0, 2))) == [ButtonEvent("button-2")]
    [error] = decoder.feed(b"320\r\n")
    assert isinstance(error, ErrorEvent)
    assert (error.kind, error.message) == ("garbage", "not a $BODY*CRC frame: '320'")


@pytest.mark.parametrize(
    ("protocol", "line", "message"),
    [
        (
            "dascr",
            HIT,
            f"this looks like a board with Oche's firmware (it sent '{HIT.decode().strip()}'), "
            'not the dascr protocol: set board.protocol = "oche" (115200 baud)',
        ),
        (
            "oche",
            b"3,7\r\n",
            "this looks like a board that sends row,col lines (it sent '3,7'), not the oche "
            'protocol: set board.protocol = "row-col"',
        ),
        (
            "row-col",
            b"b\r\n",
            "this looks like a DaSCR or dARts board (it sent 'b'), not the row-col protocol: "
            'set board.protocol = "dascr" (9600 baud)',
        ),
    ],
)
def test_other_protocol_mix_ups_name_the_protocol_to_set(
    protocol: str, line: bytes, message: str
) -> None:
    decoder = unlimited(protocol)
    assert decoder.feed(line * 3) == [ErrorEvent("wrong-protocol", message)]


def test_darts_codes_and_dascr_are_one_family() -> None:
    """A DaSCR line on ``darts-codes`` is read, never a wrong protocol."""
    decoder = unlimited("darts-codes")
    events = decoder.feed(DASCR_ONLY)
    assert not [e for e in errors(events) if e.kind == "wrong-protocol"]


# ------------------------------------------------------------------ quoting


def test_bad_bytes_are_quoted_one_way() -> None:
    """As Python writes bytes: a NUL and a high byte both as ``\\xNN``, one
    backslash each (the NUL used to be ``\\x00`` and the high byte ``\\\\xe0``)."""
    assert quote_bytes(b"\x00\xe0A'\\") == 'b"\\x00\\xe0A\'\\\\"'[1:]
    assert str(FrameError("garbage", "bad", b"\x00\xe0")) == "bad: '\\x00\\xe0'"
    decoder = unlimited("dascr")
    [too_long] = decoder.feed(b"\x00\xe0" + b"1" * 40 + b"\n")
    assert isinstance(too_long, ErrorEvent) and too_long.kind == "too-long"
    assert too_long.message == "line longer than 32 bytes: '\\x00\\xe0" + "1" * 40 + "'"
    assert quote_bytes(b"x" * 100).endswith("'...")
