"""Wire protocol v1 on the board: the frame encoder and a small decoder for
the two frames a host sends (``C`` and ``?``). See docs/protocol.md.

The coin frame ``P`` is an extension of v1: it carries the sequence number of
the next frame without using it up (:meth:`Encoder.aside`), so a v1 host that
rejects it as an unknown type sees no gap in the count either.

A frame is ``$BODY*CRC`` and a line end; CRC is CRC-16/CCITT-FALSE over BODY
in four upper-case hex digits; at most :data:`MAX_LINE` bytes before the line
end. Numbers have no leading zeros; no field holds ``,``, ``*`` or ``$``; a
``$`` always starts a new frame. Sequence numbers count every frame sent and
wrap at 65536.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Sequence

    from firmware_bridge.mcu import debounce
else:  # on the board they are top-level modules
    import debounce

# The frame type letters: this module alone spells them; the rest of the
# firmware names frames by these constants.
HELLO = "I"
HIT = "H"
BUTTON = "B"
STUCK = "S"
RELEASED = "R"
HEARTBEAT = "K"
ERROR = "E"
CONFIGURE = "C"
HELLO_REQUEST = "?"
COIN = "P"
LETTERS = (HELLO, HIT, BUTTON, STUCK, RELEASED, HEARTBEAT, ERROR, CONFIGURE, HELLO_REQUEST, COIN)
"""Every frame type of protocol v1 and its extensions, both directions."""

CELL_FRAMES = {debounce.HIT: HIT, debounce.STUCK: STUCK, debounce.RELEASED: RELEASED}
"""The frame sent for each kind the matrix cells' debouncer reports."""
BUTTON_FRAMES = {debounce.HIT: BUTTON}
"""The frame sent for each kind a dedicated button reports: only its press
(a held button is not a stuck contact, so its stuck and release are not sent)."""

PROTOCOL_VERSION = 1
MAX_LINE = 64
SEQ_MODULO = 65536

ERR_BAD_FRAME = 1
"""Error code: a host line could not be read."""
ERR_UNKNOWN_SETTING = 2
"""Error code: a ``C`` frame names a setting the firmware does not have."""
ERR_OUT_OF_RANGE = 3
"""Error code: a ``C`` frame's value is outside the setting's range."""
ERR_OVERRUN = 4
"""Error code: the scan loop overran its period."""


def _crc_table() -> "list[int]":
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection,
    no final XOR. ``crc16(b"123456789") == 0x29B1``."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def _hex4(value: int) -> str:
    return f"{value:04X}"


def encode(kind: str, seq: int, fields: "Sequence[object]" = ()) -> bytes:
    """The line of one frame, ``\\n`` included. Raises ValueError for a field
    that cannot be sent or a frame longer than :data:`MAX_LINE`."""
    parts = [kind, str(seq % SEQ_MODULO)]
    for field in fields:
        text = str(field)
        for char in text:
            if char in ",*$" or not " " <= char <= "~":
                raise ValueError("field cannot be sent: " + repr(text))
        parts.append(text)
    body = ",".join(parts).encode()
    line = b"$" + body + b"*" + _hex4(crc16(body)).encode()
    if len(line) > MAX_LINE:
        raise ValueError("frame longer than 64 bytes")
    return line + b"\n"


class Encoder:
    """Numbers the frames the board sends: each call takes the next sequence
    number, wrapping to 0 after 65535."""

    def __init__(self) -> None:
        self.seq = 0

    def frame(self, kind: str, fields: "Sequence[object]" = ()) -> bytes:
        line = encode(kind, self.seq, fields)
        self.seq = (self.seq + 1) % SEQ_MODULO
        return line

    def aside(self, kind: str, fields: "Sequence[object]" = ()) -> bytes:
        """An extension frame (``P``): it carries the next sequence number
        without taking it, so the frame after it carries the same number."""
        return encode(kind, self.seq, fields)

    def restart(self) -> None:
        """Count from 0 again (a hello at boot starts a new count)."""
        self.seq = 0


class HostLineError(ValueError):
    """A host line the firmware rejects; ``code`` is the ``E`` frame's code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _digits(text: str) -> bool:
    """A number as frames spell it: decimal digits, no leading zero."""
    if not text or len(text) > 10 or (len(text) > 1 and text[0] == "0"):
        return False
    return all("0" <= char <= "9" for char in text)


def decode_host(line: bytes) -> "tuple[str, int, str, int]":
    """One host line (without ``\\n``; a trailing ``\\r`` is dropped) as
    ``(kind, seq, key, value)``: ``("C", seq, "debounce_ms", 40)`` or
    ``("?", seq, "", 0)``. The setting's name is not checked here. Raises
    :class:`HostLineError` with code 1 for a line that is not such a frame."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        raise HostLineError(ERR_BAD_FRAME, "line too long")
    if len(line) < 7 or line[:1] != b"$" or line[-5:-4] != b"*":
        raise HostLineError(ERR_BAD_FRAME, "not a $BODY*CRC frame")
    for byte in line:
        if byte < 0x20 or byte > 0x7E:
            raise HostLineError(ERR_BAD_FRAME, "not printable ASCII")
    body = line[1:-5]
    if line[-4:] != _hex4(crc16(body)).encode():
        raise HostLineError(ERR_BAD_FRAME, "CRC does not match")
    if b"*" in body or b"$" in body:
        raise HostLineError(ERR_BAD_FRAME, "a field holds '*' or '$'")
    parts = body.decode().split(",")
    if len(parts) < 2 or not _digits(parts[1]) or int(parts[1]) >= SEQ_MODULO:
        raise HostLineError(ERR_BAD_FRAME, "bad sequence number")
    seq = int(parts[1])
    if parts[0] == HELLO_REQUEST and len(parts) == 2:
        return (HELLO_REQUEST, seq, "", 0)
    if parts[0] == CONFIGURE and len(parts) == 3:
        key, sep, value = parts[2].partition("=")
        if sep and key and _digits(value):
            return (CONFIGURE, seq, key, int(value))
    raise HostLineError(ERR_BAD_FRAME, "not a C or ? frame")
