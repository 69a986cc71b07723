"""Coin mechanisms: the pulse filter against time tables (coin_tables.py) at
several scan rates, under CPython and the real MicroPython; then the whole
firmware on a simulated board with coin lines, read by the host's decoder,
and by a v1 host that does not know ``P`` frames."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from drivers import protocol
from drivers.board_decoder import BoardDecoder
from drivers.board_events import CoinEvent, ErrorEvent, HitEvent
from tests.firmware import coin_tables
from tests.firmware.fake_machine import SimulatedBoard, SimulatedClock, SimulatedHost
from tests.firmware.mcu import coins, compat, main
from tests.firmware.test_micropython import run, tool

SCRIPT = Path(__file__).with_name("micropython_coins.py")
CASES = {name: (inputs, expected) for name, inputs, expected in coin_tables.CASES}
PERIODS = (1 << 16, 1 << 30, 1 << 62)


def replay(
    name: str, hz: int, period: int = compat.TICKS_PERIOD, start_ms: int = 0, **settings: Any
) -> list[tuple[float, int]]:
    inputs, expected = CASES[name]
    ticks = compat.Ticks(period)
    active_low = settings.get("active_low", True)
    counter = coins.CoinFilter(2, ticks_diff=ticks.diff, **settings)
    end = coin_tables.end_of(inputs, expected)
    return coin_tables.replay(
        counter.step, inputs, hz, end, ticks.add, ticks.wrap(start_ms), active_low
    )


def test_the_tables_use_the_firmware_defaults() -> None:
    defaults = (coin_tables.MIN_MS, coin_tables.MAX_MS, coin_tables.GAP_MS)
    assert tuple(main.SETTINGS[f"coin_{name}_ms"][2] for name in ("min", "max", "gap")) == defaults
    counter = coins.CoinFilter(1)
    assert (counter.min_ms, counter.max_ms, counter.gap_ms) == defaults


@pytest.mark.parametrize("hz", coin_tables.SCAN_RATES)
@pytest.mark.parametrize("name", CASES)
def test_time_table(name: str, hz: int) -> None:
    _, expected = CASES[name]
    assert replay(name, hz) == [(float(t), line) for t, line in expected]


@pytest.mark.parametrize("period", PERIODS)
@pytest.mark.parametrize("name", CASES)
def test_time_table_across_the_tick_wrap(name: str, period: int) -> None:
    _, expected = CASES[name]
    got = replay(name, 1000, period, start_ms=-150)  # the ticks wrap 150 ms in
    assert got == [(float(t), line) for t, line in expected]


@pytest.mark.parametrize("name", CASES)
def test_an_active_high_line_gives_the_same_pulses(name: str) -> None:
    _, expected = CASES[name]
    assert replay(name, 1000, active_low=False) == [(float(t), line) for t, line in expected]


def test_settings_move_the_limits() -> None:
    assert replay("a 20 ms pulse (a fast mechanism)", 1000, min_ms=25) == []
    assert replay("a 100 ms pulse (a slow mechanism)", 1000, max_ms=99) == []
    # With a 40 ms gap, three pulses 30 ms apart are one pulse of 150 ms.
    assert replay("a 30 ms train: 30 on, 30 off", 1000, gap_ms=40) == [(290.0, 0)]
    assert replay("a 30 ms train: 30 on, 30 off", 1000, gap_ms=40, max_ms=149) == []


def test_counts_run_per_input_and_wrap_at_65536() -> None:
    counter = coins.CoinFilter(2)
    raw = bytearray(2)
    t = 0

    def pulse(line: int) -> list[int]:
        nonlocal t
        got: list[int] = []
        for level, ms in ((1, 50), (0, 30)):
            raw[line] = level
            for _ in range(ms):
                got += counter.step(t, raw)
                t += 1
        return got

    for _ in range(3):  # the lines rest first: counting starts armed
        counter.step(t, raw)
        t += 10
    assert pulse(0) == [0]
    assert pulse(1) == [1]
    assert pulse(0) == [0]
    assert counter.counts == [2, 1]
    counter.counts[0] = coins.COUNT_MODULO - 1
    assert pulse(0) == [0]
    assert counter.counts == [0, 1]
    counter.reset()
    assert counter.counts == [0, 0]


def expected_script_output() -> str:
    lines = []
    for name, _inputs, expected in coin_tables.CASES:
        shown = " ".join(f"{t * 4}:{line}" for t, line in expected)
        for hz in coin_tables.SCAN_RATES:
            for label in ("native", "board"):
                lines.append(f"{name}|{hz}|{label}|{shown}")
    return "\n".join(lines) + "\n"


def test_cpython_replays_the_tables_as_expected() -> None:
    assert run([sys.executable, "-B", str(SCRIPT)], "CPython") == expected_script_output()


def test_micropython_replays_the_tables_as_expected() -> None:
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    assert run([micropython, str(SCRIPT)], "MicroPython") == expected_script_output()


# ------------------------------------------------------------ the whole firmware

ROWS = (2, 3)
COLS = (10, 11)
COIN_PINS = (20, 21)


class CoinRig:
    """The firmware on a simulated 2x2 board with two coin lines; ``events``
    what the host's decoder made of what it sent."""

    def __init__(self, decoder: BoardDecoder | None = None) -> None:
        self.clock = SimulatedClock()
        self.board = SimulatedBoard(ROWS, COLS, clock=self.clock)
        self.host = SimulatedHost()
        self.sent = bytearray()
        self.boots = iter(f"{n:08X}" for n in (0xB0071D01, 0xB0071D02, 0xB0071D03))
        self.firmware = main.Firmware(
            main.Config(ROWS, COLS, coin_pins=COIN_PINS),
            pin=self.board.Pin,
            host=self.host,
            write=self.sent.extend,
            clock=self.clock,
            boot_id=lambda: next(self.boots),
        )
        self.decoder = decoder or BoardDecoder()
        self.events: list[Any] = []
        self._read = 0

    def collect(self) -> list[Any]:
        data = bytes(self.sent[self._read :])
        self._read = len(self.sent)
        events = self.decoder.feed(data)
        self.events += events
        return events

    def boot(self) -> list[Any]:
        self.firmware.boot()
        return self.collect() + self.scan_ms(30)  # the coin lines rest: counting is armed

    def scan_ms(self, ms: int) -> list[Any]:
        end = self.clock.us + ms * 1000
        while self.clock.us < end:
            self.firmware.loop(1)
        return self.collect()

    def coin(self, line: int = 1, width_ms: int = 50) -> list[Any]:
        """One pulse on coin input ``line`` (1 or 2), and the rest after it."""
        pin = COIN_PINS[line - 1]
        self.board.low.add(pin)
        events = self.scan_ms(width_ms)
        self.board.low.discard(pin)
        return events + self.scan_ms(40)

    def ask_hello(self) -> list[Any]:
        self.host.send(protocol.encode_frame(protocol.HelloRequest(7)))
        return self.scan_ms(1)


