"""The guest's extension: a match another board hosts, on the core's bus.

:class:`RemoteGuest` hears the core's events (a board input, a command, the
takeout sensor's question, a state built): while this board is a guest in a
match its hits, buttons and game commands go to the host and its state is
the host's. It reads the remote channel and the host's topics, and runs the
timers (the local takeout, resending). What it does with them is its parts':
:class:`MatchMembership`, :class:`ActionOutbox`, :class:`HostMirror` and the
match's :class:`~firmware_bridge.daemon.remote_guest.local_takeout.LocalTakeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import assert_never

from drivers.board_events import HitEvent, TakeoutEvent
from engine import Bed, NotationError
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.remote_guest.action_outbox import ActionOutbox
from firmware_bridge.daemon.remote_guest.host_mirror import HostMirror
from firmware_bridge.daemon.remote_guest.joined_match import JoinedMatch
from firmware_bridge.daemon.remote_guest.membership import MatchMembership
from mqtt_contract import (
    GUEST_MESSAGE_TYPES,
    REMOTE_TOPIC,
    ActionMessage,
    BoardAddress,
    BounceOut,
    CallMatch,
    CancelCall,
    Correct,
    EndGame,
    EndMessage,
    ErrorReported,
    Ignored,
    Join,
    JoinedMessage,
    JoinMessage,
    Leave,
    LeaveMessage,
    Miss,
    NewGame,
    Next,
    Pair,
    RefusedMessage,
    Rematch,
    RemoteAction,
    RemoteMessageError,
    TakeoutSensed,
    ThrowDart,
    Undo,
    invitation_filters,
    parse_remote_message,
    remote_topic,
)

__all__ = ["TAKEOUT", "RemoteGuest"]

log = logging.getLogger(__name__)

TAKEOUT = "takeout"
"""The reason of a contact the guest ignores while its board's darts are pulled out."""


