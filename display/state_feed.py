"""The display's only line to the daemon: an MQTT client in a background thread.

:class:`StateFeed` subscribes to one board's ``{base}/{board}/availability``,
``state``, ``event`` and ``cmd/response`` topics (docs/mqtt.md) with aiomqtt,
on its own asyncio loop in a daemon thread, so the pygame loop never waits
on the network. The UI thread reads:

- :attr:`StateFeed.state`: the latest state payload (a dict, replaced
  whole on every message, never modified afterwards), :attr:`StateFeed.view`:
  the same parsed once into typed views (``mqtt_contract.StateView``, what
  the scenes read), and :attr:`StateFeed.state_serial`, which goes up with
  each new state;
- :meth:`StateFeed.events`: the events received since the last call, with
  the refusals of the display's own commands among them (below);
- :attr:`StateFeed.availability`: ``"online"``, ``"offline"`` or ``None``
  (not heard yet), and :attr:`StateFeed.connected` for the display's own
  connection to the broker.

:meth:`StateFeed.send_command` publishes a command on ``{base}/{board}/cmd``
(QoS 1, not retained) with an ``id`` of the feed's own
(``display-<token>-<n>``: a random token per feed, so that two displays of
one board do not take each other's answers, and a counter). The daemon
answers every client's commands on the one ``cmd/response`` topic; the feed
remembers the ids it sent and reads only the answers to those. An accepted
command needs no word (its effect shows in the next state), but a refused
one would otherwise vanish without a trace (a tile the hand does not have,
``undo`` with nothing to undo), so a refusal is queued with the events as
``{"type": "refused", "id", "command", "error"}``: a payload of the
display's own, which the scenes turn into a notice as they do the daemon's
events. Other clients' answers are ignored.

The state's ``lobby`` (the players who joined the next game, the join code)
is parsed once too, into :attr:`StateFeed.lobby` (``None`` for a daemon
without one; a malformed one is logged once and read as ``None``). The
leaderboard's after-game lines, retained on ``{base}/{board}/result/lines``,
are :attr:`StateFeed.lines`: kept when they arrive while no game runs, and
forgotten once a state shows a game running again (they were the last
game's), so the game-over panel never shows another game's lines. The
board's retained ``pairing`` (its pairing code and paired devices, which the
idle screen and the operator menu show) is :attr:`StateFeed.pairing`.

It also subscribes to every game's leaderboard snapshot,
``{base}/leaderboard/+`` (retained, published by the leaderboard service):
:attr:`StateFeed.leaderboards` holds the latest valid one of each game
(display/leaderboards.py), for the attract screen between games. A snapshot
the display cannot read is ignored with one log line; an empty retained
message takes that game's snapshot away.

The feed reconnects with a growing delay (0.5 s to 5 s) when the broker goes
away. Making a feed does no I/O; :meth:`start` starts the thread and
:meth:`close` stops it.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import itertools
import json
import logging
import secrets
import threading
from typing import Any

import aiomqtt

from display.background_loop import BackgroundMqtt
from display.leaderboards import Snapshot, SnapshotError, parse_snapshot, snapshot_game
from display.lobby import parse_lines, parse_lobby
from mqtt_contract import (
    PayloadError,
    Phase,
    StateView,
    check_base,
    check_board_id,
    leaderboard_topic,
    parse_broker_url,
)
from mqtt_contract.lobby_payload import LobbyState, ResultLines
from mqtt_contract.pairing_payload import PairingState

__all__ = ["StateFeed"]

log = logging.getLogger(__name__)

_MAX_EVENTS = 256
_MAX_PENDING = 256
"""How many sent commands the feed remembers while their answers are due."""
_SUBSCRIPTIONS = ("availability", "state", "event", "cmd/response", "result/lines", "pairing")
_RUNNING = (Phase.THROWING, Phase.TAKEOUT, Phase.WAITING_REMOTE)
"""The phases of a game on: the last game's lines are stale then."""
MAX_GAMES = 64
"""Leaderboard snapshots kept at most (the engine has a dozen games): more
games' snapshots are ignored, so no client can fill the display's memory."""


