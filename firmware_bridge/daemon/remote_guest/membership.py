"""Which match a board is a guest in: invitations accepted or refused, the end.

:class:`MatchMembership` keeps the match this board joined (:attr:`match`):
it accepts an invitation (``join``) from a host ``[remote] allow`` names and
refuses the others, saying why (a :class:`~mqtt_contract.JoinRefusal`), answers
a resync, brings the match back from the journal at start-up, and closes it
(``guest_matches``: ``finished`` or ``ended``) when the host ends it, moves on,
or this board leaves.
"""

from __future__ import annotations

import asyncio
import logging

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.remote_guest.action_outbox import ActionOutbox
from firmware_bridge.daemon.remote_guest.joined_match import (
    JoinedMatch,
    final_result,
    joined_match,
)
from mqtt_contract import (
    BoardAddress,
    EndMessage,
    EndReason,
    JoinMessage,
    JoinRefusal,
    JoinRefusalReason,
    LeaveMessage,
    RefusedMessage,
    host_allowed,
)

__all__ = ["MatchMembership"]

log = logging.getLogger(__name__)


class MatchMembership:
    """The match this board is a guest in, if any. ``wake`` is set whenever
    the guest's timers may change. No I/O in the constructor."""

    def __init__(
        self, context: ExtensionContext, outbox: ActionOutbox, wake: asyncio.Event
    ) -> None:
        self.context = context
        self.outbox = outbox
        self.wake = wake
        self.match: JoinedMatch | None = None

    @property
    def own(self) -> BoardAddress:
        """This board, ``base/board``."""
        return self.outbox.own

    def resume(self) -> None:
        """At start-up: bring back the match this board was in from the journal."""
        remote = self.context.journal.remote
        journaled = remote.guest_playing(self.context.board_id)
        if journaled is None:
            return
        try:
            host = BoardAddress.parse(journaled.host, self.own.base)
            match = joined_match(journaled, host)
        except ValueError as error:
            log.error("remote match %s: %s; it is ended", journaled.match, error)
            status = "ended" if journaled.result is None else "finished"
            remote.guest_close(
                journaled.match, status, self.context.clock(), "ended", journaled.result
            )
            return
        self.match = match
        self.match.seen_state = True  # the host's state before this restart was of the match
        log.info(
            "resumed remote match %s hosted by %s (%d actions forwarded, %d taken)",
            journaled.match,
            host,
            journaled.forwarded,
            journaled.taken,
        )

    # ------------------------------------------------------- invitations

    async def on_join(self, sender: BoardAddress, message: JoinMessage) -> None:
        """An invitation (or, for this board's match, a resync): accept, answer or refuse."""
        own, now = self.own, self.context.clock()
        if message.host != sender:
            log.warning(
                "remote channel: a join from %s names the host %s: ignored",
                sender,
                message.host,
            )
            return
        if sender == own:
            log.warning("remote channel: a join from this board itself: ignored")
            return
        replaced: JoinedMatch | None = None
        async with self.context.lock:
            match = self.match
            if match is not None and match.id == message.match and match.host == sender:
                log.info("remote match %s: %s asks for a resync; joined again", match.id, sender)
                self.outbox.send_joined(match, now)
                self.outbox.resend(match, "resync")
                return
            reason = self._refusal(sender, message)
            if reason is None:
                over = self.context.journal.remote.guest_match(message.match)
                if over is not None and over.end_reason == "left":
                    log.info(
                        "remote match %s: %s invites again; this board left it", over.match, sender
                    )
                    self.outbox.send(sender, LeaveMessage(message.match, now))
                    return
                if over is not None:
                    detail = f"{message.match} is {over.status}"
                    reason = JoinRefusal(JoinRefusalReason.MATCH_OVER, detail)
            if reason is not None:
                log.info(
                    "remote match %s: refused %s's invitation: %s", message.match, sender, reason
                )
                self.outbox.send(sender, RefusedMessage.of(message.match, now, reason))
                return
            if match is not None:  # the same host started another game over its match
                log.info(
                    "remote match %s: replaced by %s's match %s", match.id, sender, message.match
                )
                replaced = match
                self.match = None
            match = self._accept(sender, message, now)
        if replaced is not None and replaced.host != sender:
            await self.unsubscribe(replaced)
        link = self.context.link
        if link is not None:
            for topic in match.topics():
                await link.subscribe(topic)
        async with self.context.lock:
            if self.match is match:
                self.outbox.send_joined(match, self.context.clock())
        self.context.request_state()

    def _refusal(self, sender: BoardAddress, message: JoinMessage) -> JoinRefusal | None:
        """Why this board does not join ``sender``'s match, or ``None``."""
        own, match = self.own, self.match
        if not host_allowed(sender, self.context.config.remote.allow, own.base):
            return JoinRefusal(JoinRefusalReason.NOT_ALLOWED, str(sender))
        if match is not None and match.host != sender:
            detail = f"{match.host}'s match {match.id}"
            return JoinRefusal(JoinRefusalReason.IN_ANOTHER_MATCH, detail)
        if any(self.context.emit(core_events.HostingAsked())):
            return JoinRefusal(JoinRefusalReason.HOSTING)
        if not any(player.board == own for player in message.players):
            return JoinRefusal(JoinRefusalReason.NO_PLAYER_HERE, str(own))
        return None

    def _accept(self, sender: BoardAddress, message: JoinMessage, now: float) -> JoinedMatch:
        players = [player.to_json() for player in message.players]
        options = dict(message.options or {})
        remote = self.context.journal.remote
        remote.guest_join(
            message.match, str(sender), self.context.board_id, message.game, options, players, now
        )
        journaled = remote.guest_match(message.match)
        assert journaled is not None
        match = joined_match(journaled, sender, message.host_name)
        self.match = match
        names = ", ".join(f"{p.name}@{p.board}" for p in match.players)
        log.info(
            "remote match %s: joined %s's %s as a guest (%s)", match.id, sender, match.game, names
        )
        return match

    # ------------------------------------------------------- the end

    async def on_end(self, sender: BoardAddress, message: EndMessage) -> None:
        """The host ended the match: close it here, the board is idle again."""
        async with self.context.lock:
            match = self.match
            if match is None or match.id != message.match or match.host != sender:
                log.info(
                    "remote match %s: an end from %s ignored: not this board's match",
                    message.match,
                    sender,
                )
                return
            reason = message.reason
            self.close(match, reason, self.context.clock())
            log.info("remote match %s: %s ended it (%s)", match.id, sender, reason)

    def leave(self, match: JoinedMatch, now: float) -> None:
        """``end_game`` on this board during ``match``: leave it."""
        self.outbox.send(match.host, LeaveMessage(match.id, now))
        self.close(match, EndReason.LEFT, now)
        log.info("remote match %s: left it (end_game on this board)", match.id)

    def close(self, match: JoinedMatch, reason: EndReason, now: float) -> None:
        """The match is over here: journal it (``finished`` when the host's last
        state says the game was won, else ``ended``), forget the host's topics, idle."""
        result = final_result(match.host_state)
        status = "ended" if result is None else "finished"
        self.context.journal.remote.guest_close(match.id, status, now, reason, result)
        if self.match is match:
            self.match = None
        self.context.background(self.unsubscribe(match))
        self.context.request_state()
        self.wake.set()

    async def unsubscribe(self, match: JoinedMatch) -> None:
        """Stop reading ``match``'s host, unless the match now on (the same
        host's next one) reads it too."""
        link = self.context.link
        if link is None:
            return
        for topic in match.topics():
            if self.match is None or topic not in self.match.topics():
                await link.unsubscribe(topic)
