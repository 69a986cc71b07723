"""The books of a coin-operated board: what it took in and what it played.

One aggregation, :func:`books`, over the journal's credit lines, books resets
and games (docs/credits.md, "The books"): a board's whole books come from
the running totals the journal keeps (their cost does not grow with its
history), a period's are summed over that period. Both ``oche books`` and the daemon's
retained ``{base}/{board}/books`` snapshot print what it returns, so the two
never disagree. It gives two sets of books side by side:

- the *customer* books, since the board's last ``reset_books`` (the
  operator's books, cleared when the bar and the operator settle up);
- the *security* books, over the board's whole life: never reset.

``since`` and ``until`` (unix seconds, ``until`` excluded) narrow both.
"""

from __future__ import annotations

import time
from typing import Any

from firmware_bridge.daemon.journal import Journal
from mqtt_contract import CREDIT_SOURCES

__all__ = ["SPEND_SOURCE", "books", "empty_section"]

SPEND_SOURCE = "game"
"""The ledger source of the credits a game spent (its refunds, if any, too)."""

CREDITS_IN_SOURCES = tuple(source for source in CREDIT_SOURCES if source != SPEND_SOURCE)
"""The sources that put credits in: coin, remote, happy-hour, free-play."""


def empty_section() -> dict[str, Any]:
    """One set of books with nothing in it (every source listed, at 0)."""
    return {
        "from": None,
        "until": None,
        "coins": {},
        "coins_total": 0,
        "credits_in": dict.fromkeys(CREDITS_IN_SOURCES, 0),
        "credits_in_total": 0,
        "credits_spent": 0,
        "credits_net": 0,
        "games": {},
        "games_played": 0,
        "play_time_s": 0.0,
    }


def _section(
    journal: Journal, board: str, start: float | None, end: float | None, book: str | None = None
) -> dict[str, Any]:
    """The books of ``board`` over ``start <= at < end``: summed over the
    period, or read from the running totals of ``book`` (``security``,
    ``customer``), which are that book's whole period (``end`` open)."""
    ledger = journal.ledger
    if book is None:
        credit_rows = ledger.credit_totals(board, start, end)
        game_rows = ledger.game_totals(board, start, end)
    else:
        credit_rows = ledger.running_credit_totals(board, book)
        game_rows = ledger.running_game_totals(board, book, start)
    section = empty_section()
    section["from"], section["until"] = start, end
    credits_in: dict[str, int] = section["credits_in"]
    coins: dict[str, dict[str, int]] = section["coins"]
    for source, coin_input, change, pulses in credit_rows:
        if source == SPEND_SOURCE:
            section["credits_spent"] -= change  # a spend is a negative line
            continue
        credits_in[source] = credits_in.get(source, 0) + change
        if source == "coin" and coin_input is not None:
            coin = coins.setdefault(str(coin_input), {"pulses": 0, "credits": 0})
            coin["pulses"] += pulses
            coin["credits"] += change
            section["coins_total"] += pulses
    section["coins"] = dict(sorted(coins.items(), key=lambda item: int(item[0])))
    section["credits_in_total"] = sum(credits_in.values())
    section["credits_net"] = section["credits_in_total"] - section["credits_spent"]
    games: dict[str, dict[str, Any]] = section["games"]
    for game, played, finished, seconds in game_rows:
        games[game] = {"played": played, "finished": finished, "play_time_s": round(seconds, 3)}
        section["games_played"] += played
        section["play_time_s"] += seconds
    section["play_time_s"] = round(section["play_time_s"], 3)
    return section


def books(
    journal: Journal,
    board: str,
    since: float | None = None,
    until: float | None = None,
    *,
    now: float | None = None,
) -> dict[str, Any]:
    """``board``'s customer and security books from ``journal`` (open), both
    limited to ``since <= at < until`` (unix seconds; ``None``: open). The
    customer books also start at the last books reset before ``until``
    (``reset_at``). Each set has ``coins`` (per input: pulses and the credits
    they gave), ``credits_in`` per source, ``credits_spent`` by games,
    ``credits_net``, ``games`` per game id (played, finished, play time) and
    ``play_time_s``. ``updated_at`` is ``now`` (default: the clock); the whole
    dict is the retained ``books`` topic's payload. A :class:`JournalError`
    when the journal cannot be read."""
    if since is not None and until is not None and until < since:
        raise ValueError(f"the period ends ({until}) before it starts ({since})")
    reset_at = journal.ledger.last_books_reset(board, until)
    customer_start = (
        since if reset_at is None or (since is not None and since > reset_at) else reset_at
    )
    whole = since is None and until is None  # the running totals are the books
    customer = _section(journal, board, customer_start, until, "customer" if whole else None)
    customer["reset_at"] = reset_at
    return {
        "board": board,
        "since": since,
        "until": until,
        "customer": customer,
        "security": _section(journal, board, since, until, "security" if whole else None),
        "updated_at": time.time() if now is None else now,
    }
