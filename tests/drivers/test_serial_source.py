"""The serial source end to end over real pseudo-terminals.

The source is always given a symlink (as udev gives a board
``/dev/oche-board``) that :class:`FakeBoard` points at its pty; frames are
written to the pty's master side. Every wait has a timeout, so a broken
driver fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import select
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers import serial_source
from drivers.board_decoder import BoardDecoder
from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
)
from drivers.factory import BoardSpec, open_board
from drivers.matrix_map import parse_map
from drivers.protocol import (
    Configure,
    FirmwareSettings,
    Hello,
    HelloRequest,
    Hit,
    Released,
    Stuck,
    encode_frame,
)
from drivers.serial_source import SerialSource
from engine import Bed
from mqtt_client.backoff import Backoff
from tests.drivers.pty_board import FakeBoard
from tests.drivers.pty_firmware import FirmwareOnPty
from tests.firmware.mcu import main as firmware_main
from tests.paths import REPO

pytestmark = pytest.mark.skipif(
    not hasattr(os, "openpty") or not os.path.isdir("/proc/self/fd"),
    reason="needs POSIX pseudo-terminals and /proc",
)

MAP_TEXT = """\
[board]
name = "Test board"
rows = 8
cols = 10

[cells]
"0,0" = "S20"
"0,1" = "S20"
"0,2" = "T20"
"0,3" = "D20"
"1,0" = "S19"
"2,0" = "SB"
"2,1" = "DB"
"7,9" = "button:next"

[buttons]
0 = "undo"
"""
MATRIX = parse_map(MAP_TEXT, "test-map.toml")
T20, S20, S19, DB = Bed.parse("T20"), Bed.parse("S20"), Bed.parse("S19"), Bed.parse("DB")
WAIT = 10.0  # for anything that must happen: generous, for a busy machine
"""Seconds any single expected event may take."""

OCHE = Path(sys.executable).parent / "oche"
DEFAULT_SIGINT = (
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
)
"""Runs a command with SIGINT at its default: a shell starts background jobs
with SIGINT ignored, and a Python started so would never see Ctrl-C."""


def fast_backoff() -> Backoff:
    return Backoff(0.02, 0.1)


class Collector:
    """Reads a source in a background task and lets a test wait for events."""

    def __init__(self, source: SerialSource) -> None:
        self.source = source
        self.events: list[BoardEvent] = []
        self.ended = False
        self._position = 0
        self._wake = asyncio.Event()
        self.task = asyncio.create_task(self._pump())

    async def _pump(self) -> None:
        try:
            async for event in self.source:
                self.events.append(event)
                self._wake.set()
        finally:
            self.ended = True
            self._wake.set()

    async def next(self, predicate: Callable[[BoardEvent], bool], timeout: float = WAIT) -> Any:
        """The next event (after those already returned) matching ``predicate``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            while self._position < len(self.events):
                event = self.events[self._position]
                self._position += 1
                if predicate(event):
                    return event
            if self.ended:
                raise AssertionError(f"the source ended; events: {self.events}")
            self._wake.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no matching event in {timeout} s; events: {self.events}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), remaining)

    async def next_of(self, kind: type[BoardEvent], timeout: float = WAIT) -> Any:
        return await self.next(lambda event: isinstance(event, kind), timeout)

    def of(self, kind: type[BoardEvent]) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]


@contextlib.asynccontextmanager
async def running(source: SerialSource) -> AsyncIterator[Collector]:
    collector = Collector(source)
    try:
        yield collector
    finally:
        await asyncio.wait_for(source.close(), WAIT)
        await asyncio.wait_for(collector.task, WAIT)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[FakeBoard]:
    with FakeBoard(tmp_path / "oche-board") as fake:
        yield fake


def serial(board: FakeBoard, protocol: str = "oche", matrix: Any = MATRIX) -> SerialSource:
    return SerialSource(str(board.link), protocol=protocol, matrix=matrix, backoff=fast_backoff())


async def connect(board: FakeBoard, events: Collector) -> None:
    """Wait for the connection (and, for the oche protocol, the hello request)."""
    connected = await events.next_of(ConnectedEvent)
    assert connected == ConnectedEvent(str(board.link))
    if events.source.protocol == "oche":
        await board.read_until(b"$?,")


# ------------------------------------------------------------ construction


