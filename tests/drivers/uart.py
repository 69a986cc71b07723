"""What a serial port read at the wrong speed delivers, for testing the
decoder's wrong-speed diagnosis (a pty ignores the baud rate, so a real port
at the wrong speed cannot be had here).

:func:`misread` plays a UART receiving 8N1 frames: it waits for the line to
fall (a start bit), samples each bit in the middle of its time at its own
speed, and checks the stop bit. A stop bit that is low is a framing error,
which Linux hands on as a NUL byte (a raw tty without ``IGNPAR`` or
``PARMRK``, as pyserial opens it); the receiver then takes that low stop bit
for the next start bit, as a 16550 resynchronises. A DaSCR board's 9600 baud
read at 115200 gives NULs and bytes such as ``\\xe0``, ``\\xf0``, ``\\xfe``,
and never a line end.
"""

from __future__ import annotations

import math

__all__ = ["misread"]


def _bits(data: bytes) -> list[int]:
    """The line levels of ``data`` sent 8N1, one per bit time: a start bit
    (0), the data bits least significant first, a stop bit (1)."""
    levels: list[int] = []
    for byte in data:
        levels += [0, *((byte >> bit) & 1 for bit in range(8)), 1]
    return levels


def misread(data: bytes, sent_baud: int = 9600, read_baud: int = 115200) -> bytes:
    """The bytes a UART at ``read_baud`` receives from ``data`` sent at ``sent_baud``."""
    levels = _bits(data)
    ratio = read_baud / sent_baud  # the reader's bit times in one of the sender's

    def level(t: float) -> int:  # t in the reader's bit times; idle (high) after the end
        index = math.floor(t / ratio)
        return levels[index] if 0 <= index < len(levels) else 1

    def next_change(t: float, wanted: int) -> float | None:
        """The first time from ``t`` on the line is at ``wanted``."""
        index = max(0, math.floor(t / ratio))
        if levels[index : index + 1] == [wanted]:
            return t
        for later in range(index + 1, len(levels)):
            if levels[later] == wanted:
                return later * ratio
        return None if wanted == 0 else len(levels) * ratio

    received = bytearray()
    t = 0.0
    while True:
        start = next_change(t, 0)
        if start is None:
            return bytes(received)
        value = sum(level(start + 0.5 + bit) << (bit - 1) for bit in range(1, 9))
        if level(start + 9.5):
            received.append(value)
            t = start + 9.5
        else:  # framing error: a NUL, and the low stop bit starts the next byte
            received.append(0)
            t = start + 9
