"""A board on a serial port (USB CDC-ACM, a USB-serial adapter, a UART).

The source opens the port with pyserial-asyncio-fast, feeds every chunk it
reads to a :class:`~drivers.board_decoder.BoardDecoder` and emits the events
the decoder yields. A dart is on this path, so the chunk goes from the
transport's read straight to the decoder (a protocol, no stream reader and no
task woken between), and the port is read without pyserial's ``select``
before every read (the loop has just seen it readable).

It survives the board going away: a read error, end of input or an ``EIO``
from a vanished device gives one
:class:`~drivers.board_events.DisconnectedEvent`, then the port is reopened
with a :class:`~mqtt_client.backoff.Backoff` (0.2 s doubling to 5 s) until it
works, which gives a :class:`~drivers.board_events.ConnectedEvent` again and
resets the backoff (also for a board that never sends anything).
A port that cannot be opened (missing, no permission, in use) is a WARNING
naming the port, the OS error and the likely fix, and a
:class:`~drivers.board_events.DisconnectedEvent` with that reason, once; the
retries that fail the same way are quiet (DEBUG), and a new reason is said
again. Give it a stable name such as ``/dev/oche-board`` (see ``udev/``) so
a replugged board is found again.

Nothing the board sends makes the source raise: bad lines are counted in
``decoder.counts`` and reported as rate-limited error events.

Each time the port opens, the source asks for a hello and, when it was given
``firmware`` settings (the config's ``[board.firmware]``), sends them to the
board once it has said hello, one ``C`` frame at a time, and logs in one line
what the board took and what it refused (docs/protocol.md#settings): a board
that restarted has lost what it was sent before, and it gets it again.

A DaSCR/dARts board (protocol ``darts-codes`` or ``dascr``) with the
``ultrasonic`` sensor is told to watch for its darts being taken out with
``1`` and to stop with ``2`` (:meth:`SerialSource.watch_takeout`); the value
last asked for is sent again each time the port opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Callable, Iterable
from typing import Any

import serial  # type: ignore[import-untyped]
import serial_asyncio_fast

from drivers.board_decoder import DARTS_CODE_PROTOCOLS, BoardDecoder
from drivers.board_events import BoardEvent, ConnectedEvent, DisconnectedEvent
from drivers.matrix_map import MatrixMap
from drivers.protocol import (
    FIRMWARE_ERRORS,
    SEQ_MODULO,
    Configure,
    FirmwareError,
    FirmwareSettings,
    Frame,
    Hello,
    HelloRequest,
    check_setting,
    encode_frame,
)
from drivers.source import BoardSource, board_backoff
from mqtt_client.backoff import Backoff

__all__ = ["ANSWER_TIMEOUT", "READ_SIZE", "TAKEOUT_WATCH", "SerialSource"]

READ_SIZE = 4096
"""Most bytes taken from the port per read."""

CLOSE_WAIT = 1.0
"""Seconds to wait for the transport to finish closing the port."""

ANSWER_TIMEOUT = 2.0
"""Seconds to wait for the board's hello, before the firmware settings and
after each one."""

SETTLE = 0.1
"""Seconds to let a second hello arrive after the first: a board that the
opening port restarted says hello at boot and again for the ``?``."""

TAKEOUT_WATCH = {True: b"1\n", False: b"2\n"}
"""What a DaSCR board is sent to watch for the takeout (and light its
button's LED) and to stop; its firmware reads a line and looks for the digit."""

_NOT_ANSWERS = frozenset({4})
"""``E`` codes that answer nothing the host sent (4: the scan loop overran)."""

Answers = asyncio.Queue[Hello | FirmwareError]

log = logging.getLogger(__name__)


_OPEN_HINTS = {
    errno.ENOENT: "is the board plugged in?",
    errno.ENODEV: "is the board plugged in?",
    errno.ENXIO: "is the board plugged in?",
    errno.EACCES: "add the daemon's user to the dialout group",
    errno.EPERM: "add the daemon's user to the dialout group",
    errno.EBUSY: "another program has it open",
    errno.EAGAIN: "another program has it open (oche monitor, another oche run?)",
}
"""What to do about a port that cannot be opened, by its OS error."""


def _reason(error: BaseException) -> str:
    """A short human reason for a lost or unopenable port."""
    text = str(error).strip()
    return text or type(error).__name__


def _open_failure(error: BaseException) -> str:
    """Why the port cannot be opened: the OS error in words and, when the
    error says it, what to do (``cannot open: No such file or directory: is
    the board plugged in?``); pyserial's text for any other error."""
    code = getattr(error, "errno", None)
    if not isinstance(code, int) or code not in errno.errorcode:
        return f"cannot open: {_reason(error)}"
    hint = _OPEN_HINTS.get(code)
    words = os.strerror(code)
    return f"cannot open: {words}: {hint}" if hint else f"cannot open: {words}"


class SerialSource(BoardSource):
    """Board events from a serial port, reconnecting whenever the port is lost.

    The constructor does no I/O; reading starts with ``async with`` or by
    iterating. ``decoder.counts`` tallies good frames, lost frames and every
    rejected line by kind.
    """

    name = "serial"
    decoder: BoardDecoder

    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        protocol: str = "oche",
        matrix: MatrixMap | None = None,
        backoff: Backoff | None = None,
        firmware: FirmwareSettings | None = None,
        sensors: tuple[str, ...] = (),
    ) -> None:
        if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate <= 0:
            raise ValueError(f"baud rate {baudrate!r} is not a positive whole number")
        firmware = firmware or FirmwareSettings()
        if firmware and protocol != "oche":
            raise ValueError(
                f"firmware settings ({firmware}) are sent in the oche protocol; "
                f"a board speaking {protocol} has none"
            )
        super().__init__()
        self.port = port
        self.baudrate = baudrate
        self.protocol = protocol
        self.decoder = BoardDecoder(protocol, matrix)
        self.backoff = backoff or board_backoff()
        self.firmware = firmware
        self.sensors = tuple(sensors)
        self.watches_takeout = protocol in DARTS_CODE_PROTOCOLS and "ultrasonic" in self.sensors
        """Whether :meth:`watch_takeout` writes to the board: a DaSCR board with
        its ultrasonic sensor, never an ``oche`` one."""
        self._watching: bool | None = None  # the takeout watch last asked for
        self._transport: serial_asyncio_fast.SerialTransport | None = None
        self._seq = 0

    # ------------------------------------------------------------- writing

    @property
    def connected(self) -> bool:
        """Whether the port is open right now."""
        transport = self._transport
        return transport is not None and not transport.is_closing()

    def next_seq(self) -> int:
        """The host's sequence number for the next frame it sends (0-65535, wrapping)."""
        seq = self._seq
        self._seq = (seq + 1) % SEQ_MODULO
        return seq

    async def send(self, data: bytes) -> None:
        """Write ``data`` to the board; ignored while the port is not open.

        A write that fails is logged, not raised: the reader notices the lost
        port and reconnects.
        """
        transport = self._transport
        if transport is None or transport.is_closing():
            log.debug("serial %s: not connected, %d byte(s) not sent", self.port, len(data))
            return
        try:
            transport.write(data)  # a few bytes: the transport buffers what waits
        except Exception as error:  # the port went away under us
            log.debug("serial %s: write failed: %s", self.port, _reason(error))

    async def watch_takeout(self, on: bool) -> None:
        """Tell a DaSCR board to watch for its darts being taken out (``1``:
        it then reports ``u`` and lights its button's LED, and scans no hits)
        or to stop (``2``). Only when :attr:`watches_takeout`; the same value
        is not written twice in a row, and the current one is written again
        each time the port opens (a board that was away may have missed it)."""
        if not self.watches_takeout or on == self._watching:
            return
        self._watching = on
        log.debug("serial %s: takeout watch %s", self.port, "on" if on else "off")
        await self.send(TAKEOUT_WATCH[on])

    async def _send_frame(self, frame: Frame) -> None:
        await self.send(encode_frame(frame))

    async def request_hello(self) -> bool:
        """Ask the firmware for a hello frame (``?``). Only for the ``oche``
        protocol and while connected; returns whether the request was written."""
        if self.protocol != "oche" or not self.connected:
            return False
        await self._send_frame(HelloRequest(self.next_seq()))
        return True

    async def configure(self, key: str, value: int) -> bool:
        """Change a firmware setting (``C`` frame): ``debounce_ms``, ``stuck_ms``
        or ``scan_hz``. Only for the ``oche`` protocol and while connected;
        returns whether the frame was written. An unknown key, or a value
        outside the setting's range (docs/protocol.md), is a ValueError.
        The source sends its :attr:`firmware` settings this way at each connect."""
        check_setting(key, value)
        if self.protocol != "oche" or not self.connected:
            return False
        await self._send_frame(Configure(self.next_seq(), key, value))
        return True

    async def _push_firmware(self, answers: Answers) -> None:
        """Send :attr:`firmware` to the board that just connected and log, in
        one line, what it took and what it refused.

        First the board's hello (the answer to the connect's ``?``, or the
        boot hello of a board the opening port restarted; a second one within
        :data:`SETTLE` is the other of the two): nothing is sent to a board
        still starting. Then each setting as a ``C`` frame followed by
        a ``?``: the firmware answers host lines in order and answers a good
        ``C`` with nothing, so an ``E`` before the next hello is that
        setting's refusal, and the hello alone means it was taken."""
        port = self.port
        if await _next_hello(answers) is None:
            log.warning(
                "serial %s: the board did not say hello within %g s; "
                "firmware settings not sent (%s)",
                port,
                ANSWER_TIMEOUT,
                self.firmware,
            )
            return
        await asyncio.sleep(SETTLE)
        while not answers.empty():
            answers.get_nowait()  # a boot hello and the answer to "?", or an overrun
        took: list[str] = []
        refused: list[str] = []
        for key, value in self.firmware.values:
            if not (await self.configure(key, value) and await self.request_hello()):
                return  # the port is gone: the next connection sends them all again
            codes = await _next_hello(answers)
            if codes is None:
                log.warning(
                    "serial %s: the board did not answer %s=%d within %g s%s",
                    port,
                    key,
                    value,
                    ANSWER_TIMEOUT,
                    f" (it took {', '.join(took)})" if took else "",
                )
                return
            refusals = [code for code in codes if code not in _NOT_ANSWERS]
            if refusals:
                why = FIRMWARE_ERRORS.get(refusals[0], "an unknown error")
                refused.append(f"{key}={value} (E {refusals[0]}: {why})")
            else:
                took.append(f"{key}={value}")
        if refused:
            log.warning(
                "serial %s: the board refused firmware setting %s%s",
                port,
                ", ".join(refused),
                f"; it took {', '.join(took)}" if took else "",
            )
        else:
            log.info("serial %s: the board took its firmware settings: %s", port, ", ".join(took))

    # ------------------------------------------------------------- reading

    async def _run(self) -> None:
        reported: str | None = None  # the reason last emitted since the last connect
        loop = asyncio.get_running_loop()
        while True:
            try:
                transport, protocol = await serial_asyncio_fast.create_serial_connection(
                    loop, self._port_reader, url=self.port, baudrate=self.baudrate, exclusive=True
                )
            except Exception as error:  # SerialException (an OSError), ValueError, ...
                reason = _open_failure(error)
                if reason != reported:  # said once, and again only when it changes
                    log.warning("serial %s: %s (retrying until it opens)", self.port, reason)
                    self._emit(DisconnectedEvent(self.port, reason))
                    reported = reason
                else:
                    log.debug("serial %s: %s", self.port, reason)
                await asyncio.sleep(self.backoff.next_delay())
                continue
            # The port is open: the board is back, so the next loss starts the
            # retries afresh. A silent board (no heartbeats, e.g. dARts
            # firmware) must not inherit the long delays of its last outage.
            self.backoff.reset()
            _read_without_select(transport.get_extra_info("serial"))
            assert isinstance(protocol, _PortReader)
            reason = await self._session(transport, protocol)
            log.info("serial %s: lost: %s", self.port, reason)
            self._emit(DisconnectedEvent(self.port, reason))
            reported = reason
            await asyncio.sleep(self.backoff.next_delay())

    def _port_reader(self) -> _PortReader:
        return _PortReader(self.decoder.feed, self._emit)

    async def _session(
        self, transport: serial_asyncio_fast.SerialTransport, reader: _PortReader
    ) -> str:
        """One open port, read by ``reader`` until it is lost; returns why it was lost."""
        self.decoder.reset()  # before the first read: the transport starts reading on the next turn
        self._transport = transport
        pushing: asyncio.Task[None] | None = None
        try:
            log.info("serial %s: connected", self.port)
            self._emit(ConnectedEvent(self.port))
            if self.protocol == "oche":
                if self.firmware:
                    answers: Answers = asyncio.Queue()
                    self.decoder.on_answer = answers.put_nowait
                    pushing = asyncio.create_task(self._push_firmware(answers))
                transport.write(encode_frame(HelloRequest(self.next_seq())))
            elif self.watches_takeout and self._watching is not None:
                transport.write(TAKEOUT_WATCH[self._watching])
            return await asyncio.shield(reader.lost)
        finally:
            self.decoder.on_answer = None
            if pushing is not None:
                pushing.cancel()  # the port is gone; it ends on the loop's next turn
            self._transport = None
            await self._close_port(transport, reader)

    async def _close_port(
        self, transport: serial_asyncio_fast.SerialTransport, reader: _PortReader
    ) -> None:
        """Release the port now, also when the task is being cancelled.

        After a loss the transport has already closed the device. Otherwise
        ``abort()`` stops reading at once; the transport would close the
        device later from a background task, so it is closed here directly
        (pyserial ignores the second close) and the port is free when this
        returns.
        """
        if not transport.is_closing():
            port: Any = transport.get_extra_info("serial")  # its stub says str
            transport.abort()
            if port is not None:
                with contextlib.suppress(Exception):
                    port.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(reader.lost), CLOSE_WAIT)