class RemoteGuest(Extension):
    """The remote match this board is a guest in, if any. ``context`` is the
    core's (:class:`ExtensionContext`), the hooks below hear its events."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        context.subscribe(core_events.BoardInputReceived, self._board_input)
        context.subscribe(core_events.CommandReceived, self._command)
        context.subscribe(core_events.TakeoutWatchAsked, lambda _: self._watch())
        context.subscribe(core_events.StateBuilt, self._mirror, order=1)  # replaces the state
        self._wake = asyncio.Event()
        self.outbox = ActionOutbox(context, self._wake)
        self.membership = MatchMembership(context, self.outbox, self._wake)
        self.mirror = HostMirror(context, self.membership, self._wake)

    @property
    def match(self) -> JoinedMatch | None:
        """The match this board is a guest in (:class:`MatchMembership`)."""
        return self.membership.match

    @property
    def active(self) -> bool:
        """This board is in a match another board hosts: its hits, buttons and
        game commands go there, and its state is the host's."""
        return self.match is not None

    @property
    def in_takeout(self) -> bool:
        """This board's visit in the match is over and its contacts are ignored
        (local takeout) until NEXT: what a sensed takeout ends."""
        match = self.match
        return match is not None and match.takeout.since is not None

    @property
    def own(self) -> BoardAddress:
        """This board, ``base/board``."""
        return self.outbox.own

    # ----------------------------------------------------------- hooks

    def opened(self) -> None:
        """At start-up: bring back the match this board was in from the journal."""
        self.membership.resume()

    def _board_input(self, received: core_events.BoardInputReceived) -> bool | None:
        """While :attr:`active`, this board's hits and sensed takeout are the match's."""
        if not self.active:
            return None
        event, now = received.event, received.at
        if isinstance(event, HitEvent) and event.segment is not None:
            self.hit(event.segment, now)
            return True
        if isinstance(event, TakeoutEvent):
            ended = False
            try:
                if self.in_takeout:
                    self.action("next", None, now)
                    ended = True
            except Refusal as refusal:
                self.context.publish_event(ErrorReported(now, "refused", str(refusal)))
            self.context.publish_event(TakeoutSensed(now, ended))
            return True
        return None

    def _command(self, received: core_events.CommandReceived) -> bool | None:
        """While :attr:`active`, the game commands and buttons go to the host;
        ``end_game`` leaves the match; the others are refused."""
        if not self.active:
            return None
        command, now = received.command, received.at
        match command:
            case ThrowDart():
                self.action(command.name, command.segment, now)
            case Next() | Undo() | Miss() | BounceOut():
                self.action(command.name, None, now)
            case EndGame():
                self.leave(now)
            case NewGame() | Rematch():
                raise Refusal(
                    f"this board is playing a remote match: {command.name} is for its host; "
                    "end_game leaves the match"
                )
            case Join() | Leave() | Pair() | CallMatch() | CancelCall():
                return None  # the lobby's, the pairing's and the calls', this board's own
            case Correct():
                self.action(command.name, command.segment, now, command.dart)
            case _:
                assert_never(command)
        return True

    def _watch(self) -> bool | None:
        """While :attr:`active`, the takeout sensor watches in the local takeout."""
        return self.in_takeout if self.active else None

    def _mirror(self, built: core_events.StateBuilt) -> None:
        """While :attr:`active`, the state is the host's, with this board's own journal."""
        match = self.match
        if match is not None:
            mirrored = {**self.mirror.state(match, built.state), "journal": built.state["journal"]}
            built.state.clear()
            built.state.update(mirrored)

    def hit(self, bed: Bed, now: float) -> None:
        """A hit this board detected while :attr:`active`: forward it, or ignore
        it locally (takeout) and say so."""
        match = self.match
        assert match is not None
        if match.takeout.since is not None:
            self.context.journal.games.note_ignored(None, bed.notation, TAKEOUT, now)
            self.context.publish_event(Ignored(now, bed.notation, TAKEOUT))
            return
        try:
            self.outbox.forward(match, RemoteAction.HIT, bed.notation, now)
        except Refusal as refusal:
            log.error("remote match %s: hit %s lost: %s", match.id, bed.notation, refusal)
            self.context.publish_event(Ignored(now, bed.notation, str(refusal)))

    def action(self, name: str, segment: str | None, now: float, dart: int | None = None) -> None:
        """A button or command while :attr:`active` (``dart``, ``miss``,
        ``next``, ``undo``, ``bounce``, ``correct`` of ``dart``): forward it. A
        :class:`Refusal` says why not."""
        match = self.match
        assert match is not None
        try:
            action = RemoteAction.parse(name)
        except ValueError:
            raise Refusal(f"{name} is not forwarded to the host") from None
        if action is RemoteAction.HIT:  # the board's own (:meth:`hit`), never a command
            raise Refusal(f"{name} is not forwarded to the host")
        if action.has_segment:
            try:
                segment = Bed.parse(str(segment)).notation
            except NotationError as error:
                raise Refusal(f"segment {error}") from None
        else:
            segment = None
        self.outbox.forward(match, action, segment, now, dart if action.has_dart else None)

    def leave(self, now: float) -> None:
        """``end_game`` on this board while :attr:`active`: leave the match."""
        match = self.match
        assert match is not None
        self.membership.leave(match, now)

    # ----------------------------------------------------------- the link

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to invitations (and the host's
        topics during a match), say joined again and resend what is untaken."""
        link = self.context.link
        assert link is not None
        own = self.own
        filters = {
            *invitation_filters(self.context.config.remote.allow, own.base, own.board),
            remote_topic(own.base, "+", own.board),
        }
        for topic_filter in sorted(filters):
            await link.subscribe(topic_filter)
        match = self.match
        if match is None:
            return
        for topic in match.topics():
            await link.subscribe(topic)
        async with self.context.lock:
            if self.match is match:
                self.outbox.send_joined(match, self.context.clock())
                self.outbox.resend(match, "reconnected")
        self._wake.set()

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the guest subscribed to; True when it was the guest's."""
        match = self.match
        if match is not None and topic in match.topics():
            name = topic.rpartition("/")[2]
            try:
                async with self.context.lock:
                    self.mirror.from_host(match, name, payload)
            except (JournalError, ValueError) as error:
                log.warning("remote match %s: %s from the host ignored: %s", match.id, name, error)
            return True
        found = REMOTE_TOPIC.match(topic)
        if found is None or found["recipient"] != self.own.board:
            return False
        try:
            message = parse_remote_message(payload, found["base"])
        except RemoteMessageError as error:
            if _claimed_type(payload) in GUEST_MESSAGE_TYPES:
                return False  # a guest's message to this board as a host: the host judges it
            log.warning("remote channel %s: ignored: %s", topic, error)
            return True
        sender = BoardAddress(found["base"], found["sender"])
        try:
            match message:
                case JoinMessage():
                    await self.membership.on_join(sender, message)
                case EndMessage():
                    await self.membership.on_end(sender, message)
                case JoinedMessage() | RefusedMessage() | ActionMessage() | LeaveMessage():
                    return False  # a guest's, to this board as a host: the host's to take
                case _:
                    assert_never(message)
        except JournalError as error:
            log.error("remote channel %s: %s not handled: %s", topic, message.type, error)
        return True

    # ----------------------------------------------------------------- timers

    async def run(self) -> None:
        """Timers (local takeout, resending) until cancelled."""
        while True:
            self._wake.clear()
            due = self._due()
            timeout = None if due is None else max(0.0, due - self.context.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            if self._wake.is_set():
                continue
            async with self.context.lock:
                self._tick(self.context.clock())

    def _due(self) -> float | None:
        """When :meth:`_tick` has something to do: the takeout timer, a resend."""
        match = self.match
        if match is None:
            return None
        due = [
            at
            for at in (
                match.takeout.due(self.context.config.visit.takeout_s),
                self.outbox.resend_due(match),
            )
            if at is not None
        ]
        return min(due) if due else None

    def _tick(self, now: float) -> None:
        match = self.match
        if match is None:
            return
        takeout_s = self.context.config.visit.takeout_s
        over = match.takeout.due(takeout_s)
        if over is not None and now >= over:
            log.info("remote match %s: takeout is over after %g s: NEXT", match.id, takeout_s)
            try:
                self.outbox.forward(match, RemoteAction.NEXT, None, now)
            except Refusal as refusal:
                log.error("remote match %s: NEXT lost: %s", match.id, refusal)
                match.takeout.since = None
        self.outbox.resend_if_due(match, now)


def _claimed_type(payload: bytes) -> object:
    """The ``type`` a payload claims, if it is a JSON object at all."""
    try:
        document = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document.get("type") if isinstance(document, dict) else None
