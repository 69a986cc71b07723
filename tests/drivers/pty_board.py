"""A fake board on a real pseudo-terminal, for testing serial sources end to end.

:class:`FakeBoard` owns a pty and a symlink to its device side (the slave),
as udev gives a real board a stable ``/dev/oche-board``. The source under
test opens the symlink; the test writes device bytes to the pty's master
side and reads what the host sent. ``unplug()`` closes the pty and removes
the symlink, as a board pulled from USB does; ``plug()`` makes a new pty and
points the symlink at it.

    board = FakeBoard(tmp_path / "oche-board")
    source = SerialSource(str(board.link))
    ...
    await board.write(board.hit(0, 2))

POSIX only (``os.openpty``); :func:`open_fds` needs Linux's ``/proc``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from pathlib import Path
from types import TracebackType

from drivers.protocol import SEQ_MODULO, Button, Frame, Heartbeat, Hello, Hit, encode_frame

__all__ = ["FakeBoard", "open_fds"]


def open_fds(path: str) -> int:
    """How many file descriptors of this process are open on ``path`` (Linux)."""
    count = 0
    for entry in os.scandir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(entry.path) == path:
                count += 1
    return count


class FakeBoard:
    """A board at the end of a pty; the source under test is given :attr:`link`.

    The board keeps its own descriptor on the device side open while plugged,
    so the pty stays alive between the host's reconnects. ``seq`` is the
    sequence number of the next frame the helpers build.
    """

    def __init__(self, link: str | os.PathLike[str], plugged: bool = True) -> None:
        self.link = Path(link)
        self.seq = 0
        self.received = bytearray()
        """Everything read from the host since the last :meth:`clear`."""
        self._master: int | None = None
        self._slave: int | None = None
        self.device: str | None = None
        """The pty's device path (``/dev/pts/N``) while plugged."""
        if plugged:
            self.plug()

    # ------------------------------------------------------------- plugging

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        """A new pty (a board just plugged in); the symlink now points at it."""
        if self.plugged:
            raise RuntimeError("the fake board is already plugged in")
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing before the host configures it
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.device = os.ttyname(slave)
        self.seq = 0
        self.received.clear()
        temporary = self.link.with_name(self.link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        temporary.symlink_to(self.device)
        os.replace(temporary, self.link)

    def unplug(self) -> None:
        """Pull the board: the symlink goes and the pty is closed under the host."""
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        master, slave = self._master, self._slave
        self._master = self._slave = None
        self.device = None
        for fd in (master, slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def close(self) -> None:
        self.unplug()

    def __enter__(self) -> FakeBoard:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def host_fds(self) -> int:
        """How many descriptors this process has on the device side, the
        board's own one not counted (1 while a source in this process has it open)."""
        if self.device is None:
            return 0
        return open_fds(self.device) - 1

    # ------------------------------------------------------------- frames

    def next_seq(self) -> int:
        seq = self.seq
        self.seq = (seq + 1) % SEQ_MODULO
        return seq

    def frame(self, frame: Frame) -> bytes:
        """The wire bytes of ``frame``; its ``seq`` also sets the board's next one."""
        self.seq = (frame.seq + 1) % SEQ_MODULO
        return encode_frame(frame)

    def hit(self, row: int, col: int) -> bytes:
        return encode_frame(Hit(self.next_seq(), row, col))

    def button(self, button: int) -> bytes:
        return encode_frame(Button(self.next_seq(), button))

    def heartbeat(self, uptime_ms: int) -> bytes:
        return encode_frame(Heartbeat(self.next_seq(), uptime_ms))

    def hello(self, rows: int = 8, cols: int = 10, firmware: str = "fake-1.0") -> bytes:
        """A hello frame; it starts a new sequence count at 0."""
        self.seq = 0
        return encode_frame(Hello(self.next_seq(), 1, rows, cols, firmware))

    # ------------------------------------------------------------- I/O

    def _fd(self) -> int:
        if self._master is None:
            raise RuntimeError("the fake board is unplugged")
        return self._master

    def master_fd(self) -> int:
        """The pty's master side, for a process that plays the board on it
        (as its stdin and stdout); the helpers here then stay unused."""
        return self._fd()

    async def write(self, data: bytes, timeout: float = 10.0) -> None:
        """Send device bytes to the host, all of them, in as few writes as the pty takes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd(), view)
            except BlockingIOError:
                written = 0
            view = view[written:]
            if view:
                if loop.time() > deadline:
                    raise TimeoutError(f"the host did not read {len(view)} byte(s)")
                await asyncio.sleep(0.005)

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd(), 4096)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.received += chunk

    async def read_until(self, expected: bytes, timeout: float = 10.0) -> bytes:
        """Wait until the host has sent ``expected``; returns all received so far."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            self._drain()
            if expected in self.received:
                return bytes(self.received)
            if loop.time() > deadline:
                raise TimeoutError(
                    f"the host did not send {expected!r}; it sent {bytes(self.received)!r}"
                )
            await asyncio.sleep(0.005)

    def read_now(self) -> bytes:
        """Whatever the host has sent so far, without waiting."""
        self._drain()
        return bytes(self.received)

    def clear(self) -> None:
        self.received.clear()
