"""The coin-op extension: a coin-operated board's credits and books (docs/credits.md).

A coin-operated board (``[credits] mode = "coin"``) keeps its credits in the
journal's ledger: a coin is journaled (with the firmware's running count)
before it counts, a game's price is spent in the transaction that starts it
(the core asks it: :class:`~firmware_bridge.daemon.core_events.GameStarting`),
and a game short of credits is refused naming the shortfall (``new_game``,
``rematch`` and the start-up game alike). Every change of the credits is a
``credits`` event, and the retained ``books`` snapshot follows each change
of the books. The rules themselves are :mod:`firmware_bridge.daemon.credits`.
"""

from __future__ import annotations

import logging
from typing import Any

from drivers.board_events import CoinEvent
from engine import EngineError
from engine.registry import game_class
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.bots import Bots
from firmware_bridge.daemon.credits import (
    HappyHour,
    PriceList,
    active_happy_hour,
    game_cost,
    local_time,
    price_per_player,
    pulse_credits,
    shortfall,
)
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal, SessionSetup
from firmware_bridge.daemon.journal import Charge, JournalError
from mqtt_contract import CreditsChanged

__all__ = ["CoinOp"]

log = logging.getLogger(__name__)


class CoinOp(Extension):
    """The board's credits, prices and books. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.credits_held = 0
        """The credits the board holds (the journal's ledger, read at start)."""
        self.operator_settings: dict[str, Any] = {}
        """What the operator set (free_play, price, price.<game>), from the journal."""
        self._coins_today: tuple[float, int] | None = None
        """(the local midnight, the coin pulses since): the state's ``coins_today``."""
        context.subscribe(core_events.GameStarting, self._price)
        context.subscribe(core_events.GameStarted, self._started)
        context.subscribe(core_events.GameFinished, lambda _: self.publish_books())
        context.subscribe(core_events.GameAbandoned, lambda _: self.publish_books())
        context.subscribe(core_events.BoardInputReceived, self._board_input)
        context.subscribe(core_events.StateBuilt, self._state)
        context.subscribe(core_events.CreditsSensorsAsked, lambda _: self._sensors())

    def opened(self) -> None:
        """The journal is open: read the credits held and the operator's settings."""
        context = self._context
        self.credits_held = context.journal.ledger.credit_balance(context.board_id)
        self.operator_settings = context.journal.settings.operator_settings(context.board_id)

    async def on_connect(self) -> None:
        link = self._context.link
        if link is not None and self._books_kept():
            await link.publish("books", self._books_snapshot())

    # ------------------------------------------------------------- prices

    def free_play(self) -> bool:
        """Every game is free now: ``[credits] mode = "free"``, or the operator's free play."""
        config = self._context.config
        return config.credits.mode == "free" or bool(self.operator_settings.get("free_play"))

    def _sensors(self) -> bool:
        return self._context.config.credits.mode == "coin" and not self.free_play()

    def happy_hour(self, now: float) -> HappyHour | None:
        """The happy-hour window on at ``now``, if any."""
        credits = self._context.config.credits
        return active_happy_hour(credits.happy_hour, now, credits.timezone)

    def price_list(self) -> PriceList:
        """``[credits]`` prices with the operator's ``set_price`` on top."""
        credits, settings = self._context.config.credits, self.operator_settings
        operator_price = settings.get("price")
        return PriceList(
            price=credits.price,
            prices=credits.prices,
            player_prices={int(n): price for n, price in credits.player_prices.items()},
            operator_price=operator_price if isinstance(operator_price, int) else None,
            operator_prices={
                key.removeprefix("price."): value
                for key, value in settings.items()
                if key.startswith("price.") and isinstance(value, int)
            },
        )

    def _state(self, built: core_events.StateBuilt) -> None:
        """The state's ``credits`` block: mode, free play, credits held, the
        price per player now, and whether happy hour is on."""
        now = self._context.clock()
        happy = self.happy_hour(now)
        free = self.free_play()
        prices = self.price_list()
        mode = self._context.config.credits.mode
        block: dict[str, Any] = {
            "mode": mode,
            "free_play": free,
            "credits": self.credits_held,
            "price": 0 if free else price_per_player(prices, None, 1, happy),
            "happy_hour": happy is not None,
        }
        if mode == "coin":
            block["coins_today"] = self._coins_since_midnight(now)
            if not free:
                # What a screen needs to say what the game it sets up costs:
                # per game, else per number of players, else ``price`` (the
                # operator's board-wide price overrides the player counts).
                games = {*prices.prices, *prices.operator_prices}
                block["game_prices"] = {
                    game: price_per_player(prices, game, 1, happy) for game in sorted(games)
                }
                block["player_prices"] = (
                    {}
                    if prices.operator_price is not None
                    else {
                        str(n): price_per_player(prices, None, n, happy)
                        for n in sorted(prices.player_prices)
                    }
                )
        built.state["credits"] = block

    def _midnight(self, now: float) -> float:
        """The local midnight (``[credits] timezone``) that began ``now``'s day."""
        local = local_time(now, self._context.config.credits.timezone)
        return local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()

    def _coins_since_midnight(self, now: float) -> int:
        """Coin pulses since the local midnight: summed from the journal once a
        day, then kept up as coins come (the state is published for every dart)."""
        midnight = self._midnight(now)
        if self._coins_today is None or self._coins_today[0] != midnight:
            try:
                totals = self._context.journal.ledger.credit_totals(
                    self._context.board_id, midnight, None
                )
            except JournalError as error:
                log.error("the day's coins not read: %s", error)
                return 0
            pulses = sum(p for source, _, _, p in totals if source == "coin")
            self._coins_today = (midnight, pulses)
        return self._coins_today[1]

    # ------------------------------------------------------------- games

    def _paying_players(
        self, setup: SessionSetup, bots: Bots | None, remote: dict[str, Any] | None
    ) -> int:
        """The players a game at this board costs: not computer players, not
        players throwing at another board of a remote match."""
        own = f"{self._context.config.mqtt.base}/{self._context.board_id}"
        boards = remote.get("boards") if isinstance(remote, dict) else None
        cpu = bots.players if bots is not None else {}
        return sum(
            1
            for name in setup.players
            if name not in cpu and (not isinstance(boards, dict) or boards.get(name, own) == own)
        )

    def _price(self, starting: core_events.GameStarting) -> Charge | None:
        """What starting the game costs now; a :class:`Refusal` naming the
        shortfall when the credits held are short. ``None`` in free mode."""
        if self._context.config.credits.mode == "free":
            return None
        if self.free_play():
            return Charge(0, "free-play", "free play")
        setup = starting.setup
        game_class(setup.game)  # an unknown game is named before its price
        players = self._paying_players(setup, starting.bots, starting.remote)
        each, total = game_cost(
            self.price_list(), setup.game, players, self.happy_hour(starting.at)
        )
        problem = shortfall(players, each, self.credits_held)
        if problem is not None:
            raise Refusal(problem)
        return Charge(total, "game")

    def _started(self, started: core_events.GameStarted) -> None:
        if started.charge is not None:
            self.credited(-started.charge.credits, started.charge.source, started.at, game=True)
        self.publish_books()

    # ------------------------------------------------------------- credits

    def credited(
        self,
        change: int,
        source: str,
        now: float,
        coin_input: int | None = None,
        reason: str | None = None,
        game: bool = False,
    ) -> None:
        """A ledger line was journaled: the credits held follow it and it is
        published as a ``credits`` event (a free-play game's 0 line too)."""
        if not change and not game:
            return
        self.credits_held += change
        self._context.publish_event(
            CreditsChanged(now, change, self.credits_held, source, coin_input, reason)
        )
        if not game:
            self.publish_books()

    def _board_input(self, received: core_events.BoardInputReceived) -> bool:
        if not isinstance(received.event, CoinEvent):
            return False
        self._coin(received.event, received.at)
        return True

    def _coin(self, event: CoinEvent, now: float) -> None:
        """A coin pulse (or the firmware's running count): journaled and
        credited in one transaction before anything shows it. One the journal
        refuses is refused as any input (the firmware's next count credits it)."""
        context = self._context
        happy = self.happy_hour(now)
        per_pulse, bonus = pulse_credits(
            context.config.credits.credits_per_pulse, event.input, happy
        )
        credit = context.journal.ledger.record_coin(
            context.board_id, event.input, event.count, event.boot, now, per_pulse, bonus
        )
        if not credit.pulses:
            log.debug("coin count %s on input %d already journaled", event.count, event.input)
            return
        log.info(
            "coin input %d: %d pulse(s), %d credit(s)", event.input, credit.pulses, credit.credits
        )
        if self._coins_today is not None and self._coins_today[0] == self._midnight(now):
            self._coins_today = (self._coins_today[0], self._coins_today[1] + credit.pulses)
        self.credited(credit.credits, "coin", now, event.input)
        self.credited(credit.bonus, "happy-hour", now, event.input, "happy hour bonus")
        self.credits_held = credit.balance  # the journal's sum is the truth

    # ------------------------------------------------------------- books

    def _books_kept(self) -> bool:
        """Whether the daemon publishes the books: a coin-operated board, or
        one whose ledger has lines (credits were added while in free mode)."""
        return self._context.config.credits.mode == "coin" or self.credits_held != 0

    def _books_snapshot(self) -> dict[str, Any]:
        """The retained ``books`` payload: :func:`books` (the customer and
        security books, as ``oche books`` prints them), with the credits held
        and ``today``'s books (since the local midnight of ``[credits] timezone``)."""
        context = self._context
        now = context.clock()
        snapshot = books(context.journal, context.board_id, now=now)
        today = books(context.journal, context.board_id, self._midnight(now), now=now)
        snapshot["today"] = today["security"]
        snapshot["credits"] = self.credits_held
        return snapshot

    def publish_books(self, force: bool = False) -> None:
        """Queue the retained ``books`` snapshot (summed now from the journal)."""
        link = self._context.link
        if not (force or self._books_kept()) or link is None or not link.connected:
            return
        try:
            self._context.publish("books", self._books_snapshot())
        except JournalError as error:
            log.error("books not published: %s", error)

    # ------------------------------------------------------------- the operator

    def add_credits(self, count: int, reason: str | None, now: float) -> None:
        """The operator's ``add_credits``: journaled, then published."""
        context = self._context
        held = context.journal.ledger.add_credits(context.board_id, count, "remote", now, reason)
        self.credits_held = held - count  # credited adds it back as it publishes
        self.credited(count, "remote", now, None, reason)

    def set_free_play(self, on: bool, now: float) -> None:
        """The operator's ``set_free_play``; refused on a board that is free anyway."""
        context = self._context
        if context.config.credits.mode == "free":
            raise Refusal(
                'this board\'s [credits] mode is "free": every game is free already; '
                'set mode = "coin" to charge for games'
            )
        context.journal.settings.set_operator_setting(context.board_id, "free_play", on, now)
        self.operator_settings["free_play"] = on
        log.info("operator: free play %s", "on" if on else "off")
        context.emit(core_events.CreditsSettingsChanged())  # the credits sensors come or go

    def reset_books(self, reason: str | None, now: float) -> None:
        """The operator's ``reset_books``: the customer books start again."""
        self._context.journal.ledger.reset_books(self._context.board_id, now, reason)
        log.info("operator: customer books reset")
        self.publish_books(force=True)

    def set_price(self, game: str | None, price: int | None, now: float) -> None:
        """The operator's ``set_price`` (``game`` ``None``: board-wide; ``price``
        ``None``: back to the config's)."""
        if game is not None:
            try:
                game = game_class(game).id
            except EngineError as error:
                raise Refusal(f"set_price: {error}") from None
        key = "price" if game is None else f"price.{game}"
        self._context.journal.settings.set_operator_setting(self._context.board_id, key, price, now)
        if price is None:
            self.operator_settings.pop(key, None)
        else:
            self.operator_settings[key] = price
        log.info("operator: %s = %s", key, "the config's" if price is None else price)
