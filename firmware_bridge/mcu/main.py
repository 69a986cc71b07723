"""Oche board firmware: scans the dartboard's contact matrix and reports
debounced contacts, and the pulses of up to two coin mechanisms, to the host
over USB serial in wire protocol v1 (docs/protocol.md, docs/firmware.md).

MicroPython runs this file at boot. The work is done by :class:`Firmware`,
which takes its clock, pins, host input and output as arguments, so the tests
run it under CPython with a simulated board; :func:`run_device` (at the
bottom) wires it to the real ones. Settings come from ``oche_config.py``.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Callable, Sequence
    from typing import Any

    from firmware_bridge.mcu import frames
    from firmware_bridge.mcu.coins import CoinFilter
    from firmware_bridge.mcu.compat import Clock
    from firmware_bridge.mcu.debounce import Debouncer
    from firmware_bridge.mcu.matrix_scan import ButtonReader, MatrixScanner
else:  # on the board they are top-level modules
    import frames
    from coins import CoinFilter
    from compat import Clock
    from debounce import Debouncer
    from matrix_scan import ButtonReader, MatrixScanner

VERSION = "0.1.0"
FIRMWARE = "oche-mcu-" + VERSION
"""The hello frame's firmware field."""

SETTINGS = {
    "debounce_ms": (1, 250, 40),
    "stuck_ms": (250, 600000, 2000),
    "scan_hz": (100, 10000, 1000),
    "settle_us": (0, 1000, 10),
    "coin_min_ms": (1, 100, 10),
    "coin_max_ms": (100, 2000, 150),
    "coin_gap_ms": (1, 1000, 20),
}
"""Every numeric setting: ``(minimum, maximum, default)``, both ends allowed.
The settings table of docs/protocol.md, which the host obeys too."""
HOST_SETTINGS = ("debounce_ms", "stuck_ms", "scan_hz")
"""The settings a host may change with a ``C`` frame."""
MAX_LINES = 256
"""Most rows, and most columns, a frame can carry (cells 0-255)."""
MAX_BUTTONS = 16
MAX_COINS = 2
"""Most coin inputs (numbered 1 and 2 on the wire)."""
HEARTBEAT_MS = 1000
HOST_READ_LIMIT = 128
"""Most host bytes taken in one scan, so a flood cannot stall scanning."""


