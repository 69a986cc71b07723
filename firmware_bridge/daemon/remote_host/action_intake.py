"""A guest's forwarded actions, taken by the host in ``seq`` order, exactly once.

:class:`ActionIntake` takes each guest's next action (a duplicate is
dropped, a gap waits for the missing one, nothing is taken while the match
waits), checks the turn (:class:`~firmware_bridge.daemon.remote_host.turn_rules.TurnRules`)
and applies it through the core's context, or ignores it saying why; either
way its ``seq`` is journaled with what it did (``remote_taken``), so it is
taken once across restarts too.
"""

from __future__ import annotations

import logging
from typing import assert_never

from engine import Bed, EngineError, Event
from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.game_session import GameSession, Refusal
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.remote_host.hosted_match import GuestBoard, HostedMatch
from firmware_bridge.daemon.remote_host.turn_rules import TurnRules
from mqtt_contract import ActionMessage, ErrorReported, RemoteAction, RemoteRefusal

__all__ = ["ActionIntake", "plan_action"]

log = logging.getLogger(__name__)


class ActionIntake:
    """Takes the guests' actions into the core's game. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext, turns: TurnRules) -> None:
        self.context = context
        self.turns = turns

    def action(
        self, match: HostedMatch, guest: GuestBoard, message: ActionMessage, now: float
    ) -> None:
        """Take ``guest``'s next action in seq order, exactly once (under the
        core's lock)."""
        seq = message.seq
        if self.turns.waiting(match):
            log.debug(
                "remote match %s waits: %s's action %d left untaken", match.id, guest.address, seq
            )
            return
        if seq <= guest.taken:
            return  # sent again: it was taken
        if seq > guest.taken + 1:
            log.info(
                "remote match %s: %s's action %d before %d; waiting for it in order",
                match.id,
                guest.address,
                seq,
                guest.taken + 1,
            )
            return
        self._take(match, guest, seq, message, now)

    def _take(
        self, match: HostedMatch, guest: GuestBoard, seq: int, message: ActionMessage, now: float
    ) -> None:
        """Apply (or ignore, saying why) one action; its seq is journaled with it."""
        action, segment = message.action, message.segment
        context, session, row = self.context, self.context.session, self.context.game_row
        assert session is not None and row is not None
        board = str(guest.address)
        taken = (board, seq)
        try:
            refused: RemoteRefusal | Refusal | EngineError | None
            refused = self.turns.refusal(match, guest.address, action)
            if refused is None:
                try:
                    planned = plan_action(session, action, segment, now, message.dart)
                    source = action.source
                    context.apply(planned, source, taken)
                except JournalError:
                    raise
                except (Refusal, EngineError) as refusal:
                    refused = refusal
            if refused is not None:
                text = str(refused)
                reason = refused.reason.value if isinstance(refused, RemoteRefusal) else text
                if segment is not None and not action.has_dart:
                    context.ignore(segment, reason, now, taken)
                else:
                    context.journal.remote.note_taken(row, board, seq)
                    context.publish_event(
                        ErrorReported(now, "refused", f"{action} from {board}: {text}")
                    )
        except JournalError as error:  # not taken: the guest sends it again
            log.error("remote match %s: %s's action %d not taken: %s", match.id, board, seq, error)
            return
        guest.taken = seq


def plan_action(
    session: GameSession,
    action: RemoteAction,
    segment: str | None,
    now: float,
    dart: int | None = None,
) -> list[Event]:
    """The events ``action`` plans in ``session`` (a correction's of ``dart``);
    a :class:`Refusal` or an :class:`~engine.EngineError` when the game will
    not take it now."""
    match action:
        case RemoteAction.HIT:
            assert segment is not None
            return session.plan_hit(Bed.parse(segment), now)
        case RemoteAction.DART:
            assert segment is not None
            return session.plan_manual_dart(Bed.parse(segment))
        case RemoteAction.MISS:
            return session.plan_miss()
        case RemoteAction.NEXT:
            return session.plan_next()
        case RemoteAction.UNDO:
            return session.plan_undo()
        case RemoteAction.BOUNCE:
            return session.plan_bounce()
        case RemoteAction.CORRECT:
            assert segment is not None and dart is not None
            return session.plan_correct(dart, Bed.parse(segment))
        case _:
            assert_never(action)
