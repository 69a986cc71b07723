"""The leaderboard snapshots the attract screen shows between games, read
defensively from the retained ``{base}/leaderboard/{game}`` messages.

The leaderboard service (``oche leaderboard serve``) publishes one snapshot per
game: the top 10 rows and the day's records. The display reads it with the
contract's type (mqtt_contract.LeaderboardSnapshot), which checks every field
(anything on the broker may have sent it), and keeps what it shows:
:func:`parse_snapshot` returns a frozen :class:`Snapshot` or raises
:class:`SnapshotError` naming what was wrong, and the feed then ignores the
message with one log line (display/state_feed.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqtt_contract import (
    BOARD_ID_PATTERN,
    LEADERBOARD_LEVEL,
    LeaderboardRow,
    LeaderboardSnapshot,
    PayloadError,
    RecordEntry,
)

__all__ = [
    "MAX_ROWS",
    "MAX_SNAPSHOT_BYTES",
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


def _trimmed(document: dict[str, Any]) -> dict[str, Any]:
    """The snapshot without the rows and highlights past what is shown (so a
    longer one is read, as ever, for its first ones)."""
    top = document.get("top")
    if isinstance(top, list):
        document = {**document, "top": top[:MAX_ROWS]}
    records = document.get("records")
    if isinstance(records, dict) and isinstance(records.get("highlights"), list):
        records = {**records, "highlights": records["highlights"][:MAX_HIGHLIGHTS]}
        document = {**document, "records": records}
    return document


def _row(row: LeaderboardRow) -> SnapshotRow:
    return SnapshotRow(
        rank=row.rank,
        player=row.player.strip(),
        venue=row.venue,
        played=row.played,
        won=row.won,
        win_percent=row.win_percent,
        rating=row.rating,
        average=row.average,
    )


def _record(entry: RecordEntry) -> RecordLine:
    return RecordLine(entry.label, entry.value, entry.player, entry.game)


def parse_snapshot(game: str, payload: bytes | str) -> Snapshot:
    """The snapshot of ``game`` (its topic's last level) in ``payload``, read
    with the contract's :meth:`~mqtt_contract.LeaderboardSnapshot.from_json`;
    :class:`SnapshotError` when it is not one (too big, not JSON, a field of
    the wrong type, another game's)."""
    if len(payload) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(
            f"{len(payload)} bytes, over the {MAX_SNAPSHOT_BYTES} a snapshot may have"
        )
    try:
        document = json.loads(payload, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise SnapshotError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise SnapshotError("must be a JSON object")
    if document.get("game") != game:
        raise SnapshotError(
            f"game is {json.dumps(document.get('game'))[:40]}, not the topic's {game!r}"
        )
    try:
        snapshot = LeaderboardSnapshot.from_json(_trimmed(document))
    except PayloadError as error:
        raise SnapshotError(str(error).removeprefix("$.")) from None
    records = snapshot.records
    lines = [
        _record(entry)
        for entry in (records.highest_checkout, records.best_leg, records.most_180s)
        if entry is not None
    ]
    lines += [_record(entry) for entry in records.highlights]
    rows = tuple(_row(row) for row in snapshot.top)
    return Snapshot(game, snapshot.updated_at, rows, tuple(lines), snapshot.period, records.period)


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
