"""The join handshake with a hosted match's guests, and whether each is here.

:class:`Invitations` sends each guest its ``join`` (the invitation, or a
resync: on start, on reconnect, when it comes back online, and again to one
that has not answered), follows each guest's availability topic, takes its
``joined`` and ``refused``, and keeps since when each has been away: the
match waits (phase ``waiting-remote``) while one is, and is abandoned once
one stays away longer than ``[remote] offline_timeout_s``.
"""

from __future__ import annotations

import asyncio
import logging

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.remote_host.channel import HostChannel
from firmware_bridge.daemon.remote_host.hosted_match import GuestBoard, HostedMatch
from firmware_bridge.daemon.remote_host.turn_rules import TurnRules
from mqtt_contract import (
    AVAILABILITY_ONLINE,
    JoinedMessage,
    JoinMessage,
    MatchPlayer,
    RefusedMessage,
)

__all__ = ["Invitations"]

log = logging.getLogger(__name__)


class Invitations:
    """The guests' side of the match as the host sees it. ``wake`` is set
    whenever a timer that depends on the guests' presence may move. No I/O
    in the constructor."""

    def __init__(
        self,
        context: ExtensionContext,
        channel: HostChannel,
        turns: TurnRules,
        wake: asyncio.Event,
    ) -> None:
        self.context = context
        self.channel = channel
        self.turns = turns
        self.wake = wake
        self.online: dict[str, bool] = {}
        """The last availability seen on each guest availability topic followed."""
        self._followed: set[str] = set()

    # ---------------------------------------------------------- invitations

    def invite_all(self, match: HostedMatch, now: float) -> None:
        for guest in match.guests.values():
            self.invite(match, guest, now)

    def invite(self, match: HostedMatch, guest: GuestBoard, now: float) -> None:
        """Send ``join`` (the invitation, or a resync) to ``guest``."""
        session = self.context.session
        if session is None:
            return
        own = self.channel.own
        players = tuple(
            MatchPlayer(name, match.board_of(name, own)) for name in session.game.lineup.players
        )
        join = JoinMessage(
            match.id,
            now,
            own,
            session.setup.game,
            players,
            host_name=self.context.config.board.name,
            options=dict(session.game.options),
        )
        self.channel.send(guest.address.board, join)

    def unanswered(self, match: HostedMatch | None) -> list[GuestBoard]:
        """``match``'s guests that have not joined (yet, or since they came back)."""
        if match is None or not self.turns.waiting(match):
            return []
        return [g for g in match.guests.values() if not g.joined and not g.refused]

    def joined(
        self, match: HostedMatch, guest: GuestBoard, message: JoinedMessage, now: float
    ) -> None:
        """``guest`` says it joined (the invitation, or after a resync)."""
        if message.board != guest.address:
            log.warning(
                "remote match %s: %s says it is %s; ignored",
                match.id,
                guest.address,
                message.board,
            )
            return
        guest.joined, guest.refused = True, False
        guest.name = message.name or guest.address.board
        log.info("remote match %s: %s joined", match.id, guest.address)
        self.presence(match, now)

    def refused(
        self, match: HostedMatch, guest: GuestBoard, message: RefusedMessage, now: float
    ) -> None:
        """``guest`` refused the match: not invited again until it comes back online."""
        guest.joined, guest.refused = False, True
        self.presence(match, now)
        text = f"{guest.address} refused the match: {message.reason}"
        sender = guest.address.board
        self.channel.report(f"{sender} refused", f"remote match {match.id}: {text}", text, now)

    # ---------------------------------------------------------- availability

    def follows(self, topic: str) -> bool:
        """``topic`` is a guest availability topic followed."""
        return topic in self._followed

    async def sync_subscriptions(self, match: HostedMatch | None) -> None:
        """Follow the availability of ``match``'s guests (and no other's)."""
        link = self.context.link
        if link is None:
            return
        wanted = (
            set()
            if match is None
            else {g.address.topic("availability") for g in match.guests.values()}
        )
        gone, new = self._followed - wanted, wanted - self._followed
        self._followed = wanted
        for topic in sorted(gone):
            self.online.pop(topic, None)
            await link.unsubscribe(topic)
        for topic in sorted(new):
            await link.subscribe(topic)

    def availability(
        self, topic: str, payload: bytes, match: HostedMatch | None, now: float
    ) -> None:
        """A guest's availability (under the core's lock): one back online is
        invited again, one gone offline makes the match wait."""
        online = payload.strip() == AVAILABILITY_ONLINE.encode()
        self.online[topic] = online
        if match is None:
            return
        for guest in match.guests.values():
            if guest.address.topic("availability") != topic or guest.online == online:
                continue
            guest.online = online
            if online:
                log.info("remote match %s: %s is online", match.id, guest.address)
                guest.refused = False
                self.invite(match, guest, now)
            else:
                # It says joined again (to the next join) once it is back.
                guest.joined = False
                log.warning(
                    "remote match %s: %s went offline; the match waits", match.id, guest.address
                )
        self.presence(match, now)

    def presence(self, match: HostedMatch, now: float) -> None:
        """Note since when each guest is away; wake the timers that depend on it."""
        for guest in match.guests.values():
            if guest.present:
                guest.away_since = None
            elif guest.away_since is None:
                guest.away_since = now
        self.wake.set()
        self.context.emit(core_events.PresenceChanged(now))

    # ---------------------------------------------------------- offline timeout

    def timeout_deadline(self, match: HostedMatch | None) -> float | None:
        """When the match is abandoned if no guest away comes back; ``None``:
        no one is away, or ``[remote] offline_timeout_s`` is off."""
        limit = self.context.config.remote.offline_timeout_s
        if limit <= 0 or match is None:
            return None
        away = [g.away_since for g in self.turns.waiting(match) if g.away_since is not None]
        return min(away) + limit if away else None

    def timed_out(self, match: HostedMatch | None, now: float) -> str | None:
        """Why ``match`` is to be abandoned now (a guest stayed away too long);
        ``None`` while it is not."""
        deadline = self.timeout_deadline(match)
        if deadline is None or match is None or now < deadline:
            return None
        limit = self.context.config.remote.offline_timeout_s
        late = ", ".join(str(guest.address) for guest in self.turns.waiting(match))
        message = f"{late} stayed away longer than {limit:g} s: the remote match is abandoned"
        log.warning("remote match %s: %s", match.id, message)
        return message
