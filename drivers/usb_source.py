"""USB boards: read a board controller's interrupt IN endpoint with pyusb.

For controllers that are not serial ports (a HID-class or vendor-class USB
device). The device is found by VID:PID with the libusb shipped in
``libusb-package`` (no system libusb needed). Each report is either

- ``line``: a chunk of a line protocol (``oche``, ``darts-codes``, ``row-col``),
  fed to the :class:`~drivers.board_decoder.BoardDecoder` after the trailing
  NUL padding of fixed-size reports is stripped; or
- ``cells``: 2-byte ``row,col`` cells, several per report, ``0xFF,0xFF`` pairs
  being padding; each cell becomes a hit through the matrix map exactly as an
  ``H`` frame would.

The device may come and go: a lost or absent device is reported once as a
:class:`~drivers.board_events.DisconnectedEvent`, then the source retries with
a :class:`~mqtt_client.backoff.Backoff` and reports a new
:class:`~drivers.board_events.ConnectedEvent` when the device is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import libusb_package
import usb.core  # type: ignore[import-untyped]
import usb.util  # type: ignore[import-untyped]

from drivers.board_decoder import BoardDecoder
from drivers.board_events import BoardEvent
from drivers.errors import DriverError
from drivers.matrix_map import MatrixMap
from drivers.source import ReconnectingSource, board_backoff
from mqtt_client.backoff import Backoff

__all__ = ["REPORT_FORMATS", "UsbSource"]

REPORT_FORMATS = ("line", "cells")
"""How a USB report carries board input (config ``board.usb_report``, ``--usb-report``)."""

CELL_PADDING = 0xFF
"""A ``0xFF,0xFF`` pair in a ``cells`` report is padding, not a cell."""

LOSS_ERRNOS = frozenset({errno.ENODEV, errno.EIO, errno.EPIPE})
"""USB errors that mean the device went away (unplugged, reset, stalled)."""

_NO_DATA_ERRNOS = frozenset({errno.ETIMEDOUT, errno.EINTR})
_DEFAULT_REPORT_SIZE = 64
_OPEN_ERRORS = (usb.core.USBError, ValueError, LookupError, NotImplementedError)
"""What pyusb raises while opening a device that cannot be used right now."""

log = logging.getLogger(__name__)

_P = ParamSpec("_P")
_T = TypeVar("_T")


class _Unavailable(Exception):
    """The device cannot be used (absent, lost, unusable); ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _describe(error: BaseException) -> str:
    code = getattr(error, "errno", None)
    text = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return f"{text} (errno {code})" if code is not None else text


def _is_interrupt_in(endpoint: Any) -> bool:
    address: int = endpoint.bEndpointAddress
    attributes: int = endpoint.bmAttributes
    return bool(
        usb.util.endpoint_direction(address) == usb.util.ENDPOINT_IN
        and usb.util.endpoint_type(attributes) == usb.util.ENDPOINT_TYPE_INTR
    )


