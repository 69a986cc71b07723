"""The leaderboard service's own topics: ``{base}/leaderboard/{game}`` (a
game's top ten, retained: :class:`LeaderboardSnapshot`, whose types make the
topic's schema) and its availability. The service builds the snapshot from
these types and the display reads it with :meth:`LeaderboardSnapshot.from_json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, get_args

from mqtt_contract.event_payload import Index, Timestamp
from mqtt_contract.json_types import (
    JsonObject,
    Meta,
    flattened,
    object_schema,
    omitted,
    topic_schema,
)
from mqtt_contract.topic_names import LEADERBOARD_LEVEL, check_base
from mqtt_contract.topics import TopicSpec

__all__ = [
    "LEADERBOARD_TOP",
    "LEADERBOARD_TOPIC",
    "PERIODS",
    "CricketFigures",
    "DayRecords",
    "LeaderboardRow",
    "LeaderboardSnapshot",
    "Period",
    "RecordEntry",
    "X01Figures",
    "leaderboard_availability_topic",
    "leaderboard_topic",
]

Period = Literal["day", "week", "month", "all"]
"""A leaderboard period: the venue's local day, ISO week (from Monday), month, or all time."""

PERIODS: tuple[Period, ...] = get_args(Period)
"""Every :data:`Period`, shortest first: what the API, ``oche leaderboard show``
and the display take."""

LEADERBOARD_TOP = 10
"""How many rows a ``{base}/leaderboard/{game}`` snapshot carries at most."""

NullableNumber = float | None
NullableCount = Annotated[int | None, Meta(minimum=0)]


@dataclass(frozen=True, slots=True, kw_only=True)
class X01Figures(JsonObject):
    """An X01 row's own figures (its keys sit in the row). The service sends
    them all; a reader takes a row with some of them (an absent figure reads
    as ``None``)."""

    three_dart_average: NullableNumber = None
    first9_average: NullableNumber = None
    checkout_percent: NullableNumber = None
    highest_checkout: NullableCount = None
    best_leg_darts: NullableCount = None
    count_100: Index | None = omitted()
    count_140: Index | None = omitted()
    count_180: Index | None = omitted()


@dataclass(frozen=True, slots=True, kw_only=True)
class CricketFigures(JsonObject):
    """A Cricket or Cricket-Shanghai row's own figures (its keys sit in the row)."""

    mpr: NullableNumber = None
    best_game_mpr: NullableNumber = None
    count_5_marks: Index | None = omitted()
    count_7_marks: Index | None = omitted()
    count_9_marks: Index | None = omitted()


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderboardRow(JsonObject):
    """One player's row of a game's table."""

    json_def: ClassVar[str | None] = "row"
    json_description: ClassVar[str | None] = (
        "One player's row, as GET /api/leaderboard returns it. X01 rows add "
        "three_dart_average, first9_average, checkout_percent, highest_checkout, "
        "best_leg_darts, count_100, count_140 and count_180; Cricket and Cricket-Shanghai "
        "rows add mpr, best_game_mpr, count_5_marks, count_7_marks and count_9_marks "
        "(docs/leaderboard.md)."
    )

    rank: Annotated[int, Meta(minimum=1)]
    player: Annotated[str, Meta(min_length=1)]
    venue: str
    played: Index
    won: Index
    win_percent: Annotated[float, Meta(minimum=0, maximum=100)]
    rating: Annotated[float, Meta(description="The conservative OpenSkill ordinal.")]
    highlight: Annotated[
        float | None, Meta(description="The player's best of the game's own highlight, or null.")
    ] = None
    x01: X01Figures | None = flattened()
    cricket: CricketFigures | None = flattened()

    @property
    def average(self) -> float | None:
        """X01's three-dart average, Cricket's marks per round, else ``None``."""
        if self.x01 is not None:
            return self.x01.three_dart_average
        return None if self.cricket is None else self.cricket.mpr


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordEntry(JsonObject):
    """One record: the game it was set in, what it is, who set it, the value,
    the result it came from and when (Unix seconds)."""

    json_def: ClassVar[str | None] = "record"
    json_description: ClassVar[str | None] = (
        "One record: the game it was set in, what it is, who set it, the value, the "
        "result it came from and when (Unix seconds)."
    )

    game: str
    label: str
    player: str
    value: float
    result_id: str
    at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class DayRecords(JsonObject):
    """The day's records over every game."""

    json_description: ClassVar[str | None] = (
        "The day's records over every game (GET /api/records?period=day)."
    )

    period: Literal["day"] = "day"
    venue: str | None = None
    highest_checkout: RecordEntry | None
    best_leg: RecordEntry | None
    most_180s: RecordEntry | None
    highlights: tuple[RecordEntry, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderboardSnapshot(JsonObject):
    """A game's retained snapshot: the first rows of the day's table (or the
    all-time one, ``period``) and the day's records."""

    game: Annotated[str, Meta(description="The game id, as in the topic.")]
    updated_at: Annotated[Timestamp, Meta(description="When the service built it.")]
    period: Annotated[Literal["day", "all"], Meta(description="The table's period.")]
    top: Annotated[tuple[LeaderboardRow, ...], Meta(max_items=LEADERBOARD_TOP)]
    records: DayRecords


def _leaderboard_schema(defs: dict[str, Any]) -> dict[str, Any]:
    return object_schema(LeaderboardSnapshot, defs)


LEADERBOARD_TOPIC = TopicSpec(
    LEADERBOARD_LEVEL,
    retain=True,
    qos=1,
    schema=topic_schema(
        "Oche leaderboard topic",
        "A game's table, published retained by the leaderboard service on "
        "{base}/leaderboard/{game} after new results and on every (re)connection: the "
        f"first {LEADERBOARD_TOP} rows by rank of the day's table, or of the all-time table "
        "when nobody played the game today (period says which), and the day's records.",
        _leaderboard_schema,
    ),
)
"""``{base}/leaderboard/{game}``: not a board's topic, so not in :data:`TOPICS`."""


def leaderboard_availability_topic(base: str, instance: str) -> str:
    """``{base}/leaderboard/availability/{instance}``: a leaderboard service's
    retained ``online``/``offline`` (its last will). ``instance`` is its session's
    client id, or ``+`` to subscribe to every instance. A board that sees one
    come online sends again every result that no service has stored yet."""
    check_base(base)
    if instance != "+" and (
        not instance or any(c in instance for c in "/+#") or instance != instance.strip()
    ):
        raise ValueError(f"bad leaderboard instance {instance!r}: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/availability/{instance}"


def leaderboard_topic(base: str, game: str) -> str:
    """``{base}/leaderboard/{game}``; ``game`` may be ``+`` to subscribe to every
    game. A ValueError names a bad base or game."""
    check_base(base)
    if game != "+" and (not game or any(c in game for c in "/+#") or game != game.strip()):
        raise ValueError(f"bad game id {game!r} for a leaderboard topic: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/{game}"
