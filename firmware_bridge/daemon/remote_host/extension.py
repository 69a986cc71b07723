"""The host's extension: a hosted match on the core's bus, its lifecycle and timers.

:class:`RemoteHost` hears the core's events (a ``new_game`` naming boards,
a game started, resumed or abandoned, an input planned, a state built),
keeps the match this board hosts, reads the remote channel and the guests'
availability, and runs the timers (a ``join`` sent again, the offline
timeout). What it does with them is its parts': :class:`Invitations`,
:class:`ActionIntake`, :class:`TurnRules`, :class:`StateBlock` and the
:class:`HostChannel`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, assert_never

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.remote_host.action_intake import ActionIntake
from firmware_bridge.daemon.remote_host.channel import HostChannel
from firmware_bridge.daemon.remote_host.hosted_match import (
    HostedMatch,
    match_from_record,
    new_match_record,
)
from firmware_bridge.daemon.remote_host.invitations import Invitations
from firmware_bridge.daemon.remote_host.state_block import StateBlock
from firmware_bridge.daemon.remote_host.turn_rules import TurnRules
from mqtt_contract import (
    REMOTE_TOPIC,
    ActionMessage,
    BoardAddress,
    EndMessage,
    EndReason,
    ErrorReported,
    JoinedMessage,
    JoinMessage,
    LeaveMessage,
    MatchRecord,
    RefusedMessage,
    RemoteAction,
    RemoteMessage,
    RemoteMessageError,
    RemoteRefusal,
    parse_remote_message,
    remote_topic,
)

if TYPE_CHECKING:
    from firmware_bridge.daemon.game_session import SessionSetup
    from firmware_bridge.daemon.journal import JournalGame

__all__ = ["RemoteHost"]

log = logging.getLogger(__name__)

_AVAILABILITY = "/availability"


class RemoteHost(Extension):
    """The remote match this board hosts, if any. ``context`` is the core's
    (:class:`ExtensionContext`), the hooks below hear its events."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self._subscribe(context)
        self.match: HostedMatch | None = None
        self._wake = asyncio.Event()
        self.channel = HostChannel(context)
        self.turns = TurnRules(context)
        self.invitations = Invitations(context, self.channel, self.turns, self._wake)
        self.intake = ActionIntake(context, self.turns)
        self.block = StateBlock(context, self.turns)

    @property
    def own(self) -> BoardAddress:
        """This board, the host, as ``base/board``."""
        return self.channel.own

    @property
    def active(self) -> bool:
        """A remote match is on (its game is the core's session)."""
        return self._current() is not None

    def _current(self) -> HostedMatch | None:
        match, context = self.match, self.context
        if match is None or context.session is None or context.game_row != match.game_row:
            return None
        return match

    # ----------------------------------------------------------- hooks

    def _subscribe(self, context: ExtensionContext) -> None:
        """The core's events each hook below answers."""
        context.subscribe(
            core_events.RemoteMatchAsked, lambda e: self.start(e.setup, dict(e.boards), e.at)
        )
        context.subscribe(core_events.RematchAsked, lambda _: self.rematch())
        context.subscribe(core_events.GameStarted, lambda e: self.started(e.row, e.remote, e.at))
        context.subscribe(core_events.GameResumed, lambda e: self.resumed(e.journaled))
        context.subscribe(core_events.GameAbandoned, lambda e: self.ended(e.reason, e.at))
        context.subscribe(core_events.InputPlanned, self._planned)
        context.subscribe(core_events.MatchPausedAsked, lambda _: self.paused)
        context.subscribe(core_events.HostingAsked, lambda _: self.active)
        context.subscribe(core_events.TakeoutTimerAsked, lambda _: self.takeout_here())
        context.subscribe(core_events.OwnTakeoutAsked, lambda _: self.takeout_here())
        context.subscribe(core_events.StateBuilt, lambda e: self.state(e.state))
        context.subscribe(core_events.ResultBuilt, lambda e: self.result(e.result))

    def _planned(self, planned: core_events.InputPlanned) -> None:
        """This board's own input refused in a remote match (not its turn,
        waiting): a hit is ignored with the refusal's reason."""
        refusal = self.refusal(planned.action)
        if refusal is not None:
            hit = planned.action is RemoteAction.HIT
            raise Refusal(refusal.reason.value if hit else str(refusal))

    def start(
        self, setup: SessionSetup, boards: dict[str, str], now: float
    ) -> dict[str, Any] | None:
        """``new_game`` named boards (player name -> the board as given): check
        them and return the journal's ``remote`` record (``match``, ``host``,
        ``boards``), or ``None`` when every board named is this one (an
        ordinary game); a ValueError refuses the game. Called before the game
        is journaled; :meth:`started` follows once it is. The record is a
        :class:`~mqtt_contract.MatchRecord`'s JSON, as the journal keeps it."""
        own = self.own
        given = {name.strip(): BoardAddress.parse(text, own.base) for name, text in boards.items()}
        players = [name.strip() for name in setup.players]
        stray = sorted(set(given) - set(players))
        if stray:
            raise ValueError(f"board given for {', '.join(stray)}, who is not a player")
        return new_match_record({name: given.get(name, own) for name in players}, own)

    def rematch(self) -> dict[str, Any] | None:
        """The ``remote`` record of a rematch: a new match with the boards of
        the last game's (as the journal keeps it, so also after a restart), or
        ``None`` when the last game was on this board alone."""
        latest = self.context.journal.games.latest_game(self.context.board_id)
        if latest is None or not isinstance(latest.remote, dict):
            return None
        try:
            last = MatchRecord.from_json(latest.remote, self.own.base)
        except ValueError as error:
            raise ValueError(f"journal game {latest.id}: {error}") from None
        return new_match_record(dict(last.boards), self.own)

    def started(self, game_row: int, remote: dict[str, Any] | None, now: float) -> None:
        """The core started (or resumed, from the journal) a game; ``remote``
        is its journal record, or ``None`` for a game on this board alone (which
        ends any match this board hosted)."""
        old = self.match
        if old is not None:
            status = self._status(old.game_row)
            finished = status == "finished"
            self._end_match(EndReason.FINISHED if finished else EndReason.REPLACED, now)
        if remote is None:
            return
        match = self._new_match(game_row, remote, now, {})
        if match is None:
            return
        self.match = match
        log.info("remote match %s: inviting %s", match.id, ", ".join(map(str, match.addresses())))
        self.invitations.invite_all(match, now)
        self._follow()

    def resumed(self, journaled: JournalGame) -> None:
        """The core resumed ``journaled`` from the journal: bring back the
        match's boards and the actions taken so far."""
        if journaled.remote is None:
            return
        try:
            taken = self.context.journal.remote.remote_taken(journaled.id)
        except JournalError as error:
            log.error("journal game %d: %s; its remote match is not resumed", journaled.id, error)
            return
        match = self._new_match(journaled.id, journaled.remote, self.context.clock(), taken)
        if match is not None:
            self.match = match
            log.info("resumed remote match %s (taken: %s)", match.id, taken or "none")

    def ended(self, reason: str, now: float) -> None:
        """The match's game is over for good (end_game, a new game over it);
        ``reason`` is an :class:`~mqtt_contract.EndReason`'s value."""
        match = self.match
        if match is None:
            return
        finished = self._status(match.game_row) == "finished"
        self._end_match(EndReason.FINISHED if finished else EndReason(reason), now)

    def refusal(self, action: RemoteAction) -> RemoteRefusal | None:
        """Why this board's own ``action`` (its hits, buttons and commands) must
        not be taken now (``not-your-turn: Cy is throwing at Pub 2``,
        ``waiting-remote: ...``); ``None`` to take it."""
        match = self._current()
        if match is None:
            return None
        return self.turns.refusal(match, self.own, action)

    @property
    def paused(self) -> bool:
        """The match waits for a board: no one's darts are taken, a computer
        player's included."""
        match = self._current()
        return match is not None and bool(self.turns.waiting(match))

    def takeout_here(self) -> bool:
        """Whether this board's takeout timer may end the visit on: not while
        the match waits, nor for a visit thrown at a guest (its ``next`` ends it)."""
        match, session = self._current(), self.context.session
        if match is None or session is None:
            return True
        if self.turns.waiting(match):
            return False
        return self.turns.thrower_board(match) == self.own

    def state(self, state: dict[str, Any]) -> dict[str, Any]:
        """The core's ``state`` payload with the match in it (:class:`StateBlock`)."""
        match = self._current()
        return state if match is None else self.block.state(match, state)

    def result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The finished game's ``result`` payload with the match in it (:class:`StateBlock`)."""
        match = self._current()
        return result if match is None else self.block.result(match, result)

    # ----------------------------------------------------------- the link

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to what the match needs, invite again."""
        link = self.context.link
        if link is None:
            return
        own = self.own
        await link.subscribe(remote_topic(own.base, "+", own.board))
        await self.invitations.sync_subscriptions(self.match)
        async with self.context.lock:
            match = self._current()
            if match is not None:
                self.invitations.invite_all(match, self.context.clock())

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the host subscribed to; True when it was the host's."""
        if topic.endswith(_AVAILABILITY) and self.invitations.follows(topic):
            async with self.context.lock:
                self.invitations.availability(topic, payload, self._current(), self.context.clock())
            self.context.request_state()
            return True
        own = self.own
        found = REMOTE_TOPIC.match(topic)
        if (
            found is None
            or found["base"] != own.base
            or found["recipient"] != own.board
            or found["sender"] == own.board
        ):
            return False
        sender = found["sender"]
        try:
            message = parse_remote_message(payload, own.base)
        except RemoteMessageError as error:
            logged = f"remote: a message from {own.base}/{sender} dropped: {error}"
            self.channel.report(f"{sender} bad", logged, None, self.context.clock())
            return True
        if message.type.from_host:
            return False  # said to this board as a guest: not the host's
        async with self.context.lock:
            self._message(sender, message, self.context.clock())
        self.context.request_state()
        return True

    def _message(self, sender: str, message: RemoteMessage, now: float) -> None:
        """One message from a guest (under the core's lock)."""
        match = self._current()
        guest = None if match is None else match.guests.get(sender)
        if match is None or guest is None or message.match != match.id:
            self.channel.stray(sender, message, now, guest is not None)
            return
        match message:
            case JoinedMessage():
                self.invitations.joined(match, guest, message, now)
            case RefusedMessage():
                self.invitations.refused(match, guest, message, now)
            case LeaveMessage():
                log.info("remote match %s: %s left", match.id, guest.address)
                self._end_match(EndReason.LEFT, now, skip=guest.address.board)
                self.context.abandon(now, "left")
            case ActionMessage():
                self.intake.action(match, guest, message, now)
            case JoinMessage() | EndMessage():
                pass  # a host's: :meth:`on_message` leaves them to the guest
            case _:
                assert_never(message)

    # ----------------------------------------------------------- timers

    async def run(self) -> None:
        """Timers until cancelled: ``[remote] offline_timeout_s``, and a ``join``
        sent again every ``[remote] resend_s`` to each guest that has not
        answered (an invitation sent while the guest was still subscribing is
        lost: nothing else would send it again)."""
        clock = self.context.clock
        while True:
            self._wake.clear()
            deadline = self.invitations.timeout_deadline(self._current())
            unanswered = self.invitations.unanswered(self._current())
            timeout = None if deadline is None else max(0.0, deadline - clock())
            if unanswered:
                resend = self.context.config.remote.resend_s
                timeout = resend if timeout is None else min(timeout, resend)
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            if self._wake.is_set() or timeout is None:
                continue
            async with self.context.lock:
                self._tick(clock())
            self.context.request_state()

    def _tick(self, now: float) -> None:
        """A ``join`` again to each guest that has not answered; the offline timeout."""
        match = self._current()
        if match is None:
            return
        for guest in self.invitations.unanswered(match):
            self.invitations.invite(match, guest, now)
        message = self.invitations.timed_out(match, now)
        if message is not None:
            self._end_match(EndReason.REMOTE_TIMEOUT, now)
            self.context.abandon(now, "remote-timeout")
            self.context.publish_event(ErrorReported(now, "remote-timeout", message))

    # ----------------------------------------------------------- the match

    def _new_match(
        self, game_row: int, remote: dict[str, Any], now: float, taken: dict[str, int]
    ) -> HostedMatch | None:
        """The match of a journal ``remote`` record; guests in the players' order."""
        match = match_from_record(game_row, remote, self.own, self.invitations.online, taken, now)
        if match is not None:
            self._wake.set()
        return match

    def _status(self, game_row: int) -> str | None:
        try:
            return self.context.journal.games.game(game_row).status
        except JournalError:
            return None

    def _end_match(self, reason: EndReason, now: float, skip: str | None = None) -> None:
        """Tell every guest (but ``skip``, a board id) the match is over; forget it."""
        match, self.match = self.match, None
        if match is None:
            return
        log.info("remote match %s ended: %s", match.id, reason)
        for guest in match.guests.values():
            if guest.address.board != skip:
                self.channel.send(guest.address.board, EndMessage(match.id, now, reason))
        self._wake.set()
        self._follow()

    def _follow(self) -> None:
        """Follow the availability of the current match's guests (in the background)."""
        with contextlib.suppress(RuntimeError):  # no loop: on_connect subscribes
            self.context.background(self._sync_subscriptions())

    async def _sync_subscriptions(self) -> None:
        await self.invitations.sync_subscriptions(self.match)
