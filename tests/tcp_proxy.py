"""A TCP proxy on a free loopback port that a test can cut: a network partition.

Everything a client sends to :attr:`TcpProxy.port` goes to the target and
back. :meth:`TcpProxy.cut` closes every connection through it, in both
directions, and from then on closes each new connection as soon as it is
accepted (as a link that is down does); :meth:`TcpProxy.restore` lets new
connections through again. It runs an asyncio loop on a thread of its own, so
threaded (paho) and asyncio tests use it alike:

    with TcpProxy("127.0.0.1", broker.port) as proxy:
        ...  # a client, or a Mosquitto bridge, connects to proxy.port
        proxy.cut()
        proxy.restore()
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, TypeVar

__all__ = ["TcpProxy"]

T = TypeVar("T")
CHUNK = 65536
TIMEOUT = 10.0


class TcpProxy:
    """Forwards ``127.0.0.1:port`` to ``target_host:target_port`` until cut."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.host = "127.0.0.1"
        self.port = 0
        """The proxy's port, once :meth:`start` has returned."""
        self.accepted = 0
        """Connections accepted so far, refused ones included."""
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tcp-proxy", daemon=True
        )
        self._server: asyncio.Server | None = None

    @property
    def is_cut(self) -> bool:
        return self._cut

    @property
    def open_connections(self) -> int:
        """Client connections now forwarded (each is two sockets)."""
        return len(self._writers) // 2

    # -- the test's side (any thread but the proxy's) --------------------------

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(TIMEOUT)

    def start(self) -> TcpProxy:
        self._thread.start()
        self._server = self._call(self._listen())
        return self

    def stop(self) -> None:
        """Close everything and end the proxy's thread."""
        if not self._thread.is_alive():
            return
        self._call(self._close(everything=True))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(TIMEOUT)
        self._loop.close()

    def cut(self) -> None:
        """Drop every connection through the proxy, and each new one, until :meth:`restore`."""
        self._cut = True
        self._call(self._close(everything=False))

    def restore(self) -> None:
        """Let new connections through again (those dropped stay dropped)."""
        self._cut = False

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the proxy's loop ----------------------------------------------------------

    async def _listen(self) -> asyncio.Server:
        server = await asyncio.start_server(self._accept, self.host, 0)
        self.port = int(server.sockets[0].getsockname()[1])
        return server

    async def _close(self, *, everything: bool) -> None:
        for writer in list(self._writers):
            writer.transport.abort()  # both ends at once, no lingering data
        self._writers.clear()
        if everything:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self._cut:
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        if self._cut:  # cut while connecting
            writer.transport.abort()
            upstream_writer.transport.abort()
            return
        for side in (writer, upstream_writer):  # no Nagle delay added by the proxy
            sock = side.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._writers.update((writer, upstream_writer))
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            task = asyncio.create_task(self._pump(source, sink, (writer, upstream_writer)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
    ) -> None:
        """Copy one direction; when either side ends, end the whole connection."""
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await source.read(CHUNK):
                sink.write(data)
                await sink.drain()
        for writer in pair:
            writer.transport.abort()
            self._writers.discard(writer)