class UsbSource(ReconnectingSource):
    """Reads board input from the first interrupt IN endpoint of ``interface``
    on the USB device ``vid:pid``. The constructor does no I/O."""

    name = "usb"
    decoder: BoardDecoder

    def __init__(
        self,
        vid: int,
        pid: int,
        *,
        interface: int = 0,
        report: str = "line",
        protocol: str = "oche",
        matrix: MatrixMap | None = None,
        backend: Any = None,
        backoff: Backoff | None = None,
        poll_timeout_ms: int = 100,
    ) -> None:
        super().__init__()
        for what, value in (("vendor id", vid), ("product id", pid)):
            if not 0 <= value <= 0xFFFF:
                raise DriverError(f"USB {what} {value:#x} is outside 0000-ffff")
        if not 0 <= interface <= 255:
            raise DriverError(f"USB interface {interface} is outside 0-255")
        if report not in REPORT_FORMATS:
            raise DriverError(f"unknown USB report format {report!r}; use line or cells")
        if poll_timeout_ms <= 0:
            raise DriverError("the USB poll timeout must be at least 1 ms")
        self.vid = vid
        self.pid = pid
        self.interface = interface
        self.report = report
        self.decoder = BoardDecoder(protocol, matrix)
        self.backoff = backoff or board_backoff()
        self.poll_timeout_ms = poll_timeout_ms
        self.source_id = f"usb:{vid:04x}:{pid:04x}"
        self._backend = backend
        self._device: Any = None
        self._claimed = False
        self._detached = False

    # ------------------------------------------------------------ the loop

    async def _session(self) -> str:
        """Open the device and read it until it is lost; returns why it ended."""
        try:
            try:
                endpoint = await self._in_thread(self._open)
            except _Unavailable as error:
                return error.reason
            self._connected()
            self.decoder.reset()
            size: int = endpoint.wMaxPacketSize or _DEFAULT_REPORT_SIZE
            while True:
                try:
                    data = await self._in_thread(self._read, endpoint, size)
                except _Unavailable as error:
                    return error.reason
                if data:
                    # Only a device that delivers data resets the backoff, so one
                    # that connects and fails at once is retried ever more slowly.
                    self.backoff.reset()
                    for event in self._events(data):
                        self._emit(event)
        finally:
            self._close_device()

    async def _in_thread(self, fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn`` in a worker thread. If cancelled, wait for the worker (a read
        ends within ``poll_timeout_ms``) so the device is never released under a
        transfer in flight."""
        worker = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
        worker.add_done_callback(lambda done: done.cancelled() or done.exception())
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            await asyncio.wait({worker}, timeout=self.poll_timeout_ms / 1000 + 1.0)
            raise

    # ------------------------------------------------------------ blocking parts

    def _open(self) -> Any:
        """Find, configure and claim the device; its interrupt IN endpoint."""
        backend = self._backend
        if backend is None:
            backend = libusb_package.get_libusb1_backend()
            if backend is None:
                raise _Unavailable("no libusb backend (libusb-package could not load libusb)")
        try:
            device = usb.core.find(idVendor=self.vid, idProduct=self.pid, backend=backend)
            if device is None:
                raise _Unavailable(f"device {self.vid:04x}:{self.pid:04x} not found")
            self._device = device
            try:
                if device.is_kernel_driver_active(self.interface):
                    device.detach_kernel_driver(self.interface)
                    self._detached = True
            except NotImplementedError:
                pass
            except usb.core.USBError as error:
                if error.errno != errno.ENOSYS:  # libusb: not supported on this platform
                    raise
            try:
                config = device.get_active_configuration()
            except usb.core.USBError:
                device.set_configuration()
                config = device.get_active_configuration()
            interface = usb.util.find_descriptor(config, bInterfaceNumber=self.interface)
            if interface is None:
                raise _Unavailable(f"the device has no interface {self.interface}")
            endpoint = usb.util.find_descriptor(interface, custom_match=_is_interrupt_in)
            if endpoint is None:
                raise _Unavailable(f"interface {self.interface} has no interrupt IN endpoint")
            usb.util.claim_interface(device, self.interface)
            self._claimed = True
            return endpoint
        except _OPEN_ERRORS as error:
            raise _Unavailable(f"cannot open the device: {_describe(error)}") from None

    def _read(self, endpoint: Any, size: int) -> bytes:
        """One report, or ``b""`` when none came within the poll timeout."""
        try:
            return bytes(endpoint.read(size, self.poll_timeout_ms))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as error:
            if error.errno in _NO_DATA_ERRNOS:
                return b""
            if error.errno in LOSS_ERRNOS:
                raise _Unavailable(f"device lost: {_describe(error)}") from None
            raise _Unavailable(f"USB error: {_describe(error)}") from None

    def _close_device(self) -> None:
        """Release the interface, give it back to the kernel driver we took it
        from, and free pyusb's handle. Errors (the device is gone) are ignored."""
        device, self._device = self._device, None
        claimed, self._claimed = self._claimed, False
        detached, self._detached = self._detached, False
        if device is None:
            return
        if claimed:
            with contextlib.suppress(*_OPEN_ERRORS):
                usb.util.release_interface(device, self.interface)
        if detached:
            with contextlib.suppress(*_OPEN_ERRORS):
                device.attach_kernel_driver(self.interface)
        with contextlib.suppress(*_OPEN_ERRORS):
            usb.util.dispose_resources(device)

    # ------------------------------------------------------------ reports

    def _events(self, report: bytes) -> list[BoardEvent]:
        if self.report == "line":
            return self.decoder.feed(report.rstrip(b"\x00"))
        events: list[BoardEvent] = []
        for index in range(0, len(report) - 1, 2):
            row, col = report[index], report[index + 1]
            if row == CELL_PADDING and col == CELL_PADDING:
                continue
            events += self.decoder.feed_cell(row, col)
        if len(report) % 2 and report[-1] != CELL_PADDING:
            self.decoder.counts["garbage"] += 1
            error = self.decoder.limiter.admit(
                "garbage", f"cells report of odd length {len(report)}: {report.hex(' ')}"
            )
            if error is not None:
                events.append(error)
        return events
