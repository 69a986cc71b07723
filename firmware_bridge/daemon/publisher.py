"""The daemon's outgoing queue: every message it publishes on its own topics.

Publishing is left to a queue, sent on the loop's next turn without waiting
for the broker, so a slow broker never holds up a dart; a burst of changes
costs one ``state`` message (built when it is sent, as the board is then).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from firmware_bridge.daemon.mqtt_link import MqttLink
from mqtt_contract import DaemonEvent

__all__ = ["Publisher"]

log = logging.getLogger(__name__)


class Publisher:
    """The queue of one daemon's messages; ``state`` builds the ``state``
    payload when it is sent, ``sent`` runs after each flush. No I/O until
    :attr:`link` is set and a message is queued on a running loop."""

    def __init__(self, state: Callable[[], dict[str, Any]], sent: Callable[[], None]) -> None:
        self._state = state
        self._sent = sent
        self.link: MqttLink | None = None
        """The broker connection, once the daemon runs."""
        self._outgoing: deque[tuple[str, dict[str, Any] | None]] = deque()
        self._flush_due = False
        self._state_queued = False

    @property
    def connected(self) -> bool:
        return self.link is not None and self.link.connected

    def publish(self, name: str, payload: dict[str, Any] | None) -> None:
        """Queue a message on the board's topic ``name`` (``None``: the state);
        :meth:`_flush` sends the queue on the loop's next turn."""
        self._outgoing.append((name, payload))
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def request_state(self) -> None:
        """Queue a state publish; the state is sent as it is then, so a burst
        of changes costs one message."""
        if not self._state_queued:
            self._state_queued = True
            self.publish("state", None)

    def publish_event(self, event: DaemonEvent) -> None:
        self.publish("event", event.to_json())

    def _flush(self) -> None:
        """Send the queued messages in order (a dart's events, then its state),
        each handed to paho and left to it, all written together once handed
        over: fire-and-forget at QoS 1, no task and no wait for a PUBACK per
        message (only results wait, in
        :class:`~firmware_bridge.daemon.result_delivery.ResultDelivery`).
        While the broker is away they are dropped: the retained state is
        republished on reconnect."""
        self._flush_due = False
        outgoing = self._outgoing
        link = self.link
        if link is not None:
            link.hold_writes()  # the burst is written at the end, on this turn
        try:
            while outgoing:
                name, payload = outgoing.popleft()
                if name == "state":
                    self._state_queued = False
                if link is None or not link.connected:
                    continue
                try:
                    link.send(name, self._state() if payload is None else payload)
                except Exception:
                    log.exception("could not publish on %s", name)
        finally:
            if link is not None:
                link.write_held()
        self._sent()
