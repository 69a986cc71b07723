"""The whole firmware (firmware_bridge/mcu/main.py) on a simulated board: a
fake ``machine`` module, a simulated clock and host, and the host's own
decoder (drivers.board_decoder) reading what it sends."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import protocol
from drivers.board_decoder import BoardDecoder
from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
)
from drivers.matrix_map import parse_map
from engine import Bed
from tests.firmware.fake_machine import (
    IN,
    OUT,
    PULL_UP,
    SimulatedBoard,
    SimulatedClock,
    SimulatedHost,
)
from tests.firmware.mcu import MCU_DIR, compat, main, matrix_scan, oche_config
from tests.protocol_vectors import (
    InvalidVector,
    StreamVector,
    invalid_vectors,
    stream_vectors,
)

ROWS = (2, 3, 4, 5)
COLS = (10, 11, 12)
BUTTONS = (20, 21)
HELLO = ("I", 1, 4, 3, main.FIRMWARE)


def host_line(frame: protocol.Frame) -> bytes:
    return protocol.encode_frame(frame)


class Rig:
    """A firmware on a simulated 4x3 board; ``frames`` are what it sent,
    ``events`` what the host's decoder made of them."""

    def __init__(
        self,
        buttons: tuple[int, ...] = (),
        start_us: int = 0,
        map_toml: str | None = None,
        period: int = compat.TICKS_PERIOD,
    ) -> None:
        self.clock = SimulatedClock(start_us, period)
        self.board = SimulatedBoard(ROWS, COLS, buttons, self.clock)
        self.host = SimulatedHost()
        self.sent = bytearray()
        self.config = main.Config(ROWS, COLS, buttons)
        self.firmware = main.Firmware(
            self.config,
            pin=self.board.Pin,
            host=self.host,
            write=self.sent.extend,
            clock=self.clock,
        )
        self.decoder = BoardDecoder(matrix=parse_map(map_toml) if map_toml else None)
        self.frames: list[protocol.Frame] = []
        self.events: list[BoardEvent] = []
        self._read = 0

    def boot(self) -> None:
        self.firmware.boot()
        self._collect()

    def scan_ms(self, ms: int) -> list[protocol.Frame]:
        """Run the loop for ``ms`` of simulated time; the frames it sent."""
        before = len(self.frames)
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.firmware.loop(1)
        self._collect()
        return self.frames[before:]

    def _collect(self) -> None:
        data = bytes(self.sent[self._read :])
        self._read = len(self.sent)
        for line in data.splitlines():
            self.frames.append(protocol.decode_frame(line))
        self.events += self.decoder.feed(data)

    def tap(self, cell: tuple[int, int], ms: int = 5) -> list[protocol.Frame]:
        """A dart: the contact closes for ``ms``, then opens."""
        self.board.closed.add(cell)
        sent = self.scan_ms(ms)
        self.board.closed.discard(cell)
        return sent

    def send(self, frame: protocol.Frame) -> list[protocol.Frame]:
        self.host.send(host_line(frame))
        return self.scan_ms(1)


def kinds(frames: list[protocol.Frame]) -> list[tuple[Any, ...]]:
    return [(f.TYPE, *(int(x) if x.isdigit() else x for x in f.fields())) for f in frames]


@pytest.fixture
def rig() -> Rig:
    rig = Rig()
    rig.boot()
    return rig


def test_boot_says_hello_with_the_matrix_size(rig: Rig) -> None:
    assert rig.sent.startswith(b"$I,0,1,4,3,oche-mcu-")
    assert kinds(rig.frames) == [HELLO]
    assert rig.decoder.hello == protocol.Hello(0, 1, 4, 3, main.FIRMWARE)


def test_a_contact_is_a_hit_at_its_cell(rig: Rig) -> None:
    assert kinds(rig.tap((2, 1))) == [("H", 2, 1)]
    assert rig.events == [HitEvent(None, 2, 1)]
    assert rig.frames[-1] == protocol.Hit(1, 2, 1)


