"""The service's in-process fan-out for ``/api/live`` and each board's
``/api/boards/{board}/live``: the MQTT side posts new results, each board's
state and availability, and its events here, and every open
Server-Sent Events stream gets its own bounded queue. :class:`StreamSlots`
bounds how many streams are open, in all and per client address, so a crowd
of clients cannot use up the service's file descriptors. No I/O of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from leaderboard.api_models import LiveBoard

__all__ = [
    "DEFAULT_MAX_STREAMS",
    "DEFAULT_MAX_STREAMS_PER_CLIENT",
    "LiveHub",
    "LiveMessage",
    "StreamSlots",
]

LiveKind = Literal["result", "state", "availability", "leaderboard", "event"]
"""``event``: a board's ``event`` payload, ``{"board", "venue", "event"}``
(its own board's stream alone carries them)."""


@dataclass(frozen=True, slots=True)
class LiveMessage:
    """One SSE message: ``event: {kind}`` and ``data: {json of data}``."""

    kind: LiveKind
    data: dict[str, Any]


class LiveHub:
    """Keeps the boards' latest state and availability and hands every message
    to each subscriber. A subscriber that falls ``max_queue`` behind loses its
    oldest messages, never blocks the others."""

    def __init__(self, max_queue: int = 256) -> None:
        self._boards: dict[str, LiveBoard] = {}
        self._queues: set[asyncio.Queue[LiveMessage]] = set()
        self._max_queue = max_queue

    def boards(self) -> list[LiveBoard]:
        """The boards seen so far, by board id."""
        return [self._boards[board] for board in sorted(self._boards)]

    def board_state(self, board: str, venue: str, state: dict[str, Any] | None) -> None:
        """A board's retained ``state`` arrived (``None`` when it was cleared)."""
        known = self._boards.get(board)
        availability = known.availability if known else "unknown"
        self._boards[board] = LiveBoard(
            board=board, venue=venue, availability=availability, state=state
        )
        self.post(LiveMessage("state", self._boards[board].model_dump()))

    def board_availability(
        self, board: str, venue: str, availability: Literal["online", "offline"]
    ) -> None:
        known = self._boards.get(board)
        state = known.state if known else None
        self._boards[board] = LiveBoard(
            board=board, venue=venue, availability=availability, state=state
        )
        self.post(LiveMessage("availability", self._boards[board].model_dump()))

    def board(self, board: str) -> LiveBoard | None:
        """``board`` as last heard, or None when it was never heard."""
        return self._boards.get(board)

    def board_event(self, board: str, venue: str, event: dict[str, Any]) -> None:
        """An ``event`` of ``board`` arrived (a dart, a correction, a takeout ...)."""
        self.post(LiveMessage("event", {"board": board, "venue": venue, "event": event}))

    def post(self, message: LiveMessage) -> None:
        """Hand ``message`` to every subscriber (call on the loop's thread)."""
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(message)

    async def subscribe(self) -> AsyncIterator[LiveMessage]:
        """Every message posted from now on, until the caller stops iterating."""
        queue: asyncio.Queue[LiveMessage] = asyncio.Queue(self._max_queue)
        self._queues.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues.discard(queue)


DEFAULT_MAX_STREAMS = 200
"""Open live streams at most (``[leaderboard] max_live_streams``)."""
DEFAULT_MAX_STREAMS_PER_CLIENT = 8
"""Open live streams at most per client address (``max_live_streams_per_client``)."""


class StreamSlots:
    """The open live streams, counted in all and per client address: a stream
    takes a slot with :meth:`acquire` and gives it back with :meth:`release`."""

    def __init__(
        self,
        total: int = DEFAULT_MAX_STREAMS,
        per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT,
    ) -> None:
        if total < 1 or per_client < 1:
            raise ValueError(f"stream limits must be 1 or more, not {total} and {per_client}")
        self.total = total
        self.per_client = per_client
        self._by_client: dict[str, int] = {}
        self._open = 0

    def open(self) -> int:
        """Streams open now."""
        return self._open

    def acquire(self, client: str) -> str | None:
        """Take a slot for a stream from ``client``: ``None`` when taken, else
        why not (the service's or this client's limit is reached)."""
        if self._open >= self.total:
            return f"{self._open} live streams are open, the most this service takes"
        held = self._by_client.get(client, 0)
        if held >= self.per_client:
            return f"{held} live streams are open from {client}, the most one address may have"
        self._by_client[client] = held + 1
        self._open += 1
        return None

    def release(self, client: str) -> None:
        """Give back a slot :meth:`acquire` took for ``client``."""
        held = self._by_client.get(client, 0)
        if held <= 0:
            return
        if held == 1:
            del self._by_client[client]
        else:
            self._by_client[client] = held - 1
        self._open -= 1
