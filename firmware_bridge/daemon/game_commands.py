"""The core's game commands: ``cmd`` messages and the board's game buttons.

Each command (``mqtt_contract.COMMANDS``) has one handler here; the board's
NEXT, UNDO, MISS and BOUNCE buttons use the same handlers. Before a handler
runs, an extension may take the command (a remote guest forwards it to its
host: :class:`~firmware_bridge.daemon.core_events.CommandReceived`), and a
board's own input may be refused (a remote match's turns, a computer
player's visit: :class:`~firmware_bridge.daemon.core_events.InputPlanned`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine import Bed, EngineError, NotationError
from engine.board_geometry import GEOMETRIES
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.board_game import BoardGame
from firmware_bridge.daemon.bots import Bots, resolve_bots
from firmware_bridge.daemon.core_events import GAME_BUTTONS
from firmware_bridge.daemon.game_session import Refusal, SessionSetup
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    CommandError,
    ErrorReported,
    RemoteAction,
    parse_command,
    response_payload,
    topic,
)

__all__ = ["COMMAND_NAMES", "GAME_BUTTONS", "GameCommands"]

log = logging.getLogger(__name__)

COMMAND_NAMES = ("new_game", "rematch", "end_game", "dart", "next", "undo", "miss", "bounce")
"""The commands :class:`GameCommands` handles (``mqtt_contract.COMMANDS``)."""


class GameCommands:
    """Runs the game commands against :class:`BoardGame`. No I/O in the constructor."""

    def __init__(self, game: BoardGame) -> None:
        self._game = game
        self._handlers: dict[str, Callable[[dict[str, Any], float], None]] = {
            "new_game": self._new_game,
            "rematch": self._rematch,
            "end_game": self._end_game,
            "dart": self._dart,
            "next": self._next,
            "undo": self._undo,
            "miss": self._miss,
            "bounce": self._bounce,
        }
        assert tuple(self._handlers) == COMMAND_NAMES

    async def on_command(self, payload: bytes) -> None:
        """One ``cmd`` payload: run it and answer on ``cmd/response``."""
        game = self._game
        command_id: str | int | None = None
        what = "the command"
        try:
            command = parse_command(payload, self._operator_topic)
            command_id = command.id
            args = command.args
            what = " ".join([command.name, *([args["segment"]] if "segment" in args else [])])
            if command.name == "new_game" and args.get("cpu"):
                # Solving a spread from an average takes a moment: not on the loop.
                geometry = GEOMETRIES[game.config.bot.geometry]
                resolved = game.off_loop.worker.call(
                    resolve_bots, args["game"], args["cpu"], geometry
                )
                bots = await resolved
                args = {**args, "cpu": bots}
            if command.name in ("new_game", "rematch"):
                await game.off_loop.settled()  # the game won before is journaled first
            async with game.lock:
                self.command(command.name, args, game.clock())
            response = response_payload(command_id, True)
        except JournalError as error:
            message = game.not_journaled(what, error, game.clock())
            response = response_payload(command_id, False, message)
        except (CommandError, Refusal, EngineError, ValueError) as error:
            command_id = getattr(error, "id", command_id)
            response = response_payload(command_id, False, str(error))
        game.publisher.publish("cmd/response", response)
        game.publisher.request_state()

    @property
    def _operator_topic(self) -> str:
        config = self._game.config
        return topic(config.mqtt.base, config.board.id, "operator/cmd")

    def command(self, name: str, args: dict[str, Any], now: float) -> None:
        """Run the command ``name``, unless an extension takes it."""
        if self._game.bus.first(core_events.CommandReceived(name, args, now)):
            return
        self._handlers[name](args, now)

    def press(self, name: str, now: float) -> None:
        """A game button (:data:`GAME_BUTTONS`) pressed on the board: its
        command, a refusal published as an ``error`` event."""
        try:
            if self._game.bus.first(core_events.CommandReceived(name, {}, now)):
                return
            if self._game.session is not None:
                self._handlers[name]({}, now)
        except (Refusal, EngineError) as refusal:
            self._game.publisher.publish_event(ErrorReported(now, "refused", str(refusal)))

    # ------------------------------------------------------------- handlers

    def _new_game(self, args: dict[str, Any], now: float) -> None:
        setup = SessionSetup(
            args["game"], args.get("options") or {}, args["players"], args.get("teams")
        )
        cpu = args.get("cpu")
        bots = None
        if isinstance(cpu, Bots):
            bots = cpu
        elif cpu:
            geometry = GEOMETRIES[self._game.config.bot.geometry]
            bots = resolve_bots(setup.game, cpu, geometry)  # ValueError: refused
        remote = None
        if args.get("boards"):
            asked = core_events.RemoteMatchAsked(setup, args["boards"], now)
            remote = self._game.bus.first(asked)
        self._game.start(setup, now, bots, remote)

    def _rematch(self, args: dict[str, Any], now: float) -> None:
        game = self._game
        if game.last_setup is None:
            raise Refusal("no game to rematch yet")
        bots = game.last_bots.reseeded() if game.last_bots is not None else None
        remote = game.bus.first(core_events.RematchAsked(now))
        game.start(game.last_setup, now, bots, remote)

    def _end_game(self, args: dict[str, Any], now: float) -> None:
        if self._game.session is None or self._game.game_row is None:
            raise Refusal("no game is running")
        self._game.abandon(now, "ended")

    def _dart(self, args: dict[str, Any], now: float) -> None:
        session = self._game.current()
        try:
            bed = Bed.parse(args["segment"])
        except NotationError as error:
            raise Refusal(f"segment {error}") from None
        self._game.refuse(RemoteAction.DART, now)
        self._game.apply(session.plan_manual_dart(bed), "manual")

    def _next(self, args: dict[str, Any], now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.NEXT, now)
        self._game.apply(session.plan_next(), "manual")

    def _undo(self, args: dict[str, Any], now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.UNDO, now)
        self._game.apply(session.plan_undo(), "manual")

    def _bounce(self, args: dict[str, Any], now: float) -> None:
        """BOUNCE (button or command): the visit's last dart bounced out."""
        session = self._game.current()
        self._game.refuse(RemoteAction.BOUNCE, now)
        self._game.apply(session.plan_bounce(), "manual")

    def _miss(self, args: dict[str, Any], now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.MISS, now)
        self._game.apply(session.plan_miss(), "manual")