def test_the_host_maps_the_cell_to_its_bed() -> None:
    rig = Rig(map_toml='[board]\nname = "t"\nrows = 4\ncols = 3\n[cells]\n"3,2" = "T20"\n')
    rig.boot()
    rig.tap((3, 2))
    assert rig.events == [HitEvent(Bed.parse("T20"), 3, 2)]


def test_every_cell_of_the_matrix_reaches_the_host(rig: Rig) -> None:
    for row in range(len(ROWS)):
        for col in range(len(COLS)):
            rig.tap((row, col))
            rig.scan_ms(60)
    cells = [(e.row, e.col) for e in rig.events if isinstance(e, HitEvent)]
    assert cells == [(r, c) for r in range(len(ROWS)) for c in range(len(COLS))]
    assert rig.decoder.counts["lost-frames"] == 0


def test_a_bouncy_contact_is_one_hit(rig: Rig) -> None:
    for _ in range(3):
        rig.tap((1, 1), ms=1)
        rig.scan_ms(1)
    rig.scan_ms(100)
    assert kinds(rig.frames[1:]) == [("H", 1, 1)]


def test_a_heartbeat_every_second_with_the_uptime(rig: Rig) -> None:
    assert rig.scan_ms(1000) == []
    assert kinds(rig.scan_ms(1)) == [("K", 1000)]
    assert kinds(rig.scan_ms(1000)) == [("K", 2000)]
    assert rig.decoder.uptime_ms == 2000


@pytest.mark.parametrize("period", [1 << 16, 1 << 30, 1 << 62])
def test_the_heartbeat_goes_on_across_the_tick_wrap(period: int) -> None:
    """Right for any ticks period: 2**30 on a Pico or an ESP32, 2**62 on the
    64-bit unix port (both ms and us ticks wrap within the run)."""
    rig = Rig(start_us=(period - 300) * 1000, period=period)  # ms ticks wrap in 300 ms
    rig.boot()
    rig.scan_ms(250)
    rig.tap((0, 0))  # its lock spans the wrap
    rig.scan_ms(20)
    rig.tap((0, 0))  # inside the lock: no hit
    rig.scan_ms(2000)
    assert kinds(rig.frames) == [HELLO, ("H", 0, 0), ("K", 1000), ("K", 2000)]


def test_a_hello_request_is_answered_with_a_hello(rig: Rig) -> None:
    rig.scan_ms(5)
    assert kinds(rig.send(protocol.HelloRequest(4))) == [HELLO]
    assert rig.frames[-1].seq == 1  # the count goes on
    assert rig.decoder.counts["lost-frames"] == 0


def test_a_setting_changes_the_lock(rig: Rig) -> None:
    def two_taps_60_ms_apart() -> list[tuple[Any, ...]]:
        before = len(rig.frames)
        rig.tap((0, 2))
        rig.scan_ms(55)
        rig.tap((0, 2))
        rig.scan_ms(200)
        return kinds(rig.frames[before:])

    assert two_taps_60_ms_apart() == [("H", 0, 2), ("H", 0, 2)]
    assert rig.send(protocol.Configure(1, "debounce_ms", 80)) == []
    assert rig.firmware.debounce_ms == 80
    assert two_taps_60_ms_apart() == [("H", 0, 2)]


def test_scan_hz_changes_the_scan_rate(rig: Rig) -> None:
    def scans_in_one_second() -> int:
        rig.board.log.clear()
        start = rig.clock.us
        while rig.clock.us - start < 1_000_000:
            rig.firmware.loop(1)
        return sum(1 for entry in rig.board.log if entry[:3] == ("init", ROWS[0], OUT))

    assert scans_in_one_second() == 1000
    rig.send(protocol.Configure(2, "scan_hz", 500))
    assert scans_in_one_second() == 500


def test_stuck_limit_can_be_set(rig: Rig) -> None:
    rig.send(protocol.Configure(1, "stuck_ms", 500))
    rig.board.closed.add((1, 0))
    assert kinds(rig.scan_ms(600)) == [("H", 1, 0), ("S", 1, 0)]


