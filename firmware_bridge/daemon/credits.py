"""A coin-operated board's rules: what a coin gives, what a game costs, when
happy hour is on (docs/credits.md). Pure: no I/O, the time is given, so the
daemon and its tests compute the same answers.
The daemon journals what these rules decide (``credit_ledger``,
:mod:`firmware_bridge.daemon.journal`).

A game's price is credits per player: the operator's ``set_price`` for the
game, else ``[credits] prices`` for the game, else the operator's board-wide
``set_price``, else ``[credits] player_prices`` for the number of paying
players, else ``[credits] price``; during a happy-hour window it is multiplied
by the window's ``price_multiplier`` and rounded to the nearest credit (a half
up). A coin's pulse gives ``credits_per_pulse`` of its input, plus the
window's ``bonus_per_pulse`` during happy hour.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from engine import game_class, game_ids

__all__ = [
    "DAYS",
    "ROUND_LIMIT_GAMES",
    "ROUND_LIMIT_OPTIONS",
    "HappyHour",
    "PriceList",
    "active_happy_hour",
    "clock_minutes",
    "game_cost",
    "local_time",
    "paid_options",
    "price_per_player",
    "pulse_credits",
    "shortfall",
]

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""Happy-hour days, Monday first (``datetime.weekday()`` order)."""

ROUND_LIMIT_OPTIONS = {
    game: option for game in game_ids() if (option := game_class(game).round_limit_option)
}
"""Each game with a round limit ``[credits] rounds`` may set, and its option."""
ROUND_LIMIT_GAMES = tuple(ROUND_LIMIT_OPTIONS)
"""The games with a round limit ``[credits] rounds`` may set."""

_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def clock_minutes(text: str) -> int:
    """``"17:30"`` -> minutes after midnight; a ``ValueError`` for anything
    that is not a 24-hour ``HH:MM`` (``"24:00"`` is written ``"00:00"``)."""
    found = _CLOCK.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a time of day: write HH:MM, such as 17:30")
    return int(found.group(1)) * 60 + int(found.group(2))


@dataclass(frozen=True)
class HappyHour:
    """One happy-hour window: on ``days`` (all days when empty) from
    ``start`` to ``end`` (``HH:MM``, local time; an ``end`` at or before
    ``start`` runs past midnight, the window belonging to its start day)."""

    start: str
    end: str
    days: tuple[str, ...] = ()
    price_multiplier: float = 1.0
    """A game's price is multiplied by this (0.5: half price; 0: free)."""
    bonus_per_pulse: int = 0
    """Extra credits for each coin pulse (the books keep them as ``happy-hour``)."""

    def covers(self, when: datetime) -> bool:
        """Whether the window is on at the local time ``when``."""
        start, end = clock_minutes(self.start), clock_minutes(self.end)
        minute = when.hour * 60 + when.minute
        today = DAYS[when.weekday()]
        yesterday = DAYS[(when.weekday() - 1) % 7]
        if start < end:
            return self._on(today) and start <= minute < end
        # Past midnight: the evening part today, the morning part of yesterday's window.
        return (self._on(today) and minute >= start) or (self._on(yesterday) and minute < end)

    def _on(self, day: str) -> bool:
        return not self.days or day in self.days


@dataclass(frozen=True)
class PriceList:
    """What a game costs, from ``[credits]`` and the operator's settings."""

    price: int = 1
    prices: Mapping[str, int] = field(default_factory=dict)
    """Per game id: credits per player (``[credits] prices``)."""
    player_prices: Mapping[int, int] = field(default_factory=dict)
    """Per number of paying players: credits per player (``[credits] player_prices``)."""
    operator_price: int | None = None
    """The operator's ``set_price`` without a game (overrides ``player_prices`` and ``price``)."""
    operator_prices: Mapping[str, int] = field(default_factory=dict)
    """The operator's ``set_price`` for one game (overrides everything)."""


def local_time(at: float, timezone: str = "") -> datetime:
    """``at`` (unix seconds) as an aware local time in ``timezone`` (an IANA
    name; empty: the system's local time)."""
    if timezone:
        return datetime.fromtimestamp(at, ZoneInfo(timezone))
    return datetime.fromtimestamp(at).astimezone()


def active_happy_hour(
    windows: Sequence[HappyHour], at: float, timezone: str = ""
) -> HappyHour | None:
    """The first window on at ``at``, or ``None``."""
    if not windows:
        return None
    when = local_time(at, timezone)
    return next((window for window in windows if window.covers(when)), None)


def price_per_player(
    prices: PriceList, game: str | None, players: int, happy: HappyHour | None = None
) -> int:
    """Credits per player for ``game`` with ``players`` paying players now
    (``game`` None: the board's price, as the state shows it)."""
    if game is not None and game in prices.operator_prices:
        base = prices.operator_prices[game]
    elif game is not None and game in prices.prices:
        base = prices.prices[game]
    elif prices.operator_price is not None:
        base = prices.operator_price
    else:
        base = prices.player_prices.get(players, prices.price)
    if happy is None or happy.price_multiplier == 1.0:
        return base
    return max(0, math.floor(base * happy.price_multiplier + 0.5))


def game_cost(
    prices: PriceList, game: str, players: int, happy: HappyHour | None = None
) -> tuple[int, int]:
    """``(per player, total)`` credits a game of ``game`` costs now."""
    each = price_per_player(prices, game, players, happy)
    return each, each * players


def pulse_credits(
    credits_per_pulse: Sequence[int], coin_input: int, happy: HappyHour | None = None
) -> tuple[int, int]:
    """``(credits, bonus)`` one pulse on ``coin_input`` (1, 2, ...) gives. An
    input the config gives no value (a mechanism wired to an input it does
    not list) gives 1 credit: a paid coin is never worth nothing."""
    index = coin_input - 1
    value = credits_per_pulse[index] if 0 <= index < len(credits_per_pulse) else 1
    return value, 0 if happy is None else happy.bonus_per_pulse


def shortfall(players: int, each: int, held: int) -> str | None:
    """The refusal of a game that costs ``players`` x ``each`` credits when
    ``held`` are held, naming the shortfall; ``None`` when they are enough."""
    total = players * each
    if held >= total:
        return None
    plural = "s" if players != 1 else ""
    return (
        f"{players} player{plural} x {each} credit{'s' if each != 1 else ''} = {total} "
        f"credit{'s' if total != 1 else ''}; {held} held: insert {total - held} more"
    )


def paid_options(
    rounds: Mapping[str, int], game: str, options: Mapping[str, object]
) -> dict[str, object]:
    """A paid game's options: ``[credits] rounds`` for the game as its round
    limit, unless the players chose one."""
    chosen = dict(options)
    limit = rounds.get(game)
    option = ROUND_LIMIT_OPTIONS.get(game)
    if limit and option is not None and option not in chosen:
        chosen[option] = limit
    return chosen
