"""The guest's side of a remote match (docs/remote.md): the game runs at the host.

:class:`RemoteGuest` belongs to one :class:`~firmware_bridge.daemon.board_daemon.Daemon`
and hears its events on the bus (the hooks below). It accepts invitations
from the hosts ``[remote] allow`` names (and refuses others, saying why),
journals and forwards this board's hits, buttons and ``dart``/``miss``/
``next``/``undo`` commands with a sequence number (sent again until the host
has taken them), keeps takeout local, and mirrors the host's state and events
onto this board's own topics. No I/O in the constructor.

Nothing is applied here: the host's state is the truth. An action is
journaled (``guest_forwarded``) before it is sent, and sent again after every
(re)connect, on every ``join`` (a resync) and whenever the host's state still
shows it untaken ``[remote] resend_s`` after it went out; the host takes each
``seq`` once. Takeout is reckoned locally (three darts forwarded in this
board's visit, or the host's state saying so) so it works while the link is
down too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any, assert_never

from drivers.board_events import HitEvent, TakeoutEvent
from engine import Bed, EngineError, NotationError, PickingGame, new_game
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import GuestAction, GuestMatch, JournalError
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    GUEST_MESSAGE_TYPES,
    PHASES,
    REMOTE_TOPIC,
    WAITING_REMOTE,
    ActionMessage,
    BoardAddress,
    BoardEntry,
    EndMessage,
    EndReason,
    ErrorReported,
    Ignored,
    JoinedMessage,
    JoinMessage,
    LeaveMessage,
    Phase,
    RefusedMessage,
    RemoteAction,
    RemoteMessageError,
    TakeoutSensed,
    host_allowed,
    invitation_filters,
    parse_remote_message,
    remote_payload,
    remote_topic,
)

__all__ = ["TAKEOUT", "RemoteGuest", "final_result"]

log = logging.getLogger(__name__)

TAKEOUT = "takeout"
"""The reason of a contact the guest ignores while its board's darts are pulled out."""

VISIT_DARTS = 3

HOST_TOPICS = ("state", "event", "availability")
"""The host's own topics a guest reads during a match."""


@dataclass
class _Match:
    """The match this board is a guest in, as far as this board knows it."""

    id: str
    host: BoardAddress
    host_name: str
    game: str
    options: dict[str, Any]
    players: list[dict[str, str]]
    forwarded: int
    """The highest seq journaled (and sent, or to be sent)."""
    taken: int
    """The host's ``applied`` for this board: the highest seq it has taken."""
    visits: bool = True
    """The game is played in visits of three darts (not by picking)."""
    host_state: dict[str, Any] | None = None
    """The host's last state of this match."""
    host_online: bool | None = None
    seen_state: bool = False
    """A host state of this match has been seen (so one of another match
    means the host moved on)."""
    sent_at: dict[int, float] = field(default_factory=dict)
    """seq -> when it was last sent."""
    darts: int = 0
    """Actions that throw a dart (:attr:`~mqtt_contract.RemoteAction.throws_dart`)
    forwarded in this board's visit since the last NEXT."""
    takeout_since: float | None = None
    """This board's visit is over: its contacts are ignored (local takeout)."""
    result: dict[str, Any] | None = None
    """The won game's :func:`final_result` as journaled (``guest_finish``);
    ``None`` while the host's state says the game is not over."""

    def topics(self) -> list[str]:
        return [self.host.topic(name) for name in HOST_TOPICS]