def test_the_constructor_does_no_io_and_has_the_documented_defaults() -> None:
    source = SerialSource("/nonexistent/oche-board")
    assert source.name == "serial"
    assert source.port == "/nonexistent/oche-board"
    assert source.baudrate == 115200
    assert source.protocol == "oche"
    assert isinstance(source.decoder, BoardDecoder)
    assert source.decoder.matrix is None
    assert (source.backoff.start, source.backoff.cap, source.backoff.jitter) == (0.2, 5.0, 0)
    assert not source.connected


def test_bad_settings_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="protocol"):
        SerialSource("/dev/null", protocol="morse")
    with pytest.raises(ValueError, match="baud"):
        SerialSource("/dev/null", baudrate=0)


def test_the_factory_builds_a_serial_source(tmp_path: Path) -> None:
    map_file = tmp_path / "board.toml"
    map_file.write_text(MAP_TEXT, encoding="utf-8")
    spec = BoardSpec(driver="serial", port="/dev/oche-board", baudrate=9600, map_path=str(map_file))
    source = open_board(spec)
    assert isinstance(source, SerialSource)
    assert (source.port, source.baudrate, source.protocol) == ("/dev/oche-board", 9600, "oche")
    assert source.decoder.matrix == MATRIX


# ------------------------------------------------------------ good input


async def test_hits_buttons_and_stuck_cells_arrive_with_segments_from_the_map(
    board: FakeBoard,
) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        await board.write(board.hello())
        frames = [
            board.hit(0, 2),
            board.hit(2, 1),
            board.hit(0, 1),
            board.hit(7, 9),
            board.button(0),
            board.button(3),
            board.frame(Stuck(board.seq, 2, 5)),
            board.frame(Released(board.seq, 2, 5)),
            board.heartbeat(1234),
            board.hit(1, 0),
        ]
        await board.write(b"".join(frames))
        await events.next(lambda event: event == HitEvent(S19, 1, 0))
    assert events.events == [
        ConnectedEvent(str(board.link)),
        HitEvent(T20, 0, 2),
        HitEvent(DB, 2, 1),
        HitEvent(S20, 0, 1),
        ButtonEvent("next"),
        ButtonEvent("undo"),
        ButtonEvent("button-3"),
        StuckEvent(2, 5),
        ReleasedEvent(2, 5),
        HitEvent(S19, 1, 0),
    ]
    assert source.decoder.hello == Hello(0, 1, 8, 10, "fake-1.0")
    assert source.decoder.uptime_ms == 1234
    assert source.decoder.counts == {"frames": 11}


