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

A board set up wrongly sends nothing but bad lines, so the decoder says what
is wrong instead, once per connection (:data:`DIAGNOSES`): ``wrong-protocol``
when the lines are another protocol's (a DaSCR board's ``320`` and ``b``
while the protocol is ``oche``: set ``board.protocol = "dascr"``), and
``wrong-speed`` when they are garbled bytes (NULs, bytes above 127: what a
9600-baud board read at 115200 gives). The lines of that sort after it are
counted, not reported one by one.
"""

from __future__ import annotations

import logging
import re
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
    quote_bytes,
)
from engine import Bed, NotationError

__all__ = [
    "DARTS_CODE_PROTOCOLS",
    "DARTS_CODE_SIGNALS",
    "DIAGNOSES",
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

DIAGNOSES = ("wrong-protocol", "wrong-speed")
"""The error kinds that say what is wrong with the board's setup rather than
with one line: said once per connection (docs/drivers.md#error-kinds)."""

PROTOCOL_SPEEDS = {"oche": 115200, "dascr": 9600}
"""The speed a board speaking each protocol sends at, as its preset gives it."""

_GARBLED_SHARE = 0.5
"""A bad line at least this share of NULs and bytes above 127 is garbled."""
_GARBLED_MIN = 4
"""Fewer bad bytes than this in a line are noise, not a wrong speed."""
_QUOTED_JUNK = 12
"""The bytes of a garbled line a diagnosis quotes."""
_ROW_COL = re.compile(rb"\s*\d{1,3}\s*,\s*\d{1,3}\s*")

log = logging.getLogger(__name__)


def _protocol_of(line: bytes) -> str | None:
    """The protocol ``line`` is a good line of, if it is one: an Oche frame,
    a DaSCR line (a bed's 3-digit code, ``b``, ``m``, ``u``), ``row,col``."""
    if line.startswith(b"$"):
        try:
            decode_frame(line)
        except FrameError:
            return None
        return "oche"
    text = line.decode("ascii", "replace").strip()
    if text in DARTS_CODE_SIGNALS or (_is_segment_code(text) and _segment_bed(text)):
        return "dascr"
    return "row-col" if _ROW_COL.fullmatch(line) else None


def _is_segment_code(text: str) -> bool:
    """Whether ``text`` has the form of a DaSCR segment code: three digits."""
    return len(text) == 3 and text.isascii() and text.isdigit()


def _segment_bed(code: str) -> Bed | None:
    """The bed a segment code (``multiplier*100 + number``) names; ``None``
    for a code that is no bed (``999``, ``000``)."""
    number = int(code)
    try:
        bed = Bed(number % 100, number // 100)
    except NotationError:
        return None
    return None if bed.is_miss else bed


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
                    bytes(self._buffer),
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
        now = self.clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            self._held[kind] += 1
            return None
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        if held:
            message += f" (and {held} more since the last report)"
        log.warning("board %s: %s", kind, message)
        return ErrorEvent(kind, message)


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
        self._understood = False  # a good line since the last reset
        self._diagnosed: set[str] = set()  # the DIAGNOSES said since the last reset

    def reset(self) -> None:
        """Forget partial input, sequence tracking, the hello and what was
        diagnosed (after a reconnect: it may be another board)."""
        self._splitter.reset()
        self._next_seq = None
        self.hello = None
        self._understood = False
        self._diagnosed.clear()

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
                self._understood = True
            except FrameError as error:
                produced = [self._rejected(error)]
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

    def _rejected(self, error: FrameError) -> ErrorEvent | None:
        """A bad line: counted by its kind and reported, or, when it shows
        what is wrong with the setup, that said once instead (its diagnosis)."""
        self.counts[error.kind] += 1
        diagnosis = self._diagnose(error.line)
        if diagnosis is None:
            return self.limiter.admit(error.kind, str(error))
        kind, message = diagnosis
        if kind in self._diagnosed:
            return None  # said already on this connection; the count goes on
        self._diagnosed.add(kind)
        return self.limiter.admit(kind, message)

    def _diagnose(self, line: bytes) -> tuple[str, str] | None:
        """What a bad ``line`` says about the setup: garbled bytes (the
        serial speed), or another protocol's line; ``None`` for plain noise."""
        if not line:
            return None
        junk = sum(1 for byte in line if byte == 0 or byte > 127)
        if junk >= _GARBLED_MIN and junk >= len(line) * _GARBLED_SHARE:
            return "wrong-speed", (
                f"garbled bytes ({quote_bytes(line, _QUOTED_JUNK)}): the serial speed is "
                "probably wrong; DaSCR and dARts boards send at 9600 baud "
                '(board.protocol = "dascr" sets it), Oche\'s firmware at 115200 '
                "(board.baudrate)"
            )
        if self._understood:
            return None  # the board speaks this protocol: a stray line is noise
        spoken = _protocol_of(line)
        if spoken is None or spoken == self.protocol:
            return None
        if spoken == "dascr" and self.protocol in DARTS_CODE_PROTOCOLS:
            return None
        board = {
            "dascr": "a DaSCR or dARts board",
            "oche": "a board with Oche's firmware",
            "row-col": "a board that sends row,col lines",
        }[spoken]
        speed = PROTOCOL_SPEEDS.get(spoken)
        return "wrong-protocol", (
            f"this looks like {board} (it sent {quote_bytes(line)}), not the "
            f'{self.protocol} protocol: set board.protocol = "{spoken}"'
            + (f" ({speed} baud)" if speed else "")
        )

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
        if not _is_segment_code(text):
            if text.isascii() and text.isprintable() and any(c.isalpha() for c in text):
                # Text the firmware printed (its "Error in Main Loop"): said, never dropped.
                raise FrameError("firmware-text", "the board's firmware says", line)
            raise FrameError("garbage", "not a 3-digit segment code", line)
        bed = _segment_bed(text)
        if bed is None:
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
