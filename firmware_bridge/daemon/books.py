"""A board's books, summed from the journal in ONE place: the daemon's
retained ``books`` snapshot and ``oche books`` both call :func:`books`
(docs/credits.md). The customer books are :func:`books` since the last
``reset_books`` (:func:`books_snapshot`); the security books are the same
sums over the board's whole life; nothing here writes."""

from __future__ import annotations

from typing import Any

from firmware_bridge.daemon.journal import Journal
from firmware_bridge.mqtt_contract import CREDIT_SOURCES

__all__ = ["books", "books_snapshot"]


def books(
    journal: Journal,
    board: str | None = None,
    since: float | None = None,
    until: float | None = None,
) -> dict[str, Any]:
    """The books of ``board`` (every board: ``None``) for ``since <= at <
    until`` (unix seconds, either open): ``coins`` per input (``"1"``: its
    ``pulses`` and the ``credits`` they gave), ``credits_in`` per source
    (coin, remote, happy-hour, free-play; with their ``total``),
    ``credits_spent``, ``games`` played per game id (with ``games_played``
    and ``free_games``, those free play let start) and ``play_time_s``, the
    time from each game's start to its end (or its last dart)."""
    coins: dict[str, dict[str, int]] = {}
    credits_in = {source: 0 for source in CREDIT_SOURCES if source != "game"}
    spent = free_games = 0
    for line in journal.ledger_lines(board, since, until):
        if line.source == "coin" and line.coin_input is not None:
            entry = coins.setdefault(str(line.coin_input), {"pulses": 0, "credits": 0})
            entry["pulses"] += line.pulses or 0
            entry["credits"] += line.change
        if line.source == "free-play" and line.game_id is not None:
            free_games += 1
        if line.change > 0:
            credits_in[line.source] = credits_in.get(line.source, 0) + line.change
        elif line.change < 0:
            spent -= line.change
    games: dict[str, int] = {}
    play_time = 0.0
    for game, started_at, ended_at in journal.games_played(board, since, until):
        games[game] = games.get(game, 0) + 1
        if ended_at is not None and ended_at > started_at:
            play_time += ended_at - started_at
    return {
        "coins": dict(sorted(coins.items(), key=lambda item: int(item[0]))),
        "credits_in": {**credits_in, "total": sum(credits_in.values())},
        "credits_spent": spent,
        "games": dict(sorted(games.items())),
        "games_played": sum(games.values()),
        "free_games": free_games,
        "play_time_s": round(play_time, 3),
    }


def books_snapshot(
    journal: Journal, board: str, now: float, day_start: float | None = None
) -> dict[str, Any]:
    """The retained ``books`` payload: the ``customer`` books since the last
    reset (``reset_at``, ``None`` if never), the lifetime ``security`` books,
    ``today``'s (from ``day_start``, the local midnight) when given, the
    ``credits`` held and ``updated_at``."""
    reset_at = journal.last_books_reset(board)
    snapshot: dict[str, Any] = {
        "board": board,
        "customer": {"since": reset_at, **books(journal, board, reset_at)},
        "security": books(journal, board),
        "credits": journal.credit_balance(board),
        "reset_at": reset_at,
        "updated_at": now,
    }
    if day_start is not None:
        snapshot["today"] = {"since": day_start, **books(journal, board, day_start)}
    return snapshot
