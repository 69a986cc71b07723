"""``oche run`` with a coin mechanism on a pseudo-terminal, for the kill -9
test: ``python -m tests.daemon.coin_daemon CONFIG PTY``. It runs the daemon
exactly as ``oche run`` does (:func:`run_daemon`), but its board is a
:class:`CoinLineSource` reading ``coin INPUT COUNT BOOT`` lines (the
firmware's running pulse count, as the wire protocol's coin frames carry it)
from the pty, until the coins helper's frames reach the serial driver."""

from __future__ import annotations

import asyncio
import os
import sys

from drivers.board_events import CoinEvent, ConnectedEvent
from drivers.source import BoardSource
from firmware_bridge.cli.run_command import run_daemon
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import load_config

__all__ = ["CoinLineSource", "coin_line", "main"]


def coin_line(coin_input: int, count: int | None, boot: str | None) -> bytes:
    """The line a :class:`CoinLineSource` reads as one CoinEvent."""
    return f"coin {coin_input} {'-' if count is None else count} {boot or '-'}\n".encode()


class CoinLineSource(BoardSource):
    """A board whose only input is its coin mechanism, read line by line from
    ``path`` (a pty's slave end)."""

    name = "coins"

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    async def _run(self) -> None:
        fd = os.open(self.path, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        loop.add_reader(fd, readable.set)
        self._emit(ConnectedEvent(self.path))
        pending = b""
        try:
            while True:
                await readable.wait()
                readable.clear()
                try:
                    chunk = os.read(fd, 4096)
                except BlockingIOError:
                    continue
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    parts = line.decode().split()
                    if len(parts) != 4 or parts[0] != "coin":
                        continue
                    count = None if parts[2] == "-" else int(parts[2])
                    boot = None if parts[3] == "-" else parts[3]
                    self._emit(CoinEvent(int(parts[1]), count, boot))
        finally:
            loop.remove_reader(fd)
            os.close(fd)


def main() -> None:
    config_path, pty_path = sys.argv[1], sys.argv[2]
    config = load_config(config_path, env={})
    asyncio.run(run_daemon(Daemon(config, source=CoinLineSource(pty_path))))


if __name__ == "__main__":
    main()
