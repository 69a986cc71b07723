"""The core's game commands: ``cmd`` messages and the board's game buttons.

Each command (``mqtt_contract.GameCommand``, one class per command) has one
handler here, chosen by a ``match`` on its type; the board's NEXT, UNDO, MISS
and BOUNCE buttons are the same commands (:data:`BUTTON_COMMANDS`). Before a handler
runs, an extension may take the command (a remote guest forwards it to its
host: :class:`~firmware_bridge.daemon.core_events.CommandReceived`), and a
board's own input may be refused (a remote match's turns, a computer
player's visit: :class:`~firmware_bridge.daemon.core_events.InputPlanned`).
"""

from __future__ import annotations

import logging
from typing import Any, assert_never

from engine import Bed, EngineError, NotationError
from engine.board_geometry import GEOMETRIES
from engine.handicap import (
    Handicap,
    cricket_spot_marks,
    takes_handicaps,
    with_handicaps,
    x01_starts,
)
from engine.options import resolve_options
from engine.registry import game_class
from engine.traits import Family
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.board_game import BoardGame
from firmware_bridge.daemon.bots import Bots, resolve_bots
from firmware_bridge.daemon.core_events import GAME_BUTTONS
from firmware_bridge.daemon.game_session import Refusal, SessionSetup
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    BounceOut,
    CallMatch,
    CancelCall,
    CommandError,
    Correct,
    EndGame,
    ErrorReported,
    GameCommand,
    Join,
    Leave,
    Miss,
    NewGame,
    Next,
    Pair,
    Rematch,
    RemoteAction,
    ThrowDart,
    Undo,
    parse_command,
    response_payload,
    topic,
)

__all__ = ["BUTTON_COMMANDS", "COMMAND_NAMES", "GAME_BUTTONS", "GameCommands"]

log = logging.getLogger(__name__)

COMMAND_NAMES = (
    "new_game",
    "rematch",
    "end_game",
    "dart",
    "next",
    "undo",
    "miss",
    "bounce",
    "correct",
)
"""The commands :class:`GameCommands` handles (``mqtt_contract.COMMANDS``; the
lobby's ``join`` and ``leave`` are its extension's, taken on ``CommandReceived``)."""

EMPTY_LOBBY = "no players: name them in new_game's players, or join them to the lobby first (join)"
"""Why a ``new_game`` without players that no lobby answered is refused."""

BUTTON_COMMANDS: dict[str, GameCommand] = {
    "next": Next(),
    "undo": Undo(),
    "miss": Miss(),
    "bounce": BounceOut(),
}
"""The board's game buttons (:data:`GAME_BUTTONS`), as the commands they are."""
assert tuple(BUTTON_COMMANDS) == GAME_BUTTONS


