"""Wire protocol v1 between a board's firmware and the host (docs/protocol.md).

A frame is one ASCII line ``$BODY*CRC`` ending in ``\\n`` (a ``\\r`` before it
is ignored), at most :data:`MAX_LINE` bytes before the line end. CRC is four
upper-case hex digits of CRC-16/CCITT-FALSE over BODY. BODY is a type letter,
a sequence number (0-65535, wrapping) and the type's fields, comma-separated.
Numbers are plain decimal without leading zeros; no field holds ``,``, ``*``
or ``$``; a hello must say protocol 1. The firmware reports matrix cells,
never scores.

``P`` (coin pulses) extends v1 compatibly: a v1 host rejects it as an
``unknown-type`` line and goes on. It carries the sequence number of the next
frame without using it up, so that host sees no gap either.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "CONFIG_KEYS",
    "COUNT_MODULO",
    "EXTENSION_TYPES",
    "FIRMWARE_ERRORS",
    "FRAME_TYPES",
    "MAX_COIN_INPUT",
    "MAX_LINE",
    "NO_FIRMWARE_SETTINGS",
    "PROTOCOL_VERSION",
    "SEQ_MODULO",
    "SETTINGS",
    "Button",
    "Coin",
    "Configure",
    "FirmwareError",
    "FirmwareSettings",
    "Frame",
    "FrameError",
    "Heartbeat",
    "Hello",
    "HelloRequest",
    "Hit",
    "Released",
    "Setting",
    "Stuck",
    "check_setting",
    "crc16",
    "decode_frame",
    "encode_frame",
    "quote_bytes",
]

PROTOCOL_VERSION = 1
MAX_LINE = 64
"""Longest frame in bytes, from ``$`` to the last CRC digit (the line end not counted)."""
SEQ_MODULO = 65536
MAX_CELL = 255
"""Largest row or column index a frame may carry."""
MAX_BUTTON = 15
MAX_COIN_INPUT = 2
"""Coin inputs are numbered 1 to this."""
COUNT_MODULO = 65536
"""A coin input's running count wraps to 0 here."""
_BOOT_ID = re.compile(r"[0-9A-F]{8}")
_PRINTABLE = re.compile(rb"[\x20-\x7e]*")
_CRC_DIGITS = re.compile(rb"[0-9A-F]{4}")


@dataclass(frozen=True, slots=True)
class Setting:
    """A firmware setting a host may change with a ``C`` frame: its unit, its
    range (both ends allowed) and the firmware's default, as the settings
    table of docs/protocol.md gives them."""

    name: str
    unit: str
    minimum: int
    maximum: int
    default: int


SETTINGS: dict[str, Setting] = {
    setting.name: setting
    for setting in (
        Setting("debounce_ms", "ms", 1, 250, 40),
        Setting("stuck_ms", "ms", 250, 600_000, 2000),
        Setting("scan_hz", "Hz", 100, 10_000, 1000),
    )
}
"""The settings a host may change with a ``C`` frame, by name."""
CONFIG_KEYS = tuple(SETTINGS)
"""Their names."""


def check_setting(key: str, value: object) -> int:
    """``value`` if setting ``key`` may take it, else a ValueError naming the
    setting and its range: the host never sends what the firmware refuses."""
    setting = SETTINGS.get(key)
    if setting is None:
        raise ValueError(f"unknown board setting {key!r}; the settings are {', '.join(SETTINGS)}")
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not setting.minimum <= value <= setting.maximum
    ):
        raise ValueError(
            f"{key} must be a whole number from {setting.minimum} to {setting.maximum} "
            f"({setting.unit}), not {value!r}"
        )
    return value


@dataclass(frozen=True, slots=True)
class FirmwareSettings:
    """Values for some of the :data:`SETTINGS` a host may change, each checked
    with :func:`check_setting` (a ValueError names the first bad one), kept in
    the settings table's order: what the host sends a board in ``C`` frames."""

    values: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        keys = [key for key, _ in self.values]
        for key, value in self.values:
            check_setting(key, value)
            if keys.count(key) > 1:
                raise ValueError(f"board setting {key!r} is given twice")
        order = list(SETTINGS)
        ordered = tuple(sorted(self.values, key=lambda item: order.index(item[0])))
        object.__setattr__(self, "values", ordered)

    @classmethod
    def of(cls, values: Mapping[str, object]) -> FirmwareSettings:
        """The settings ``values`` names; a ValueError for a bad key or value."""
        checked = tuple((key, check_setting(key, value)) for key, value in values.items())
        return cls(checked)

    def __bool__(self) -> bool:
        return bool(self.values)

    def __str__(self) -> str:
        """``debounce_ms=30, scan_hz=2000``, as the daemon logs them."""
        return ", ".join(f"{key}={value}" for key, value in self.values)


