"""A fake pyusb backend: real ``usb.core.find`` and ``Device`` code, fake hardware.

It serves one board controller (the given VID:PID) next to an unrelated hub:
one configuration, one interface (HID class) with an interrupt OUT endpoint
(0x01) and then an interrupt IN endpoint (0x81). The test pushes the reports
the IN endpoint returns, and can ``unplug()`` and ``replug()`` the board.
Calls are recorded so tests can check claiming, releasing and the kernel driver.
"""

from __future__ import annotations

import errno
import threading
import time
from collections import deque
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import usb.backend  # type: ignore[import-untyped]
import usb.core  # type: ignore[import-untyped]

__all__ = ["FakeUsbBackend"]

IN_ENDPOINT = 0x81
OUT_ENDPOINT = 0x01
ENDPOINT_TYPE_INTERRUPT = 0x03
HID_CLASS = 0x03
HUB = (0x1D6B, 0x0002)
LIBUSB_ERROR_NO_DEVICE = -4
LIBUSB_ERROR_BUSY = -6
LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_NOT_FOUND = -5


def _no_device() -> usb.core.USBError:
    return usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)


@dataclass(frozen=True)
class _Dev:
    """What ``enumerate_devices`` yields: opaque to pyusb."""

    vid: int
    pid: int
    address: int
    generation: int


@dataclass(frozen=True)
class _Handle:
    dev: _Dev