class GameCommands:
    """Runs the game commands against :class:`BoardGame`. No I/O in the constructor."""

    def __init__(self, game: BoardGame) -> None:
        self._game = game

    async def on_command(self, payload: bytes) -> None:
        """One ``cmd`` payload: run it and answer on ``cmd/response``."""
        game = self._game
        command_id: str | int | None = None
        what = "the command"
        try:
            command = parse_command(payload, self._operator_topic)
            command_id = command.id
            what = f"dart {command.segment}" if isinstance(command, ThrowDart) else command.name
            bots = None
            if isinstance(command, NewGame) and command.cpu:
                # Solving a spread from an average takes a moment: not on the loop.
                geometry = GEOMETRIES[game.config.bot.geometry]
                resolved = game.off_loop.worker.call(
                    resolve_bots, command.game, command.cpu, geometry
                )
                bots = await resolved
            if isinstance(command, NewGame | Rematch):
                await game.off_loop.settled()  # the game won before is journaled first
            async with game.lock:
                reply = self.command(command, game.clock(), bots)
            response = response_payload(command_id, True, card=reply.get("card"))
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

    def command(self, command: GameCommand, now: float, bots: Bots | None = None) -> dict[str, Any]:
        """Run ``command`` (a ``new_game``'s computer players already resolved
        into ``bots``, or resolved here), unless an extension takes it; what
        the extension added to the response (see ``CommandReceived.reply``)."""
        received = core_events.CommandReceived(command, now)
        if not self._game.bus.first(received):
            self._run(command, now, bots)
        return received.reply

    def _run(self, command: GameCommand, now: float, bots: Bots | None = None) -> None:
        """Run ``command`` on this board's game (no extension took it)."""
        match command:
            case NewGame():
                self._new_game(command, now, bots)
            case Rematch():
                self._rematch(now)
            case EndGame():
                self._end_game(now)
            case ThrowDart():
                self._dart(command.segment, now)
            case Next():
                self._next(now)
            case Undo():
                self._undo(now)
            case Miss():
                self._miss(now)
            case BounceOut():
                self._bounce(now)
            case Join() | Leave():
                raise Refusal(f"{command.name}: this board has no lobby")
            case Correct():
                self._correct(command, now)
            case Pair():
                raise Refusal("pair: this board pairs no devices")
            case CallMatch() | CancelCall():
                raise Refusal(f"{command.name}: this board takes no called matches")
            case _:
                assert_never(command)

    def press(self, name: str, now: float) -> None:
        """A game button (:data:`GAME_BUTTONS`) pressed on the board: its
        command, a refusal published as an ``error`` event."""
        command = BUTTON_COMMANDS[name]
        try:
            if self._game.bus.first(core_events.CommandReceived(command, now)):
                return
            if self._game.session is not None:
                self._run(command, now)
        except (Refusal, EngineError) as refusal:
            self._game.publisher.publish_event(ErrorReported(now, "refused", str(refusal)))

    # ------------------------------------------------------------- handlers

    def _new_game(self, command: NewGame, now: float, bots: Bots | None) -> None:
        players = list(command.player_names)
        if not players:  # the lobby's players
            players = list(self._game.bus.first(core_events.PlayersAsked(now)) or ())
            if not players:
                raise Refusal(EMPTY_LOBBY)
        options = dict(command.options or {})
        if command.handicap is not None:
            options = self._suggested_handicaps(command.game, options, players)
        elif command.players is not None or command.teams is not None:
            options = with_handicaps(game_class(command.game), options, command.handicaps)
        setup = SessionSetup(
            command.game,
            options,
            players,
            None
            if command.team_names is None
            else {team: list(names) for team, names in command.team_names.items()},
            None if command.match is None else command.match.format(),
        )
        if bots is None and command.cpu:
            geometry = GEOMETRIES[self._game.config.bot.geometry]
            bots = resolve_bots(setup.game, command.cpu, geometry)  # ValueError: refused
        remote = None
        if command.boards:
            asked = core_events.RemoteMatchAsked(setup, command.boards, now)
            remote = self._game.bus.first(asked)
        self._game.start(setup, now, bots, remote)

    def _suggested_handicaps(
        self, game_id: str, options: dict[str, Any], players: list[str]
    ) -> dict[str, Any]:
        """``options`` with handicaps suggested from the players' month figures
        the lobby's roster copy has: X01 starts from their averages
        (``engine.handicap.x01_starts``), Cricket spot marks from their MPRs
        (``cricket_spot_marks``)."""
        game = game_class(game_id)
        if not takes_handicaps(game):
            raise Refusal(f'handicap "suggested": {game.name} takes no handicaps')
        marks = game.family is Family.MARKS
        asked = core_events.HandicapAveragesAsked(tuple(players), mpr=marks)
        figures = [
            figure or 0.0 for figure in self._game.bus.first(asked) or (None,) * len(players)
        ]
        if marks:
            return with_handicaps(game, options, list(cricket_spot_marks(figures)))
        start = int(resolve_options(game.options_spec, options, game.id)["start"])
        starts = x01_starts(figures, start)
        return with_handicaps(game, options, [Handicap(own) for own in starts])

    def _rematch(self, now: float) -> None:
        game = self._game
        if game.last_setup is None:
            raise Refusal("no game to rematch yet")
        bots = game.last_bots.reseeded() if game.last_bots is not None else None
        remote = game.bus.first(core_events.RematchAsked(now))
        game.start(game.last_setup, now, bots, remote)

    def _end_game(self, now: float) -> None:
        if self._game.session is None or self._game.game_row is None:
            raise Refusal("no game is running")
        self._game.abandon(now, "ended")

    def _dart(self, segment: str, now: float) -> None:
        session = self._game.current()
        try:
            bed = Bed.parse(segment)
        except NotationError as error:
            raise Refusal(f"segment {error}") from None
        self._game.refuse(RemoteAction.DART, now)
        self._game.apply(session.plan_manual_dart(bed), "manual")

    def _next(self, now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.NEXT, now)
        self._game.apply(session.plan_next(), "manual")

    def _undo(self, now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.UNDO, now)
        self._game.apply(session.plan_undo(), "manual")

    def _bounce(self, now: float) -> None:
        """BOUNCE (button or command): the visit's last dart bounced out."""
        session = self._game.current()
        self._game.refuse(RemoteAction.BOUNCE, now)
        self._game.apply(session.plan_bounce(), "manual")

    def _correct(self, command: Correct, now: float) -> None:
        """CORRECT: a dart of the visit on the board really hit ``segment``."""
        session = self._game.current()
        try:
            bed = Bed.parse(command.segment)
        except NotationError as error:
            raise Refusal(f"segment {error}") from None
        self._game.refuse(RemoteAction.CORRECT, now)
        self._game.apply(session.plan_correct(command.dart, bed), "manual")

    def _miss(self, now: float) -> None:
        session = self._game.current()
        self._game.refuse(RemoteAction.MISS, now)
        self._game.apply(session.plan_miss(), "manual")
