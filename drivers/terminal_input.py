"""Read standard input (or any file descriptor) from asyncio, whatever it is:
a terminal, a pipe, a socket, a regular file or /dev/null.

asyncio can watch terminals, pipes and sockets; a terminal is opened anew so
the non-blocking mode asyncio sets does not leak into standard output, which
usually shares the terminal's open file. Files and /dev/null cannot be
watched, so a daemon thread reads them (it never holds up the exit).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import AsyncIterator

__all__ = ["read_chunks"]

CHUNK = 256


async def _chunks_from_thread(fd: int) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    def read() -> None:
        with contextlib.suppress(OSError, RuntimeError):  # RuntimeError: the loop closed
            while data := os.read(fd, CHUNK):
                loop.call_soon_threadsafe(queue.put_nowait, data)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(queue.put_nowait, b"")

    threading.Thread(target=read, name="oche-stdin", daemon=True).start()
    while data := await queue.get():
        yield data


async def read_chunks(fd: int) -> AsyncIterator[bytes]:
    """The bytes arriving on ``fd`` in chunks, until it ends."""
    try:
        mode = os.fstat(fd).st_mode
        if os.isatty(fd):
            own = os.open(os.ttyname(fd), os.O_RDONLY | os.O_NOCTTY)
        elif stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            own = os.dup(fd)
        else:
            own = -1
    except OSError:
        return
    if own < 0:
        async for data in _chunks_from_thread(fd):
            yield data
        return
    pipe = os.fdopen(own, "rb", buffering=0)
    reader = asyncio.StreamReader()
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), pipe
    )
    try:
        while data := await reader.read(CHUNK):
            yield data
    finally:
        transport.close()