class FakeUsbBackend(usb.backend.IBackend):  # type: ignore[misc]
    def __init__(
        self,
        vid: int,
        pid: int,
        *,
        present: bool = True,
        kernel_driver: bool = True,
        kernel_driver_supported: bool = True,
        configured: bool = False,
        max_packet: int = 16,
    ) -> None:
        super().__init__()
        self.vid = vid
        self.pid = pid
        self.max_packet = max_packet
        self.kernel_driver_supported = kernel_driver_supported
        self.kernel_driver_active = kernel_driver
        self.configuration = 1 if configured else 0
        self._cond = threading.Condition()
        self._reports: deque[bytes] = deque()
        self._present = present
        self._generation = 0
        self._address = 5
        # what the tests look at
        self.claimed: set[int] = set()
        self.claims = 0
        self.releases = 0
        self.detaches = 0
        self.attaches = 0
        self.open_handles = 0
        self.reads_in_flight = 0
        self.released_during_read = False
        self.finds = 0

    # ------------------------------------------------------------ test control

    def push(self, *reports: bytes) -> None:
        """Reports the IN endpoint returns next, one per read."""
        with self._cond:
            self._reports.extend(reports)
            self._cond.notify_all()

    def unplug(self) -> None:
        """Reads fail with ENODEV at once; the device is no longer enumerated."""
        with self._cond:
            self._present = False
            self._reports.clear()
            self.claimed.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """The device is back at a new address, with its kernel driver bound again."""
        with self._cond:
            self._present = True
            self._generation += 1
            self._address += 1
            self.configuration = 0
            self.kernel_driver_active = True
            self._cond.notify_all()

    def pending(self) -> int:
        with self._cond:
            return len(self._reports)

    def wait_drained(self, timeout: float = 2.0) -> bool:
        """Block until every pushed report was read (for tests in a thread)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._reports and time.monotonic() < deadline:
                self._cond.wait(0.01)
            return not self._reports

    # ------------------------------------------------------------ helpers

    def _board(self) -> _Dev:
        return _Dev(self.vid, self.pid, self._address, self._generation)

    def _alive(self, handle: _Handle) -> bool:
        return self._present and handle.dev.generation == self._generation

    def _check(self, handle: _Handle) -> None:
        if not self._alive(handle):
            raise _no_device()

    # ------------------------------------------------------------ IBackend

    def enumerate_devices(self) -> Any:
        with self._cond:
            self.finds += 1
            devices = [_Dev(*HUB, address=1, generation=-1)]
            if self._present:
                devices.append(self._board())
        return iter(devices)

    def get_parent(self, dev: _Dev) -> None:
        return None

    def get_device_descriptor(self, dev: _Dev) -> Any:
        return SimpleNamespace(
            bLength=18,
            bDescriptorType=0x01,
            bcdUSB=0x0200,
            bDeviceClass=0x09 if (dev.vid, dev.pid) == HUB else 0x00,
            bDeviceSubClass=0,
            bDeviceProtocol=0,
            bMaxPacketSize0=64,
            idVendor=dev.vid,
            idProduct=dev.pid,
            bcdDevice=0x0100,
            iManufacturer=0,
            iProduct=0,
            iSerialNumber=0,
            bNumConfigurations=1,
            address=dev.address,
            bus=1,
            port_number=dev.address,
            port_numbers=(dev.address,),
            speed=2,
        )

    def get_configuration_descriptor(self, dev: _Dev, config: int) -> Any:
        if config != 0:
            raise IndexError("configuration index out of range")
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=0x02,
            wTotalLength=9 + 9 + 7 + 7,
            bNumInterfaces=1,
            bConfigurationValue=1,
            iConfiguration=0,
            bmAttributes=0x80,
            bMaxPower=50,
            extra_descriptors=[],
        )

    def get_interface_descriptor(self, dev: _Dev, intf: int, alt: int, config: int) -> Any:
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError("interface index out of range")
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=0x04,
            bInterfaceNumber=0,
            bAlternateSetting=0,
            bNumEndpoints=2,
            bInterfaceClass=HID_CLASS,
            bInterfaceSubClass=0,
            bInterfaceProtocol=0,
            iInterface=0,
            extra_descriptors=[],
        )

    def get_endpoint_descriptor(self, dev: _Dev, ep: int, intf: int, alt: int, config: int) -> Any:
        if (intf, alt, config) != (0, 0, 0) or ep not in (0, 1):
            raise IndexError("endpoint index out of range")
        return SimpleNamespace(
            bLength=7,
            bDescriptorType=0x05,
            bEndpointAddress=(OUT_ENDPOINT, IN_ENDPOINT)[ep],
            bmAttributes=ENDPOINT_TYPE_INTERRUPT,
            wMaxPacketSize=self.max_packet,
            bInterval=1,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    def open_device(self, dev: _Dev) -> _Handle:
        with self._cond:
            handle = _Handle(dev)
            self._check(handle)
            self.open_handles += 1
            return handle

    def close_device(self, dev_handle: _Handle) -> None:
        with self._cond:
            self.open_handles -= 1

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self._cond:
            self._check(dev_handle)
            if self.kernel_driver_active:
                raise usb.core.USBError("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
            self.configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self._cond:
            self._check(dev_handle)
            return self.configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        self._check(dev_handle)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            if self.kernel_driver_active:
                raise usb.core.USBError("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
            self.claimed.add(intf)
            self.claims += 1

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            if self.reads_in_flight:
                self.released_during_read = True
            self._check(dev_handle)
            self.claimed.discard(intf)
            self.releases += 1

    def intr_read(self, dev_handle: _Handle, ep: int, intf: int, buff: Any, timeout: int) -> int:
        deadline = time.monotonic() + (timeout / 1000 if timeout else 3600)
        with self._cond:
            self._check(dev_handle)
            if ep != IN_ENDPOINT or intf not in self.claimed:
                raise usb.core.USBError("Entity not found", LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            self.reads_in_flight += 1
            try:
                while True:
                    self._check(dev_handle)
                    if self._reports:
                        report = self._reports.popleft()
                        self._cond.notify_all()
                        count = min(len(report), len(buff))
                        for index in range(count):
                            buff[index] = report[index]
                        return count
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise usb.core.USBTimeoutError(
                            "Operation timed out", LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT
                        )
                    self._cond.wait(left)
            finally:
                self.reads_in_flight -= 1

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        if not self.kernel_driver_supported:
            raise NotImplementedError("is_kernel_driver_active")
        self._check(dev_handle)
        return self.kernel_driver_active

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            self.kernel_driver_active = False
            self.detaches += 1

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)
            if intf in self.claimed:
                raise usb.core.USBError("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
            self.kernel_driver_active = True
            self.attaches += 1