def test_a_stuck_cell_is_reported_masked_and_released(rig: Rig) -> None:
    rig.board.closed.add((3, 2))
    assert kinds(rig.scan_ms(1999)) == [("H", 3, 2), ("K", 1000)]
    assert kinds(rig.scan_ms(2)) == [("S", 3, 2), ("K", 2000)]
    assert kinds(rig.tap((0, 0))) == [("H", 0, 0)]  # the rest of the board works
    rig.board.closed.discard((3, 2))
    assert kinds(rig.scan_ms(100)) == [("R", 3, 2)]
    assert kinds(rig.tap((3, 2))) == [("H", 3, 2)]
    assert [e for e in rig.events if not isinstance(e, HitEvent)] == [
        StuckEvent(3, 2),
        ReleasedEvent(3, 2),
    ]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (protocol.Configure(1, "debounce_ms", 0), 3),
        (protocol.Configure(1, "debounce_ms", 251), 3),
        (protocol.Configure(1, "stuck_ms", 100), 3),
        (protocol.Configure(1, "scan_hz", 20), 3),
        (protocol.Configure(1, "scan_hz", 1_000_000), 3),
    ],
)
def test_a_setting_out_of_range_is_error_3(rig: Rig, frame: protocol.Frame, code: int) -> None:
    assert kinds(rig.send(frame)) == [("E", code)]
    assert (rig.firmware.debounce_ms, rig.firmware.stuck_ms, rig.firmware.scan_hz) == (
        40,
        2000,
        1000,
    )
    assert rig.events == [ErrorEvent("firmware", f"firmware error code {code}")]


@pytest.mark.parametrize("vector", invalid_vectors(), ids=lambda v: v.line.decode())
def test_a_bad_host_line_is_error_1_and_an_unknown_setting_error_2(
    rig: Rig, vector: InvalidVector
) -> None:
    rig.host.send(vector.line + b"\r\n")
    code = 2 if vector.line == b"$C,1,volume=3*D38F" else 1
    # A "$" inside a line starts a new frame: the piece before it is a bad frame too.
    assert kinds(rig.scan_ms(1)) == [("E", code)] * max(1, vector.line.count(b"$"))


@pytest.mark.parametrize("vector", stream_vectors(), ids=lambda v: v.line.decode())
def test_noisy_and_torn_host_lines_cost_only_themselves(rig: Rig, vector: StreamVector) -> None:
    rig.host.send(vector.line + b"\n")
    sent = kinds(rig.scan_ms(1))
    requests = sum(frame.startswith(b"$?,") for frame in vector.frames)
    settings = sum(frame.startswith(b"$C,") for frame in vector.frames)
    errors = vector.rejected + len(vector.frames) - requests - settings
    assert sent.count(HELLO) == requests
    assert sent.count(("E", 1)) == errors
    assert len(sent) == requests + errors
    for frame in vector.frames:
        setting = protocol.decode_frame(frame)
        if isinstance(setting, protocol.Configure):
            assert getattr(rig.firmware, setting.key) == setting.value
    assert rig.firmware.debounce_ms == 40  # a torn setting is never applied


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=150).filter(lambda noise: b"\n" not in noise))
def test_a_host_frame_after_any_noise_on_its_line_is_read(noise: bytes) -> None:
    rig = Rig()
    rig.boot()
    rig.host.send(noise + host_line(protocol.Configure(3, "debounce_ms", 77)))
    rig.scan_ms(1)
    assert rig.firmware.debounce_ms == 77


def test_an_overlong_host_line_is_one_error_and_the_next_line_works(rig: Rig) -> None:
    rig.host.send(b"$" + b"x" * 200)
    assert kinds(rig.scan_ms(1)) == [("E", 1)]
    rig.host.send(b"y" * 50 + b"\n\n\r\n" + host_line(protocol.HelloRequest(9)))
    assert kinds(rig.scan_ms(1)) == [HELLO]


def test_host_lines_may_arrive_in_pieces(rig: Rig) -> None:
    line = host_line(protocol.HelloRequest(9))
    rig.host.send(line[:5])
    assert rig.scan_ms(1) == []
    rig.host.send(line[5:])
    assert kinds(rig.scan_ms(1)) == [HELLO]


