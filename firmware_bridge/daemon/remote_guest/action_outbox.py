"""A guest's actions to the host: journaled, sent, and sent again until taken.

:class:`ActionOutbox` journals each action this board forwards
(``guest_forwarded``, the match's next ``seq``) before it sends it, sends
again every action the host has not taken (after a reconnect, on a resync,
and ``[remote] resend_s`` after it went out while the host's state still
shows it untaken), and says ``joined`` and ``leave`` on the channel to the
host. The host takes each ``seq`` once.
"""

from __future__ import annotations

import asyncio
import logging

from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import GuestAction, JournalError
from firmware_bridge.daemon.remote_guest.joined_match import JoinedMatch
from mqtt_contract import (
    ActionMessage,
    BoardAddress,
    JoinedMessage,
    RemoteAction,
    RemoteMessage,
    remote_payload,
    remote_topic,
)

__all__ = ["ActionOutbox"]

log = logging.getLogger(__name__)


class ActionOutbox:
    """This board's end, as a guest, of the channel to the host. ``wake`` is
    set whenever a resend may be due sooner. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext, wake: asyncio.Event) -> None:
        self.context = context
        self.wake = wake

    @property
    def own(self) -> BoardAddress:
        """This board, ``base/board``."""
        return BoardAddress(self.context.config.mqtt.base, self.context.board_id)

    def forward(
        self,
        match: JoinedMatch,
        action: RemoteAction,
        segment: str | None,
        now: float,
        dart: int | None = None,
    ) -> None:
        """Journal the action, then send it; keep the local takeout reckoning.
        A :class:`Refusal` when the journal does not take it."""
        remote = self.context.journal.remote
        try:
            seq = remote.guest_forward(match.id, action.value, segment, now, dart)
        except JournalError as error:
            raise Refusal(str(error)) from None
        match.forwarded = seq
        self._send_action(match, GuestAction(seq, action.value, segment, now, dart))
        match.takeout.forwarded(action, match.throwing_at(self.own), now)
        log.info(
            "remote match %s: forwarded #%d %s%s%s",
            match.id,
            seq,
            action,
            f" dart {dart}" if dart is not None else "",
            f" {segment}" if segment else "",
        )
        self.wake.set()

    def _send_action(self, match: JoinedMatch, action: GuestAction) -> None:
        what = RemoteAction.parse(action.action)
        message = ActionMessage(match.id, action.at, action.seq, what, action.segment, action.dart)
        self.send(match.host, message)
        match.sent_at[action.seq] = self.context.clock()

    def resend(self, match: JoinedMatch, why: str) -> None:
        """Send again every action the host has not taken, in order, with its seq."""
        untaken = self.context.journal.remote.guest_untaken(match.id, match.taken)
        for action in untaken:
            self._send_action(match, action)
        if untaken:
            log.info(
                "remote match %s: sent %d untaken actions again (#%d-#%d; %s)",
                match.id,
                len(untaken),
                untaken[0].seq,
                untaken[-1].seq,
                why,
            )

    def resend_due(self, match: JoinedMatch) -> float | None:
        """When the actions the host's state shows untaken are sent again."""
        untaken = self._untaken_sent(match)
        return min(untaken) + self.context.config.remote.resend_s if untaken else None

    def resend_if_due(self, match: JoinedMatch, now: float) -> None:
        """Send the untaken actions again if ``[remote] resend_s`` has passed."""
        due = self.resend_due(match)
        if due is not None and now >= due:
            self.resend(match, f"not taken after {self.context.config.remote.resend_s:g} s")

    def _untaken_sent(self, match: JoinedMatch) -> list[float]:
        """When each action the host's state shows untaken was last sent."""
        link = self.context.link
        if match.host_state is None or link is None or not link.connected:
            return []
        return [at for seq, at in match.sent_at.items() if seq > match.taken]

    def send_joined(self, match: JoinedMatch, now: float) -> None:
        """Say ``joined`` (to an invitation, a resync, after a reconnect)."""
        name = self.context.config.board.name or self.own.board
        joined = JoinedMessage(match.id, now, self.own, match.forwarded, name)
        self.send(match.host, joined)

    def send(self, host: BoardAddress, message: RemoteMessage) -> bool:
        """Fire and forget on ``{host base}/{this board}/remote/{host}``."""
        link = self.context.link
        if link is None or not link.connected:
            return False
        topic = remote_topic(host.base, self.own.board, host.board)
        return link.send_raw(topic, remote_payload(message))
