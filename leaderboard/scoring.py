"""Re-scoring a result document from its log with the engine, and each player's
statistics from that replay. Pure: no database, no I/O. A result whose log does
not give what it claims is refused with :class:`RejectedResultError`, naming why.

Every statistic the leaderboard shows is a sum, maximum or minimum of the
per-result figures in :class:`PlayerLine`, so rankings aggregate in SQL."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HIGHLIGHTS",
    "Highlight",
    "PlayerLine",
    "RejectedResultError",
    "ScoredResult",
    "VisitLine",
    "score_result",
]


class RejectedResultError(ValueError):
    """A result that cannot be stored as played: not JSON, not the result
    schema, too big, or a log that does not give its claimed winner and scores.
    ``reason`` is one line for people (it quotes what was wrong)."""

    def __init__(self, reason: str, result_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result_id = result_id


@dataclass(frozen=True, slots=True)
class Highlight:
    """A game's own highlight: what it is called and whether more is better."""

    label: str
    higher_is_better: bool = True


HIGHLIGHTS: dict[str, Highlight] = {}
"""Game id -> its highlight (the most runs in Baseball, ...); filled per game."""


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """One player's figures in one result, replayed from its log."""

    index: int
    name: str
    team: int | None
    score: int
    won: bool
    placement: int
    darts: int
    highlight: float | None
    # X01 (zero / None for other games)
    points: int = 0
    first9_points: int = 0
    first9_darts: int = 0
    checkout_darts: int = 0
    checkouts: int = 0
    highest_checkout: int | None = None
    leg_darts: int | None = None
    count_100: int = 0
    count_140: int = 0
    count_180: int = 0
    # Cricket and Cricket-Shanghai (zero for other games)
    marks: int = 0
    count_5_marks: int = 0
    count_7_marks: int = 0
    count_9_marks: int = 0


@dataclass(frozen=True, slots=True)
class VisitLine:
    """One visit of the replay, for a result's breakdown."""

    player: int
    darts: tuple[str, ...]
    points: int
    marks: int
    bust: bool
    score_after: int


@dataclass(frozen=True, slots=True)
class ScoredResult:
    """A result document checked against its own log."""

    result_id: str
    board: str
    game: str
    options: dict[str, Any]
    result: str
    winner: int | None
    started_at: float | None
    finished_at: float
    players: tuple[PlayerLine, ...]
    visits: tuple[VisitLine, ...]


def score_result(document: Mapping[str, Any]) -> ScoredResult:
    """Replay ``document`` (a parsed result payload) and return its figures."""
    raise NotImplementedError
