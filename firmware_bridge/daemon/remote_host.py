"""The host's side of a remote match (docs/remote.md): the game runs here.

:class:`RemoteHost` belongs to one :class:`~firmware_bridge.daemon.board_daemon.Daemon`
and hears its events on the bus (the hooks below). It invites the guest
boards (``join`` on ``{base}/{host}/remote/{guest}``), follows their
availability, takes their forwarded actions exactly once (``remote_taken``,
journaled with what the action did), enforces turns (``not-your-turn``),
pauses the match (phase ``waiting-remote``) while a guest is away, and adds
the ``remote`` block and each player's ``board`` to the state. No I/O in the
constructor; everything runs on the daemon's loop under its lock where it
changes the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, assert_never

from drivers.board_decoder import ErrorLimiter
from engine import Bed, EngineError, Event
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from mqtt_contract import (
    AVAILABILITY_ONLINE,
    REMOTE_TOPIC,
    WAITING_REMOTE,
    ActionMessage,
    BoardAddress,
    BoardEntry,
    EndMessage,
    EndReason,
    ErrorReported,
    JoinedMessage,
    JoinMessage,
    LeaveMessage,
    MatchPlayer,
    MatchRecord,
    RefusalReason,
    RefusedMessage,
    RemoteAction,
    RemoteMessage,
    RemoteMessageError,
    RemoteRefusal,
    parse_remote_message,
    remote_payload,
    remote_topic,
)

if TYPE_CHECKING:
    from firmware_bridge.daemon.game_session import GameSession, SessionSetup
    from firmware_bridge.daemon.journal import JournalGame

__all__ = ["RemoteHost"]

log = logging.getLogger(__name__)

_AVAILABILITY = "/availability"

REPORT_INTERVAL_S = 10.0
"""How often, at most, the host reports each sender's dropped messages of one
kind (bad ones, actions or ``joined`` for no match of its, ``refused``): a
warning, and for actions and refusals an ``error`` event. A board flooding
the channel with forged messages cannot flood the log and the ``event``
topic; the ones held back are counted in its next report."""


@dataclass
class _Guest:
    """One guest board of the match, as the host knows it."""

    address: BoardAddress
    name: str
    """Its display name (from its ``joined``; its id until then)."""
    online: bool = False
    joined: bool = False
    refused: bool = False
    """It refused the invitation: not invited again until it comes online again."""
    taken: int = 0
    """The last of its actions taken (applied or ignored)."""
    away_since: float | None = None
    """Since when it has been offline or not joined (``None`` while present)."""

    @property
    def present(self) -> bool:
        return self.online and self.joined


@dataclass
class _Match:
    """The match this board hosts: its id, its game's journal row, where each
    player throws, and the guests by board id (their level on the channel)."""

    id: str
    game_row: int
    boards: Mapping[str, BoardAddress]
    guests: dict[str, _Guest]

    def board_of(self, player: str, own: BoardAddress) -> BoardAddress:
        """Where ``player`` throws (``own``, the host, unless the match says otherwise)."""
        return self.boards.get(player, own)


class RemoteHost(Extension):
    """The remote match this board hosts, if any. ``daemon`` is the core's
    context (:class:`ExtensionContext`), the hooks below hear its events."""

    def __init__(self, daemon: ExtensionContext) -> None:
        self.daemon = daemon
        self._subscribe(daemon)
        self.match: _Match | None = None
        self._online: dict[str, bool] = {}
        """The last availability seen on each guest availability topic followed."""
        self._followed: set[str] = set()
        self._wake = asyncio.Event()
        self._reports = ErrorLimiter(REPORT_INTERVAL_S)
        """Per sender and kind: its dropped messages and refusals, reported at
        most once every :data:`REPORT_INTERVAL_S`."""

    @property
    def own(self) -> BoardAddress:
        """This board, the host, as ``base/board``."""
        return BoardAddress(self.daemon.config.mqtt.base, self.daemon.board_id)

    @property
    def active(self) -> bool:
        """A remote match is on (its game is the daemon's session)."""
        return self._current() is not None

    def _current(self) -> _Match | None:
        match, daemon = self.match, self.daemon
        if match is None or daemon.session is None or daemon.game_row != match.game_row:
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
        return self._record({name: given.get(name, own) for name in players})

    def rematch(self) -> dict[str, Any] | None:
        """The ``remote`` record of a rematch: a new match with the boards of
        the last game's (as the journal keeps it, so also after a restart), or
        ``None`` when the last game was on this board alone."""
        latest = self.daemon.journal.games.latest_game(self.daemon.board_id)
        if latest is None or not isinstance(latest.remote, dict):
            return None
        try:
            last = MatchRecord.from_json(latest.remote, self.own.base)
        except ValueError as error:
            raise ValueError(f"journal game {latest.id}: {error}") from None
        return self._record(dict(last.boards))

    def _record(self, boards: dict[str, BoardAddress]) -> dict[str, Any] | None:
        own = self.own
        by_id: dict[str, BoardAddress] = {own.board: own}
        for address in sorted(set(boards.values()) - {own}):
            other = by_id.setdefault(address.board, address)
            if other != address:
                raise ValueError(
                    f"boards {other} and {address} have the same id: the match's channel "
                    f"({own.base}/{address.board}/remote/{own.board}) cannot tell them apart"
                )
        if len(by_id) == 1:
            return None
        return MatchRecord(uuid.uuid4().hex, own, boards).to_json()

    def started(self, game_row: int, remote: dict[str, Any] | None, now: float) -> None:
        """The daemon started (or resumed, from the journal) a game; ``remote``
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
        log.info(
            "remote match %s: inviting %s", match.id, ", ".join(map(str, self._addresses(match)))
        )
        self._invite_all(match, now)
        self._follow()

    def resumed(self, journaled: JournalGame) -> None:
        """The daemon resumed ``journaled`` from the journal: bring back the
        match's boards and the actions taken so far."""
        if journaled.remote is None:
            return
        try:
            taken = self.daemon.journal.remote.remote_taken(journaled.id)
        except JournalError as error:
            log.error("journal game %d: %s; its remote match is not resumed", journaled.id, error)
            return
        match = self._new_match(journaled.id, journaled.remote, self.daemon.clock(), taken)
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
        return self._refusal(match, self.own, action)

    @property
    def paused(self) -> bool:
        """The match waits for a board: no one's darts are taken, a computer
        player's included."""
        match = self._current()
        return match is not None and bool(self._waiting(match))

    def takeout_here(self) -> bool:
        """Whether this board's takeout timer may end the visit on: not while
        the match waits, nor for a visit thrown at a guest (its ``next`` ends it)."""
        match, session = self._current(), self.daemon.session
        if match is None or session is None:
            return True
        if self._waiting(match):
            return False
        return self._thrower_board(match) == self.own

    def state(self, state: dict[str, Any]) -> dict[str, Any]:
        """The daemon's ``state`` payload with the match in it (``remote``, each
        player's ``board``, phase ``waiting-remote`` while waiting)."""
        match = self._current()
        if match is None:
            return state
        own = self.own
        for player in state.get("players") or []:
            player["board"] = str(match.board_of(player["name"], own))
        waiting = self._waiting(match)
        session = self.daemon.session
        assert session is not None
        finished = session.game.is_finished
        boards = [
            BoardEntry(own, self.daemon.config.board.name, True, True, 0),
            *(
                BoardEntry(guest.address, guest.name, guest.online, guest.joined, guest.taken)
                for guest in match.guests.values()
            ),
        ]
        state["remote"] = {
            "match": match.id,
            "role": "host",
            "host": str(own),
            "throwing_at": None if finished else str(self._thrower_board(match)),
            "boards": [entry.to_json() for entry in boards],
            "waiting": [str(guest.address) for guest in waiting],
        }
        if waiting:
            state["phase"] = WAITING_REMOTE
        return state

    def result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The finished game's ``result`` payload with each player's ``board``
        and the ``match`` id."""
        match = self._current()
        if match is None:
            return result
        own = self.own
        for player in result.get("players") or []:
            player["board"] = str(match.board_of(player["name"], own))
        result["match"] = match.id
        return result

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to what the match needs, invite again."""
        link = self.daemon.link
        if link is None:
            return
        own = self.own
        await link.subscribe(remote_topic(own.base, "+", own.board))
        await self._sync_subscriptions()
        async with self.daemon.lock:
            match = self._current()
            if match is not None:
                self._invite_all(match, self.daemon.clock())

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the host subscribed to; True when it was the host's."""
        if topic.endswith(_AVAILABILITY) and topic in self._followed:
            async with self.daemon.lock:
                self._availability(topic, payload, self.daemon.clock())
            self.daemon.request_state()
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
            self._report(f"{sender} bad", logged, None, self.daemon.clock())
            return True
        if message.type.from_host:
            return False  # said to this board as a guest: not the host's
        async with self.daemon.lock:
            self._message(sender, message, self.daemon.clock())
        self.daemon.request_state()
        return True

    async def run(self) -> None:
        """Timers until cancelled: ``[remote] offline_timeout_s``, and a ``join``
        sent again every ``[remote] resend_s`` to each guest that has not
        answered (an invitation sent while the guest was still subscribing is
        lost: nothing else would send it again)."""
        clock = self.daemon.clock
        while True:
            self._wake.clear()
            deadline = self._timeout_deadline()
            unanswered = self._unanswered()
            timeout = None if deadline is None else max(0.0, deadline - clock())
            if unanswered:
                resend = self.daemon.config.remote.resend_s
                timeout = resend if timeout is None else min(timeout, resend)
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: no lost cancel
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            if self._wake.is_set() or timeout is None:
                continue
            async with self.daemon.lock:
                now = clock()
                match = self._current()
                if match is not None:
                    for guest in self._unanswered():
                        self._invite(match, guest, now)
                self._check_timeout(now)
            self.daemon.request_state()

    def _unanswered(self) -> list[_Guest]:
        """The current match's guests that have not joined (yet, or since they came back)."""
        match = self._current()
        if match is None or not self._waiting(match):
            return []
        return [g for g in match.guests.values() if not g.joined and not g.refused]

    # ----------------------------------------------------------- the match

    def _new_match(
        self, game_row: int, remote: dict[str, Any], now: float, taken: dict[str, int]
    ) -> _Match | None:
        """The match of a journal ``remote`` record; guests in the players' order."""
        own = self.own
        try:
            record = MatchRecord.from_json(remote, own.base)
        except ValueError as error:
            log.error("journal game %d: its remote match is damaged (%s)", game_row, error)
            return None
        guests: dict[str, _Guest] = {}
        for address in record.boards.values():
            if address != own and address.board not in guests:
                topic = address.topic("availability")
                guests[address.board] = _Guest(
                    address,
                    address.board,
                    online=self._online.get(topic, False),
                    taken=taken.get(str(address), 0),
                    away_since=now,
                )
        self._wake.set()
        return _Match(record.match, game_row, record.boards, guests)

    @staticmethod
    def _addresses(match: _Match) -> list[BoardAddress]:
        return [guest.address for guest in match.guests.values()]

    def _status(self, game_row: int) -> str | None:
        try:
            return self.daemon.journal.games.game(game_row).status
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
                self._send(guest, remote_payload(EndMessage(match.id, now, reason)))
        self._wake.set()
        self._follow()

    def _invite_all(self, match: _Match, now: float) -> None:
        for guest in match.guests.values():
            self._invite(match, guest, now)

    def _invite(self, match: _Match, guest: _Guest, now: float) -> None:
        """Send ``join`` (the invitation, or a resync) to ``guest``."""
        session = self.daemon.session
        if session is None:
            return
        own = self.own
        players = tuple(
            MatchPlayer(name, match.board_of(name, own)) for name in session.game.lineup.players
        )
        join = JoinMessage(
            match.id,
            now,
            own,
            session.setup.game,
            players,
            host_name=self.daemon.config.board.name,
            options=dict(session.game.options),
        )
        self._send(guest, remote_payload(join))

    def _send(self, guest: _Guest, payload: dict[str, Any]) -> None:
        """One message on the channel to ``guest`` (dropped while offline: every
        join is sent again on reconnect)."""
        link = self.daemon.link
        if link is None or not link.connected:
            return
        own = self.own
        link.send_raw(remote_topic(own.base, own.board, guest.address.board), payload)

    def _follow(self) -> None:
        """Follow the availability of the current match's guests (in the background)."""
        with contextlib.suppress(RuntimeError):  # no loop: on_connect subscribes
            self.daemon.background(self._sync_subscriptions())

    async def _sync_subscriptions(self) -> None:
        link = self.daemon.link
        if link is None:
            return
        match = self.match
        wanted = (
            set()
            if match is None
            else {g.address.topic("availability") for g in match.guests.values()}
        )
        gone, new = self._followed - wanted, wanted - self._followed
        self._followed = wanted
        for topic in sorted(gone):
            self._online.pop(topic, None)
            await link.unsubscribe(topic)
        for topic in sorted(new):
            await link.subscribe(topic)

    # ------------------------------------------------------------ presence

    def _availability(self, topic: str, payload: bytes, now: float) -> None:
        online = payload.strip() == AVAILABILITY_ONLINE.encode()
        self._online[topic] = online
        match = self._current()
        if match is None:
            return
        for guest in match.guests.values():
            if guest.address.topic("availability") != topic or guest.online == online:
                continue
            guest.online = online
            if online:
                log.info("remote match %s: %s is online", match.id, guest.address)
                guest.refused = False
                self._invite(match, guest, now)
            else:
                # It says joined again (to the next join) once it is back.
                guest.joined = False
                log.warning(
                    "remote match %s: %s went offline; the match waits", match.id, guest.address
                )
        self._presence(match, now)

    def _presence(self, match: _Match, now: float) -> None:
        """Note since when each guest is away; wake the timers that depend on it."""
        for guest in match.guests.values():
            if guest.present:
                guest.away_since = None
            elif guest.away_since is None:
                guest.away_since = now
        self._wake.set()
        self.daemon.emit(core_events.PresenceChanged(now))

    def _waiting(self, match: _Match) -> list[_Guest]:
        """The guests the match waits for (none once its game is over)."""
        session = self.daemon.session
        if session is None or session.game.is_finished:
            return []
        return [guest for guest in match.guests.values() if not guest.present]

    def _timeout_deadline(self) -> float | None:
        limit = self.daemon.config.remote.offline_timeout_s
        match = self._current()
        if limit <= 0 or match is None:
            return None
        away = [g.away_since for g in self._waiting(match) if g.away_since is not None]
        return min(away) + limit if away else None

    def _check_timeout(self, now: float) -> None:
        deadline = self._timeout_deadline()
        match = self._current()
        if deadline is None or match is None or now < deadline:
            return
        limit = self.daemon.config.remote.offline_timeout_s
        late = ", ".join(str(guest.address) for guest in self._waiting(match))
        message = f"{late} stayed away longer than {limit:g} s: the remote match is abandoned"
        log.warning("remote match %s: %s", match.id, message)
        self._end_match(EndReason.REMOTE_TIMEOUT, now)
        self.daemon.abandon(now, "remote-timeout")
        self.daemon.publish_event(ErrorReported(now, "remote-timeout", message))

    # ------------------------------------------------------------ messages

    def _message(self, sender: str, message: RemoteMessage, now: float) -> None:
        """One message from a guest (under the daemon's lock)."""
        match = self._current()
        guest = None if match is None else match.guests.get(sender)
        if match is None or guest is None or message.match != match.id:
            self._stray(sender, message, now, guest is not None)
            return
        match message:
            case JoinedMessage():
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
                self._presence(match, now)
            case RefusedMessage():
                guest.joined, guest.refused = False, True
                self._presence(match, now)
                text = f"{guest.address} refused the match: {message.reason}"
                self._report(f"{sender} refused", f"remote match {match.id}: {text}", text, now)
            case LeaveMessage():
                log.info("remote match %s: %s left", match.id, guest.address)
                self._end_match(EndReason.LEFT, now, skip=guest.address.board)
                self.daemon.abandon(now, "left")
            case ActionMessage():
                self._action(match, guest, message, now)
            case JoinMessage() | EndMessage():
                pass  # a host's: :meth:`on_message` leaves them to the guest
            case _:
                assert_never(message)

    def _report(self, what: str, logged: str, event: str | None, now: float) -> None:
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
            self.daemon.publish_event(ErrorReported(now, "remote-refused", event + held))

    def _stray(self, sender: str, message: RemoteMessage, now: float, member: bool) -> None:
        """A message from a board not in the match, or for another match: dropped."""
        who = f"{self.own.base}/{sender}"
        why = "for another match" if member else "from a board not in this board's match"
        logged = f"remote: {message.type} {why} (match {message.match}) from {who} dropped"
        text = f"{who}: an action {why} (match {message.match}) was dropped"
        event = text if isinstance(message, ActionMessage) else None
        self._report(f"{sender} stray {message.type}", logged, event, now)
        if isinstance(message, JoinedMessage):  # a guest still in a match that is over
            link = self.daemon.link
            if link is not None and link.connected:
                end = remote_payload(EndMessage(message.match, now, EndReason.ENDED))
                link.send_raw(remote_topic(self.own.base, self.own.board, sender), end)

    def _action(self, match: _Match, guest: _Guest, message: ActionMessage, now: float) -> None:
        """Take ``guest``'s next action in seq order, exactly once."""
        seq = message.seq
        if self._waiting(match):
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
        self._take(match, guest, seq, message.action, message.segment, now)

    def _take(
        self,
        match: _Match,
        guest: _Guest,
        seq: int,
        action: RemoteAction,
        segment: str | None,
        now: float,
    ) -> None:
        """Apply (or ignore, saying why) one action; its seq is journaled with it."""
        daemon, session, row = self.daemon, self.daemon.session, self.daemon.game_row
        assert session is not None and row is not None
        board = str(guest.address)
        taken = (board, seq)
        try:
            refused: RemoteRefusal | Refusal | EngineError | None
            refused = self._refusal(match, guest.address, action)
            if refused is None:
                try:
                    planned, source = _plan(session, action, segment, now), action.source
                    daemon.apply(planned, source, taken)
                except JournalError:
                    raise
                except (Refusal, EngineError) as refusal:
                    refused = refusal
            if refused is not None:
                text = str(refused)
                reason = refused.reason.value if isinstance(refused, RemoteRefusal) else text
                if segment is not None:
                    daemon.ignore(segment, reason, now, taken)
                else:
                    daemon.journal.remote.note_taken(row, board, seq)
                    daemon.publish_event(
                        ErrorReported(now, "refused", f"{action} from {board}: {text}")
                    )
        except JournalError as error:  # not taken: the guest sends it again
            log.error("remote match %s: %s's action %d not taken: %s", match.id, board, seq, error)
            return
        guest.taken = seq

    # ------------------------------------------------------------ turns

    def _refusal(
        self, match: _Match, board: BoardAddress, action: RemoteAction
    ) -> RemoteRefusal | None:
        """Why ``board``'s ``action`` must not be taken now. One that takes back
        the last dart (:attr:`~mqtt_contract.RemoteAction.takes_back`) only the
        board it was thrown at may take, whoever is up."""
        waiting = self._waiting(match)
        if waiting:
            names = ", ".join(str(guest.address) for guest in waiting)
            return RemoteRefusal(RefusalReason.WAITING_REMOTE, f"the match waits for {names}")
        session = self.daemon.session
        assert session is not None
        if action.takes_back:
            owner = self._last_dart_board(match)
            if owner is None or owner == board:
                return None
            return RemoteRefusal(
                RefusalReason.NOT_YOUR_TURN,
                f"the last dart was thrown at {self._board_name(match, owner)}, "
                "which alone can take it back",
            )
        if session.game.is_finished:
            return None
        owner = self._thrower_board(match)
        if owner == board:
            return None
        player = session.game.lineup.players[session.thrower()]
        return RemoteRefusal(
            RefusalReason.NOT_YOUR_TURN,
            f"{player} is throwing at {self._board_name(match, owner)}",
        )

    def _thrower_board(self, match: _Match) -> BoardAddress:
        session = self.daemon.session
        assert session is not None
        player = session.game.lineup.players[session.thrower()]
        return match.board_of(player, self.own)

    def _last_dart_board(self, match: _Match) -> BoardAddress | None:
        """Where the dart an undo would take back was thrown; ``None`` without
        one. The game knows its thrower: nothing is undone to find it."""
        session = self.daemon.session
        assert session is not None
        thrower = session.game.undo_thrower()
        if thrower is None:
            return None
        return match.board_of(session.game.lineup.players[thrower], self.own)

    def _board_name(self, match: _Match, board: BoardAddress) -> str:
        if board == self.own:
            return self.daemon.config.board.name
        for guest in match.guests.values():
            if guest.address == board:
                return guest.name
        return str(board)


def _plan(
    session: GameSession, action: RemoteAction, segment: str | None, now: float
) -> list[Event]:
    """The events ``action`` plans in ``session``; a :class:`Refusal` or an
    :class:`~engine.EngineError` when the game will not take it now."""
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
        case _:
            assert_never(action)
