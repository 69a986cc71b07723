"""Storing results: a payload in, exactly one row out. Every path (MQTT ingest,
``oche leaderboard import``) goes through :func:`ingest`, which re-scores the
result from its log, dedupes on ``result_id`` with a unique constraint and
keeps what it refuses as a rejected result with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from leaderboard.api_models import ResultSummary
from leaderboard.database import Database
from leaderboard.venues import VenueMap

__all__ = ["MAX_RESULT_BYTES", "IngestOutcome", "ingest"]

MAX_RESULT_BYTES = 1 << 20
"""A result payload over this many bytes is rejected unread."""


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """What became of one payload. ``summary`` is set for a new result."""

    status: Literal["imported", "duplicate", "rejected"]
    result_id: str | None
    reason: str | None = None
    summary: ResultSummary | None = None


def ingest(
    database: Database, payload: bytes, venues: VenueMap, received_at: float | None = None
) -> IngestOutcome:
    """Store one result payload (the ``result`` topic's bytes), committed
    before it returns; safe to call from several processes at once."""
    raise NotImplementedError
