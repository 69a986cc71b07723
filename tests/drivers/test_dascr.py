"""DaSCR/dARts boards: every line their firmware sends decoded, the ``dascr``
preset, and the takeout watch (``1``/``2``) written to a board on a real
pseudo-terminal, again after it comes back."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.board_decoder import PROTOCOLS, BoardDecoder, ErrorLimiter
from drivers.board_events import (
    ButtonEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
    TakeoutEvent,
)
from drivers.factory import SENSORS, BoardSpec, open_board, preset
from drivers.serial_source import SerialSource
from engine import Bed
from firmware_bridge.cli.command_support import UsageError, add_board_arguments, board_spec
from tests.drivers.pty_board import FakeBoard
from tests.drivers.test_serial_source import Collector, fast_backoff, running

DASCR_LINES = ("darts-codes", "dascr")
"""Both protocol names decode a DaSCR board's lines."""


class Clock:
    """A hand-moved clock for the error limiter."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# ------------------------------------------------------------------ decoding


def test_dascr_is_a_protocol() -> None:
    assert "dascr" in PROTOCOLS
    assert "darts-codes" in PROTOCOLS


@pytest.mark.parametrize("protocol", DASCR_LINES)
@pytest.mark.parametrize(
    ("line", "bed"),
    [
        (b"120", "S20"),
        (b"220", "D20"),
        (b"320", "T20"),
        (b"125", "SB"),
        (b"225", "DB"),
        (b"301", "T1"),
    ],
)
def test_hits(protocol: str, line: bytes, bed: str) -> None:
    decoder = BoardDecoder(protocol)
    assert decoder.feed(line + b"\r\n") == [HitEvent(Bed.parse(bed))]
    assert decoder.counts == {"frames": 1}


@pytest.mark.parametrize("protocol", DASCR_LINES)
@pytest.mark.parametrize(
    ("line", "event"),
    [(b"b", ButtonEvent("next")), (b"m", ButtonEvent("miss")), (b"u", TakeoutEvent())],
)
def test_the_one_letter_lines(protocol: str, line: bytes, event: object) -> None:
    decoder = BoardDecoder(protocol)
    assert decoder.feed(line + b"\r\n") == [event]
    assert decoder.counts == {"frames": 1}


@pytest.mark.parametrize("protocol", DASCR_LINES)
def test_a_zero_is_no_bed_noise_not_garbage(protocol: str) -> None:
    decoder = BoardDecoder(protocol)
    [error] = decoder.feed(b"0\r\n")
    assert isinstance(error, ErrorEvent)
    assert error.kind == "fields"
    assert "no bed" in error.message
    assert decoder.counts == {"fields": 1}


def test_zeros_are_rate_limited_and_counted() -> None:
    clock = Clock()
    decoder = BoardDecoder("dascr", limiter=ErrorLimiter(1.0, clock))
    events = decoder.feed(b"0\r\n0\r\n0\r\n320\r\n")
    assert [type(e) for e in events] == [ErrorEvent, HitEvent]  # one report, the hit kept
    assert decoder.counts == {"fields": 3, "frames": 1}
    clock.now = 2.0
    [later] = decoder.feed(b"0\r\n")
    assert isinstance(later, ErrorEvent)
    assert "and 2 more since the last report" in later.message


@pytest.mark.parametrize("protocol", DASCR_LINES)
def test_firmware_text_is_an_error_quoting_it(protocol: str) -> None:
    decoder = BoardDecoder(protocol)
    [error] = decoder.feed(b"Error in Main Loop\r\n")
    assert isinstance(error, ErrorEvent)
    assert error.kind == "firmware-text"
    assert "'Error in Main Loop'" in error.message
    assert decoder.counts == {"firmware-text": 1}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (b"#$%", "garbage"),
        (b"12", "garbage"),
        (b"1200", "garbage"),
        (b"\xff\xfe", "garbage"),
        (b"325", "fields"),
        (b"121", "fields"),
        (b"100", "fields"),
        (b"T20", "firmware-text"),
        (b"B", "firmware-text"),
        (b"uu", "firmware-text"),
    ],
)
def test_other_lines_are_errors_never_hits(line: bytes, kind: str) -> None:
    decoder = BoardDecoder("dascr")
    [error] = decoder.feed(line + b"\r\n")
    assert isinstance(error, ErrorEvent)
    assert error.kind == kind
    assert decoder.counts["frames"] == 0


def test_a_session_split_anywhere_decodes_the_same() -> None:
    stream = b"320\r\n0\r\nb\r\nm\r\nu\r\n125\r\nError in Main Loop\r\n225\r\n"
    whole = BoardDecoder("dascr", limiter=ErrorLimiter(0.0)).feed(stream)
    for cut in range(1, len(stream)):
        decoder = BoardDecoder("dascr", limiter=ErrorLimiter(0.0))
        assert decoder.feed(stream[:cut]) + decoder.feed(stream[cut:]) == whole
    assert [e for e in whole if not isinstance(e, ErrorEvent)] == [
        HitEvent(Bed.parse("T20")),
        ButtonEvent("next"),
        ButtonEvent("miss"),
        TakeoutEvent(),
        HitEvent(Bed.parse("SB")),
        HitEvent(Bed.parse("DB")),
    ]


def test_the_oche_protocol_does_not_read_dascr_letters() -> None:
    decoder = BoardDecoder("oche")
    assert all(isinstance(e, ErrorEvent) for e in decoder.feed(b"u\r\nb\r\n"))


# ------------------------------------------------------------------ preset


def test_the_dascr_preset() -> None:
    assert preset("dascr").baudrate == 9600
    assert preset("dascr").sensors == SENSORS == ("button", "piezo", "ultrasonic")
    assert preset("darts-codes").baudrate == 115200
    assert preset("darts-codes").sensors == ()


def command_line(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_board_arguments(parser)
    return parser.parse_args(argv)


def test_protocol_dascr_on_the_command_line() -> None:
    spec = board_spec(command_line("--port", "/dev/oche-board", "--protocol", "dascr"))
    assert (spec.protocol, spec.baudrate) == ("dascr", 9600)
    assert spec.sensors == ("button", "piezo", "ultrasonic")
    given = board_spec(
        command_line("--port", "/dev/oche-board", "--protocol", "dascr", "--baudrate", "19200")
    )
    assert given.baudrate == 19200  # a speed given explicitly wins
    plain = board_spec(command_line("--port", "/dev/oche-board"))
    assert (plain.protocol, plain.baudrate, plain.sensors) == ("oche", 115200, ())


def test_unknown_sensors_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown sensor 'radar'; a board may have button"):
        BoardSpec(port="/dev/x", protocol="dascr", sensors=("radar",)).check()
    with pytest.raises(ValueError, match="sensor 'piezo' is named twice"):
        BoardSpec(port="/dev/x", protocol="dascr", sensors=("piezo", "piezo")).check()
    with pytest.raises(UsageError):
        board_spec(command_line("--protocol", "dascr"))  # no port: still checked


def test_the_factory_gives_the_serial_source_its_sensors() -> None:
    spec = BoardSpec(port="/dev/oche-board", baudrate=9600, protocol="dascr", sensors=SENSORS)
    source = open_board(spec)
    assert isinstance(source, SerialSource)
    assert (source.baudrate, source.sensors, source.watches_takeout) == (9600, SENSORS, True)


# ------------------------------------------------------------- takeout watch


@pytest.fixture
def board(tmp_path: Path) -> Iterator[FakeBoard]:
    with FakeBoard(tmp_path / "oche-board") as fake:
        yield fake


def dascr(
    board: FakeBoard, protocol: str = "dascr", sensors: tuple[str, ...] = SENSORS
) -> SerialSource:
    return SerialSource(str(board.link), 9600, protocol, sensors=sensors, backoff=fast_backoff())


async def connected(events: Collector) -> None:
    await events.next(lambda event: isinstance(event, ConnectedEvent))


async def drained(source: SerialSource) -> None:
    """Every write asked of the source has reached the pty (the transport
    writes at once unless the pty is full, which a few bytes never make it)."""
    transport = source._transport
    for _ in range(1000):  # 10 s at most: generous, for a busy machine
        if transport is None or transport.get_write_buffer_size() == 0:
            return
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("protocol", DASCR_LINES)
async def test_the_watch_is_written_once_per_change(board: FakeBoard, protocol: str) -> None:
    source = dascr(board, protocol)
    async with running(source) as events:
        await connected(events)
        for on in (True, True, False, False, True, False):
            await source.watch_takeout(on)
        await board.read_until(b"1\n2\n1\n2\n")
        await drained(source)
        assert board.read_now() == b"1\n2\n1\n2\n"  # never the same value twice in a row
        await board.write(b"u\r\n")
        assert await events.next(lambda event: isinstance(event, TakeoutEvent)) == TakeoutEvent()


async def test_the_watch_is_sent_again_after_a_reconnect(board: FakeBoard) -> None:
    source = dascr(board)
    async with running(source) as events:
        await connected(events)
        await source.watch_takeout(True)
        await board.read_until(b"1\n")
        board.unplug()
        await events.next(lambda event: isinstance(event, DisconnectedEvent))
        await source.watch_takeout(True)  # unchanged while away: nothing new to send
        board.plug()
        await connected(events)
        assert await board.read_until(b"1\n") == b"1\n"  # the board back is told again
        await source.watch_takeout(False)
        assert await board.read_until(b"2\n") == b"1\n2\n"


async def test_a_watch_asked_while_away_reaches_the_board_when_it_is_back(
    board: FakeBoard,
) -> None:
    board.unplug()
    source = dascr(board)
    async with running(source) as events:
        await events.next(lambda event: isinstance(event, DisconnectedEvent))
        await source.watch_takeout(False)
        board.plug()
        await connected(events)
        assert await board.read_until(b"2\n") == b"2\n"


async def test_no_writes_to_a_fresh_board_before_it_is_asked(board: FakeBoard) -> None:
    source = dascr(board)
    async with running(source) as events:
        await connected(events)
        await board.write(b"320\r\n")  # read after anything written at the connect
        await events.next(lambda event: isinstance(event, HitEvent))
        await drained(source)
        assert board.read_now() == b""


@pytest.mark.parametrize(
    ("protocol", "sensors"),
    [
        ("dascr", ("button", "piezo")),  # no ultrasonic sensor
        ("darts-codes", ()),
        ("row-col", SENSORS),
        ("oche", SENSORS),  # never to Oche's own firmware
    ],
)
async def test_no_watch_is_written_without_the_sensor(
    board: FakeBoard, protocol: str, sensors: tuple[str, ...]
) -> None:
    source = dascr(board, protocol, sensors)
    assert not source.watches_takeout
    async with running(source) as events:
        await connected(events)
        if protocol == "oche":
            await board.read_until(b"$?,")
            board.clear()
        await source.watch_takeout(True)
        await source.watch_takeout(False)
        await drained(source)
        assert board.read_now() == b""
