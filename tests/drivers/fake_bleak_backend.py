"""A fake bleak backend: real ``BleakScanner``/``BleakClient`` code, fake radio.

:class:`FakeGranboard` is one GranBoard (and an unrelated phone) in range. Its
:meth:`~FakeGranboard.scanner_backend` and :meth:`~FakeGranboard.client_backend`
are bleak backend classes (``BaseBleakScanner``/``BaseBleakClient``) bound to it,
given to bleak as its ``backend=``, so bleak's own scanner and client code runs
over them. The test makes the board send notifications, drop the link, switch
off and on, and change its battery level; calls are recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakDeviceNotFoundError, BleakError

from drivers.granboard_source import BATTERY_LEVEL_UUID, NOTIFY_UUID, SERVICE_UUID, WRITE_UUID

__all__ = ["FakeGranboard"]

BATTERY_SERVICE_UUID = "0000180f-0000-1000-8000-00805f9b34fb"
PHONE = ("11:22:33:44:55:66", "Pixel 8")
ADVERTISING_INTERVAL = 0.01


class FakeGranboard:
    """One GranBoard in radio range, as bleak's backends see it."""

    def __init__(
        self,
        address: str = "D4:22:CD:00:12:34",
        name: str = "GRANBOARD",
        *,
        on: bool = True,
        battery: int | None = None,
        battery_notifies: bool = True,
        has_service: bool = True,
    ) -> None:
        self.address = address
        self.name = name
        self.on = on
        self.battery = battery
        self.battery_notifies = battery_notifies
        self.has_service = has_service
        self.clients: list[_Client] = []
        # what the tests look at
        self.scans = 0
        self.connects = 0
        self.disconnects = 0
        self.writes: list[bytes] = []
        self.battery_reads = 0
        self.subscribed = asyncio.Event()

    # ------------------------------------------------------------ test control

    def notify(self, *payloads: bytes) -> None:
        """The board sends each payload on its notify characteristic."""
        for payload in payloads:
            for client in list(self.clients):
                callback = client.callbacks.get(NOTIFY_UUID)
                if callback is not None:
                    callback(bytearray(payload))

    def set_battery(self, percent: int) -> None:
        self.battery = percent
        for client in list(self.clients):
            callback = client.callbacks.get(BATTERY_LEVEL_UUID)
            if callback is not None:
                callback(bytearray([percent]))

    def drop(self) -> None:
        """The link is lost (out of range): every client hears it at once."""
        self.subscribed.clear()
        for client in list(self.clients):
            client.lose()

    def switch_off(self) -> None:
        self.on = False
        self.drop()

    def switch_on(self) -> None:
        self.on = True

    async def wait_subscribed(self, timeout: float = 2.0) -> None:
        await asyncio.wait_for(self.subscribed.wait(), timeout)

    # ------------------------------------------------------------ backends

    def scanner_backend(self) -> type[BaseBleakScanner]:
        board = self

        class FakeScanner(_Scanner):
            pass

        FakeScanner.board = board
        return FakeScanner

    def client_backend(self) -> type[BaseBleakClient]:
        board = self

        class FakeClient(_Client):
            pass

        FakeClient.board = board
        return FakeClient

    # ------------------------------------------------------------ the GATT table

    def services(self) -> BleakGATTServiceCollection:
        collection = BleakGATTServiceCollection()

        def add(service: BleakGATTService, handle: int, uuid: str, props: list[Any]) -> None:
            characteristic = BleakGATTCharacteristic(None, handle, uuid, props, lambda: 20, service)
            collection.add_characteristic(characteristic)

        if self.has_service:
            granboard = BleakGATTService(None, 1, SERVICE_UUID)
            collection.add_service(granboard)
            add(granboard, 2, NOTIFY_UUID, ["notify"])
            add(granboard, 5, WRITE_UUID, ["write", "write-without-response"])
        if self.battery is not None:
            battery = BleakGATTService(None, 10, BATTERY_SERVICE_UUID)
            collection.add_service(battery)
            props: list[Any] = ["read", "notify"] if self.battery_notifies else ["read"]
            add(battery, 11, BATTERY_LEVEL_UUID, props)
        return collection


class _Scanner(BaseBleakScanner):
    """Reports the board (and a phone) every few milliseconds while scanning."""

    board: FakeGranboard

    def __init__(self, detection_callback: Any, service_uuids: Any, *args: Any, **kwargs: Any):
        super().__init__(detection_callback, service_uuids)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.seen_devices = {}
        self.board.scans += 1
        self._task = asyncio.create_task(self._advertise())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _advertise(self) -> None:
        while True:
            heard: list[tuple[str, str, list[str]]] = [(PHONE[0], PHONE[1], [])]
            if self.board.on:
                heard.append((self.board.address, self.board.name, [SERVICE_UUID]))
            for address, name, uuids in heard:
                if not self.is_allowed_uuid(uuids):
                    continue
                adv = AdvertisementData(name, {}, {}, uuids, None, -60, ())
                device = self.create_or_update_device(address, address, name, None, adv)
                self.call_detection_callbacks(device, adv)
            await asyncio.sleep(ADVERTISING_INTERVAL)


class _Client(BaseBleakClient):
    """A link to the board: services, notifications, reads and writes."""

    board: FakeGranboard

    def __init__(self, address_or_ble_device: Any, **kwargs: Any) -> None:
        super().__init__(
            address_or_ble_device,
            disconnected_callback=kwargs.get("disconnected_callback"),
            timeout=kwargs.get("timeout", 10.0),
        )
        self.callbacks: dict[str, Callable[[bytearray], None]] = {}
        self._connected = False

    def lose(self) -> None:
        if self._connected:
            self._connected = False
            self.board.clients.remove(self)
            self.callbacks.clear()
            if self._disconnected_callback is not None:
                self._disconnected_callback()

    @property
    def mtu_size(self) -> int:
        return 23

    @property
    def name(self) -> str:
        return self.board.name

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        await asyncio.sleep(0)
        if not self.board.on or self.address != self.board.address:
            raise BleakDeviceNotFoundError(self.address, f"Device {self.address} not found")
        self.board.connects += 1
        self.services = self.board.services()
        self._connected = True
        self.board.clients.append(self)

    async def disconnect(self) -> None:
        if self._connected:
            self._connected = False
            self.board.clients.remove(self)
            self.board.disconnects += 1

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        pass

    async def unpair(self) -> None:
        pass

    @property
    def is_connected(self) -> bool:
        return self._connected

    def _check(self) -> None:
        if not self._connected:
            raise BleakError("Not connected")

    async def read_gatt_char(
        self, characteristic: BleakGATTCharacteristic, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        self._check()
        if characteristic.uuid != BATTERY_LEVEL_UUID or self.board.battery is None:
            raise BleakError(f"{characteristic.uuid} cannot be read")
        self.board.battery_reads += 1
        return bytearray([self.board.battery])

    async def read_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        raise BleakError("no descriptors")

    async def write_gatt_char(
        self, characteristic: BleakGATTCharacteristic, data: Any, response: bool
    ) -> None:
        self._check()
        self.board.writes.append(bytes(data))

    async def write_gatt_descriptor(self, descriptor: BleakGATTDescriptor, data: Any) -> None:
        raise BleakError("no descriptors")

    async def start_notify(
        self, characteristic: BleakGATTCharacteristic, callback: NotifyCallback, **kwargs: Any
    ) -> None:
        self._check()
        self.callbacks[characteristic.uuid] = callback
        if characteristic.uuid == NOTIFY_UUID:
            self.board.subscribed.set()

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        self.callbacks.pop(characteristic.uuid, None)