async def test_each_chunk_is_read_without_a_select_first(
    board: FakeBoard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dart's bytes are read at once: pyserial's read selects on the port
    before every read, a system call telling the loop what it already knows."""
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        selects: list[Any] = []
        real_select = select.select

        def counting_select(*args: Any) -> Any:
            selects.append(args)
            return real_select(*args)

        monkeypatch.setattr(select, "select", counting_select)
        for row in range(3):
            await board.write(board.hit(row, 0))
            assert (await events.next_of(HitEvent)).row == row
        monkeypatch.undo()
    assert selects == []


async def test_without_a_map_hits_carry_only_the_cell(board: FakeBoard) -> None:
    source = serial(board, matrix=None)
    async with running(source) as events:
        await connect(board, events)
        await board.write(board.hit(3, 7))
        assert await events.next_of(HitEvent) == HitEvent(None, 3, 7)


async def test_the_hello_request_is_written_on_connect_with_host_sequence_numbers(
    board: FakeBoard,
) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        assert board.read_now() == encode_frame(HelloRequest(0))
        board.clear()
        assert await source.request_hello()
        assert await source.configure("debounce_ms", 30)
        expected = encode_frame(HelloRequest(1)) + encode_frame(Configure(2, "debounce_ms", 30))
        assert await board.read_until(expected) == expected
        with pytest.raises(ValueError, match="setting"):
            await source.configure("volume", 3)


async def test_send_writes_bytes_to_the_device_and_is_ignored_when_not_connected(
    board: FakeBoard,
) -> None:
    board.unplug()
    source = serial(board)
    async with running(source) as events:
        await events.next_of(DisconnectedEvent)
        await source.send(b"dropped\n")  # not connected: ignored, no error
        assert not await source.request_hello()
        board.plug()
        await connect(board, events)
        assert source.connected
        await source.send(b"$C,7,scan_hz=500*0000\n")
        received = await board.read_until(b"scan_hz=500*0000\n")
        assert b"dropped" not in received


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_frames_split_across_arbitrary_chunk_boundaries(board: FakeBoard, seed: int) -> None:
    rng = random.Random(seed)
    cells = [(0, 2), (2, 1), (1, 0), (0, 0)] * 5
    stream = b"".join(board.hit(*cell) for cell in cells)
    stream = stream.replace(b"\n", b"\r\n", 3)  # CRLF line ends are fine too
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        offset = 0
        while offset < len(stream):
            size = rng.choice([1, 1, 2, 3, 5, 7, 13, 40])
            await board.write(stream[offset : offset + size])
            offset += size
            await asyncio.sleep(0.001)  # let the driver read this piece on its own
        for row, col in cells:
            event = await events.next_of(HitEvent)
            assert (event.row, event.col) == (row, col)
    assert source.decoder.counts == {"frames": len(cells)}


async def test_many_frames_in_one_write(board: FakeBoard) -> None:
    source = serial(board)
    mapped = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (2, 0), (2, 1)]
    cells = [mapped[index % len(mapped)] for index in range(120)]
    stream = b"".join(board.hit(*cell) for cell in cells)
    assert len(stream) < 4096  # one write, one pty buffer
    async with running(source) as events:
        await connect(board, events)
        await board.write(stream)
        await events.next(lambda event: len(events.of(HitEvent)) == len(cells))
    assert [(event.row, event.col) for event in events.of(HitEvent)] == cells
    assert [event.segment for event in events.of(HitEvent)] == [MATRIX.lookup(*c) for c in cells]
    assert source.decoder.counts == {"frames": len(cells)}


# ------------------------------------------------------------ bad input


async def test_bad_lines_among_good_frames_are_counted_never_hits(board: FakeBoard) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        good_1 = board.hit(0, 0)
        bad = [
            b"$H,1,3,7*C66C\n",  # crc
            b"$H,1,3,7*c66d\n",  # crc: lower-case digits
            b"hello there\n",  # garbage
            b"$H,1,0,\x002*1234\n",  # garbage: a NUL byte
            b"\x00\x00\x00\n",  # garbage: NUL bytes only
            b"\xff\xfe\xfd$H\n",  # garbage twice: not ASCII before "$", then "$H"
            b"$" + b"A" * 199 + b"\n",  # too-long: a 200-byte line
            b"$X,1,3,7*F116\n",  # unknown-type
        ]
        good_2 = board.hit(0, 2)
        off_matrix = board.hit(9, 0)  # out-of-range: a valid frame (it keeps the sequence)
        unmapped = board.hit(5, 5)  # unmapped-cell: a valid frame
        good_3 = board.hit(1, 0)
        await board.write(good_1 + b"".join(bad) + good_2 + off_matrix + unmapped + good_3)
        await events.next(lambda event: event == HitEvent(S19, 1, 0))
    assert events.of(HitEvent) == [HitEvent(S20, 0, 0), HitEvent(T20, 0, 2), HitEvent(S19, 1, 0)]
    assert source.decoder.counts == {
        "frames": 4,  # the three hits and the unmapped cell
        "crc": 2,
        "garbage": 5,
        "too-long": 1,
        "unknown-type": 1,
        "out-of-range": 1,
        "unmapped-cell": 1,
    }
    errors = events.of(ErrorEvent)
    assert {error.kind for error in errors} == {
        "crc",
        "garbage",
        "too-long",
        "unknown-type",
        "out-of-range",
        "unmapped-cell",
    }
    # rate-limited: one report per kind within the interval, not one per line
    assert len(errors) == 6
    assert all(error.message for error in errors)


async def test_a_sequence_gap_is_counted_as_lost_frames(board: FakeBoard) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        board.seq = 65534
        stream = board.hit(0, 0) + board.hit(0, 0) + board.hit(0, 0) + board.hit(0, 0)  # wraps
        board.seq += 3  # three frames lost on the wire
        stream += board.hit(0, 2)
        await board.write(stream)
        gap = await events.next_of(ErrorEvent)
        assert await events.next_of(HitEvent) == HitEvent(T20, 0, 2)
    assert board.seq == 6
    assert gap.kind == "lost-frames"
    assert "3 frame(s) lost" in gap.message
    assert source.decoder.counts["lost-frames"] == 3
    assert len(events.of(HitEvent)) == 5


async def test_a_hello_starts_a_new_count(board: FakeBoard) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        await board.write(board.hit(0, 0) + board.hit(0, 0) + board.hello() + board.hit(0, 2))
        assert await events.next(lambda event: event == HitEvent(T20, 0, 2))
    assert source.decoder.counts["lost-frames"] == 0
    assert events.of(ErrorEvent) == []


# ------------------------------------------------------------ reconnecting


async def test_unplug_and_replug_mid_stream(board: FakeBoard) -> None:
    source = serial(board)
    async with running(source) as events:
        await connect(board, events)
        # A hit, then half a frame: "$H,5,0," whose rest "2*CRC" follows the replug.
        whole = encode_frame(Hit(5, 0, 2))
        partial, rest = whole[:7], whole[7:]
        assert partial == b"$H,5,0,"
        board.seq = 4
        await board.write(board.hit(0, 0) + partial)
        assert await events.next_of(HitEvent) == HitEvent(S20, 0, 0)
        await asyncio.sleep(0.1)  # the partial frame is read too
        board.unplug()
        lost = await events.next_of(DisconnectedEvent)
        assert lost.source == str(board.link)
        assert lost.reason
        # Reopening fails for another reason (the port is gone): said once more.
        missing = await events.next_of(DisconnectedEvent)
        assert missing.reason == "cannot open: No such file or directory: is the board plugged in?"
        await asyncio.sleep(0.3)  # several quiet reopen attempts
        assert events.events[-1] == missing
        board.plug()
        await connect(board, events)
        assert source.connected
        # The new board restarted: its sequence begins at 0 again.
        await board.write(rest + board.hit(1, 0))
        assert await events.next_of(HitEvent) == HitEvent(S19, 1, 0)
    assert events.of(HitEvent) == [HitEvent(S20, 0, 0), HitEvent(S19, 1, 0)]
    assert len(events.of(DisconnectedEvent)) == 2  # lost, then why it cannot be reopened
    assert len(events.of(ConnectedEvent)) == 2
    # Not glued to "$H,5,0," (which would be a T20 and a gap): the rest is garbage.
    assert source.decoder.counts["garbage"] == 1
    assert source.decoder.counts["lost-frames"] == 0


class ReplugOnWait(Backoff):
    """A backoff that records every delay the source asks for and plugs the
    board back in at the first one, so the board is there for the first retry."""

    def __init__(self, board: FakeBoard) -> None:
        super().__init__(0.02, 0.1)
        self.board = board
        self.delays: list[float] = []

    def next_delay(self) -> float:
        delay = super().next_delay()
        self.delays.append(delay)
        if not self.board.plugged:
            self.board.plug()
        return delay


async def test_a_silent_board_replugged_again_and_again_is_back_at_the_first_retry(
    board: FakeBoard,
) -> None:
    """A board that never sends a byte (no heartbeats, like dARts firmware):
    each replug is found by the first retry after the loss, with the shortest
    delay, because opening the port resets the backoff."""
    backoff = ReplugOnWait(board)
    source = SerialSource(str(board.link), protocol="darts-codes", backoff=backoff)
    async with running(source) as events:
        await connect(board, events)
        for cycle in range(1, 5):
            board.unplug()
            await events.next_of(DisconnectedEvent)
            await connect(board, events)
            assert backoff.delays == [backoff.start] * cycle  # one wait, the shortest
    assert len(events.of(ConnectedEvent)) == 5
    assert len(events.of(DisconnectedEvent)) == 4
    assert source.decoder.counts == {}


async def test_a_missing_port_at_start_gives_one_event_then_connects(board: FakeBoard) -> None:
    board.unplug()
    source = serial(board)
    async with running(source) as events:
        missing = await events.next_of(DisconnectedEvent)
        assert missing.source == str(board.link)
        assert "No such file" in missing.reason
        await asyncio.sleep(0.4)  # many retries with the fast backoff, all quiet
        assert events.events == [missing]
        board.plug()
        await connect(board, events)
        await board.write(board.hit(0, 2))
        assert await events.next_of(HitEvent) == HitEvent(T20, 0, 2)


SOURCE_LOG = "drivers.serial_source"


def source_log(caplog: pytest.LogCaptureFixture, level: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == SOURCE_LOG and r.levelname == level]


async def test_a_missing_port_is_a_warning_once_and_its_return_is_info(
    board: FakeBoard, caplog: pytest.LogCaptureFixture
) -> None:
    """At the default log level a port that is not there is said, once,
    naming the port and the OS error; the retries are quiet; the port
    opening again is said; a loss and another missing spell are said again."""
    caplog.set_level("INFO", SOURCE_LOG)
    board.unplug()
    source = serial(board)
    port = str(board.link)
    missing = f"serial {port}: cannot open: No such file or directory: is the board plugged in?"
    async with running(source) as events:
        await events.next_of(DisconnectedEvent)
        await asyncio.sleep(0.4)  # many retries with the fast backoff
        assert source_log(caplog, "WARNING") == [f"{missing} (retrying until it opens)"]
        board.plug()
        await connect(board, events)
        assert f"serial {port}: connected" in source_log(caplog, "INFO")
        board.unplug()
        await events.next_of(DisconnectedEvent)  # lost
        await events.next_of(DisconnectedEvent)  # cannot be reopened
        await asyncio.sleep(0.3)
        assert source_log(caplog, "WARNING") == [f"{missing} (retrying until it opens)"] * 2


async def test_a_port_that_cannot_be_opened_for_another_reason_is_said_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reason changes from "no such file" to "permission denied" (a
    device node with no access): a second warning, with the new reason and
    its fix, and a second event."""
    caplog.set_level("INFO", SOURCE_LOG)
    port = tmp_path / "oche-board"
    source = SerialSource(str(port), backoff=fast_backoff())
    async with running(source) as events:
        first = await events.next_of(DisconnectedEvent)
        assert first.reason == "cannot open: No such file or directory: is the board plugged in?"
        port.write_text("")
        port.chmod(0)
        if os.access(port, os.R_OK | os.W_OK):  # root reads anything: a directory then
            port.unlink()
            port.mkdir()
        second = await events.next_of(DisconnectedEvent)
        assert second.reason.startswith("cannot open: ")
        assert second.reason != first.reason
        await asyncio.sleep(0.3)
        warnings = source_log(caplog, "WARNING")
        assert warnings == [
            f"serial {port}: {first.reason} (retrying until it opens)",
            f"serial {port}: {second.reason} (retrying until it opens)",
        ]
        assert len(events.of(DisconnectedEvent)) == 2


async def test_close_ends_iteration_promptly_and_releases_the_port(board: FakeBoard) -> None:
    source = serial(board)
    events = Collector(source)
    await connect(board, events)
    assert board.host_fds() == 1
    await asyncio.wait_for(source.close(), 1.0)
    assert board.host_fds() == 0  # released when close() returns, not some time later
    await asyncio.wait_for(events.task, 1.0)
    assert events.ended
    assert not source.connected
    await asyncio.wait_for(source.close(), 1.0)  # twice is fine


async def test_close_while_waiting_to_reconnect_is_prompt(board: FakeBoard) -> None:
    board.unplug()
    source = SerialSource(str(board.link), backoff=Backoff(5.0, 5.0))
    events = Collector(source)
    await events.next_of(DisconnectedEvent)
    await asyncio.wait_for(source.close(), 1.0)
    await asyncio.wait_for(events.task, 1.0)
    assert events.ended


# ------------------------------------------------------------ compatibility protocols


async def test_the_darts_codes_protocol(board: FakeBoard) -> None:
    source = serial(board, protocol="darts-codes", matrix=None)
    async with running(source) as events:
        await connect(board, events)
        await board.write(b"320\n120\r\n225\nabc\n999\n1234\n125\n")
        assert await events.next(lambda event: event == HitEvent(Bed.parse("SB")))
        await asyncio.sleep(0.05)
        assert board.read_now() == b""  # no oche hello request to foreign firmware
    assert events.of(HitEvent) == [
        HitEvent(T20),
        HitEvent(S20),
        HitEvent(DB),
        HitEvent(Bed.parse("SB")),
    ]
    assert source.decoder.counts == {"frames": 4, "garbage": 1, "firmware-text": 1, "fields": 1}
    assert {error.kind for error in events.of(ErrorEvent)} == {"garbage", "firmware-text", "fields"}


async def test_the_row_col_protocol(board: FakeBoard) -> None:
    source = serial(board, protocol="row-col")
    async with running(source) as events:
        await connect(board, events)
        await board.write(b"0,2\n9,9\nx,y\n5,5\n1,0\n")
        assert await events.next(lambda event: event == HitEvent(S19, 1, 0))
        assert board.read_now() == b""
    assert events.of(HitEvent) == [HitEvent(T20, 0, 2), HitEvent(S19, 1, 0)]
    assert source.decoder.counts == {
        "frames": 3,
        "out-of-range": 1,
        "garbage": 1,
        "unmapped-cell": 1,
    }


# ------------------------------------------------------------ oche monitor


async def test_oche_monitor_prints_serial_events_as_json(tmp_path: Path, board: FakeBoard) -> None:
    map_file = tmp_path / "board.toml"
    map_file.write_text(MAP_TEXT, encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        *DEFAULT_SIGINT,
        str(OCHE),
        "monitor",
        "--driver",
        "serial",
        "--port",
        str(board.link),
        "--map",
        str(map_file),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout is not None

    async def line() -> Any:
        assert process.stdout is not None
        text = await asyncio.wait_for(process.stdout.readline(), 10)
        assert text, "oche monitor ended early"
        return json.loads(text)

    try:
        assert await line() == {"type": "connected", "source": str(board.link)}
        await board.read_until(encode_frame(HelloRequest(0)), timeout=10)
        await board.write(board.hit(0, 2) + b"$H,1,3,7*C66C\n")
        assert await line() == {"type": "hit", "segment": "T20", "row": 0, "col": 2}
        error = await line()
        assert (error["type"], error["kind"]) == ("error", "crc")
        assert "CRC" in error["message"]
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), 10)
        assert process.returncode == 0, stderr.decode()
        assert b"Traceback" not in stderr
        assert b"CRC" not in stderr  # board errors come once, as JSON on stdout
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