def coin_events(events: list[Any]) -> list[CoinEvent]:
    return [event for event in events if isinstance(event, CoinEvent)]


def test_boot_reports_every_coin_input_at_zero_under_a_new_boot_id() -> None:
    rig = CoinRig()
    assert rig.boot() == [CoinEvent(1, 0, "B0071D01"), CoinEvent(2, 0, "B0071D01")]
    assert rig.sent.startswith(b"$I,0,1,2,2,oche-mcu-")
    assert b"$P,1,1,0,B0071D01*" in rig.sent  # the hello took seq 0; P frames carry 1


def test_each_pulse_is_a_coin_event_with_the_running_count() -> None:
    rig = CoinRig()
    rig.boot()
    assert rig.coin(1) == [CoinEvent(1, 1, "B0071D01")]
    assert rig.coin(1) == [CoinEvent(1, 2, "B0071D01")]
    assert rig.coin(2) == [CoinEvent(2, 1, "B0071D01")]
    assert rig.coin(1, width_ms=3) == []  # a glitch
    assert rig.coin(1, width_ms=400) == []  # a jammed line
    assert rig.firmware.coins.rejected == [2, 0]


def test_p_frames_use_up_no_sequence_number() -> None:
    rig = CoinRig()
    rig.boot()
    rig.coin(1)
    rig.board.closed.add((1, 1))
    rig.scan_ms(5)
    rig.board.closed.discard((1, 1))
    rig.scan_ms(60)
    rig.coin(2)
    lines = [protocol.decode_frame(line) for line in bytes(rig.sent).splitlines()]
    numbered = [frame.seq for frame in lines if frame.TYPE != "P"]
    assert numbered == list(range(len(numbered)))  # I, H: 0, 1
    assert [frame.seq for frame in lines if frame.TYPE == "P"] == [1, 1, 1, 2]
    assert rig.decoder.counts["lost-frames"] == 0
    assert [e for e in rig.events if isinstance(e, ErrorEvent)] == []


