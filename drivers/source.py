"""The one interface every board source has: an async stream of board events
that closes cleanly on shutdown.

    async with SerialSource(...) as board:
        async for event in board:
            ...

A source runs its reader as a task that puts events on a queue; ``close()``
stops the task, and the iteration ends once the queue is drained.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from types import TracebackType

from drivers.board_decoder import BoardDecoder
from drivers.board_events import BoardEvent, ConnectedEvent, DisconnectedEvent
from drivers.protocol import Hello
from mqtt_client.backoff import Backoff

__all__ = ["BoardSource", "ReconnectingSource", "board_backoff"]

_CLOSED = object()

log = logging.getLogger(__name__)


def board_backoff() -> Backoff:
    """A source's reconnect delays unless it is given its own: 0.2 s, doubling
    to 5 s, reset once the board is open again (no jitter: one board, one
    reader)."""
    return Backoff(0.2, 5.0)


class BoardSource:
    """Base of every source. Subclasses implement :meth:`_run`, which calls
    :meth:`_emit` for each event until it is cancelled."""

    name = "board"
    decoder: BoardDecoder | None = None
    """Sources that decode a byte stream (serial, USB) expose their decoder and its counts."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[BoardEvent | object] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def _run(self) -> None:
        raise NotImplementedError

    async def watch_takeout(self, on: bool) -> None:
        """Tell a board with a takeout sensor to watch for the darts being
        taken out (``on``: the visit is over) or to stop (the visit changed
        hands). Sources without one ignore it."""

    def _emit(self, event: BoardEvent) -> None:
        self._queue.put_nowait(event)

    async def send(self, data: bytes) -> None:
        """Write bytes to the board (config frames). Sources that cannot write ignore it."""

    @property
    def hello(self) -> Hello | None:
        """The board's last hello (firmware, matrix size), if it sent one."""
        return self.decoder.hello if self.decoder is not None else None

    async def request_hello(self) -> bool:
        """Ask the board for a hello; ``False`` when this source cannot."""
        return False

    def start(self) -> None:
        """Start reading (done by ``async with`` and by iterating)."""
        if self._task is None and not self._closed:
            self._task = asyncio.create_task(self._supervise(), name=f"oche-{self.name}")

    async def _supervise(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("board source %s stopped", self.name)
        finally:
            self._queue.put_nowait(_CLOSED)

    async def close(self) -> None:
        """Stop reading and release the device; safe to call twice."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        else:
            self._queue.put_nowait(_CLOSED)

    async def events(self) -> AsyncIterator[BoardEvent]:
        """Every event until the source is closed or its input ends."""
        self.start()
        while True:
            item = await self._queue.get()
            if item is _CLOSED:
                return
            assert isinstance(item, BoardEvent)
            yield item

    def __aiter__(self) -> AsyncIterator[BoardEvent]:
        return self.events()

    async def __aenter__(self) -> BoardSource:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


class ReconnectingSource(BoardSource):
    """A source that opens its board, reads it until it is lost and tries
    again with :attr:`backoff` (USB, Bluetooth LE). Subclasses write
    :meth:`_session` and call :meth:`_connected` once the board is open; a
    loss is reported once per outage, however many attempts it takes."""

    source_id = "board"
    backoff: Backoff

    async def _session(self) -> str:
        """Open the board and read it until it is lost; returns why it ended."""
        raise NotImplementedError

    def _connected(self) -> None:
        """The board is open: say so (once per outage ended)."""
        log.info("%s: connected", self.source_id)
        self._emit(ConnectedEvent(self.source_id))
        self._announced_down = False

    async def _run(self) -> None:
        self._announced_down = False
        while True:
            reason = await self._session()
            if not self._announced_down:
                log.warning("%s: %s; retrying", self.source_id, reason)
                self._emit(DisconnectedEvent(self.source_id, reason))
                self._announced_down = True
            await asyncio.sleep(self.backoff.next_delay())
