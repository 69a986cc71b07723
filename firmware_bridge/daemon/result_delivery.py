"""A board's results, from the journal's outbox to a leaderboard's database.

A result leaves the outbox only when a leaderboard has stored it, whatever
the broker keeps (a broker that loses power loses the queue of a leaderboard
that was away, and a full queue drops messages). :class:`ResultDelivery`:

- sends each result (QoS 1) when its game finishes and after every
  reconnect until the broker acknowledged it (``sent_at``);
- listens to ``{base}/{board}/result/stored``, where a leaderboard service
  says it stored one of this board's results (``stored_at``), and to
  ``{base}/leaderboard/availability/+``, each service instance's retained
  ``online``/``offline``;
- whenever an instance comes ``online`` (live, or its retained ``online`` at
  the board's own reconnect) sends again every result no leaderboard has
  stored, oldest first, :attr:`ResultDelivery.IN_FLIGHT` at a time: while a
  leaderboard is online each window waits for its confirmations (at most
  :attr:`ResultDelivery.STORED_WAIT_S`), so a backlog of thousands goes at
  the pace the leaderboard stores it, never faster than the broker's queue
  for it can hold, and the board's loop serves darts between windows. What
  is still not confirmed when a pass ends is sent again later (backing off
  to :attr:`ResultDelivery.RETRY_MAX_S`) while a leaderboard is online.

A leaderboard drops a result it already has (``result_id``), so sending one
again is harmless. See docs/mqtt.md (``result``) and docs/journal.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable

from paho.mqtt.client import topic_matches_sub

from firmware_bridge.daemon.journal import Journal, JournalError, OutboxEntry
from firmware_bridge.daemon.mqtt_link import MqttLink
from mqtt_client.backoff import Backoff
from mqtt_contract import (
    AVAILABILITY_ONLINE,
    RESULT_STORED_STATUSES,
    leaderboard_availability_topic,
    topic,
)

__all__ = ["ResultDelivery"]

log = logging.getLogger(__name__)


class ResultDelivery:
    """The outbox of board ``board`` in ``journal``, delivered on the link the
    daemon hands over (:attr:`link`); see the module docstring."""

    PAGE = 256
    """Outbox entries read from the journal at a time while sending."""
    IN_FLIGHT = 16
    """Results sent at once, each waiting for its PUBACK."""
    STORED_WAIT_S = 10.0
    """While a leaderboard is online, how long a window of results waits for
    their ``result/stored`` before the next window goes."""
    STORED_BATCH_S = 0.25
    """How long confirmations gather before they are journaled in one
    transaction (one fsync for a burst of thousands)."""
    RETRY_START_S = 60.0
    """After a pass that left results unconfirmed, the wait before the next."""
    RETRY_MAX_S = 1800.0
    """The longest wait between such passes (it doubles each time)."""

    def __init__(self, journal: Journal, board: str, base: str, clock: Callable[[], float]) -> None:
        self.journal = journal
        self.board = board
        self.clock = clock
        self.link: MqttLink | None = None
        self.stored_topic = topic(base, board, "result/stored")
        self.availability_filter = leaderboard_availability_topic(base, "+")
        self.online: set[str] = set()
        """The leaderboard instances whose availability is ``online``."""
        self._lock = asyncio.Lock()
        self._wanted = False
        self._resend_wanted = False
        self._task: asyncio.Task[None] | None = None
        self._stored: list[str] = []
        self._flush: asyncio.TimerHandle | None = None
        self._awaited: set[str] = set()
        self._confirmed = asyncio.Event()
        self._retry: asyncio.TimerHandle | None = None
        self._retry_backoff = Backoff(self.RETRY_START_S, self.RETRY_MAX_S)

    async def subscribe(self, link: MqttLink) -> None:
        """Deliver on ``link`` from now on, and hear the leaderboards on it."""
        self.link = link
        await link.subscribe(self.stored_topic)
        await link.subscribe(self.availability_filter)

    def deliver(self, resend: bool = False) -> None:
        """Send what the broker has not acknowledged, in the background; with
        ``resend`` also every result no leaderboard has stored yet. A request
        while a pass runs makes it go round again when it is done."""
        self._resend_wanted |= resend
        self._wanted = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def on_message(self, name: str, payload: bytes) -> bool:
        """A message on ``name``: True when it was one of the leaderboards'
        (a ``result/stored`` or an availability), handled."""
        if name == self.stored_topic:
            self._on_stored(payload)
            return True
        if not topic_matches_sub(self.availability_filter, name):
            return False
        instance = name.rsplit("/", 1)[-1]
        if payload.strip() == AVAILABILITY_ONLINE.encode():
            self.online.add(instance)
            self.deliver(resend=True)
        else:  # offline, or its retained copy cleared
            self.online.discard(instance)
        return True

    def close(self) -> None:
        """Stop sending; journal the confirmations gathered so far."""
        if self._task is not None:
            self._task.cancel()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self.flush_stored()

    # -------------------------------------------------------------- sending

    async def _run(self) -> None:
        async with self._lock:
            while self._wanted:
                self._wanted = False
                resend, self._resend_wanted = self._resend_wanted, False
                try:
                    unconfirmed = await self._send(resend)
                except JournalError as error:
                    log.error("could not deliver the results: %s", error)
                    return
                if unconfirmed is None:
                    return  # the connection is gone: the next one starts again
                if unconfirmed and self.online and self._retry is None:
                    loop = asyncio.get_running_loop()
                    delay = self._retry_backoff.next_delay()
                    self._retry = loop.call_later(delay, self._resend_later)

    def _resend_later(self) -> None:
        self._retry = None
        if self.online:
            self.deliver(resend=True)

    async def _send(self, resend: bool) -> bool | None:
        """One pass over the unsent results (``resend``: the unstored ones),
        oldest first, a window at a time. None when the connection failed;
        else whether some results went unconfirmed while a leaderboard was
        online."""
        link = self.link
        if link is None:
            return None
        unconfirmed = False
        after = 0
        while page := self.journal.outbox_page(self.board, after, unstored=resend, limit=self.PAGE):
            for start in range(0, len(page), self.IN_FLIGHT):
                window = page[start : start + self.IN_FLIGHT]
                if not link.connected:
                    return None
                waiting = bool(self.online)
                if waiting:
                    self._awaited = {entry.result_id for entry in window}
                    self._confirmed.clear()
                # Published as the journal keeps it (to_json's text): encoded once.
                acked = await asyncio.gather(*(link.publish("result", e.payload) for e in window))
                self._mark_sent([e for e, ok in zip(window, acked, strict=True) if ok])
                if not all(acked):
                    return None
                if waiting and self._awaited:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.STORED_WAIT_S):
                            await self._confirmed.wait()
                    unconfirmed |= bool(self._awaited)
                self._awaited = set()
            after = page[-1].id
        return unconfirmed

    def _mark_sent(self, entries: list[OutboxEntry]) -> None:
        first = [entry.result_id for entry in entries if entry.sent_at is None]
        if first:
            self.journal.mark_sent(*first)

    # ------------------------------------------------------------ stored

    def _on_stored(self, payload: bytes) -> None:
        """A leaderboard's ``result/stored``: the result may leave the outbox.
        Confirmations are journaled in batches (:attr:`STORED_BATCH_S`): one
        lost in a crash only makes the result go again, and be confirmed again."""
        try:
            message = json.loads(payload)
        except (ValueError, RecursionError):
            message = None
        result_id = message.get("result_id") if isinstance(message, dict) else None
        status = message.get("status") if isinstance(message, dict) else None
        if not isinstance(result_id, str) or status not in RESULT_STORED_STATUSES:
            log.warning(
                "ignored a message on %s that is not a result/stored: %r",
                self.stored_topic,
                payload[:80],
            )
            return
        if status == "rejected":
            log.warning(
                "result %s was rejected by a leaderboard (its admin view says why); "
                "it is not sent again",
                result_id,
            )
        self._retry_backoff.reset()
        self._awaited.discard(result_id)
        if not self._awaited:
            self._confirmed.set()
        self._stored.append(result_id)
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(
                self.STORED_BATCH_S, self.flush_stored
            )

    def flush_stored(self) -> None:
        """Journal the confirmations gathered (one transaction)."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        stored, self._stored = self._stored, []
        if not stored:
            return
        try:
            self.journal.mark_stored(self.board, stored, self.clock())
        except JournalError as error:  # they come again, and are confirmed again
            log.error("could not mark %d results stored: %s", len(stored), error)
