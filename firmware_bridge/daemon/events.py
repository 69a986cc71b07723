"""The daemon's ``event`` messages as typed values, one frozen class per ``type``.

Each class names its ``type`` and its keys, in the order they are published;
:meth:`DaemonEvent.to_json` is the payload docs/mqtt.md describes (and
``TOPICS["event"].schema`` validates). The session and the daemon build these
from what happened, never from comparing two states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

__all__ = [
    "BatteryLevel",
    "BoardConnected",
    "BoardDisconnected",
    "Bounce",
    "Bust",
    "ButtonPressed",
    "CreditsChanged",
    "DaemonEvent",
    "Dart",
    "ErrorReported",
    "GameOver",
    "GameStarted",
    "Ignored",
    "PlayerChange",
    "Points",
    "Released",
    "Stuck",
    "Takeout",
    "TakeoutSensed",
    "Undone",
    "VisitEnd",
    "Winner",
]


def _optional() -> Any:
    """A key added to a type after its first version: left out of the payload
    when ``None`` (the game has no such thing), so older payloads stay as they were."""
    return field(default=None, metadata={"optional": True})


@dataclass(frozen=True, slots=True)
class DaemonEvent:
    """One thing that happened at ``at`` (Unix seconds)."""

    type: ClassVar[str]
    at: float

    def to_json(self) -> dict[str, Any]:
        """The ``event`` payload: ``type``, ``at``, then the class's own keys
        (an optional key only when it has a value)."""
        payload: dict[str, Any] = {"type": self.type}
        for key in fields(self):
            value = getattr(self, key.name)
            if value is None and key.metadata.get("optional"):
                continue
            payload[key.name] = list(value) if isinstance(value, tuple) else value
        return payload


@dataclass(frozen=True, slots=True)
class GameStarted(DaemonEvent):
    type: ClassVar[str] = "game_started"
    game: str
    options: Mapping[str, Any]
    players: Sequence[str]
    teams: Sequence[Mapping[str, Any]] | None


@dataclass(frozen=True, slots=True)
class Dart(DaemonEvent):
    """A dart thrown; in Cricket also the marks it scored and the targets it
    closed (``marks``, ``closed``: the engine's ``MarksGame.marked``); the
    daemon adds who entered it (``source``: ``mqtt_contract.DART_SOURCES``)."""

    type: ClassVar[str] = "dart"
    player: int
    segment: str
    points: int
    dart: int
    scored: bool
    marks: int | None = _optional()
    closed: tuple[str, ...] | None = _optional()
    source: str | None = _optional()


@dataclass(frozen=True, slots=True)
class Bust(DaemonEvent):
    type: ClassVar[str] = "bust"
    player: int


@dataclass(frozen=True, slots=True)
class VisitEnd(DaemonEvent):
    """A visit ended, in ``game`` (its id); in Cricket-Shanghai, whose marks
    count at a visit's end, also the marks it scored and the targets it closed."""

    type: ClassVar[str] = "visit_end"
    player: int
    darts: tuple[str, ...]
    total: int
    score_change: int | None
    visit_over: str | None
    game: str
    marks: int | None = _optional()
    closed: tuple[str, ...] | None = _optional()


@dataclass(frozen=True, slots=True)
class Takeout(DaemonEvent):
    type: ClassVar[str] = "takeout"
    player: int


@dataclass(frozen=True, slots=True)
class TakeoutSensed(DaemonEvent):
    """A board's sensor saw the darts being taken out (a DaSCR board's
    ultrasonic sensor); ``ended_visit``: it ended the takeout, as NEXT does."""

    type: ClassVar[str] = "takeout_sensed"
    ended_visit: bool


@dataclass(frozen=True, slots=True)
class PlayerChange(DaemonEvent):
    type: ClassVar[str] = "player_change"
    player: int
    previous: int


@dataclass(frozen=True, slots=True)
class Points(DaemonEvent):
    type: ClassVar[str] = "points"
    player: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Undone(DaemonEvent):
    type: ClassVar[str] = "undo"
    player: int


@dataclass(frozen=True, slots=True)
class Bounce(DaemonEvent):
    """BOUNCE took back ``player``'s last dart, ``segment``: it stays thrown,
    as a miss, and counts as a bounce-out (not an undo)."""

    type: ClassVar[str] = "bounce"
    player: int
    segment: str


@dataclass(frozen=True, slots=True)
class Winner(DaemonEvent):
    type: ClassVar[str] = "winner"
    player: int
    team: int | None


@dataclass(frozen=True, slots=True)
class GameOver(DaemonEvent):
    type: ClassVar[str] = "game_over"
    result: str
    winner: int | None


@dataclass(frozen=True, slots=True)
class Stuck(DaemonEvent):
    type: ClassVar[str] = "stuck"
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Released(DaemonEvent):
    type: ClassVar[str] = "released"
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class BatteryLevel(DaemonEvent):
    """A wireless board reported its battery level (a GranBoard's)."""

    type: ClassVar[str] = "battery"
    percent: int


@dataclass(frozen=True, slots=True)
class BoardConnected(DaemonEvent):
    type: ClassVar[str] = "board_connected"
    source: str


@dataclass(frozen=True, slots=True)
class BoardDisconnected(DaemonEvent):
    type: ClassVar[str] = "board_disconnected"
    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class ErrorReported(DaemonEvent):
    type: ClassVar[str] = "error"
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class Ignored(DaemonEvent):
    """A contact that was not scored (published as a ``hit`` with ``scored`` false)."""

    type: ClassVar[str] = "hit"
    segment: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "at": self.at,
            "segment": self.segment,
            "scored": False,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class ButtonPressed(DaemonEvent):
    type: ClassVar[str] = "button"
    button: str


@dataclass(frozen=True, slots=True)
class CreditsChanged(DaemonEvent):
    """The ``credits`` event: a line of the books, as it was journaled (its
    ``change``, the ``credits`` held after it, its ``source``; a coin's
    ``input``, an operator's ``reason``)."""

    type: ClassVar[str] = "credits"
    change: int
    credits: int
    source: str
    input: int | None = _optional()
    reason: str | None = _optional()