def test_a_hello_request_reports_the_counts_a_host_missed() -> None:
    """A host that was down asks for a hello when it connects: the counts
    come after the hello, so it can tell how many pulses it did not see."""
    rig = CoinRig()
    rig.boot()
    for _ in range(3):
        rig.coin(1)
    rig.coin(2)
    late = BoardDecoder()  # a host that starts now
    rig.decoder = late
    assert coin_events(rig.ask_hello()) == [
        CoinEvent(1, 3, "B0071D01"),
        CoinEvent(2, 1, "B0071D01"),
    ]
    assert late.hello is not None


def test_a_restarted_firmware_counts_from_zero_under_another_boot_id() -> None:
    rig = CoinRig()
    rig.boot()
    rig.coin(1)
    rig.coin(1)
    assert rig.boot() == [CoinEvent(1, 0, "B0071D02"), CoinEvent(2, 0, "B0071D02")]
    assert rig.coin(1) == [CoinEvent(1, 1, "B0071D02")]


def test_a_coin_line_low_at_boot_is_no_coin() -> None:
    rig = CoinRig()
    rig.board.low.add(COIN_PINS[0])
    rig.boot()
    rig.scan_ms(200)
    rig.board.low.clear()
    assert coin_events(rig.scan_ms(100)) == []
    assert rig.coin(1) == [CoinEvent(1, 1, "B0071D01")]


def test_a_v1_host_ignores_p_frames_with_one_logged_error_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An older host knows no ``P``: it rejects each as ``unknown-type``
    (rate-limited: one report), sees no gap in the sequence numbers, and
    every hit still arrives."""
    monkeypatch.setattr(
        protocol,
        "FRAME_TYPES",
        {letter: cls for letter, cls in protocol.FRAME_TYPES.items() if letter != "P"},
    )
    rig = CoinRig()
    rig.boot()
    for _ in range(3):
        rig.coin(1)
        rig.board.closed.add((0, 1))
        rig.scan_ms(5)
        rig.board.closed.discard((0, 1))
        rig.scan_ms(60)
    rig.ask_hello()
    errors = [e for e in rig.events if isinstance(e, ErrorEvent)]
    assert [e.kind for e in errors] == ["unknown-type"]
    assert "unknown frame type 'P'" in errors[0].message
    assert rig.decoder.counts["unknown-type"] == 7  # 2 at boot, 3 pulses, 2 after the hello
    assert rig.decoder.counts["lost-frames"] == 0
    assert [e for e in rig.events if isinstance(e, HitEvent)] == [HitEvent(None, 0, 1)] * 3
    assert coin_events(rig.events) == []
    assert rig.decoder.hello is not None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"coin_pins": (30, 31, 32)}, "coin_pins needs 0 to 2 pins, not 3"),
        ({"coin_pins": (10,)}, "pin 10 is used twice"),
        ({"coin_active_low": 1}, "coin_active_low must be True or False, not 1"),
    ],
)
def test_bad_coin_settings_are_named(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        main.Config(ROWS, COLS, **settings)


def test_the_boot_id_is_eight_hex_digits_and_differs_between_runs() -> None:
    ids = {main.random_boot_id() for _ in range(20)}
    assert len(ids) > 1
    for boot in ids:
        assert len(boot) == 8 and boot == boot.upper() and int(boot, 16) >= 0


def test_no_coin_pins_no_p_frames() -> None:
    sent = bytearray()
    clock = SimulatedClock()
    board = SimulatedBoard(ROWS, COLS, clock=clock)
    firmware = main.Firmware(main.Config(ROWS, COLS), board.Pin, None, sent.extend, clock)
    firmware.boot()
    firmware.host_line(protocol.encode_frame(protocol.HelloRequest(1))[:-1])
    assert b"$P" not in sent
    assert sent.count(b"$I") == 2
