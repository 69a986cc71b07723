"""The leaderboard snapshots the attract screen shows between games, read
defensively from the retained ``{base}/leaderboard/{game}`` messages.

The leaderboard service (``oche leaderboard serve``) publishes one snapshot per
game: the top 10 rows and the day's records. The display takes only what it
shows and checks every field, because anything on the broker may have sent
it: :func:`parse_snapshot` returns a frozen :class:`Snapshot` or raises
:class:`SnapshotError` naming what was wrong, and the feed then ignores the
message with one log line (display/state_feed.py).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mqtt_contract import BOARD_ID_PATTERN, LEADERBOARD_LEVEL, PERIODS

__all__ = [
    "MAX_ROWS",
    "MAX_SNAPSHOT_BYTES",
    "RECORD_KEYS",
    "RecordLine",
    "Snapshot",
    "SnapshotError",
    "SnapshotRow",
    "parse_snapshot",
    "snapshot_game",
    "today_records",
]

MAX_ROWS = 10
"""Rows shown per game: the service sends its top 10; more are not read."""
MAX_SNAPSHOT_BYTES = 256 * 1024
"""A bigger payload is refused unread: ten rows and a few records are a few KiB."""
MAX_HIGHLIGHTS = 32
"""Records read from a snapshot's ``highlights`` list; the rest are ignored."""
RECORD_KEYS = ("highest_checkout", "best_leg", "most_180s")
"""The records a snapshot names besides each game's highlights, in the order shown."""

_GAME_ID = re.compile(rf"^{BOARD_ID_PATTERN}$")


class SnapshotError(ValueError):
    """A leaderboard snapshot the display cannot show; the message says why."""


@dataclass(frozen=True, slots=True)
class SnapshotRow:
    """One player in a game's table, as the attract screen shows it."""

    rank: int
    player: str
    venue: str
    played: int
    won: int
    win_percent: float
    rating: float
    average: float | None
    """X01's three-dart average, Cricket's marks per round, else ``None``."""


@dataclass(frozen=True, slots=True)
class RecordLine:
    """One record of the day: what (``label``), the value, who and in which game."""

    label: str
    value: float
    player: str
    game: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One game's retained snapshot: its top rows and the records it carries."""

    game: str
    updated_at: float
    rows: tuple[SnapshotRow, ...]
    records: tuple[RecordLine, ...]
    period: str
    """The table's period: ``day``, or ``all`` when nobody played the game today."""
    records_period: str
    """The records' period (``day`` from the service)."""


def snapshot_game(base: str, topic: str) -> str | None:
    """The game id of a snapshot ``topic`` under ``base``, or ``None`` when
    ``topic`` is not one."""
    prefix = f"{base}/{LEADERBOARD_LEVEL}/"
    if not topic.startswith(prefix):
        return None
    game = topic[len(prefix) :]
    return game if _GAME_ID.match(game) else None


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SnapshotError(f"{where} must be a number, not {json.dumps(value)[:40]}")
    if not math.isfinite(value):
        raise SnapshotError(f"{where} must be finite")
    return float(value)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SnapshotError(f"{where} must be a whole number >= 0, not {json.dumps(value)[:40]}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SnapshotError(f"{where} must be a non-empty string")
    return value.strip()


def _row(value: Any, index: int) -> SnapshotRow:
    where = f"top[{index}]"
    if not isinstance(value, Mapping):
        raise SnapshotError(f"{where} must be an object")
    average = value.get("three_dart_average", value.get("mpr"))
    return SnapshotRow(
        rank=_count(value.get("rank"), f"{where}.rank"),
        player=_text(value.get("player"), f"{where}.player"),
        venue=str(value.get("venue") or ""),
        played=_count(value.get("played"), f"{where}.played"),
        won=_count(value.get("won"), f"{where}.won"),
        win_percent=_number(value.get("win_percent"), f"{where}.win_percent"),
        rating=_number(value.get("rating"), f"{where}.rating"),
        average=None if average is None else _number(average, f"{where} average"),
    )


def _record(value: Any, where: str, game: str) -> RecordLine:
    if not isinstance(value, Mapping):
        raise SnapshotError(f"{where} must be an object or null")
    return RecordLine(
        label=_text(value.get("label"), f"{where}.label"),
        value=_number(value.get("value"), f"{where}.value"),
        player=_text(value.get("player"), f"{where}.player"),
        game=str(value.get("game") or game),
    )


def _records(value: Any, game: str) -> tuple[str, tuple[RecordLine, ...]]:
    if value is None:
        return "day", ()
    if not isinstance(value, Mapping):
        raise SnapshotError("records must be an object")
    lines = [
        _record(value[key], f"records.{key}", game)
        for key in RECORD_KEYS
        if value.get(key) is not None
    ]
    highlights = value.get("highlights") or []
    if not isinstance(highlights, list):
        raise SnapshotError("records.highlights must be a list")
    lines += [
        _record(entry, f"records.highlights[{index}]", game)
        for index, entry in enumerate(highlights[:MAX_HIGHLIGHTS])
    ]
    period = value.get("period", "day")
    if period not in PERIODS:
        raise SnapshotError(f"records.period must be one of {', '.join(PERIODS)}")
    return period, tuple(lines)


def parse_snapshot(game: str, payload: bytes | str) -> Snapshot:
    """The snapshot of ``game`` (its topic's last level) in ``payload``;
    :class:`SnapshotError` when it is not one (too big, not JSON, a field of the
    wrong type, another game's)."""
    if len(payload) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(
            f"{len(payload)} bytes, over the {MAX_SNAPSHOT_BYTES} a snapshot may have"
        )
    try:
        document = json.loads(payload, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise SnapshotError(f"not JSON: {error}") from None
    if not isinstance(document, Mapping):
        raise SnapshotError("must be a JSON object")
    if document.get("game") != game:
        raise SnapshotError(
            f"game is {json.dumps(document.get('game'))[:40]}, not the topic's {game!r}"
        )
    top = document.get("top")
    if not isinstance(top, list):
        raise SnapshotError("top must be a list of rows")
    rows = tuple(_row(row, index) for index, row in enumerate(top[:MAX_ROWS]))
    period, records = _records(document.get("records"), game)
    updated_at = _number(document.get("updated_at"), "updated_at")
    table_period = document.get("period", "day")
    if table_period not in PERIODS:
        raise SnapshotError(f"period must be one of {', '.join(PERIODS)}")
    return Snapshot(game, updated_at, rows, records, table_period, period)


def _refuse_constant(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number")


def today_records(snapshots: Iterable[Snapshot]) -> tuple[RecordLine, ...]:
    """The records of every snapshot, each once (several games' snapshots may
    carry the same day's records), in the order they came."""
    seen: dict[RecordLine, None] = {}
    for snapshot in snapshots:
        for line in snapshot.records:
            seen.setdefault(line, None)
    return tuple(seen)
