"""The credit rules (prices, happy hour) and the journal's ledger: pure
functions with the time given, and a real SQLite journal."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.config import ConfigError, parse_config
from firmware_bridge.daemon.credits import (
    HappyHour,
    PriceList,
    active_happy_hour,
    clock_minutes,
    game_cost,
    paid_options,
    price_per_player,
    pulse_credits,
    shortfall,
)
from firmware_bridge.daemon.journal import Charge, Journal, JournalError

LONDON = ZoneInfo("Europe/London")


def at(day: int, hour: int, minute: int = 0) -> float:
    """A time in November 2026 in London (the 27th is a Friday)."""
    return datetime(2026, 11, day, hour, minute, tzinfo=LONDON).timestamp()


def test_prices_most_specific_first() -> None:
    prices = PriceList(price=1, prices={"x01": 2}, player_prices={3: 3})
    assert game_cost(prices, "x01", 3) == (2, 6)  # the game's price wins
    assert game_cost(prices, "cricket", 3) == (3, 9)  # then the player count's
    assert game_cost(prices, "cricket", 2) == (1, 2)
    operator = PriceList(price=1, prices={"x01": 2}, operator_price=4, operator_prices={"x01": 5})
    assert price_per_player(operator, "x01", 1) == 5
    assert price_per_player(operator, "cricket", 1) == 4
    assert price_per_player(operator, None, 1) == 4


def test_happy_hour_windows_days_and_midnight() -> None:
    evening = HappyHour("17:00", "19:00", ("fri",), 0.5, 1)
    late = HappyHour("22:00", "02:00", ("sat",))
    windows = [evening, late]
    assert active_happy_hour(windows, at(27, 17), "Europe/London") is evening
    assert active_happy_hour(windows, at(27, 19), "Europe/London") is None  # end excluded
    assert active_happy_hour(windows, at(26, 18), "Europe/London") is None  # Thursday
    assert active_happy_hour(windows, at(28, 23), "Europe/London") is late
    assert active_happy_hour(windows, at(29, 1, 30), "Europe/London") is late  # Sunday morning
    assert active_happy_hour(windows, at(29, 23), "Europe/London") is None
    assert price_per_player(PriceList(price=3), None, 1, evening) == 2  # 1.5 rounds up
    assert price_per_player(PriceList(price=2), None, 1, evening) == 1
    assert pulse_credits((1, 5), 2, evening) == (5, 1)
    assert pulse_credits((1,), 3) == (1, 0)  # an input the config does not list


def test_shortfall_and_round_limits() -> None:
    assert shortfall(2, 2, 3) == "2 players x 2 credits = 4 credits; 3 held: insert 1 more"
    assert shortfall(1, 1, 0) == "1 player x 1 credit = 1 credit; 0 held: insert 1 more"
    assert shortfall(2, 2, 4) is None
    assert paid_options({"x01": 20}, "x01", {"start": 301}) == {"start": 301, "rounds": 20}
    assert paid_options({"x01": 20}, "x01", {"rounds": 5}) == {"rounds": 5}
    assert paid_options({"x01": 20}, "cricket", {}) == {}
    with pytest.raises(ValueError, match="HH:MM"):
        clock_minutes("7pm")


def test_running_counts_credit_each_pulse_once(tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        first = journal.ledger.record_coin("pub", 1, 3, "a", 1.0, 2)
        assert (first.pulses, first.credits, first.balance) == (3, 6, 6)
        assert journal.ledger.record_coin("pub", 1, 3, "a", 2.0, 2).pulses == 0  # seen again
        assert journal.ledger.record_coin("pub", 1, 2, "a", 2.0, 2).pulses == 0  # an old frame
        assert journal.ledger.record_coin("pub", 1, 5, "a", 3.0, 2).pulses == 2
        assert (
            journal.ledger.record_coin("pub", 1, 1, "b", 4.0, 2).pulses == 1
        )  # a new boot: from 0
        assert journal.ledger.record_coin("pub", 2, None, None, 5.0, 1, 1).credits == 1
        assert journal.ledger.credit_balance("pub") == 6 + 4 + 2 + 2
        assert journal.ledger.credit_balance("other") == 0
        totals = journal.ledger.credit_totals("pub", None, None)
        assert totals == [("coin", 1, 12, 6), ("coin", 2, 1, 1), ("happy-hour", 2, 1, 0)]
        with pytest.raises(JournalError, match="coin input 0"):
            journal.ledger.record_coin("pub", 0, None, None, 6.0, 1)


def test_a_game_is_paid_in_the_transaction_that_starts_it(tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        journal.ledger.add_credits("pub", 3, "remote", 1.0, "tablet")
        with pytest.raises(JournalError, match="holds 3 credits; the game costs 4"):
            journal.games.start_game("x01", {}, ["A", "B"], None, "pub", 2.0, charge=Charge(4))
        assert journal.games.games(board="pub") == []  # no game without its payment
        game = journal.games.start_game("x01", {}, ["A"], None, "pub", 3.0, charge=Charge(2))
        journal.games.start_game("x01", {}, ["A"], None, "pub", 4.0, charge=Charge(0, "free-play"))
        with journal.database.reading() as db:
            lines = db.execute(
                "SELECT change, source, game_id FROM credit_ledger WHERE id > 1 ORDER BY id"
            ).fetchall()
        assert lines == [(-2, "game", game), (0, "free-play", game + 1)]
        with pytest.raises(JournalError, match="not 5"):
            journal.ledger.add_credits("pub", -5, "remote", 5.0)
        assert journal.ledger.credit_balance("pub") == 1
        books_now = books(journal, "pub", now=10.0)
        assert books_now["customer"]["games"]["x01"]["played"] == 2
        assert books_now["customer"]["credits_spent"] == 2
        journal.ledger.reset_books("pub", 6.0, "collected")
        assert books(journal, "pub", now=10.0)["customer"]["games_played"] == 0
        journal.settings.set_operator_setting("pub", "price.x01", 3, 7.0)
        journal.settings.set_operator_setting("pub", "free_play", True, 7.0)
        journal.settings.set_operator_setting("pub", "price.x01", None, 8.0)
        assert journal.settings.operator_settings("pub") == {"free_play": True}


def test_credits_config_problems_are_all_named() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            "[credits]\n"
            'mode = "coins"\n'
            "credits_per_pulse = []\n"
            "prices = { golf = 2 }\n"
            'player_prices = { "9" = 1 }\n'
            "rounds = { x01 = 0 }\n"
            "[[credits.happy_hour]]\n"
            'start = "5pm"\n'
            'days = ["funday"]\n'
            "bonus_per_pulse = -1\n",
            "bar.toml",
        )
    text = str(caught.value)
    for key in (
        "credits.mode",
        "credits.credits_per_pulse",
        "credits.prices",
        "credits.player_prices",
        "credits.rounds",
        "credits.happy_hour[0].start",
        "credits.happy_hour[0].end",
        "credits.happy_hour[0].days",
        "credits.happy_hour[0].bonus_per_pulse",
    ):
        assert f"bar.toml: {key}: " in text, key
    with pytest.raises(ConfigError, match="write them in the config file"):
        parse_config("", "t", ["credits.happy_hour=[]"])
