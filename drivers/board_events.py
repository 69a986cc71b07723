"""What every board source yields: hits, buttons, stuck and released cells,
connection changes and errors, and a card reader's taps, each with a JSON
form (``oche monitor`` prints it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from engine import Bed

__all__ = [
    "BUTTON_NAMES",
    "CARD_UID",
    "BatteryEvent",
    "BoardEvent",
    "ButtonEvent",
    "CardTapped",
    "CoinEvent",
    "ConnectedEvent",
    "DisconnectedEvent",
    "ErrorEvent",
    "HitEvent",
    "ReleasedEvent",
    "StuckEvent",
    "TakeoutEvent",
    "masked_card",
]

BUTTON_NAMES = ("next", "undo", "miss", "game", "player", "start", "bounce")
"""The board buttons Oche knows; a matrix map may name others too."""


@dataclass(frozen=True, slots=True)
class BoardEvent:
    """Base of every board event; ``type`` is its name in JSON."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {"type": self.type, **fields}


@dataclass(frozen=True, slots=True)
class HitEvent(BoardEvent):
    """A dart landed. ``segment`` is ``None`` when no matrix map is loaded;
    ``row``/``col`` are ``None`` when the firmware reports beds, not cells."""

    type = "hit"
    segment: Bed | None
    row: int | None = None
    col: int | None = None

    def to_json(self) -> dict[str, Any]:
        segment = self.segment.notation if self.segment else None
        return {"type": self.type, "segment": segment, "row": self.row, "col": self.col}


@dataclass(frozen=True, slots=True)
class ButtonEvent(BoardEvent):
    """A board button was pressed (a matrix cell mapped ``button:NAME`` or a
    dedicated button)."""

    type = "button"
    button: str


@dataclass(frozen=True, slots=True)
class StuckEvent(BoardEvent):
    """A cell stayed closed past the stuck limit; it is masked until released."""

    type = "stuck"
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class ReleasedEvent(BoardEvent):
    """A stuck cell opened again."""

    type = "released"
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class ConnectedEvent(BoardEvent):
    """The board is reachable (port opened, device found)."""

    type = "connected"
    source: str


@dataclass(frozen=True, slots=True)
class DisconnectedEvent(BoardEvent):
    """The board went away; the source keeps trying to reconnect."""

    type = "disconnected"
    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class ErrorEvent(BoardEvent):
    """Something from the board was rejected. ``kind`` is stable for counting
    (``crc``, ``garbage``, ``unmapped-cell``, ``lost-frames``, ...)."""

    type = "error"
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class CoinEvent(BoardEvent):
    """A coin mechanism on ``input`` (1 or 2). ``count`` is the firmware's
    running total of pulses on that input since it started (wire protocol
    ``P`` frames, sent for each pulse and after every hello, so the same
    total may come again: the new pulses are the difference from the last
    total of the same ``boot``, docs/protocol.md), so pulses a host missed
    while it was down are not lost; ``None`` from sources that count nothing
    (simulated, keyboard): then the event is one pulse. ``boot`` tells one
    firmware run from the next (its counts start again at 0); ``None`` when
    unknown."""

    type = "coin"
    input: int
    count: int | None = None
    boot: str | None = None


@dataclass(frozen=True, slots=True)
class TakeoutEvent(BoardEvent):
    """A sensor saw the darts being taken out (a DaSCR board's ultrasonic
    sensor, its ``u`` line)."""

    type = "takeout"


@dataclass(frozen=True, slots=True)
class BatteryEvent(BoardEvent):
    """A wireless board's battery level, in percent (GranBoard)."""

    type = "battery"
    percent: int


_UID_SEPARATORS = re.compile(r"[\s:\-.]")

CARD_UID = re.compile(r"[0-9A-Fa-f]{2}([:-]?[0-9A-Fa-f]{2}){1,19}|[0-9A-Fa-f]{4,40}")
"""A card's UID as a script or the keyboard source writes it: hex digits,
bytes optionally separated by ``:`` or ``-`` (``credentials.card_hash`` reads the same)."""


def masked_card(uid: str) -> str:
    """``uid`` with all but its last four digits hidden (``••••3F2A``): how a
    tap is shown anywhere but a ``--show-uid`` terminal. The same form as
    ``credentials.card_hash.masked_uid``, which drivers may not import."""
    return "\u2022" * 4 + _UID_SEPARATORS.sub("", uid).upper()[-4:]


@dataclass(frozen=True, slots=True)
class CardTapped(BoardEvent):
    """A player card was read (a card reader, ``card:UID`` in a simulated
    script, the keyboard source's card key). ``uid`` is a credential: its
    ``repr``, ``str`` and JSON form show only its last four digits."""

    type = "card"
    uid: str

    @property
    def masked(self) -> str:
        """The UID as a person may see it (:func:`masked_card`)."""
        return masked_card(self.uid)

    def __repr__(self) -> str:
        return f"CardTapped(uid={self.masked!r})"

    __str__ = __repr__

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "card": masked_card(self.uid)}
