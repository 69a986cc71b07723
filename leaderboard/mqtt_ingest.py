"""The service's MQTT side, on one connection: every result on
``{base}/+/result`` stored through :func:`leaderboard.store.ingest_many` (the
results already waiting together, in one transaction) and only then
confirmed to its board on ``{base}/{board}/result/stored`` and acknowledged
(PUBACK), in arrival order; each board's ``state`` and ``availability``
handed to the live hub, the snapshots published, and snapshots from any
instance passed to the hub; each known board's ``roster`` and, once its
result is stored, ``result/lines`` (:mod:`leaderboard.board_feeds`); each
board's ``event`` to the hub (its own board page's stream) and its retained
``pairing``'s devices to :class:`~leaderboard.pairings.BoardPairings`, which
deletes the tokens of devices the board unpaired. The
instance's own availability,
``{base}/leaderboard/availability/{client id}``, is ``online`` (retained)
while it is connected, ``offline`` (its last will) otherwise.

Kept end to end: a board keeps each result until a ``result/stored`` says
this service has it, and sends every result not confirmed again when an
instance comes ``online`` (docs/mqtt.md), so results a broker lost (its queue
for this session not saved yet when it lost power) come back.

Exactly once stored, none lost: the session is persistent (clean session off,
a fixed client id, QoS 1), so the broker keeps results while the service is
away, and paho's automatic PUBACK is off (``manual_ack``): a result is
acknowledged after its transaction committed, never before, so a ``kill -9``
between the two only makes the broker deliver it again, and ``ingest_many``
dedupes it on ``result_id``. A database that is away leaves the batch
unacknowledged and is retried with backoff; a result the database refuses
(not away, but refusing that data) is kept as rejected, so it neither stalls
the results behind it nor comes back forever; a lost broker is reconnected
with backoff."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
from sqlalchemy.exc import (
    DisconnectionError,
    InterfaceError,
    OperationalError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from leaderboard.board_feeds import BoardFeeds
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub, LiveMessage
from leaderboard.pairings import BoardPairings
from leaderboard.service_settings import (
    DB_BACKOFF_CAP,
    DB_BACKOFF_JITTER,
    DB_BACKOFF_START,
    DEFAULT_CLIENT_ID,
    ServiceSettings,
)
from leaderboard.snapshots import SnapshotPublisher
from leaderboard.store import IngestOutcome, ingest_many, reject_unstorable
from mqtt_client.backoff import Backoff
from mqtt_client.client import (
    Client,
    load_tls,
    new_client,
    payload_bytes,
    raise_if_cancelling,
)
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    RESULT_STORED_STATUSES,
    ResultStored,
    board_id_problem,
    check_base,
    leaderboard_availability_topic,
    leaderboard_topic,
    parse_broker_url,
    topic,
)
from mqtt_contract.pairing_payload import PairingState

__all__ = [
    "DATABASE_AWAY",
    "MqttIngest",
    "result_subscription",
    "session_client_id",
    "stored_message",
]

log = logging.getLogger(__name__)

DATABASE_AWAY = (OperationalError, InterfaceError, DisconnectionError, PoolTimeoutError, OSError)
"""What says the database is away (refused, restarting, locked, full): the
result waits unacknowledged and is tried again. Anything else the database
raises (an integrity or data error) refuses that result, not the database:
retrying it would stall every result behind it, so it is left unacknowledged
alone and the others are stored."""


def session_client_id(client_id: str, share_group: str | None) -> str:
    """The client id of the persistent session. Each instance sharing the
    subscription needs its own, kept across restarts (the broker holds its
    unacknowledged results for it): the default id gets the host's name then,
    so instances on different hosts (or containers) differ without a setting."""
    if share_group is not None and client_id == DEFAULT_CLIENT_ID:
        return f"{DEFAULT_CLIENT_ID}-{socket.gethostname()}"
    return client_id


def result_subscription(base: str, share_group: str | None) -> str:
    """``{base}/+/result``, or ``$share/{group}/{base}/+/result`` with a share group."""
    check_base(base)
    plain = f"{base}/+/result"
    if share_group is None:
        return plain
    if (
        not share_group
        or any(c in share_group for c in "/+#")
        or share_group.strip() != share_group
    ):
        raise ValueError(
            f"bad share group {share_group!r}: one topic level, no '/', '+', '#' or spaces"
        )
    return f"$share/{share_group}/{plain}"


_STORED_AS = {"imported": "stored", "withdrawn": "stored"}
"""Ingest outcomes named otherwise on ``result/stored``."""


def stored_message(outcome: IngestOutcome, at: float) -> bytes | None:
    """The ``result/stored`` payload that tells the board what became of its
    result; None for a payload with no result_id (nothing to name). A new
    result and a withdrawal that took its game out are ``stored``; an outcome
    the contract has no word for (a result kept as failed, say) is reported
    as ``rejected``: the service kept it without counting it, so the board
    may let it go."""
    if outcome.result_id is None:
        return None
    status = _STORED_AS.get(outcome.status, outcome.status)
    if status not in RESULT_STORED_STATUSES:
        status = "rejected"
    return ResultStored(outcome.result_id, status, at).payload()


@dataclass(frozen=True, slots=True)
class _Delivery:
    """A result as it came in from ``board`` (``None``: a topic that names
    none): confirmed and acknowledged on ``connection`` once stored."""

    mid: int
    qos: int
    payload: bytes
    connection: int
    board: str | None


class MqttIngest:
    """The MQTT side of one service instance. :meth:`run` connects, serves and
    reconnects until cancelled; ``on_stored`` (tests, benchmarks) sees every
    outcome after its result was acknowledged."""

    BACKOFF_START = 0.5
    """Seconds before the first reconnection; doubles per failure up to the cap."""
    BACKOFF_CAP = 30.0
    BACKOFF_JITTER = 0.25
    KEEPALIVE = 30
    TIMEOUT = 10.0
    CLOSE_TIMEOUT = 3.0
    """Seconds a stopping service waits for its ``offline`` to be acknowledged."""
    BATCH_MAX = 100
    """At most this many waiting results are stored in one transaction."""

    def __init__(
        self,
        settings: ServiceSettings,
        database: Database,
        hub: LiveHub,
        snapshots: SnapshotPublisher | None = None,
        on_stored: Callable[[IngestOutcome], None] | None = None,
        *,
        feeds: BoardFeeds | None = None,
        pairings: BoardPairings | None = None,
    ) -> None:
        self._settings = settings
        self._client_id = session_client_id(settings.client_id, settings.share_group)
        self._address = parse_broker_url(settings.mqtt_url)
        self._base = check_base(settings.base)
        self._results = result_subscription(settings.base, settings.share_group)
        self._own_availability = leaderboard_availability_topic(self._base, self._client_id)
        self._result_filter = f"{self._base}/+/result"
        self._state_filter = f"{self._base}/+/state"
        self._availability_filter = f"{self._base}/+/availability"
        self._snapshot_filter = leaderboard_topic(self._base, "+")
        self._event_filter = f"{self._base}/+/event"
        self._pairing_filter = f"{self._base}/+/pairing"
        self._database = database
        self._hub = hub
        self._snapshots = snapshots
        self._on_stored = on_stored
        self._feeds = feeds
        self._pairings = pairings
        self._client: Client | None = None
        self._connection = 0
        self._deliveries: asyncio.Queue[_Delivery] = asyncio.Queue()

    @property
    def connected(self) -> bool:
        return self._client is not None

    async def run(self) -> None:
        """Connect, subscribe, serve; reconnect with backoff; until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self._store_loop())
            if self._snapshots is not None:
                tasks.create_task(self._snapshots.run(self.publish_retained))
            if self._feeds is not None:
                tasks.create_task(self._feeds.run(self.publish_retained))
            tasks.create_task(self._connection_loop())

    async def publish_retained(self, topic: str, payload: bytes) -> bool:
        """Publish retained at QoS 1; True once the broker acknowledged it,
        False when not connected or the connection failed first."""
        client = self._client
        if client is None:
            return False
        try:
            await client.publish(topic, payload, qos=1, retain=True)
        except aiomqtt.MqttError as exc:
            raise_if_cancelling()
            log.debug("MQTT: publish to %s failed: %s", topic, exc)
            return False
        raise_if_cancelling()
        return True

    # ------------------------------------------------------------ connection

    async def _connection_loop(self) -> None:
        backoff = Backoff(self.BACKOFF_START, self.BACKOFF_CAP, self.BACKOFF_JITTER)
        outage_since: float | None = None
        ever_connected = False
        server = self._address.url
        tls = await load_tls(self._address, self._settings.mqtt_ca_file)
        while True:
            client = self._new_client(tls)
            try:
                async with client:
                    raise_if_cancelling()
                    self._connection += 1
                    if outage_since is not None:
                        log.info(
                            "MQTT: connected to %s again after %.1f s",
                            server,
                            time.monotonic() - outage_since,
                        )
                    else:
                        log.info("MQTT: connected to %s as %s", server, self._client_id)
                    ever_connected = True
                    backoff.reset()
                    outage_since = None
                    await self._serve(client)
            except aiomqtt.MqttError as exc:
                # A cancel during the disconnect (aiomqtt gives up waiting
                # for it with an MqttError) still stops the service.
                raise_if_cancelling()
                self._client = None
                if outage_since is None:
                    outage_since = time.monotonic()
                    verb = "lost the connection to" if ever_connected else "cannot connect to"
                    log.warning("MQTT: %s %s (%s); retrying", verb, server, exc)
                else:
                    log.debug("MQTT: %s still unreachable (%s)", server, exc)
            except Exception:
                # A bug in handling a message must not end the service: the
                # unacknowledged results come again on the next connection.
                log.exception("MQTT: the connection to %s failed; reconnecting", server)
                outage_since = outage_since or time.monotonic()
            finally:
                self._client = None
            await asyncio.sleep(backoff.next_delay())

    def _new_client(self, tls: ssl.SSLContext | None) -> Client:
        """The persistent session. The PUBACK of a result goes out after it is
        committed (_store_loop), not when paho hands the message over."""
        settings = self._settings
        return new_client(
            self._address,
            tls=tls,
            username=settings.mqtt_username,
            password=settings.mqtt_password,
            identifier=self._client_id,
            will=aiomqtt.Will(self._own_availability, AVAILABILITY_OFFLINE, qos=1, retain=True),
            clean_session=False,
            timeout=self.TIMEOUT,
            keepalive=self.KEEPALIVE,
            manual_ack=True,
            logger=logging.getLogger(f"{__name__}.paho"),
        )

    async def _serve(self, client: Client) -> None:
        await client.subscribe(
            [
                (self._results, 1),
                (self._state_filter, 0),
                (self._availability_filter, 0),
                (self._snapshot_filter, 0),
                (self._event_filter, 0),
                *([(self._pairing_filter, 1)] if self._pairings is not None else []),
            ]
        )
        raise_if_cancelling()
        # Subscribed first: a board that sees this instance online and sends
        # its unconfirmed results again is heard.
        await client.publish(self._own_availability, AVAILABILITY_ONLINE, qos=1, retain=True)
        raise_if_cancelling()
        self._client = client
        if self._snapshots is not None:
            self._snapshots.mark_all()
        if self._feeds is not None:
            self._feeds.connected()
        try:
            await self._messages(client)
        except asyncio.CancelledError:
            # Stopping: say offline before the clean disconnect (which
            # discards the last will), best effort and bounded in time.
            goodbye = client.publish(
                self._own_availability, AVAILABILITY_OFFLINE, qos=1, retain=True
            )
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await asyncio.wait_for(goodbye, self.CLOSE_TIMEOUT)
            raise

    async def _messages(self, client: Client) -> None:
        connection = self._connection
        async for message in client.messages:
            payload = payload_bytes(message.payload)
            where = message.topic
            if where.matches(self._result_filter):
                board = self._board_of(where.value, "result")
                self._deliveries.put_nowait(
                    _Delivery(message.mid, message.qos, payload, connection, board)
                )
            elif where.matches(self._state_filter):
                self._state(where.value, payload)
            elif where.matches(self._availability_filter):
                self._availability(where.value, payload)
            elif where.matches(self._snapshot_filter):
                self._snapshot(where.value, payload)
            elif where.matches(self._event_filter):
                self._event(where.value, payload)
            elif where.matches(self._pairing_filter):
                self._pairing(where.value, payload)
                # Taken at QoS 1 on a manual-PUBACK session: unacknowledged, the
                # broker's in-flight window fills and the results behind it stall.
                client.ack(message.mid, message.qos)

    # -------------------------------------------------------------- results

    async def _store_loop(self) -> None:
        """Store the results waiting, as one batch, then confirm each to its
        board and acknowledge it, in arrival order. The batch is whatever is
        queued when the previous one is done (at most ``BATCH_MAX``): it never
        waits to fill up."""
        while True:
            batch = [await self._deliveries.get()]
            while len(batch) < self.BATCH_MAX and not self._deliveries.empty():
                batch.append(self._deliveries.get_nowait())
            outcomes = await self._store_batch([delivery.payload for delivery in batch])
            for delivery, outcome in zip(batch, outcomes, strict=True):
                if outcome is None:
                    continue  # not stored: no PUBACK, the broker delivers it again
                self._acknowledge(delivery, outcome)
                self._announce(outcome)

    def _announce(self, outcome: IngestOutcome) -> None:
        """A stored result to the live feed, snapshots, log and ``on_stored``."""
        if outcome.summary is not None and self._snapshots is not None:
            self._snapshots.mark(outcome.summary.game)  # a new result, or a game withdrawn
        if outcome.status == "imported" and outcome.summary is not None:
            self._hub.post(LiveMessage("result", outcome.summary.model_dump(mode="json")))
            if self._feeds is not None:
                self._feeds.stored(outcome.summary.result_id, outcome.summary.board)
        elif outcome.status == "rejected":
            log.info(
                "result %s rejected: %s", outcome.result_id or "(no result_id)", outcome.reason
            )
        if self._on_stored is not None:
            self._on_stored(outcome)

    async def _store_batch(self, payloads: list[bytes]) -> list[IngestOutcome | None]:
        """The payloads stored with one ``ingest_many`` (one transaction); a
        batch the database refuses is stored one by one, and a result it
        refuses alone is kept as rejected (:func:`reject_unstorable`). None
        only when even that fails: not acknowledged, the broker sends it again."""
        outcomes = await self._store(payloads)
        if not isinstance(outcomes, Exception):
            return list(outcomes)
        if len(payloads) == 1:
            return [await self._reject(payloads[0], outcomes)]
        single: list[IngestOutcome | None] = []
        for payload in payloads:
            alone = await self._store([payload])
            single.append(
                await self._reject(payload, alone) if isinstance(alone, Exception) else alone[0]
            )
        return single

    async def _reject(self, payload: bytes, error: Exception) -> IngestOutcome | None:
        """``payload``, which the database refused with ``error``, kept as rejected."""
        try:
            return await asyncio.to_thread(
                reject_unstorable, self._database, payload, _first_line(error)
            )
        except Exception:
            log.exception("a refused result could not be kept as rejected; left unacknowledged")
            return None

    async def _store(self, payloads: list[bytes]) -> list[IngestOutcome] | Exception:
        """``ingest_many`` in a worker thread, retried while the database is
        away; the error when the database refused the data (or a bug)."""
        backoff = Backoff(DB_BACKOFF_START, DB_BACKOFF_CAP, DB_BACKOFF_JITTER)
        down_since: float | None = None
        while True:
            try:
                outcomes = await asyncio.to_thread(
                    ingest_many, self._database, payloads, self._settings.venues
                )
            except DATABASE_AWAY as exc:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning(
                        "database unavailable (%s); results wait unacknowledged, retrying",
                        _first_line(exc),
                    )
                await asyncio.sleep(backoff.next_delay())
                continue
            except Exception as exc:  # a bug, or the database refusing this data (not retried)
                what = "a result" if len(payloads) == 1 else f"a batch of {len(payloads)} results"
                log.warning("%s could not be stored: %s", what, _first_line(exc))
                return exc
            if down_since is not None:
                log.info("database back after %.1f s", time.monotonic() - down_since)
            return outcomes

    def _acknowledge(self, delivery: _Delivery, outcome: IngestOutcome) -> None:
        """Tell the board its result is in the database (``result/stored``,
        QoS 1, handed to paho before the PUBACK), then acknowledge it. A
        redelivery is confirmed again: the board may have missed the first."""
        client = self._client
        if client is None or delivery.connection != self._connection:
            return  # that connection is gone: the broker sends it again, ingest dedupes
        confirmation = stored_message(outcome, time.time())
        if confirmation is not None and delivery.board is not None:
            stored_topic = topic(self._base, delivery.board, "result/stored")
            client.hand_over(stored_topic, confirmation, qos=1, retain=False)
        client.ack(delivery.mid, delivery.qos)

    # ------------------------------------------------------------- the live

    def _board_of(self, topic: str, name: str) -> str | None:
        board = topic[len(self._base) + 1 : -len(name) - 1]
        return None if board_id_problem(board) else board

    def _state(self, topic: str, payload: bytes) -> None:
        board = self._board_of(topic, "state")
        if board is None:
            return
        if self._feeds is not None:
            self._feeds.saw_board(board)
        state: dict[str, Any] | None = None
        if payload:
            document = _json_object(payload)
            if document is None:
                log.warning("MQTT: ignored a state on %s that is not a JSON object", topic)
                return
            state = document
        self._hub.board_state(board, self._settings.venues.venue_of(board), state)

    def _availability(self, topic: str, payload: bytes) -> None:
        board = self._board_of(topic, "availability")
        if board is None or not payload:
            return
        if self._feeds is not None:
            self._feeds.saw_board(board)
        text = payload.decode("utf-8", "replace").strip()
        if text == AVAILABILITY_ONLINE:
            self._hub.board_availability(board, self._settings.venues.venue_of(board), "online")
        elif text == AVAILABILITY_OFFLINE:
            self._hub.board_availability(board, self._settings.venues.venue_of(board), "offline")
        else:
            log.warning("MQTT: ignored availability %r on %s", text[:40], topic)

    def _event(self, topic: str, payload: bytes) -> None:
        """A board's event: to its board page's stream."""
        board = self._board_of(topic, "event")
        document = _json_object(payload) if payload else None
        if board is None or document is None:
            return
        self._hub.board_event(board, self._settings.venues.venue_of(board), document)

    def _pairing(self, topic: str, payload: bytes) -> None:
        """A board's paired devices: the tokens of any other device of it go.
        A cleared topic lists none; a message that is not a pairing state is
        ignored (the devices as last heard stay)."""
        board = self._board_of(topic, "pairing")
        if board is None or self._pairings is None:
            return
        devices: list[str] = []
        if payload:
            try:
                state = PairingState.from_json(json.loads(payload))
            except ValueError as exc:  # not JSON, or not a pairing state (a PayloadError)
                log.warning("MQTT: ignored a pairing message on %s: %s", topic, _first_line(exc))
                return
            devices = [device.id for device in state.devices]
        self._pairings.heard(board, devices)

    def _snapshot(self, topic: str, payload: bytes) -> None:
        """A snapshot from this or another instance: the TV pages refresh."""
        if not payload:
            return
        document = _json_object(payload)
        if document is None:
            log.warning("MQTT: ignored a snapshot on %s that is not a JSON object", topic)
            return
        self._hub.post(LiveMessage("leaderboard", document))


def _json_object(payload: bytes) -> dict[str, Any] | None:
    with contextlib.suppress(ValueError):
        document = json.loads(payload)
        if isinstance(document, dict):
            return document
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