NO_FIRMWARE_SETTINGS = FirmwareSettings()
"""No settings: the firmware keeps its own (``oche_config.py``)."""

FIRMWARE_ERRORS: dict[int, str] = {
    1: "a host line could not be read (bad frame)",
    2: "an unknown setting",
    3: "a setting out of range",
    4: "the scan loop overran its period",
}
"""What each ``E`` frame's code means, as docs/firmware.md says."""


QUOTED_BYTES = 80
"""The most bytes of a bad line an error message quotes."""


def quote_bytes(data: bytes, limit: int = QUOTED_BYTES) -> str:
    """``data`` quoted as Python writes bytes, without the ``b``: printable
    ASCII as itself, every other byte escaped the same way (``'\\x00\\xe0320'``),
    cut after ``limit`` bytes with ``...``. The one way a bad line is quoted,
    in error events and log lines alike."""
    shown = repr(bytes(data[:limit]))[1:]
    return f"{shown}..." if len(data) > limit else shown


class FrameError(ValueError):
    """A line that is not a valid frame. ``kind`` is a short stable name for
    counting (``garbage``, ``crc``, ``unknown-type``, ``fields``, ...); the
    message quotes the line (:func:`quote_bytes`)."""

    def __init__(self, kind: str, message: str, line: bytes = b"") -> None:
        super().__init__(f"{message}: {quote_bytes(line)}" if line else message)
        self.kind = kind
        self.line = line


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); ``b"123456789"`` gives 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    """Base of every frame: the type letter and the sequence number."""

    TYPE: ClassVar[str]
    FIELDS: ClassVar[tuple[str, ...]]
    seq: int

    def fields(self) -> tuple[str, ...]:
        return tuple(str(getattr(self, name)) for name in self.FIELDS)

    def body(self) -> str:
        return ",".join((self.TYPE, str(self.seq), *self.fields()))


@dataclass(frozen=True, slots=True)
class Hello(Frame):
    """``I``: the firmware at boot or on request: protocol, matrix size, version."""

    TYPE = "I"
    FIELDS = ("proto", "rows", "cols", "firmware")
    proto: int
    rows: int
    cols: int
    firmware: str


@dataclass(frozen=True, slots=True)
class Hit(Frame):
    """``H``: a debounced contact at a matrix cell (0-based)."""

    TYPE = "H"
    FIELDS = ("row", "col")
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Button(Frame):
    """``B``: a dedicated button outside the matrix, 0-15."""

    TYPE = "B"
    FIELDS = ("button",)
    button: int


@dataclass(frozen=True, slots=True)
class Stuck(Frame):
    """``S``: a cell closed past the stuck limit; masked until released."""

    TYPE = "S"
    FIELDS = ("row", "col")
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Released(Frame):
    """``R``: a stuck cell opened again."""

    TYPE = "R"
    FIELDS = ("row", "col")
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Heartbeat(Frame):
    """``K``: sent every second with the firmware's uptime."""

    TYPE = "K"
    FIELDS = ("uptime_ms",)
    uptime_ms: int


@dataclass(frozen=True, slots=True)
class FirmwareError(Frame):
    """``E``: the firmware reports an error code."""

    TYPE = "E"
    FIELDS = ("code",)
    code: int


@dataclass(frozen=True, slots=True)
class Coin(Frame):
    """``P`` (extension of v1): coin input ``input`` (1 or 2) has given
    ``count`` pulses since the firmware run ``boot`` started (wrapping at
    :data:`COUNT_MODULO`). Sent for each pulse and after every hello. Its
    ``seq`` is the next frame's: it does not use one up."""

    TYPE = "P"
    FIELDS = ("input", "count", "boot")
    input: int
    count: int
    boot: str


@dataclass(frozen=True, slots=True)
class Configure(Frame):
    """``C`` (host to device): set one of :data:`CONFIG_KEYS`."""

    TYPE = "C"
    FIELDS = ("key", "value")
    key: str
    value: int

    def fields(self) -> tuple[str, ...]:
        return (f"{self.key}={self.value}",)


@dataclass(frozen=True, slots=True)
class HelloRequest(Frame):
    """``?`` (host to device): ask for a hello frame."""

    TYPE = "?"
    FIELDS = ()


FRAME_TYPES: dict[str, type[Frame]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Hit,
        Button,
        Stuck,
        Released,
        Heartbeat,
        FirmwareError,
        Configure,
        HelloRequest,
        Coin,
    )
}
"""Every frame type this host reads, by letter."""
EXTENSION_TYPES = frozenset({Coin.TYPE})
"""Frame types added to v1 since it was pinned: an older host rejects them as
``unknown-type`` (and they do not use up a sequence number)."""


