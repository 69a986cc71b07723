"""Which card reader to read (``[cards] reader``) and the source for it: the
one place that knows every kind of reader.

``none`` (no reader), ``evdev:PATH`` (a keyboard-wedge USB reader's input
device, :mod:`drivers.card_wedge`), ``pcsc`` or ``pcsc:NAME`` (a PC/SC
reader, the first whose name contains NAME, :mod:`drivers.card_pcsc`).
Each kind's library (python-evdev, pyscard: the ``cards`` extra) is imported
only when its reader is opened.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.errors import DriverError
from drivers.source import BoardSource

__all__ = [
    "DEFAULT_TEST_CARD",
    "READER_KINDS",
    "CardReaderSpec",
    "open_card_reader",
    "parse_card_reader",
]

READER_KINDS = ("none", "evdev", "pcsc")

DEFAULT_TEST_CARD = "C0FFEE01"
"""The UID the keyboard source's card key taps unless ``[cards] test_card`` says otherwise."""


@dataclass(frozen=True)
class CardReaderSpec:
    """A parsed ``[cards] reader``: its kind and what follows the colon
    (the device path for ``evdev``, the name to look for with ``pcsc``)."""

    kind: str = "none"
    where: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.where}" if self.where else self.kind


def parse_card_reader(text: str) -> CardReaderSpec:
    """``text`` as a reader; a :class:`DriverError` saying what is wrong with it."""
    kind, colon, where = text.strip().partition(":")
    kind = kind.lower()
    if kind not in READER_KINDS:
        raise DriverError(
            f"{text!r} is not a card reader: write none, evdev:/dev/input/by-id/...-event-kbd "
            "(a reader that types like a keyboard), pcsc or pcsc:NAME (a PC/SC reader)"
        )
    if kind == "none" and colon:
        raise DriverError(f"{text!r}: none takes nothing after it")
    if kind == "evdev" and not where.startswith("/"):
        raise DriverError(
            f"{text!r}: evdev needs the reader's input device, such as "
            "evdev:/dev/input/by-id/usb-Reader-event-kbd"
        )
    if kind == "pcsc" and colon and not where.strip():
        raise DriverError(f"{text!r}: write pcsc alone, or pcsc:NAME with part of its name")
    return CardReaderSpec(kind, where.strip() if kind == "pcsc" else where)


def open_card_reader(spec: CardReaderSpec) -> BoardSource | None:
    """A source of :class:`~drivers.board_events.CardTapped` for ``spec`` (not
    started yet); ``None`` for ``none``."""
    if spec.kind == "evdev":
        from drivers.card_wedge import KeyboardWedgeReader

        return KeyboardWedgeReader(spec.where)
    if spec.kind == "pcsc":
        from drivers.card_pcsc import PcscReader

        return PcscReader(spec.where)
    return None
