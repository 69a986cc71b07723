"""The service's in-process fan-out for ``/api/live``: the MQTT side posts new
results and each board's state and availability here, and every open
Server-Sent Events stream gets its own bounded queue. No I/O of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from leaderboard.api_models import LiveBoard

__all__ = ["LiveHub", "LiveMessage"]

LiveKind = Literal["result", "state", "availability", "leaderboard"]


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