class RemoteGuest(Extension):
    """The remote match this board is a guest in, if any. ``daemon`` is the
    core's context (:class:`ExtensionContext`), the hooks below hear its events."""

    def __init__(self, daemon: ExtensionContext) -> None:
        self.daemon = daemon
        daemon.subscribe(core_events.BoardInputReceived, self._board_input)
        daemon.subscribe(core_events.CommandReceived, self._command)
        daemon.subscribe(core_events.TakeoutWatchAsked, lambda _: self._watch())
        daemon.subscribe(core_events.StateBuilt, self._mirror, order=1)  # replaces the state
        self._match: _Match | None = None
        self._wake = asyncio.Event()

    @property
    def active(self) -> bool:
        """This board is in a match another board hosts: its hits, buttons and
        game commands go there, and its state is the host's."""
        return self._match is not None

    @property
    def in_takeout(self) -> bool:
        """This board's visit in the match is over and its contacts are ignored
        (local takeout) until NEXT: what a sensed takeout ends."""
        return self._match is not None and self._match.takeout_since is not None

    @property
    def own(self) -> BoardAddress:
        """This board, ``base/board``."""
        return BoardAddress(self.daemon.config.mqtt.base, self.daemon.board_id)

    # ----------------------------------------------------------- hooks

    def opened(self) -> None:
        self.resume()

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
                self.daemon.publish_event(ErrorReported(now, "refused", str(refusal)))
            self.daemon.publish_event(TakeoutSensed(now, ended))
            return True
        return None

    def _command(self, received: core_events.CommandReceived) -> bool | None:
        """While :attr:`active`, the game commands and buttons go to the host;
        ``end_game`` leaves the match; the others are refused."""
        if not self.active:
            return None
        name, now = received.name, received.at
        if name in core_events.GAME_BUTTONS or name == "dart":
            self.action(name, received.args.get("segment"), now)
        elif name == "end_game":
            self.leave(now)
        else:
            raise Refusal(
                f"this board is playing a remote match: {name} is for its host; "
                "end_game leaves the match"
            )
        return True

    def _watch(self) -> bool | None:
        """While :attr:`active`, the takeout sensor watches in the local takeout."""
        return self.in_takeout if self.active else None

    def _mirror(self, built: core_events.StateBuilt) -> None:
        """While :attr:`active`, the state is the host's, with this board's own journal."""
        if self.active:
            mirrored = {**self.state(built.state), "journal": built.state["journal"]}
            built.state.clear()
            built.state.update(mirrored)

    def resume(self) -> None:
        """At start-up: bring back the match this board was in from the journal."""
        journaled = self.daemon.journal.remote.guest_playing(self.daemon.board_id)
        if journaled is None:
            return
        try:
            host = BoardAddress.parse(journaled.host, self.own.base)
        except ValueError as error:
            log.error("remote match %s: %s; it is ended", journaled.match, error)
            status = "ended" if journaled.result is None else "finished"
            self.daemon.journal.remote.guest_close(
                journaled.match, status, self.daemon.clock(), "ended", journaled.result
            )
            return
        self._match = self._new_match(journaled, host)
        self._match.seen_state = True  # the host's state before this restart was of the match
        log.info(
            "resumed remote match %s hosted by %s (%d actions forwarded, %d taken)",
            journaled.match,
            host,
            journaled.forwarded,
            journaled.taken,
        )

    def hit(self, bed: Bed, now: float) -> None:
        """A hit this board detected while :attr:`active`: forward it, or ignore
        it locally (takeout) and say so."""
        match = self._match
        assert match is not None
        if match.takeout_since is not None:
            self.daemon.journal.games.note_ignored(None, bed.notation, TAKEOUT, now)
            self.daemon.publish_event(Ignored(now, bed.notation, TAKEOUT))
            return
        try:
            self._forward(match, RemoteAction.HIT, bed.notation, now)
        except Refusal as refusal:
            log.error("remote match %s: hit %s lost: %s", match.id, bed.notation, refusal)
            self.daemon.publish_event(Ignored(now, bed.notation, str(refusal)))

    def action(self, name: str, segment: str | None, now: float) -> None:
        """A button or command while :attr:`active` (``dart``, ``miss``,
        ``next``, ``undo``, ``bounce``): forward it. A :class:`Refusal` says why not."""
        match = self._match
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
        self._forward(match, action, segment, now)

    def leave(self, now: float) -> None:
        """``end_game`` on this board while :attr:`active`: leave the match."""
        match = self._match
        assert match is not None
        self._send(match.host, remote_payload(LeaveMessage(match.id, now)))
        self._close(match, EndReason.LEFT, now)
        log.info("remote match %s: left it (end_game on this board)", match.id)

    def state(self, state: dict[str, Any]) -> dict[str, Any]:
        """This board's ``state`` payload while :attr:`active`: the host's,
        with this board's own ``board`` object and ``remote.role`` guest."""
        match = self._match
        if match is None:
            return state
        host = str(match.host)
        if match.host_state is None:
            return {
                "game": None,
                "phase": WAITING_REMOTE,
                "board": state["board"],
                "remote": {
                    "match": match.id,
                    "role": "guest",
                    "host": host,
                    "throwing_at": None,
                    "boards": self._boards(match),
                    "waiting": [host],
                },
            }
        mirrored = {**match.host_state, "board": state["board"]}
        remote = {**match.host_state["remote"], "role": "guest"}
        if match.host_online is False:
            mirrored["phase"] = WAITING_REMOTE
            waiting = [board for board in remote.get("waiting") or [] if board != host]
            remote["waiting"] = [host, *waiting]
        mirrored["remote"] = remote
        return mirrored

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to invitations (and the host's
        topics during a match), say joined again and resend what is untaken."""
        link = self.daemon.link
        assert link is not None
        own = self.own
        filters = {
            *invitation_filters(self.daemon.config.remote.allow, own.base, own.board),
            remote_topic(own.base, "+", own.board),
        }
        for topic_filter in sorted(filters):
            await link.subscribe(topic_filter)
        match = self._match
        if match is None:
            return
        for topic in match.topics():
            await link.subscribe(topic)
        async with self.daemon.lock:
            if self._match is match:
                self._send_joined(match, self.daemon.clock())
                self._resend(match, "reconnected")
        self._wake.set()

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the guest subscribed to; True when it was the guest's."""
        match = self._match
        if match is not None and topic in match.topics():
            name = topic.rpartition("/")[2]
            try:
                async with self.daemon.lock:
                    await self._from_host(match, name, payload)
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
                    await self._on_join(sender, message)
                case EndMessage():
                    await self._on_end(sender, message)
                case JoinedMessage() | RefusedMessage() | ActionMessage() | LeaveMessage():
                    return False  # a guest's, to this board as a host: the host's to take
                case _:
                    assert_never(message)
        except JournalError as error:
            log.error("remote channel %s: %s not handled: %s", topic, message.type, error)
        return True

    async def run(self) -> None:
        """Timers (local takeout, resending) until cancelled."""
        while True:
            self._wake.clear()
            due = self._due()
            timeout = None if due is None else max(0.0, due - self.daemon.clock())
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            if self._wake.is_set():
                continue
            async with self.daemon.lock:
                self._tick(self.daemon.clock())

    # ------------------------------------------------------- invitations

    async def _on_join(self, sender: BoardAddress, message: JoinMessage) -> None:
        """An invitation (or, for this board's match, a resync): accept, answer or refuse."""
        own, now = self.own, self.daemon.clock()
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
        replaced: _Match | None = None
        async with self.daemon.lock:
            match = self._match
            if match is not None and match.id == message.match and match.host == sender:
                log.info("remote match %s: %s asks for a resync; joined again", match.id, sender)
                self._send_joined(match, now)
                self._resend(match, "resync")
                return
            reason = self._refusal(sender, message)
            if reason is None:
                over = self.daemon.journal.remote.guest_match(message.match)
                if over is not None and over.end_reason == "left":
                    log.info(
                        "remote match %s: %s invites again; this board left it", over.match, sender
                    )
                    self._send(sender, remote_payload(LeaveMessage(message.match, now)))
                    return
                if over is not None:
                    reason = f"match {message.match} is {over.status} on this board"
            if reason is not None:
                log.info(
                    "remote match %s: refused %s's invitation: %s", message.match, sender, reason
                )
                self._send(sender, remote_payload(RefusedMessage(message.match, now, reason)))
                return
            if match is not None:  # the same host started another game over its match
                log.info(
                    "remote match %s: replaced by %s's match %s", match.id, sender, message.match
                )
                replaced = match
                self._match = None
            match = self._accept(sender, message, now)
        if replaced is not None and replaced.host != sender:
            await self._unsubscribe(replaced)
        link = self.daemon.link
        if link is not None:
            for topic in match.topics():
                await link.subscribe(topic)
        async with self.daemon.lock:
            if self._match is match:
                self._send_joined(match, self.daemon.clock())
        self.daemon.request_state()

    def _refusal(self, sender: BoardAddress, message: JoinMessage) -> str | None:
        """Why this board does not join ``sender``'s match, or ``None``."""
        own, match = self.own, self._match
        if not host_allowed(sender, self.daemon.config.remote.allow, own.base):
            return f"{sender} is not in [remote] allow"
        if match is not None and match.host != sender:
            return (
                f"this board is playing {match.host}'s match {match.id}; "
                "end_game there or here first"
            )
        if any(self.daemon.emit(core_events.HostingAsked())):
            return "this board is hosting a remote match; end_game on it first"
        if not any(player.board == own for player in message.players):
            return f"no player of the match throws at {own}"
        return None

    def _accept(self, sender: BoardAddress, message: JoinMessage, now: float) -> _Match:
        players = [player.to_json() for player in message.players]
        options = dict(message.options or {})
        self.daemon.journal.remote.guest_join(
            message.match, str(sender), self.daemon.board_id, message.game, options, players, now
        )
        journaled = self.daemon.journal.remote.guest_match(message.match)
        assert journaled is not None
        match = self._new_match(journaled, sender, message.host_name)
        self._match = match
        names = ", ".join(f"{p['name']}@{p['board']}" for p in players)
        log.info(
            "remote match %s: joined %s's %s as a guest (%s)", match.id, sender, match.game, names
        )
        return match

    def _new_match(
        self, journaled: GuestMatch, host: BoardAddress, host_name: str | None = None
    ) -> _Match:
        try:
            picking = isinstance(
                new_game(journaled.game, [p["name"] for p in journaled.players], journaled.options),
                PickingGame,
            )
        except (EngineError, ValueError, TypeError, KeyError):
            picking = True  # a game this Oche cannot build: no local takeout reckoning
        return _Match(
            id=journaled.match,
            host=host,
            host_name=host_name or host.board,
            game=journaled.game,
            options=journaled.options,
            players=journaled.players,
            forwarded=journaled.forwarded,
            taken=journaled.taken,
            visits=not picking,
            result=journaled.result if journaled.status == "finished" else None,
        )

    async def _on_end(self, sender: BoardAddress, message: EndMessage) -> None:
        """The host ended the match: close it here, the board is idle again."""
        async with self.daemon.lock:
            match = self._match
            if match is None or match.id != message.match or match.host != sender:
                log.info(
                    "remote match %s: an end from %s ignored: not this board's match",
                    message.match,
                    sender,
                )
                return
            reason = message.reason
            self._close(match, reason, self.daemon.clock())
            log.info("remote match %s: %s ended it (%s)", match.id, sender, reason)

    def _close(self, match: _Match, reason: EndReason, now: float) -> None:
        """The match is over here: journal it (``finished`` when the host's last
        state says the game was won, else ``ended``), forget the host's topics, idle."""
        result = final_result(match.host_state)
        status = "ended" if result is None else "finished"
        self.daemon.journal.remote.guest_close(match.id, status, now, reason, result)
        if self._match is match:
            self._match = None
        self.daemon.background(self._unsubscribe(match))
        self.daemon.request_state()
        self._wake.set()

    async def _unsubscribe(self, match: _Match) -> None:
        """Stop reading ``match``'s host, unless the match now on (the same
        host's next one) reads it too."""
        link = self.daemon.link
        if link is None:
            return
        for topic in match.topics():
            if self._match is None or topic not in self._match.topics():
                await link.unsubscribe(topic)

    # ------------------------------------------------------ the host's topics

    async def _from_host(self, match: _Match, name: str, payload: bytes) -> None:
        """The host's state, event or availability (under the daemon's lock)."""
        if self._match is not match:
            return
        if name == "availability":
            text = payload.decode("utf-8", "replace").strip()
            if text not in (AVAILABILITY_ONLINE, AVAILABILITY_OFFLINE):
                raise ValueError(f"availability {text[:40]!r} is neither online nor offline")
            online = text == AVAILABILITY_ONLINE
            if online != match.host_online:
                log.info("remote match %s: the host %s is %s", match.id, match.host, text)
                match.host_online = online
                self.daemon.request_state()
            return
        if not payload:
            return  # a retained message cleared
        try:
            document = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise ValueError(f"not JSON: {error}") from None
        if not isinstance(document, dict):
            raise ValueError(f"not a JSON object but {type(document).__name__}")
        if name == "event":
            self.daemon.publish("event", document)
        else:
            self._host_state(match, document)

    def _host_state(self, match: _Match, state: dict[str, Any]) -> None:
        if state.get("phase") not in PHASES:
            raise ValueError(f"phase {state.get('phase')!r} is not one of {', '.join(PHASES)}")
        if not isinstance(state.get("board"), dict) or "game" not in state:
            raise ValueError("not a board's state: it has no game or no board")
        remote = state.get("remote")
        if not isinstance(remote, dict) or remote.get("match") != match.id:
            if match.seen_state:  # the host shows another game (or none): it moved on
                finished = final_result(match.host_state) is not None
                reason = EndReason.FINISHED if finished else EndReason.ENDED
                self._close(match, reason, self.daemon.clock())
                log.info("remote match %s: the host moved on without an end; closed", match.id)
            return
        boards = _check_state(state, remote)
        match.host_state, match.seen_state = state, True
        self._journal_result(match, final_result(state))
        applied = next((entry.applied for entry in boards if entry.board == self.own), None)
        if applied is not None and applied != match.taken:
            match.taken = applied
            self.daemon.journal.remote.guest_taken(match.id, applied)
        if match.taken >= match.forwarded:  # the state shows all this board has sent
            self._reckon(match, state, remote)
        self.daemon.request_state()
        self._wake.set()

    def _journal_result(self, match: _Match, result: dict[str, Any] | None) -> None:
        """Journal at once what the host's state says of the game's end: won
        (``finished`` with the winner, as ``oche history`` lists it), won anew
        with another result, or the win taken back (``playing`` again)."""
        if result == match.result:
            return
        if result is None:
            self.daemon.journal.remote.guest_reopen(match.id)
            log.info("remote match %s: the host took the win back; playing again", match.id)
        else:
            self.daemon.journal.remote.guest_finish(match.id, self.daemon.clock(), result)
            log.info("remote match %s: won by %s at the host", match.id, result["winner"])
        match.result = result

    def _reckon(self, match: _Match, state: dict[str, Any], remote: dict[str, Any]) -> None:
        """Local takeout as the host's up-to-date state says it is."""
        ours = remote.get("throwing_at") == str(self.own)
        phase = state.get("phase")
        if phase == WAITING_REMOTE:
            return
        if ours and phase == Phase.TAKEOUT.value:
            if match.takeout_since is None:
                match.takeout_since = self.daemon.clock()
        elif ours and phase == Phase.THROWING.value:
            visit = state.get("visit")
            match.darts = len(visit) if isinstance(visit, list) else 0
            match.takeout_since = None
        else:
            match.darts, match.takeout_since = 0, None

    # ------------------------------------------------------------ forwarding

    def _forward(
        self, match: _Match, action: RemoteAction, segment: str | None, now: float
    ) -> None:
        """Journal the action, then send it; keep the local takeout reckoning."""
        try:
            seq = self.daemon.journal.remote.guest_forward(match.id, action.value, segment, now)
        except JournalError as error:
            raise Refusal(str(error)) from None
        match.forwarded = seq
        self._send_action(match, GuestAction(seq, action.value, segment, now))
        self._reckon_forwarded(match, action, now)
        log.info(
            "remote match %s: forwarded #%d %s%s",
            match.id,
            seq,
            action,
            f" {segment}" if segment else "",
        )
        self._wake.set()

    def _reckon_forwarded(self, match: _Match, action: RemoteAction, now: float) -> None:
        """Local takeout after forwarding ``action``: a NEXT starts a visit, an
        undo takes a dart back, a dart-throwing action in this board's visit
        counts (the third ends it), a bounce leaves the count as it is."""
        match action:
            case RemoteAction.NEXT:
                match.darts, match.takeout_since = 0, None
            case RemoteAction.UNDO:
                match.darts = max(0, match.darts - 1)
                match.takeout_since = None
            case RemoteAction.HIT | RemoteAction.DART | RemoteAction.MISS | RemoteAction.BOUNCE:
                if (
                    action.throws_dart
                    and match.visits
                    and match.takeout_since is None
                    and self._our_visit(match)
                ):
                    match.darts += 1
                    if match.darts >= VISIT_DARTS:
                        match.takeout_since = now
            case _:
                assert_never(action)

    def _our_visit(self, match: _Match) -> bool:
        state = match.host_state
        return state is not None and state["remote"].get("throwing_at") == str(self.own)

    def _send_action(self, match: _Match, action: GuestAction) -> None:
        what = RemoteAction.parse(action.action)
        message = ActionMessage(match.id, action.at, action.seq, what, action.segment)
        self._send(match.host, remote_payload(message))
        match.sent_at[action.seq] = self.daemon.clock()

    def _resend(self, match: _Match, why: str) -> None:
        """Send again every action the host has not taken, in order, with its seq."""
        untaken = self.daemon.journal.remote.guest_untaken(match.id, match.taken)
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

    def _send_joined(self, match: _Match, now: float) -> None:
        name = self.daemon.config.board.name or self.own.board
        joined = JoinedMessage(match.id, now, self.own, match.forwarded, name)
        self._send(match.host, remote_payload(joined))

    def _send(self, host: BoardAddress, payload: dict[str, Any]) -> bool:
        """Fire and forget on ``{host base}/{this board}/remote/{host}``."""
        link = self.daemon.link
        if link is None or not link.connected:
            return False
        return link.send_raw(remote_topic(host.base, self.own.board, host.board), payload)

    # ----------------------------------------------------------------- timers

    def _due(self) -> float | None:
        """When :meth:`_tick` has something to do: the takeout timer, a resend."""
        match = self._match
        if match is None:
            return None
        due: list[float] = []
        takeout_s = self.daemon.config.visit.takeout_s
        if match.takeout_since is not None and takeout_s > 0:
            due.append(match.takeout_since + takeout_s)
        untaken = self._untaken_sent(match)
        if untaken:
            due.append(min(untaken) + self.daemon.config.remote.resend_s)
        return min(due) if due else None

    def _untaken_sent(self, match: _Match) -> list[float]:
        """When each action the host's state shows untaken was last sent."""
        link = self.daemon.link
        if match.host_state is None or link is None or not link.connected:
            return []
        return [at for seq, at in match.sent_at.items() if seq > match.taken]

    def _tick(self, now: float) -> None:
        match = self._match
        if match is None:
            return
        takeout_s = self.daemon.config.visit.takeout_s
        if (
            match.takeout_since is not None
            and takeout_s > 0
            and now >= match.takeout_since + takeout_s
        ):
            log.info("remote match %s: takeout is over after %g s: NEXT", match.id, takeout_s)
            try:
                self._forward(match, RemoteAction.NEXT, None, now)
            except Refusal as refusal:
                log.error("remote match %s: NEXT lost: %s", match.id, refusal)
                match.takeout_since = None
        untaken = self._untaken_sent(match)
        if untaken and now >= min(untaken) + self.daemon.config.remote.resend_s:
            self._resend(match, f"not taken after {self.daemon.config.remote.resend_s:g} s")

    def _boards(self, match: _Match) -> list[dict[str, Any]]:
        """The match's boards as this board knows them before the host's state."""
        own, host = self.own, match.host
        boards = [
            host,
            *dict.fromkeys(
                address
                for address in (BoardAddress.parse(p["board"], own.base) for p in match.players)
                if address != host
            ),
        ]
        listed = []
        for board in boards:
            if board == host:
                entry = BoardEntry(board, match.host_name, bool(match.host_online), True, 0)
            elif board == own:
                name = self.daemon.config.board.name or own.board
                entry = BoardEntry(board, name, True, True, match.taken)
            else:
                entry = BoardEntry(board, board.board, False, False, 0)
            listed.append(entry.to_json())
        return listed