# ------------------------------------------------------------ firmware settings

SETTINGS_LOG = "drivers.serial_source"


async def logged(caplog: pytest.LogCaptureFixture, text: str, count: int = 1) -> list[str]:
    """Wait until the source has logged ``text`` ``count`` times; its lines that say it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        lines = [r.getMessage() for r in caplog.records if r.name == SETTINGS_LOG]
        found = [line for line in lines if text in line]
        if len(found) >= count:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"no {text!r} in the log: {lines}")
        await asyncio.sleep(0.01)


def with_firmware(board: FakeBoard, **settings: int) -> SerialSource:
    return SerialSource(
        str(board.link),
        matrix=MATRIX,
        backoff=fast_backoff(),
        firmware=FirmwareSettings.of(settings),
    )


async def test_the_firmware_settings_are_sent_and_the_real_firmware_takes_them(
    board: FakeBoard, caplog: pytest.LogCaptureFixture
) -> None:
    """The board's firmware (booting as the port opens: two hellos) is sent
    each setting, takes it, and the source says so in one line; darts still
    arrive meanwhile."""
    caplog.set_level("INFO", SETTINGS_LOG)
    source = with_firmware(board, scan_hz=2000, debounce_ms=30)
    async with FirmwareOnPty(board) as device, running(source) as events:
        await events.next_of(ConnectedEvent)
        device.hit(0, 2)
        assert (await events.next_of(HitEvent)).segment == T20
        [line] = await logged(caplog, "took its firmware settings")
        assert line == (
            f"serial {board.link}: the board took its firmware settings: "
            "debounce_ms=30, scan_hz=2000"
        )
        assert (device.firmware.debounce_ms, device.firmware.scan_hz) == (30, 2000)
        sent = board.read_now()
        assert sent.startswith(encode_frame(HelloRequest(0)))
        assert encode_frame(Configure(1, "debounce_ms", 30)) in sent
        assert sent.index(b"debounce_ms=30") < sent.index(b"scan_hz=2000")  # the table's order
        assert not [r for r in caplog.records if r.levelname == "WARNING"]


async def test_a_restarted_board_is_sent_the_settings_again(
    board: FakeBoard, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", SETTINGS_LOG)
    source = with_firmware(board, stuck_ms=5000)
    async with FirmwareOnPty(board) as device, running(source) as events:
        await logged(caplog, "took its firmware settings: stuck_ms=5000")
        board.unplug()
        await events.next_of(DisconnectedEvent)
        board.plug()
        device.restart()  # power-cycled: back to the defaults of its oche_config.py
        assert device.firmware.stuck_ms == 2000
        await events.next_of(ConnectedEvent)
        await logged(caplog, "took its firmware settings: stuck_ms=5000", count=2)
        assert device.firmware.stuck_ms == 5000


async def test_a_setting_the_firmware_refuses_is_logged_and_the_others_are_taken(
    board: FakeBoard, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older firmware whose scan rate stops at 1000 Hz answers scan_hz=2000
    with E 3: the warning names that setting, and the one before was taken."""
    monkeypatch.setitem(firmware_main.SETTINGS, "scan_hz", (100, 1000, 1000))
    caplog.set_level("INFO", SETTINGS_LOG)
    source = with_firmware(board, debounce_ms=25, scan_hz=2000, stuck_ms=3000)
    async with FirmwareOnPty(board) as device, running(source):
        [line] = await logged(caplog, "refused")
        assert line == (
            f"serial {board.link}: the board refused firmware setting scan_hz=2000 "
            "(E 3: a setting out of range); it took debounce_ms=25, stuck_ms=3000"
        )
        assert (device.firmware.debounce_ms, device.firmware.stuck_ms) == (25, 3000)
        assert device.firmware.scan_hz == 1000
        assert [r.levelname for r in caplog.records if "refused" in r.getMessage()] == ["WARNING"]