async def _next_hello(answers: Answers) -> list[int] | None:
    """The ``E`` codes the board sends before its next hello, or ``None``
    when no hello comes within :data:`ANSWER_TIMEOUT`."""
    codes: list[int] = []
    try:
        async with asyncio.timeout(ANSWER_TIMEOUT):
            while True:
                answer = await answers.get()
                if isinstance(answer, Hello):
                    return codes
                codes.append(answer.code)
    except TimeoutError:
        return None


class _PortReader(asyncio.Protocol):
    """The read side of one open port: each chunk the transport reads goes to
    the source's decoder and its events to the source's queue. ``lost``
    resolves with the reason when the port is lost or closed."""

    def __init__(
        self,
        feed: Callable[[bytes], Iterable[BoardEvent]],
        emit: Callable[[BoardEvent], None],
    ) -> None:
        self._feed = feed
        self._emit = emit
        self.lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        for event in self._feed(data):
            self._emit(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            reason = "end of input (the port was closed)" if exc is None else _reason(exc)
            self.lost.set_result(reason)


def _read_without_select(port: Any) -> None:
    """Read ``port`` (a pyserial port) with one ``os.read``: pyserial's read
    first selects on the port and its abort pipe, a system call per chunk
    that tells the loop what it already knows. The transport reads only when
    the loop saw the port readable. Other ports (URL handlers) keep their read."""
    fd = getattr(port, "fd", None)
    if not isinstance(fd, int) or not isinstance(port, serial.Serial):
        return

    def read(size: int = 1) -> bytes:
        try:
            data = os.read(fd, max(size, READ_SIZE))  # the transport asks for 1 KiB
        except BlockingIOError:
            return b""
        except OSError as error:  # EIO: the device vanished
            raise serial.SerialException(f"read failed: {error}") from error
        if not data:  # pyserial's words: a vanished device reads as empty
            raise serial.SerialException(
                "device reports readiness to read but returned no data"
                " (device disconnected or multiple access on port?)"
            )
        return data

    port.read = read