def final_result(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a guest keeps of the host's final state (``guest_matches.result``):
    the winner's name (team, player, or ``draw``), the result and each player's
    board and score; ``None`` unless the game in ``state`` is finished."""
    if state is None or state.get("finished") is not True:
        return None
    players = [p for p in state.get("players") or [] if isinstance(p, dict)]
    winner: str | None = "draw"
    teams = state.get("teams")
    team, player = state.get("winner_team"), state.get("winner")
    if isinstance(team, int) and isinstance(teams, list) and 0 <= team < len(teams):
        winner = str(teams[team].get("name"))
    elif isinstance(player, int) and 0 <= player < len(players):
        winner = str(players[player].get("name"))
    return {
        "winner": winner,
        "result": state.get("result"),
        "players": [
            {"name": p.get("name"), "board": p.get("board"), "score": p.get("score")}
            for p in players
        ],
    }


def _check_state(state: dict[str, Any], remote: dict[str, Any]) -> list[BoardEntry]:
    """Enough of the host's state to mirror it, and its boards; a ValueError
    says what is missing."""
    if state.get("game") is not None and not isinstance(state.get("players"), list):
        raise ValueError("the state has a game but no players")
    if not isinstance(remote.get("boards"), list) or not all(
        isinstance(board, dict) for board in remote["boards"]
    ):
        raise ValueError("the state's remote.boards is not a list of boards")
    if not isinstance(remote.get("waiting", []), list):
        raise ValueError("the state's remote.waiting is not a list")
    return [BoardEntry.from_json(board) for board in remote["boards"]]


def _claimed_type(payload: bytes) -> object:
    """The ``type`` a payload claims, if it is a JSON object at all."""
    try:
        document = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document.get("type") if isinstance(document, dict) else None
