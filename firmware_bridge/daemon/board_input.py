"""The core's board input: what the board's source reports, in order, under the lock.

A hit is scored by :class:`~firmware_bridge.daemon.board_game.BoardGame`
unless an extension takes it first (a remote guest forwards it) or refuses
it (a remote match's turns, a computer player's visit: the hit is ignored
with the refusal's reason). A game button runs its command; a sensed takeout,
a coin and a player card go to the extensions that know them (the takeout
watch, the coin-op, the lobby). A card reader is a source of its own beside
the board (:meth:`BoardInput.read_cards`): its taps take the same path, its
connection is not the board's, and its failing stops nothing else. The
board's own status (connected, stuck cells, a diagnosed
problem) is kept here for the state's ``board`` block.
"""

from __future__ import annotations

import logging
from typing import Any

from drivers.board_decoder import DIAGNOSES
from drivers.board_events import (
    BatteryEvent,
    BoardEvent,
    ButtonEvent,
    CardTapped,
    CoinEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
    TakeoutEvent,
)
from drivers.source import BoardSource
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.board_game import BoardGame
from firmware_bridge.daemon.game_commands import GAME_BUTTONS, GameCommands
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    BatteryLevel,
    BoardConnected,
    BoardDisconnected,
    ButtonPressed,
    ErrorReported,
    Released,
    RemoteAction,
    Stuck,
)

__all__ = ["BoardInput"]

log = logging.getLogger(__name__)

_UNDERSTOOD = (HitEvent, ButtonEvent, TakeoutEvent, CoinEvent, StuckEvent, ReleasedEvent)
"""Board events that show the board is read as it should be (they end a
diagnosed ``board.problem``)."""


class BoardInput:
    """Reads one board's events into the game. No I/O in the constructor."""

    def __init__(self, game: BoardGame, commands: GameCommands) -> None:
        self._game = game
        self._commands = commands
        self.connected = False
        self.problem: str | None = None
        """What is wrong with the board, for the state's ``board.problem``: why
        it is disconnected, or what its source diagnosed (docs/drivers.md)."""
        self.stuck_cells: set[tuple[int, int]] = set()

    def state(self) -> dict[str, Any]:
        """The state's ``board`` block."""
        config = self._game.config
        return {
            "id": config.board.id,
            "name": config.board.name,
            "connected": self.connected,
            "status": (
                "disconnected"
                if not self.connected
                else ("stuck" if self.stuck_cells else "connected")
            ),
            "stuck_cells": [list(cell) for cell in sorted(self.stuck_cells)],
            "problem": self.problem,
        }

    async def read(self, source: BoardSource) -> None:
        """Take the board's events until it closes, each as a whole under the lock."""
        async for event in source:
            await self._take(event)

    async def read_cards(self, reader: BoardSource) -> None:
        """Take a card reader's taps until it closes, as the board's own input.
        Its connection changes are the reader's (it logs them), not the board's;
        a tap that fails is logged and the reader and the board read on."""
        async for event in reader:
            if not isinstance(event, CardTapped):
                continue
            try:
                await self._take(event)
            except Exception:  # a card's failure is never the board's
                log.exception("%s could not be taken; the board reads on", event)

    async def _take(self, event: BoardEvent) -> None:
        """One event, as a whole under the lock; the state follows."""
        game = self._game
        async with game.lock:
            try:
                self._event(event)
            except JournalError as error:  # refused as a whole: nothing of it counted
                game.not_journaled(_input_name(event), error, game.clock())
        game.publisher.request_state()

    def _event(self, event: BoardEvent) -> None:
        now = self._game.clock()
        publish = self._game.publisher.publish_event
        if isinstance(event, _UNDERSTOOD):
            self.problem = None  # the board is read: nothing is wrong with its setup
        if isinstance(event, HitEvent):
            self._hit(event, now)
        elif isinstance(event, ButtonEvent):
            publish(ButtonPressed(now, event.button))
            if event.button in GAME_BUTTONS:
                self._commands.press(event.button, now)
        elif isinstance(event, TakeoutEvent | CoinEvent):
            self._game.bus.first(core_events.BoardInputReceived(event, now))
        elif isinstance(event, CardTapped):
            if not self._game.bus.first(core_events.BoardInputReceived(event, now)):
                log.info("a card was tapped (%s); nothing on this board takes cards", event)
        elif isinstance(event, ConnectedEvent):
            self.connected, self.problem = True, None
            publish(BoardConnected(now, event.source))
        elif isinstance(event, DisconnectedEvent):
            self.connected = False
            self.problem = f"{event.source}: {event.reason}"
            publish(BoardDisconnected(now, event.source, event.reason))
        elif isinstance(event, StuckEvent):
            self.stuck_cells.add((event.row, event.col))
            publish(Stuck(now, event.row, event.col))
        elif isinstance(event, ReleasedEvent):
            self.stuck_cells.discard((event.row, event.col))
            publish(Released(now, event.row, event.col))
        elif isinstance(event, ErrorEvent):
            if event.kind in DIAGNOSES:
                self.problem = event.message
            publish(ErrorReported(now, event.kind, event.message))
        elif isinstance(event, BatteryEvent):
            publish(BatteryLevel(now, event.percent))

    def _hit(self, event: HitEvent, now: float) -> None:
        game = self._game
        bed = event.segment
        if bed is None:
            message = f"cell {event.row},{event.col}: no matrix map is loaded"
            game.publisher.publish_event(ErrorReported(now, "unmapped-cell", message))
            return
        if game.bus.first(core_events.BoardInputReceived(event, now)):
            return
        if game.session is None:
            game.ignore(bed.notation, "no game", now)
            return
        try:
            game.refuse(RemoteAction.HIT, now)
            planned = game.session.plan_hit(bed, now)
        except Refusal as refusal:
            game.ignore(bed.notation, str(refusal), now)
            return
        game.apply(planned, "board")


def _input_name(event: BoardEvent) -> str:
    """How a refused board input is named to the players: its bed, its button."""
    if isinstance(event, HitEvent):
        return event.segment.notation if event.segment is not None else "a hit"
    if isinstance(event, ButtonEvent):
        return event.button.upper()
    if isinstance(event, TakeoutEvent):
        return "the takeout"
    if isinstance(event, CoinEvent):
        return f"a coin on input {event.input}"
    if isinstance(event, CardTapped):
        return "a card"
    return "a board input"
