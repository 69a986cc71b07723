"""The host's end of the remote channel: sending to a guest, reporting drops.

:class:`HostChannel` sends one message on ``{base}/{host}/remote/{guest}``
(dropped while the link is down: every ``join`` is sent again on reconnect)
and reports what the host drops or a guest refuses, at most once every
:data:`REPORT_INTERVAL_S` per sender and kind, so a board flooding the
channel cannot flood the log and the ``event`` topic.
"""

from __future__ import annotations

import logging

from drivers.board_decoder import ErrorLimiter
from firmware_bridge.daemon.extension_context import ExtensionContext
from mqtt_contract import (
    ActionMessage,
    BoardAddress,
    EndMessage,
    EndReason,
    ErrorReported,
    JoinedMessage,
    RemoteMessage,
    remote_payload,
    remote_topic,
)

__all__ = ["REPORT_INTERVAL_S", "HostChannel"]

log = logging.getLogger(__name__)

REPORT_INTERVAL_S = 10.0
"""How often, at most, the host reports each sender's dropped messages of one
kind (bad ones, actions or ``joined`` for no match of its, ``refused``): a
warning, and for actions and refusals an ``error`` event. A board flooding
the channel with forged messages cannot flood the log and the ``event``
topic; the ones held back are counted in its next report."""


class HostChannel:
    """This board's end, as the host, of the channel to each guest. No I/O in
    the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self._reports = ErrorLimiter(REPORT_INTERVAL_S)
        """Per sender and kind: its dropped messages and refusals, reported at
        most once every :data:`REPORT_INTERVAL_S`."""

    @property
    def own(self) -> BoardAddress:
        """This board, the host, as ``base/board``."""
        return BoardAddress(self.context.config.mqtt.base, self.context.board_id)

    def send(self, guest: str, message: RemoteMessage) -> None:
        """``message`` on the channel to the guest board ``guest`` (its id;
        dropped while offline: every join is sent again on reconnect)."""
        link = self.context.link
        if link is None or not link.connected:
            return
        own = self.own
        link.send_raw(remote_topic(own.base, own.board, guest), remote_payload(message))

    def report(self, what: str, logged: str, event: str | None, now: float) -> None:
        """Log a dropped message or a refusal (and publish ``event`` as an
        ``error`` event of kind ``remote-refused``), at most once every
        :data:`REPORT_INTERVAL_S` for each ``what`` (its sender and kind);
        those held back are counted in the next."""
        held = self._reports.let_through(what)
        if held is None:
            log.debug(
                "remote: held back (%s reported in the last %gs): %s",
                what,
                REPORT_INTERVAL_S,
                logged,
            )
            return
        log.warning("%s%s", logged, held)
        if event is not None:
            self.context.publish_event(ErrorReported(now, "remote-refused", event + held))

    def stray(self, sender: str, message: RemoteMessage, now: float, member: bool) -> None:
        """A message from a board not in the match (``member`` false), or for
        another match: dropped and reported. A ``joined`` comes from a guest
        still in a match that is over: it is told so (``end``)."""
        who = f"{self.own.base}/{sender}"
        why = "for another match" if member else "from a board not in this board's match"
        logged = f"remote: {message.type} {why} (match {message.match}) from {who} dropped"
        text = f"{who}: an action {why} (match {message.match}) was dropped"
        event = text if isinstance(message, ActionMessage) else None
        self.report(f"{sender} stray {message.type}", logged, event, now)
        if isinstance(message, JoinedMessage):
            self.send(sender, EndMessage(message.match, now, EndReason.ENDED))
