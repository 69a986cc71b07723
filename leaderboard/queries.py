"""What the API, the pages, ``oche leaderboard show`` and the MQTT snapshots
read: each function takes a session and returns :mod:`leaderboard.api_models`.
``now`` (Unix seconds) fixes the period's end for tests; default: the clock."""

from __future__ import annotations

from sqlalchemy.orm import Session

from leaderboard.api_models import (
    Period,
    PlayerCard,
    Records,
    RejectedEntry,
    ResultDetail,
    ResultSummary,
    Row,
)

__all__ = [
    "PlayerNotFoundError",
    "ResultNotFoundError",
    "leaderboard",
    "player_card",
    "recent_results",
    "records",
    "rejected",
    "result_detail",
]


class PlayerNotFoundError(LookupError):
    """No player of that name (in that venue)."""


class ResultNotFoundError(LookupError):
    """No stored result with that id."""


def leaderboard(
    session: Session, game: str, period: Period, venue: str | None = None, now: float | None = None
) -> list[Row]:
    """One game's table for the period, ordered by rank (rating's ordinal)."""
    raise NotImplementedError


def player_card(session: Session, name: str, venue: str | None = None) -> PlayerCard:
    raise NotImplementedError


def result_detail(session: Session, result_id: str) -> ResultDetail:
    raise NotImplementedError


def records(
    session: Session, period: Period, venue: str | None = None, now: float | None = None
) -> Records:
    raise NotImplementedError


def recent_results(
    session: Session, limit: int = 20, venue: str | None = None
) -> list[ResultSummary]:
    raise NotImplementedError


def rejected(session: Session, limit: int = 100) -> list[RejectedEntry]:
    raise NotImplementedError
