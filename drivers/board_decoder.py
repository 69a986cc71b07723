"""Bytes from a board to board events, for every protocol a board may speak.

``oche`` is wire protocol v1 (drivers.protocol). For boards already flashed
with other firmware there are compatibility decoders: ``darts-codes`` (the
3-digit ``multiplier*100+number`` codes of dARts and DaSCR, ``125``/``225`` for
the bulls) and ``row-col`` (plain ``row,col`` lines). ``dascr`` decodes as
``darts-codes`` does; as a protocol name it is also a preset (9600 baud, the
button, piezo and ultrasonic sensors: drivers.factory). Both read the rest of
what the DaSCR firmware sends: ``b`` (its button: ``next``), ``m`` (a piezo
heard a dart miss every bed: ``miss``), ``u`` (its ultrasonic sensor saw the
darts being taken out: a :class:`TakeoutEvent`), ``0`` (a matrix position
that is no bed: noise, kind ``fields``); any other text is a
``firmware-text`` error quoting it. Bad input never raises and never becomes
a hit: it is counted by kind, logged and reported as a rate-limited
:class:`ErrorEvent`.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    CoinEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
    TakeoutEvent,
)
from drivers.matrix_map import ButtonCell, MatrixMap
from drivers.protocol import (
    MAX_LINE,
    SEQ_MODULO,
    Button,
    Coin,
    FirmwareError,
    Frame,
    FrameError,
    Heartbeat,
    Hello,
    Hit,
    Released,
    Stuck,
    decode_frame,
)
from engine import Bed, NotationError

__all__ = [
    "DARTS_CODE_PROTOCOLS",
    "DARTS_CODE_SIGNALS",
    "PROTOCOLS",
    "BoardDecoder",
    "ErrorLimiter",
    "LineSplitter",
]

PROTOCOLS = ("oche", "darts-codes", "dascr", "row-col")
"""Protocols a board may speak, as named in the config and on the command line."""

DARTS_CODE_PROTOCOLS = ("darts-codes", "dascr")
"""The protocols decoded as 3-digit segment codes plus the DaSCR firmware's
one-letter lines (``dascr`` is ``darts-codes`` with a preset)."""

DARTS_CODE_SIGNALS: dict[str, BoardEvent] = {
    "b": ButtonEvent("next"),
    "m": ButtonEvent("miss"),
    "u": TakeoutEvent(),
}
"""The DaSCR firmware's one-letter lines: its button (next player), a piezo
that heard a dart miss every bed, its ultrasonic sensor seeing the darts
being taken out."""

COMPAT_MAX_LINE = 32
"""Longest line the compatibility decoders accept."""

log = logging.getLogger(__name__)


class LineSplitter:
    """Bytes in, complete lines out (without ``\\r\\n``). A line longer than
    ``max_line`` is reported once and dropped up to its line end.

    With a ``start`` byte (``$`` for wire protocol v1) every start byte begins
    a new line: what was buffered before it on the same line (noise, or a
    frame torn by a board reset) is reported as ``garbage`` and dropped, so
    the frame that follows is read. Blank input is ignored.
    """

    def __init__(self, max_line: int, start: bytes | None = None) -> None:
        if start is not None and len(start) != 1:
            raise ValueError("the start of a line is one byte")
        self.max_line = max_line
        self.start = start
        self._buffer = bytearray()
        self._discarding = False

    def reset(self) -> None:
        self._buffer.clear()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes | FrameError]:
        out: list[bytes | FrameError] = []
        position = 0
        while True:
            end = data.find(b"\n", position)
            if end >= 0 and not self._buffer and not self._discarding:
                # The common case, a whole line in one piece: no buffering.
                line = data[position:end]
                if len(line) <= self.max_line + 1 and (
                    self.start is None or line.find(self.start, 1) < 0
                ):
                    line = line.removesuffix(b"\r")
                    if line.strip():
                        out.append(line)
                    position = end + 1
                    continue
            stop = len(data) if end < 0 else end
            if self.start is not None:
                begin = data.find(self.start, position, stop)
                while begin >= 0:
                    self._take(data[position:begin], out)
                    self._restart(out)
                    position = begin
                    begin = data.find(self.start, begin + 1, stop)
            self._take(data[position:stop], out)
            if end < 0:
                return out
            if self._discarding:
                self._discarding = False
            else:
                line = bytes(self._buffer).removesuffix(b"\r")
                self._buffer.clear()
                if line.strip():
                    out.append(line)
            position = end + 1

    def _take(self, chunk: bytes, out: list[bytes | FrameError]) -> None:
        """Add ``chunk`` (no line end in it) to the line being read."""
        if self._discarding or not chunk:
            return
        self._buffer += chunk
        if len(self._buffer) > self.max_line + 1:
            out.append(
                FrameError(
                    "too-long",
                    f"line longer than {self.max_line} bytes",
                    bytes(self._buffer[:24]),
                )
            )
            self._buffer.clear()
            self._discarding = True

    def _restart(self, out: list[bytes | FrameError]) -> None:
        """A start byte: drop the unfinished line before it, reporting it unless blank."""
        dropped = bytes(self._buffer)
        self._buffer.clear()
        self._discarding = False
        if not dropped.strip():
            return
        mark = (self.start or b"").decode("latin-1")
        if self.start is not None and dropped.startswith(self.start):
            message = f"frame cut off by the next {mark!r} (a torn frame)"
        else:
            message = f"bytes that are no frame before a {mark!r}"
        out.append(FrameError("garbage", message, dropped))


class ErrorLimiter:
    """Lets an error of each kind through at most once per ``interval`` seconds
    and says how many were held back, so a noisy line cannot flood the log,
    the monitor or MQTT. The clock is injected for tests."""

    def __init__(self, interval: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()

    def admit(self, kind: str, message: str) -> ErrorEvent | None:
        held = self.let_through(kind)
        if held is None:
            return None
        log.warning("board %s: %s%s", kind, message, held)
        return ErrorEvent(kind, message + held)

    def let_through(self, key: str) -> str | None:
        """Whether a report of ``key`` goes out now: ``None`` when its last was
        less than ``interval`` s ago (this one is held back and counted), else
        what to add to it: ``""``, or how many were held back since the last
        (``" (and 3 more since the last report)"``)."""
        now = self.clock()
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            self._held[key] += 1
            return None
        for quiet in [k for k, at in self._last.items() if now - at >= self.interval]:
            if quiet not in self._held:  # nothing held back to say: forget it
                del self._last[quiet]
        self._last[key] = now
        held = self._held.pop(key, 0)
        return f" (and {held} more since the last report)" if held else ""


class BoardDecoder:
    """Turns the bytes a board sends into board events.

    ``counts`` tallies ``frames`` (good lines), ``lost-frames`` (sequence gaps)
    and every rejected line by kind. ``hello`` is the last hello frame.
    ``on_answer``, when set, is called with every hello and ``E`` frame, in
    the order they came, before any rate limit: how the firmware answers
    what the host sent (a ``?``, a ``C``).
    """

    def __init__(
        self,
        protocol: str = "oche",
        matrix: MatrixMap | None = None,
        limiter: ErrorLimiter | None = None,
    ) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown board protocol {protocol!r}; use one of {PROTOCOLS}")
        self.protocol = protocol
        self.matrix = matrix
        self.limiter = limiter or ErrorLimiter()
        self.counts: Counter[str] = Counter()
        self.hello: Hello | None = None
        self.uptime_ms: int | None = None
        self.on_answer: Callable[[Hello | FirmwareError], None] | None = None
        self._splitter = (
            LineSplitter(MAX_LINE, start=b"$")
            if protocol == "oche"
            else LineSplitter(COMPAT_MAX_LINE)
        )
        self._next_seq: int | None = None
        self._gap: ErrorEvent | None = None

    def reset(self) -> None:
        """Forget partial input, sequence tracking and the hello (after a reconnect:
        it may be another board)."""
        self._splitter.reset()
        self._next_seq = None
        self.hello = None

    def feed(self, data: bytes) -> list[BoardEvent]:
        events: list[BoardEvent] = []
        for line in self._splitter.feed(data):
            try:
                if isinstance(line, FrameError):
                    raise line
                if b"\x00" in line:
                    raise FrameError("garbage", "line has NUL bytes", line)
                produced = self._line(line)
                self.counts["frames"] += 1
            except FrameError as error:
                produced = [self._error(error.kind, str(error))]
            if self._gap is not None:  # a gap before this frame, even if it was refused
                produced.insert(0, self._gap)
                self._gap = None
            events += [event for event in produced if event is not None]
        return events

    def feed_cell(self, row: int, col: int) -> list[BoardEvent]:
        """The events of a contact at ``row,col`` that arrived without a frame
        (a USB ``cells`` report): what an ``H`` frame gives, counted as a frame;
        an off-matrix cell is counted and reported as ``out-of-range``."""
        try:
            event = self._cell(row, col)
        except FrameError as error:
            event = self._error(error.kind, str(error))
        else:
            self.counts["frames"] += 1
        return [event] if event is not None else []

    # ------------------------------------------------------------ internals

    def _error(self, kind: str, message: str) -> ErrorEvent | None:
        self.counts[kind] += 1
        return self.limiter.admit(kind, message)

    def _line(self, line: bytes) -> list[BoardEvent | None]:
        if self.protocol == "oche":
            return self._frame(decode_frame(line))
        text = line.decode("ascii", "replace").strip()
        if self.protocol in DARTS_CODE_PROTOCOLS:
            return [self._darts_code(text, line)]
        row, sep, col = text.partition(",")
        if not (sep and row.strip().isdigit() and col.strip().isdigit()):
            raise FrameError("garbage", "not a row,col line", line)
        return [self._cell(int(row), int(col))]

    def _darts_code(self, text: str, line: bytes) -> BoardEvent:
        signal = DARTS_CODE_SIGNALS.get(text)
        if signal is not None:
            return signal
        if text == "0":  # the firmware's table has 000 where the matrix has no bed
            raise FrameError("fields", "segment code 0 is a matrix position with no bed", line)
        if len(text) != 3 or not text.isdigit():
            if text.isascii() and text.isprintable() and any(c.isalpha() for c in text):
                # Text the firmware printed (its "Error in Main Loop"): said, never dropped.
                raise FrameError("firmware-text", "the board's firmware says", line)
            raise FrameError("garbage", "not a 3-digit segment code", line)
        code = int(text)
        try:
            bed = Bed(code % 100, code // 100)
        except NotationError:
            raise FrameError("fields", f"segment code {text} is no bed", line) from None
        if bed.is_miss:
            raise FrameError("fields", f"segment code {text} is no bed", line)
        return HitEvent(bed)

    def _sequence(self, frame: Frame) -> ErrorEvent | None:
        """A gap before ``frame`` as lost frames. A ``P`` frame carries the
        next frame's number without using it up."""
        expected = self._next_seq
        numbered = not isinstance(frame, Coin)
        self._next_seq = (frame.seq + 1) % SEQ_MODULO if numbered else frame.seq
        if expected is None or frame.seq == expected or isinstance(frame, Hello):
            return None
        lost = (frame.seq - expected) % SEQ_MODULO
        self.counts["lost-frames"] += lost
        return self.limiter.admit("lost-frames", f"{lost} frame(s) lost before seq {frame.seq}")

    def _frame(self, frame: Frame) -> list[BoardEvent | None]:
        self._gap = self._sequence(frame)
        events: list[BoardEvent | None] = []
        if isinstance(frame, Hit):
            events.append(self._cell(frame.row, frame.col))
        elif isinstance(frame, Button):
            name = self.matrix.button_name(frame.button) if self.matrix else None
            events.append(ButtonEvent(name or f"button-{frame.button}"))
        elif isinstance(frame, Stuck | Released):
            if not self._in_range(frame.row, frame.col):
                raise FrameError("out-of-range", f"cell {frame.row},{frame.col} is off the matrix")
            kind = StuckEvent if isinstance(frame, Stuck) else ReleasedEvent
            events.append(kind(frame.row, frame.col))
        elif isinstance(frame, Coin):
            events.append(CoinEvent(frame.input, frame.count, frame.boot))
        elif isinstance(frame, Heartbeat):
            self.uptime_ms = frame.uptime_ms
        elif isinstance(frame, Hello):
            self.hello = frame
            if self.on_answer is not None:
                self.on_answer(frame)
            matrix = self.matrix
            if matrix and (frame.rows, frame.cols) != (matrix.rows, matrix.cols):
                events.append(
                    self._error(
                        "map-mismatch",
                        f"board reports a {frame.rows}x{frame.cols} matrix, "
                        f"the map is {matrix.rows}x{matrix.cols}",
                    )
                )
        elif isinstance(frame, FirmwareError):
            if self.on_answer is not None:
                self.on_answer(frame)
            events.append(self._error("firmware", f"firmware error code {frame.code}"))
        else:
            raise FrameError("unexpected-frame", f"a board does not send {frame.TYPE} frames")
        return events

    def _in_range(self, row: int, col: int) -> bool:
        if self.matrix:
            return self.matrix.in_range(row, col)
        if self.hello:
            return row < self.hello.rows and col < self.hello.cols
        return True

    def _cell(self, row: int, col: int) -> BoardEvent | None:
        if not self._in_range(row, col):
            raise FrameError("out-of-range", f"cell {row},{col} is off the matrix")
        if self.matrix is None:
            return HitEvent(None, row, col)
        target = self.matrix.lookup(row, col)
        if target is None:
            return self._error("unmapped-cell", f"cell {row},{col} is not in the matrix map")
        if isinstance(target, ButtonCell):
            return ButtonEvent(target.name)
        return HitEvent(target, row, col)
