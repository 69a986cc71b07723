"""The operator-commands extension: ``operator/cmd`` in, ``operator/cmd/response`` out.

Each operator command (``mqtt_contract.OPERATOR_COMMANDS``) is parsed here,
run under the lock against the coin-op extension's credits and settings (the
one extension it is given) or, for ``unpair``, asked of the pairing on the bus
(``core_events.UnpairAsked``), and answered; a command the journal refuses is
answered with why.
"""

from __future__ import annotations

from typing import assert_never

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.extensions.coin_op import CoinOp
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    AddCredits,
    CommandError,
    OperatorCommand,
    ResetBooks,
    SetFreePlay,
    SetPrice,
    Unpair,
    parse_operator_command,
    response_payload,
    topic,
)

__all__ = ["OperatorCommands"]


class OperatorCommands(Extension):
    """Runs the operator's commands. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext, coin_op: CoinOp) -> None:
        self._context = context
        self._coin_op = coin_op
        self._topic = topic(context.config.mqtt.base, context.board_id, "operator/cmd")

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """One ``operator/cmd`` payload: run it and answer on ``operator/cmd/response``."""
        if topic != self._topic:
            return False
        context = self._context
        command_id: str | int | None = None
        name = "command"
        try:
            command = parse_operator_command(payload)
            command_id, name = command.id, command.name
            async with context.lock:
                self._run(command, context.clock())
            response = response_payload(command_id, True)
        except JournalError as error:
            message = context.not_journaled(f"operator {name}", error, context.clock())
            response = response_payload(command_id, False, message)
        except (CommandError, Refusal, ValueError) as error:
            command_id = getattr(error, "id", command_id)
            response = response_payload(command_id, False, str(error))
        context.publish("operator/cmd/response", response)
        context.request_state()
        return True

    def _run(self, command: OperatorCommand, now: float) -> None:
        coin_op = self._coin_op
        match command:
            case AddCredits():
                coin_op.add_credits(command.count, command.reason, now)
            case SetFreePlay():
                coin_op.set_free_play(command.on, now)
            case ResetBooks():
                coin_op.reset_books(command.reason, now)
            case SetPrice():
                coin_op.set_price(command.game, command.price, now)
            case Unpair():
                if not self._context.first(core_events.UnpairAsked(command.device, now)):
                    raise Refusal("unpair: this board pairs no devices")
            case _:
                assert_never(command)