def test_a_slow_scan_is_reported_as_an_overrun_once_a_second(rig: Rig) -> None:
    rig.board.read_cost_us = 250  # 12 reads: 3 ms for a 1 ms period
    sent = rig.scan_ms(3000)
    overruns = [f for f in sent if isinstance(f, protocol.FirmwareError)]
    assert [f.code for f in overruns] == [4] * len(overruns)
    assert len(overruns) == 3  # seconds 0, 1 and 2
    assert rig.decoder.counts["firmware"] == len(overruns)
    rig.board.read_cost_us = 0
    rig.scan_ms(1500)
    assert not [f for f in rig.scan_ms(2000) if isinstance(f, protocol.FirmwareError)]


def test_dedicated_buttons_are_b_frames() -> None:
    rig = Rig(buttons=BUTTONS)
    rig.boot()
    rig.board.pressed.add(1)
    assert kinds(rig.scan_ms(5)) == [("B", 1)]
    rig.board.pressed.clear()
    rig.scan_ms(60)
    rig.board.pressed.add(0)
    rig.scan_ms(3000)  # held: one press, and no S frame (buttons have none)
    rig.board.pressed.clear()
    rig.scan_ms(100)
    rig.board.pressed.add(0)
    rig.scan_ms(5)
    assert [f for f in kinds(rig.frames) if f[0] != "K"] == [HELLO, ("B", 1), ("B", 0), ("B", 0)]
    assert [e for e in rig.events if isinstance(e, ButtonEvent)] == [
        ButtonEvent("button-1"),
        ButtonEvent("button-0"),
        ButtonEvent("button-0"),
    ]


@pytest.mark.slow
def test_a_long_session_loses_no_frames(rig: Rig) -> None:
    for second in range(70):
        rig.tap((second % 4, second % 3))
        rig.scan_ms(995)
    rig.scan_ms(1)
    assert rig.decoder.counts["lost-frames"] == 0
    assert not [e for e in rig.events if isinstance(e, ErrorEvent)]
    assert sum(isinstance(e, HitEvent) for e in rig.events) == 70
    assert rig.decoder.uptime_ms == 70_000


# ---------------------------------------------------------------- pins


def test_the_scan_drives_reads_and_releases_each_row_in_turn() -> None:
    board = SimulatedBoard((2, 3), (10, 11, 12))
    scanner = matrix_scan.MatrixScanner((2, 3), (10, 11, 12), 7, board.Pin, board.sleep_us)
    assert board.log == [("init", pin, IN, PULL_UP, None) for pin in (2, 3, 10, 11, 12)]
    board.log.clear()
    board.closed = {(1, 2)}
    assert scanner.scan() == 1
    assert scanner.raw == bytearray([0, 0, 0, 0, 0, 1])
    assert scanner.closed_cells() == {(1, 2)}
    row = [
        [
            ("init", pin, OUT, -1, 0),
            ("sleep", 7),
            ("read", 10, 1),
            ("read", 11, 1),
            ("read", 12, level),
            ("init", pin, IN, PULL_UP, None),
        ]
        for pin, level in ((2, 1), (3, 0))
    ]
    assert board.log == row[0] + row[1]
    assert board.driven_rows() == []


def test_a_scan_rewrites_the_same_raw_matrix() -> None:
    board = SimulatedBoard((2, 3), (10, 11))
    scanner = matrix_scan.MatrixScanner((2, 3), (10, 11), 0, board.Pin, board.sleep_us)
    raw = scanner.raw
    board.closed = {(0, 1), (1, 0)}
    assert scanner.scan() == 2
    board.closed = set()
    assert scanner.scan() == 0
    assert scanner.raw is raw and not any(raw)


def test_several_closed_cells_are_all_found() -> None:
    board = SimulatedBoard(ROWS, COLS)
    scanner = matrix_scan.MatrixScanner(ROWS, COLS, 0, board.Pin, board.sleep_us)
    board.closed = {(0, 0), (3, 2), (2, 1)}
    assert scanner.scan() == 3
    assert scanner.closed_cells() == {(0, 0), (3, 2), (2, 1)}