def encode_frame(frame: Frame) -> bytes:
    """The wire bytes of ``frame``, line end included."""
    for field in frame.fields():
        if not field.isascii() or not field.isprintable() or any(c in field for c in ",*$"):
            raise FrameError("fields", f"field {field!r} cannot be sent in a frame")
    body = frame.body().encode("ascii")
    line = b"$%s*%04X" % (body, crc16(body))
    if len(line) > MAX_LINE:
        raise FrameError("too-long", f"frame longer than {MAX_LINE} bytes", line)
    return line + b"\n"


def _number(text: str, low: int, high: int, what: str, line: bytes) -> int:
    if not text.isdigit() or not text.isascii() or len(text) > 10:
        raise FrameError("fields", f"{what} {text!r} is not a number", line)
    if len(text) > 1 and text[0] == "0":
        raise FrameError("fields", f"{what} {text!r} has a leading zero", line)
    value = int(text)
    if not low <= value <= high:
        raise FrameError("fields", f"{what} {value} is outside {low}-{high}", line)
    return value


def decode_frame(line: bytes) -> Frame:
    """One frame from one line (without its line end). Raises :class:`FrameError`."""
    if len(line) > MAX_LINE:
        raise FrameError("too-long", f"line longer than {MAX_LINE} bytes", line)
    if not line.startswith(b"$") or len(line) < 7 or line[-5:-4] != b"*":
        raise FrameError("garbage", "not a $BODY*CRC frame", line)
    body, crc_text = line[1:-5], line[-4:]
    if not _PRINTABLE.fullmatch(line):
        raise FrameError("garbage", "frame has bytes that are not printable ASCII", line)
    if not _CRC_DIGITS.fullmatch(crc_text):
        raise FrameError("crc", "CRC is not 4 upper-case hex digits", line)
    if int(crc_text, 16) != crc16(body):
        raise FrameError("crc", "CRC does not match", line)
    if b"*" in body or b"$" in body:
        raise FrameError("fields", "a field holds '*' or '$', which frames never carry", line)
    parts = body.decode("ascii").split(",")
    cls = FRAME_TYPES.get(parts[0])
    if cls is None:
        raise FrameError("unknown-type", f"unknown frame type {parts[0]!r}", line)
    if len(parts) != 2 + (1 if cls is Configure else len(cls.FIELDS)):
        raise FrameError("fields", f"frame {cls.TYPE} has the wrong number of fields", line)
    seq = _number(parts[1], 0, SEQ_MODULO - 1, "sequence number", line)
    args = parts[2:]
    if cls is Hello:
        proto = _number(args[0], 0, 255, "protocol", line)
        if proto != PROTOCOL_VERSION:
            raise FrameError(
                "fields",
                f"the board speaks protocol {proto}; this host speaks {PROTOCOL_VERSION}",
                line,
            )
        return Hello(
            seq,
            proto,
            _number(args[1], 1, MAX_CELL + 1, "rows", line),
            _number(args[2], 1, MAX_CELL + 1, "cols", line),
            args[3],
        )
    if cls in (Hit, Stuck, Released):
        row = _number(args[0], 0, MAX_CELL, "row", line)
        col = _number(args[1], 0, MAX_CELL, "column", line)
        return (
            Hit(seq, row, col)
            if cls is Hit
            else (Stuck if cls is Stuck else Released)(seq, row, col)
        )
    if cls is Button:
        return Button(seq, _number(args[0], 0, MAX_BUTTON, "button", line))
    if cls is Heartbeat:
        return Heartbeat(seq, _number(args[0], 0, 2**32 - 1, "uptime", line))
    if cls is Coin:
        boot = args[2]
        if not _BOOT_ID.fullmatch(boot):
            raise FrameError("fields", f"boot id {boot!r} is not 8 upper-case hex digits", line)
        return Coin(
            seq,
            _number(args[0], 1, MAX_COIN_INPUT, "coin input", line),
            _number(args[1], 0, COUNT_MODULO - 1, "coin count", line),
            boot,
        )
    if cls is FirmwareError:
        return FirmwareError(seq, _number(args[0], 0, 65535, "error code", line))
    if cls is Configure:
        key, sep, value = args[0].partition("=")
        setting = SETTINGS.get(key) if sep else None
        if setting is None:
            raise FrameError("fields", f"unknown setting {args[0]!r}", line)
        return Configure(seq, key, _number(value, setting.minimum, setting.maximum, key, line))
    return HelloRequest(seq)