async def test_a_board_that_never_says_hello_is_sent_no_settings(
    board: FakeBoard, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A board that does not answer ``?`` (still in its bootloader, another
    firmware): one warning, nothing sent, and the source reads on."""
    monkeypatch.setattr(serial_source, "ANSWER_TIMEOUT", 0.2)
    source = with_firmware(board, debounce_ms=30)
    async with running(source) as events:
        await events.next_of(ConnectedEvent)
        [line] = await logged(caplog, "did not say hello")
        assert line == (
            f"serial {board.link}: the board did not say hello within 0.2 s; "
            "firmware settings not sent (debounce_ms=30)"
        )
        assert b"$C," not in board.read_now()
        await board.write(board.frame(Hit(3, 0, 2)))
        assert (await events.next_of(HitEvent)).segment == T20


async def test_a_board_that_stops_answering_mid_way_is_logged(
    board: FakeBoard, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serial_source, "ANSWER_TIMEOUT", 0.2)
    source = with_firmware(board, debounce_ms=30, scan_hz=500)
    async with running(source) as events:
        await events.next_of(ConnectedEvent)
        await board.read_until(b"$?,0*")
        await board.write(board.hello())
        await board.read_until(b"debounce_ms=30")
        await board.write(board.hello())  # takes it, then falls silent
        [line] = await logged(caplog, "did not answer")
        assert line == (
            f"serial {board.link}: the board did not answer scan_hz=500 within 0.2 s "
            "(it took debounce_ms=30)"
        )


def test_firmware_settings_need_the_oche_protocol() -> None:
    settings = FirmwareSettings.of({"debounce_ms": 30})
    with pytest.raises(ValueError, match="a board speaking darts-codes has none"):
        SerialSource("/dev/null", protocol="darts-codes", firmware=settings)
    with pytest.raises(ValueError, match="a board speaking row-col has none"):
        open_board(BoardSpec(port="/dev/null", protocol="row-col", firmware=settings))
    source = open_board(BoardSpec(port="/dev/null", firmware=settings))
    assert isinstance(source, SerialSource) and source.firmware == settings


def test_firmware_settings_are_checked_and_kept_in_the_table_order() -> None:
    settings = FirmwareSettings.of({"scan_hz": 2000, "debounce_ms": 30})
    assert settings.values == (("debounce_ms", 30), ("scan_hz", 2000))
    assert str(settings) == "debounce_ms=30, scan_hz=2000"
    with pytest.raises(ValueError, match="scan_hz must be a whole number from 100 to 10000"):
        FirmwareSettings.of({"scan_hz": 20000})
    with pytest.raises(ValueError, match="unknown board setting 'settle_us'"):
        FirmwareSettings.of({"settle_us": 10})
    with pytest.raises(ValueError, match="given twice"):
        FirmwareSettings((("scan_hz", 200), ("scan_hz", 300)))


def test_firmware_settings_for_a_board_without_firmware_are_logged_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = FirmwareSettings.of({"scan_hz": 2000})
    source = open_board(BoardSpec(driver="simulated", script="T20", firmware=settings))
    assert not isinstance(source, SerialSource)
    assert [r.getMessage() for r in caplog.records if r.name == "drivers.factory"] == [
        "firmware settings (scan_hz=2000) are not sent: only a serial board takes them, "
        "not simulated"
    ]