def test_the_machine_module_is_used_when_no_pin_class_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    board = SimulatedBoard(ROWS, COLS, BUTTONS)
    monkeypatch.setitem(sys.modules, "machine", board.machine)
    scanner = matrix_scan.MatrixScanner(ROWS, COLS, 0, sleep=board.sleep_us)
    buttons = matrix_scan.ButtonReader(BUTTONS)
    board.closed = {(1, 1)}
    board.pressed = {1}
    assert scanner.scan() == 1 and scanner.closed_cells() == {(1, 1)}
    assert buttons.scan() == 1 and buttons.pressed() == {1}


def test_without_a_machine_module_the_scanner_says_so() -> None:
    assert "machine" not in sys.modules
    with pytest.raises(ImportError):
        matrix_scan.MatrixScanner(ROWS, COLS)


# ---------------------------------------------------------------- config


def test_the_shipped_config_is_valid() -> None:
    config = main.Config.from_module(oche_config)
    assert (len(config.row_pins), len(config.col_pins)) == (8, 10)
    assert (config.debounce_ms, config.stuck_ms, config.scan_hz) == (40, 2000, 1000)
    assert config.button_pins == ()


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"row_pins": ()}, "row_pins"),
        ({"col_pins": tuple(range(300))}, "col_pins"),
        ({"button_pins": tuple(range(30, 47))}, "button_pins"),
        ({"col_pins": (10, 11, 2)}, "pin 2 is used twice"),
        ({"debounce_ms": 0}, "debounce_ms"),
        ({"stuck_ms": "2000"}, "stuck_ms"),
        ({"scan_hz": 50}, "scan_hz"),
        ({"settle_us": -1}, "settle_us"),
        ({"debounce_ms": True}, "debounce_ms"),
    ],
)
def test_a_bad_config_names_the_setting(changes: dict[str, Any], named: str) -> None:
    settings: dict[str, Any] = {"row_pins": ROWS, "col_pins": COLS, **changes}
    with pytest.raises(ValueError, match=named):
        main.Config(**settings)


# ---------------------------------------------------------------- device I/O


def test_stream_input_reads_what_is_there_without_blocking() -> None:
    read_end, write_end = os.pipe()
    with open(read_end, "rb", buffering=0) as stream:
        host = main.StreamInput(stream, limit=8)
        assert host.read() == b""
        os.write(write_end, b"$?,4*1054\n")
        assert host.read() == b"$?,4*105"
        assert host.read() == b"4\n"
        assert host.read() == b""
    os.close(write_end)


DEVICE = """
import runpy, sys
from tests.firmware.fake_machine import SimulatedBoard
from tests.firmware.mcu import MCU_DIR, oche_config
board = SimulatedBoard(oche_config.row_pins, oche_config.col_pins)
board.closed = {(7, 9)}
sys.modules["machine"] = board.machine
sys.path.insert(0, str(MCU_DIR))
runpy.run_path(str(MCU_DIR / "main.py"), run_name="__main__")
"""


def test_main_runs_the_firmware_on_stdin_and_stdout() -> None:
    """main.py as the board runs it (``__main__``), in a child process with a
    fake ``machine`` module: hello, the closed cell, a hello on request and
    a heartbeat come out on stdout."""
    root = MCU_DIR.parents[1]
    child = subprocess.Popen(
        [sys.executable, "-c", DEVICE],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        got: list[protocol.Frame] = []

        def until(kind: type[protocol.Frame]) -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                line = child.stdout.readline()  # type: ignore[union-attr]
                assert line, child.stderr.read().decode() if child.stderr else ""
                got.append(protocol.decode_frame(line.rstrip(b"\r\n")))
                if isinstance(got[-1], kind):
                    return
            raise AssertionError(f"no {kind.__name__} frame: {got}")

        until(protocol.Hit)
        child.stdin.write(host_line(protocol.HelloRequest(1)))
        child.stdin.flush()
        until(protocol.Hello)
        until(protocol.Heartbeat)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert got[0] == protocol.Hello(0, 1, 8, 10, main.FIRMWARE)
    assert protocol.Hit(1, 7, 9) in got
    assert sum(isinstance(f, protocol.Hello) for f in got) == 2