class StateFeed(BackgroundMqtt):
    """One board's state, events and availability, kept current from MQTT."""

    thread_name = "oche-state-feed"

    def __init__(
        self,
        url: str,
        board: str = "board1",
        base: str = "oche",
        *,
        username: str | None = None,
        password: str | None = None,
        keepalive: int = 30,
    ) -> None:
        address = parse_broker_url(url)
        check_base(base)
        check_board_id(board)
        super().__init__(address, username, password, keepalive)  # None: the URL's account
        self.url = url
        self.board = board
        self.base = base
        self.topics = {name: f"{base}/{board}/{name}" for name in (*_SUBSCRIPTIONS, "cmd")}
        self.topics["leaderboard"] = leaderboard_topic(base, "+")
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._state: dict[str, Any] | None = None
        self._view: StateView | None = None
        self._lobby: LobbyState | None = None
        self._lobby_problem: str | None = None
        self._lines: ResultLines | None = None
        self._pairing: PairingState | None = None
        self._serial = 0
        self._availability: str | None = None
        self._leaderboards: dict[str, Snapshot] = {}
        self._leaderboards_shown: tuple[Snapshot, ...] = ()
        self._events: collections.deque[dict[str, Any]] = collections.deque(maxlen=_MAX_EVENTS)
        self._id_prefix = f"display-{secrets.token_hex(3)}-"
        self._ids = itertools.count(1)
        self._pending: dict[str, str] = {}
        """The ids of the commands sent and not answered yet, to the command's name."""
        self._connected = False

    # ------------------------------------------------------------ UI side

    @property
    def state(self) -> dict[str, Any] | None:
        """The latest state payload, or ``None`` before the first one."""
        with self._lock:
            return self._state

    @property
    def view(self) -> StateView | None:
        """The latest state parsed into its typed view, or ``None`` before the first one."""
        with self._lock:
            return self._view

    @property
    def lobby(self) -> LobbyState | None:
        """The latest state's ``lobby``, or ``None`` (none yet, a daemon without one)."""
        with self._lock:
            return self._lobby

    @property
    def lines(self) -> ResultLines | None:
        """The leaderboard's lines of the board's last finished game, or ``None``."""
        with self._lock:
            return self._lines

    @property
    def pairing(self) -> PairingState | None:
        """The board's pairing code and paired devices (its retained
        ``pairing``), or ``None``: none yet, or a broker that keeps it from
        this display's account."""
        with self._lock:
            return self._pairing

    @property
    def state_serial(self) -> int:
        """Goes up by one with every state received (0: none yet)."""
        with self._lock:
            return self._serial

    @property
    def availability(self) -> str | None:
        """The daemon's availability: ``"online"``, ``"offline"``, or ``None`` (not heard)."""
        with self._lock:
            return self._availability

    @property
    def connected(self) -> bool:
        """The display is connected to the broker and subscribed."""
        with self._lock:
            return self._connected

    @property
    def leaderboards(self) -> tuple[Snapshot, ...]:
        """The latest leaderboard snapshot of each game, by game id (empty
        before any). The same tuple object until a snapshot changes."""
        with self._lock:
            return self._leaderboards_shown

    def snapshot(self) -> tuple[StateView | None, int, str | None, bool]:
        """``(view, state_serial, availability, connected)`` read together
        (the state as its typed view)."""
        with self._lock:
            return self._view, self._serial, self._availability, self._connected

    def events(self) -> list[dict[str, Any]]:
        """The events received since the last call, oldest first (at most 256
        kept), and the refusals of this feed's commands as ``refused`` payloads."""
        with self._lock:
            events = list(self._events)
            self._events.clear()
        return events

    def wait_for_state(self, timeout: float, after_serial: int = 0) -> dict[str, Any] | None:
        """Block until a state newer than ``after_serial`` is here (the retained
        one arrives right after subscribing); ``None`` after ``timeout`` s."""
        with self._changed:
            self._changed.wait_for(lambda: self._serial > after_serial, timeout)
            return self._state if self._serial > after_serial else None

    def wait_for_leaderboards(self, count: int, timeout: float) -> tuple[Snapshot, ...]:
        """Block until snapshots of ``count`` games are here (or ``timeout`` s
        passed); returns those there are."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._leaderboards_shown) >= count, timeout)
            return self._leaderboards_shown

    def send_command(self, command: dict[str, Any]) -> concurrent.futures.Future[bool]:
        """Publish ``command`` on the board's ``cmd`` topic (QoS 1, not
        retained), with an ``id`` of the feed's own in place of any it has
        (``command`` itself is not changed). The future says whether the
        broker took it; it is ``False`` at once when the feed is not
        connected. A refusal arrives later among the :meth:`events`."""
        loop = self._loop
        if loop is None or self._closed or not self.connected:
            done: concurrent.futures.Future[bool] = concurrent.futures.Future()
            done.set_result(False)
            return done
        with self._lock:
            command_id = f"{self._id_prefix}{next(self._ids)}"
            # Remembered before publishing: the answer may come before _publish returns.
            self._pending[command_id] = str(command.get("command", "?"))
            while len(self._pending) > _MAX_PENDING:
                del self._pending[next(iter(self._pending))]
        payload = json.dumps({**command, "id": command_id}).encode("utf-8")
        return asyncio.run_coroutine_threadsafe(self._publish(payload, command_id), loop)

    def __enter__(self) -> StateFeed:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stopped(self) -> None:
        with self._changed:
            self._connected = False
            self._changed.notify_all()

    # ------------------------------------------------------ network side

    def _subscriptions(self) -> list[str]:
        # Availability first: the broker sends each retained message as its
        # subscription is made, so a state never arrives before the
        # availability that qualifies it.
        return [self.topics[name] for name in (*_SUBSCRIPTIONS, "leaderboard")]

    def _connection_changed(
        self, connected: bool, error: aiomqtt.MqttError | None, retry_in: float
    ) -> None:
        with self._changed:
            self._connected = connected
            self._changed.notify_all()
        if connected:
            log.info("connected to %s", self.address)
        elif error is not None:
            log.warning(
                "MQTT %s: %s; retrying in %.1f s",
                self.address,
                str(error) or type(error).__name__,
                retry_in,
            )

    async def _publish(self, payload: bytes, command_id: str) -> bool:
        client = self._client
        sent = False
        if client is not None:
            try:
                await client.publish(self.topics["cmd"], payload, qos=1, retain=False)
                sent = True
            except aiomqtt.MqttError as error:
                log.warning("could not send a command: %s", error)
        if not sent:
            with self._lock:
                self._pending.pop(command_id, None)
        return sent

    def _receive(self, topic: str, raw: Any) -> None:
        data = bytes(raw) if isinstance(raw, bytes | bytearray) else str(raw or "").encode()
        if topic not in self.topics.values():
            game = snapshot_game(self.base, topic)
            if game is not None:
                self._take_snapshot(topic, game, data)
            return
        if topic == self.topics["result/lines"]:
            self._take_lines(topic, data)
            return
        if topic == self.topics["pairing"]:
            self._take_pairing(topic, data)
            return
        text = data.decode("utf-8", "replace")
        if topic == self.topics["availability"]:
            with self._changed:
                self._availability = text.strip()
                self._changed.notify_all()
            return
        try:
            payload = json.loads(text) if text else None
        except ValueError:
            log.warning("%s: not JSON, ignored", topic)
            return
        if not isinstance(payload, dict):
            return
        is_state = topic == self.topics["state"]
        view = StateView.from_json(payload) if is_state else None  # parsed once, off the UI
        lobby = self._read_lobby(topic, payload) if is_state else None
        with self._changed:
            if view is not None:
                self._state, self._view, self._lobby = payload, view, lobby
                self._serial += 1
                if view.phase in _RUNNING:
                    self._lines = None  # the last game's: this one has not finished
            elif topic == self.topics["event"]:
                self._events.append(payload)
            elif topic == self.topics["cmd/response"]:
                self._answer(payload)
            self._changed.notify_all()

    def _read_lobby(self, topic: str, payload: dict[str, Any]) -> LobbyState | None:
        """The state's lobby; a malformed one is logged (once until it changes) and read as none."""
        try:
            lobby, problem = parse_lobby(payload), None
        except PayloadError as error:
            lobby, problem = None, str(error)
        if problem is not None and problem != self._lobby_problem:
            log.warning("%s: lobby ignored: %s", topic, problem)
        self._lobby_problem = problem
        return lobby

    def _take_lines(self, topic: str, data: bytes) -> None:
        """Keep the after-game lines that arrive while no game runs; an empty
        message takes them away, one the display cannot read is ignored with a log line."""
        try:
            lines = parse_lines(data)
        except PayloadError as error:
            log.warning("%s: result lines ignored: %s", topic, error)
            return
        with self._changed:
            view = self._view
            if lines is not None and view is not None and view.phase in _RUNNING:
                return  # a game runs: these are the last game's
            self._lines = lines
            self._changed.notify_all()

    def _take_pairing(self, topic: str, data: bytes) -> None:
        """Keep the board's pairing; an empty message takes it away, one the
        display cannot read is ignored with a log line (never its code)."""
        pairing: PairingState | None = None
        if data:
            try:
                pairing = PairingState.from_json(json.loads(data))
            except (ValueError, RecursionError) as error:  # a PayloadError is a ValueError
                log.warning("%s: pairing ignored: %s", topic, type(error).__name__)
                return
        with self._changed:
            self._pairing = pairing
            self._changed.notify_all()

    def _take_snapshot(self, topic: str, game: str, data: bytes) -> None:
        """Keep ``game``'s snapshot; an empty message takes it away, one the
        display cannot read is ignored with a log line (the last good one stays)."""
        snapshot: Snapshot | None = None
        if data:
            try:
                snapshot = parse_snapshot(game, data)
            except SnapshotError as error:
                log.warning("%s: leaderboard snapshot ignored: %s", topic, error)
                return
        with self._changed:
            if snapshot is None:
                if self._leaderboards.pop(game, None) is None:
                    return
            elif game in self._leaderboards or len(self._leaderboards) < MAX_GAMES:
                self._leaderboards[game] = snapshot
            else:
                log.warning("%s: leaderboard snapshot ignored: over %d games", topic, MAX_GAMES)
                return
            self._leaderboards_shown = tuple(
                self._leaderboards[name] for name in sorted(self._leaderboards)
            )
            self._changed.notify_all()

    def _answer(self, response: dict[str, Any]) -> None:
        """Take a ``cmd/response`` (the lock held): a refusal of one of this
        feed's commands becomes a ``refused`` payload among the events."""
        command_id = response.get("id")
        if not isinstance(command_id, str) or command_id not in self._pending:
            return  # another client's answer, or one taken already
        command = self._pending.pop(command_id)
        if response.get("ok") is False:
            error = str(response.get("error") or "refused")
            self._events.append(
                {"type": "refused", "id": command_id, "command": command, "error": error}
            )