def _whole(value: "Any", low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


class Config:
    """The board's settings (what ``oche_config.py`` holds), checked: a bad
    value raises ValueError naming the setting."""

    def __init__(
        self,
        row_pins: "Sequence[Any]",
        col_pins: "Sequence[Any]",
        button_pins: "Sequence[Any]" = (),
        debounce_ms: int = SETTINGS["debounce_ms"][2],
        stuck_ms: int = SETTINGS["stuck_ms"][2],
        scan_hz: int = SETTINGS["scan_hz"][2],
        settle_us: int = SETTINGS["settle_us"][2],
        coin_pins: "Sequence[Any]" = (),
        coin_active_low: bool = True,
        coin_min_ms: int = SETTINGS["coin_min_ms"][2],
        coin_max_ms: int = SETTINGS["coin_max_ms"][2],
        coin_gap_ms: int = SETTINGS["coin_gap_ms"][2],
    ) -> None:
        self.row_pins = tuple(row_pins)
        self.col_pins = tuple(col_pins)
        self.button_pins = tuple(button_pins)
        self.debounce_ms = debounce_ms
        self.stuck_ms = stuck_ms
        self.scan_hz = scan_hz
        self.settle_us = settle_us
        self.coin_pins = tuple(coin_pins)
        self.coin_active_low = coin_active_low
        self.coin_min_ms = coin_min_ms
        self.coin_max_ms = coin_max_ms
        self.coin_gap_ms = coin_gap_ms
        self.check()

    @staticmethod
    def from_module(module: "Any") -> "Config":
        """The settings of a config module such as ``oche_config``; a setting
        it leaves out has its default."""
        return Config(
            getattr(module, "row_pins", ()),
            getattr(module, "col_pins", ()),
            getattr(module, "button_pins", ()),
            getattr(module, "debounce_ms", SETTINGS["debounce_ms"][2]),
            getattr(module, "stuck_ms", SETTINGS["stuck_ms"][2]),
            getattr(module, "scan_hz", SETTINGS["scan_hz"][2]),
            getattr(module, "settle_us", SETTINGS["settle_us"][2]),
            getattr(module, "coin_pins", ()),
            getattr(module, "coin_active_low", True),
            getattr(module, "coin_min_ms", SETTINGS["coin_min_ms"][2]),
            getattr(module, "coin_max_ms", SETTINGS["coin_max_ms"][2]),
            getattr(module, "coin_gap_ms", SETTINGS["coin_gap_ms"][2]),
        )

    def check(self) -> None:
        for name, pins, low, high in (
            ("row_pins", self.row_pins, 1, MAX_LINES),
            ("col_pins", self.col_pins, 1, MAX_LINES),
            ("button_pins", self.button_pins, 0, MAX_BUTTONS),
            ("coin_pins", self.coin_pins, 0, MAX_COINS),
        ):
            if not low <= len(pins) <= high:
                raise ValueError(f"oche_config: {name} needs {low} to {high} pins, not {len(pins)}")
        if self.coin_active_low is not True and self.coin_active_low is not False:
            raise ValueError(
                f"oche_config: coin_active_low must be True or False, not {self.coin_active_low!r}"
            )
        every = self.row_pins + self.col_pins + self.button_pins + self.coin_pins
        for pin in every:
            if every.count(pin) > 1:
                raise ValueError(f"oche_config: pin {pin} is used twice")
        for name in SETTINGS:
            low, high, _ = SETTINGS[name]
            value = getattr(self, name)
            if not _whole(value, low, high):
                raise ValueError(
                    f"oche_config: {name} must be a whole number from {low} to {high}, "
                    f"not {value!r}"
                )


class Firmware:
    """The scan loop: matrix and buttons in, frames out.

    ``pin`` is the ``machine.Pin`` class (default: the real one); ``host`` has
    ``read()``, returning the bytes the host sent since the last call without
    blocking (``None``: no host input); ``write`` takes the bytes of each
    frame; ``clock`` has ``ticks_ms``, ``ticks_us``, ``ticks_diff``,
    ``ticks_add`` and ``sleep_us`` (default: :class:`compat.Clock`);
    ``boot_id`` makes the ``P`` frames' boot id of each :meth:`boot` (default:
    :func:`random_boot_id`).
    """

    def __init__(
        self,
        config: Config,
        pin: "Any" = None,
        host: "Any" = None,
        write: "Callable[[bytes], object] | None" = None,
        clock: "Any" = None,
        boot_id: "Callable[[], str] | None" = None,
    ) -> None:
        self.config = config
        self.clock = clock if clock is not None else Clock()
        self.host = host
        self.write = write if write is not None else stdout_writer()
        self.scanner = MatrixScanner(
            config.row_pins, config.col_pins, config.settle_us, pin, self.clock.sleep_us
        )
        self.buttons = ButtonReader(config.button_pins, pin) if config.button_pins else None
        diff = self.clock.ticks_diff
        self.cols = len(config.col_pins)
        self.cells = Debouncer(
            len(config.row_pins) * self.cols, config.debounce_ms, config.stuck_ms, diff
        )
        self.button_states = Debouncer(
            len(config.button_pins), config.debounce_ms, config.stuck_ms, diff
        )
        self.coin_lines = ButtonReader(config.coin_pins, pin) if config.coin_pins else None
        self.coins = CoinFilter(
            len(config.coin_pins),
            config.coin_min_ms,
            config.coin_max_ms,
            config.coin_gap_ms,
            config.coin_active_low,
            diff,
        )
        self.make_boot_id = boot_id if boot_id is not None else random_boot_id
        self.boot_id = self.make_boot_id()
        """Names this run of the coin counts in the ``P`` frames: new at each
        :meth:`boot` but the first (the counts start afresh there too)."""
        self._booted = False
        self.encoder = frames.Encoder()
        self.scan_hz = config.scan_hz
        self.period_us = 1000000 // config.scan_hz
        self._line = bytearray()
        self._discarding = False
        self._last_ms = 0
        self._uptime_s = 0
        self._uptime_rest_ms = 0
        self._overrun_reported_s = -1

    # ------------------------------------------------------------ settings

    @property
    def debounce_ms(self) -> int:
        return self.cells.debounce_ms

    @property
    def stuck_ms(self) -> int:
        return self.cells.stuck_ms

    def apply(self, key: str, value: int) -> int:
        """Set one setting as a ``C`` frame asks; 0, or the ``E`` code."""
        if key not in HOST_SETTINGS:
            return frames.ERR_UNKNOWN_SETTING
        low, high, _ = SETTINGS[key]
        if not low <= value <= high:
            return frames.ERR_OUT_OF_RANGE
        if key == "debounce_ms":
            self.cells.debounce_ms = self.button_states.debounce_ms = value
        elif key == "stuck_ms":
            self.cells.stuck_ms = self.button_states.stuck_ms = value
        else:
            self.scan_hz = value
            self.period_us = 1000000 // value
        return 0

    # ------------------------------------------------------------ frames

    def send(self, kind: str, fields: "Sequence[object]" = ()) -> None:
        self.write(self.encoder.frame(kind, fields))

    def hello(self) -> None:
        """The hello, then each coin input's count (so a host that asks learns
        the counts it may have missed)."""
        rows, cols = len(self.config.row_pins), len(self.config.col_pins)
        self.send(frames.HELLO, (frames.PROTOCOL_VERSION, rows, cols, FIRMWARE))
        for index in range(self.coins.size):
            self.send_coin(index)

    def send_coin(self, index: int) -> None:
        """A ``P`` frame with coin input ``index``'s count (inputs are 1 and 2
        on the wire); it does not use up a sequence number."""
        fields = (index + 1, self.coins.counts[index], self.boot_id)
        self.write(self.encoder.aside(frames.COIN, fields))

    def uptime_ms(self) -> int:
        """Milliseconds since :meth:`boot`, wrapping at 2**32 as the ``K``
        frame's field does."""
        return (self._uptime_s * 1000 + self._uptime_rest_ms) % 4294967296

    # ------------------------------------------------------------ the loop

    def boot(self) -> None:
        """Start a new count of frames, of uptime and of coins (under a new
        boot id), and say hello."""
        self.encoder.restart()
        self.coins.reset()
        if self._booted:
            self.boot_id = self.make_boot_id()
        self._booted = True
        self._last_ms = self.clock.ticks_ms()
        self._uptime_s = 0
        self._uptime_rest_ms = 0
        self._overrun_reported_s = -1
        self.hello()

    def tick(self) -> None:
        """One scan: host input, matrix, buttons, coins, heartbeat. A scan that sends
        no frame allocates nothing (no garbage-collector pauses)."""
        now = self.clock.ticks_ms()
        elapsed = self.clock.ticks_diff(now, self._last_ms)
        self._last_ms = now
        second = False
        if elapsed > 0:
            rest = self._uptime_rest_ms + elapsed
            if rest >= HEARTBEAT_MS:
                self._uptime_s += rest // HEARTBEAT_MS
                rest %= HEARTBEAT_MS
                second = True
            self._uptime_rest_ms = rest
        if self.host is not None:
            data = self.host.read()
            if data:
                self.feed_host(data)
        scanner = self.scanner
        reports = self.cells.step(now, scanner.raw, scanner.scan())
        if reports:
            cols = self.cols
            letters = frames.CELL_FRAMES
            for kind, cell in reports:
                row = cell // cols
                self.send(letters[kind], (row, cell - row * cols))
        buttons = self.buttons
        if buttons is not None:
            reports = self.button_states.step(now, buttons.raw, buttons.scan())
            if reports:
                letters = frames.BUTTON_FRAMES
                for kind, button in reports:
                    letter = letters.get(kind)
                    if letter is not None:
                        self.send(letter, (button,))
        coin_lines = self.coin_lines
        if coin_lines is not None:
            coin_lines.scan()
            pulses = self.coins.step(now, coin_lines.raw)
            if pulses:
                for index in pulses:
                    self.send_coin(index)
        if second:
            self.send(frames.HEARTBEAT, (self.uptime_ms(),))

    def run(self, scans: int = -1) -> None:
        """Boot, then :meth:`loop`."""
        self.boot()
        self.loop(scans)

    def loop(self, scans: int = -1) -> None:
        """Scan ``scan_hz`` times a second, forever or ``scans`` times. A scan
        that would start a whole period late is an overrun: ``E`` code 4, at
        most once a second, and the schedule starts afresh."""
        clock = self.clock
        deadline = clock.ticks_us()
        while scans != 0:
            self.tick()
            if scans > 0:
                scans -= 1
            period = self.period_us
            deadline = clock.ticks_add(deadline, period)
            late = clock.ticks_diff(clock.ticks_us(), deadline)
            if late < 0:
                clock.sleep_us(-late)
            elif late >= period:
                if self._uptime_s != self._overrun_reported_s:
                    self._overrun_reported_s = self._uptime_s
                    self.send(frames.ERROR, (frames.ERR_OVERRUN,))
                deadline = clock.ticks_us()

    # ------------------------------------------------------------ host input

    def feed_host(self, data: bytes) -> None:
        """Bytes from the host: each complete line is handled. A ``$`` starts
        a new frame: an unfinished line before it is a bad frame (``E`` 1)."""
        for byte in data:
            if byte == 10:  # "\n"
                line = bytes(self._line)
                self._line = bytearray()
                if self._discarding:
                    self._discarding = False
                elif line.strip():
                    self.host_line(line)
            elif byte == 36:  # "$"
                if not self._discarding and bytes(self._line).strip():
                    self.send(frames.ERROR, (frames.ERR_BAD_FRAME,))
                self._discarding = False
                self._line = bytearray(b"$")
            elif not self._discarding:
                self._line.append(byte)
                if len(self._line) > frames.MAX_LINE + 1:  # room for a "\r"
                    self._line = bytearray()
                    self._discarding = True
                    self.send(frames.ERROR, (frames.ERR_BAD_FRAME,))

    def host_line(self, line: bytes) -> None:
        """One line from the host (without ``\\n``): ``?`` or ``C``."""
        try:
            kind, _seq, key, value = frames.decode_host(line)
        except frames.HostLineError as error:
            self.send(frames.ERROR, (error.code,))
            return
        if kind == frames.HELLO_REQUEST:
            self.hello()
            return
        code = self.apply(key, value)
        if code:
            self.send(frames.ERROR, (code,))


class StreamInput:
    """What the host has sent so far on ``stream`` (default: ``sys.stdin``,
    the USB serial line), read without blocking through ``select.poll``."""

    def __init__(self, stream: "Any" = None, limit: int = HOST_READ_LIMIT) -> None:
        try:
            import select
        except ImportError:
            import uselect as select  # type: ignore[import-not-found,no-redef]
        if stream is None:
            stream = sys.stdin
        self._poll = select.poll()
        self._poll.register(stream, select.POLLIN)
        self._ipoll = getattr(self._poll, "ipoll", None)
        # Bytes, one at a time. Under CPython, past the buffered reader:
        # bytes it read ahead would be invisible to poll.
        binary = getattr(stream, "buffer", stream)
        self._stream = getattr(binary, "raw", binary)
        self.limit = limit

    def _ready(self) -> bool:
        if self._ipoll is not None:  # MicroPython: polls without allocating
            for _ in self._ipoll(0):
                return True
            return False
        return bool(self._poll.poll(0))

    def read(self) -> bytes:
        if not self._ready():
            return b""
        data = bytearray()
        while len(data) < self.limit:
            byte = self._stream.read(1)
            if not byte:
                break
            data += byte.encode() if isinstance(byte, str) else byte
            if not self._ready():
                break
        return bytes(data)


def random_boot_id() -> str:
    """Eight upper-case hex digits from the board's random source: a new
    firmware run's counts are not taken for the last run's."""
    import os

    try:
        data = os.urandom(4)
        number = (data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]
    except (AttributeError, NotImplementedError):
        import random

        number = random.getrandbits(32)
    return f"{number:08X}"


def stdout_writer() -> "Callable[[bytes], object]":
    """Writes frames to ``sys.stdout`` (the USB serial line on the board)."""
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        return out.write  # type: ignore[no-any-return]

    def write(data: bytes) -> object:
        return sys.stdout.write(data.decode())

    return write


def run_device() -> None:
    """Run the firmware on the board, with ``oche_config.py``'s settings. If
    the loop fails, the error is printed and the firmware starts again a
    second later (with a new hello). Ctrl-C (as mpremote sends) stops it."""
    if TYPE_CHECKING:
        from firmware_bridge.mcu import oche_config
    else:
        import oche_config

    config = Config.from_module(oche_config)
    while True:
        try:
            Firmware(config, host=StreamInput(), write=stdout_writer()).run()
        except Exception as error:
            show = getattr(sys, "print_exception", None)
            if show is not None:
                show(error)
            else:
                import traceback

                traceback.print_exception(error)
            Clock().sleep_us(1000000)


if __name__ == "__main__":
    run_device()
