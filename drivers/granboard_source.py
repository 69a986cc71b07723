"""GranBoard over Bluetooth LE (``--driver granboard``), read with bleak.

The board is found by a scan: by ``address`` when one is given, else by the
advertised name (``name``, matched at its start and in any case), else the
first device that advertises the GranBoard service or whose name starts with
``GRAN``. The source connects, subscribes to the notify characteristic and
turns each notification into a board event through the table of
:mod:`drivers.granboard_map` (with a calibrated matrix map over it):

- a hit cell (``3.4@``) is a :class:`~drivers.board_events.HitEvent` with the
  bed and the cell (``row``/``col``, so ``oche calibrate`` can record it);
- ``BTN@`` is the NEXT button, ``OUT@`` a MISS (``ButtonEvent``);
- anything else is an :class:`~drivers.board_events.ErrorEvent` quoting the bytes.

The same notification again within :data:`DUPLICATE_WINDOW` is one event (no
two darts land milliseconds apart). When the board has the standard Battery
Service its level is a :class:`~drivers.board_events.BatteryEvent` at connect
and whenever it changes. A lost or absent board is reported once as a
:class:`~drivers.board_events.DisconnectedEvent`; the source scans again with a
:class:`~mqtt_client.backoff.Backoff` and reports a new ``ConnectedEvent``.

bleak is imported when a source is built, never by ``oche run`` with another
driver. bleak's own ``BleakScanner``/``BleakClient`` take a ``backend`` class:
``scanner_backend``/``client_backend`` pass one through (a fake in the tests),
so this code runs unchanged over it. The board's LEDs are not driven: see
docs/drivers.md for why.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import time
from collections.abc import Callable
from typing import Any, ClassVar

from drivers.board_decoder import ErrorLimiter
from drivers.board_events import (
    BatteryEvent,
    BoardEvent,
    ButtonEvent,
    HitEvent,
)
from drivers.granboard_map import BUTTONS, parse_notification, table_with
from drivers.matrix_map import ButtonCell, MatrixMap
from drivers.protocol import quote_bytes
from drivers.source import ReconnectingSource, board_backoff
from mqtt_client.backoff import Backoff

__all__ = [
    "BATTERY_LEVEL_UUID",
    "DUPLICATE_WINDOW",
    "NAME_PREFIX",
    "NOTIFY_UUID",
    "SERVICE_UUID",
    "WRITE_UUID",
    "GranboardSource",
]

SERVICE_UUID = "442f1570-8a00-9a28-cbe1-e1d4212d53eb"
"""The GranBoard's vendor service (advertised, so a scan can find it)."""
NOTIFY_UUID = "442f1571-8a00-9a28-cbe1-e1d4212d53eb"
"""Board to host: one notification per hit or button press."""
WRITE_UUID = "442f1572-8a00-9a28-cbe1-e1d4212d53eb"
"""Host to board: LED frames (not used, see docs/drivers.md)."""
BATTERY_LEVEL_UUID = "00002a19-0000-1000-8000-00805f9b34fb"
"""The standard Battery Level characteristic (Battery Service 0x180F)."""
NAME_PREFIX = "GRAN"
"""How a GranBoard's advertised name starts, when no name or address is given."""
DUPLICATE_WINDOW = 0.1
"""Seconds within which the same notification again is the same event."""
SCAN_TIMEOUT = 10.0
CONNECT_TIMEOUT = 20.0
BATTERY_POLL = 600.0
"""Seconds between battery reads when the level cannot be subscribed to."""

log = logging.getLogger(__name__)


def _quote(data: bytes) -> str:
    """A notification quoted as every bad line is (:func:`quote_bytes`), and in hex."""
    return f"{quote_bytes(data)} ({data.hex(' ') or 'empty'})"


class GranboardSource(ReconnectingSource):
    """Reads a GranBoard over Bluetooth LE. The constructor does no I/O but
    imports bleak (``ModuleNotFoundError`` when the ``ble`` extra is missing)."""

    name = "granboard"
    scanner_backend: ClassVar[type[Any] | None] = None
    """bleak scanner backend used when none is passed (``None``: the platform's)."""
    client_backend: ClassVar[type[Any] | None] = None
    """bleak client backend used when none is passed (``None``: the platform's)."""

    def __init__(
        self,
        address: str = "",
        name: str = "",
        matrix: MatrixMap | None = None,
        *,
        scanner_backend: type[Any] | None = None,
        client_backend: type[Any] | None = None,
        backoff: Backoff | None = None,
        scan_timeout: float = SCAN_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        battery_poll: float = BATTERY_POLL,
        duplicate_window: float = DUPLICATE_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        importlib.import_module("bleak")
        self.address = address.strip()
        self.name_prefix = name.strip()
        self.table = table_with(matrix)
        self.backoff = backoff or board_backoff()
        self.scan_timeout = scan_timeout
        self.connect_timeout = connect_timeout
        self.battery_poll = battery_poll
        self.duplicate_window = duplicate_window
        self.clock = clock
        self.limiter = ErrorLimiter(clock=clock)
        self.duplicates = 0
        """Notifications dropped as repeats of the one before."""
        self._scanner_backend = scanner_backend or type(self).scanner_backend
        self._client_backend = client_backend or type(self).client_backend
        wanted = self.address or (f"{self.name_prefix}*" if self.name_prefix else "")
        self.source_id = f"granboard:{wanted}" if wanted else "granboard"
        self._last: tuple[bytes, float] | None = None

    # ------------------------------------------------------------ the loop

    def _wants(self, device: Any, advertisement: Any) -> bool:
        """Whether a scanned device is the board asked for."""
        if self.address:
            return bool(device.address.lower() == self.address.lower())
        name: str = advertisement.local_name or device.name or ""
        if self.name_prefix:
            return name.lower().startswith(self.name_prefix.lower())
        services = [uuid.lower() for uuid in advertisement.service_uuids]
        return name.upper().startswith(NAME_PREFIX) or SERVICE_UUID in services

    async def _find(self) -> Any:
        from bleak import BleakScanner

        options: dict[str, Any] = {}
        if self._scanner_backend is not None:
            options["backend"] = self._scanner_backend
        return await BleakScanner.find_device_by_filter(
            self._wants, timeout=self.scan_timeout, **options
        )

    def _not_found(self) -> str:
        if self.address:
            return f"no GranBoard at {self.address} (is it on and in range?)"
        if self.name_prefix:
            return f"no GranBoard named {self.name_prefix}* (is it on and in range?)"
        return "no GranBoard found (is it on and in range?)"

    async def _session(self) -> str:
        """Find the board, connect and read it until it is lost; returns why it ended."""
        from bleak import BleakClient
        from bleak.exc import BleakError

        try:
            device = await self._find()
        except (BleakError, OSError) as error:
            return f"cannot scan for the board: {error or type(error).__name__}"
        if device is None:
            return self._not_found()
        self.source_id = f"granboard:{device.address}"
        lost = asyncio.Event()
        options: dict[str, Any] = {"timeout": self.connect_timeout}
        if self._client_backend is not None:
            options["backend"] = self._client_backend
        client = BleakClient(device, lambda _client: lost.set(), **options)
        try:
            try:
                await client.connect()
            except (BleakError, OSError, TimeoutError) as error:
                return f"cannot connect: {error or type(error).__name__}"
            if client.services.get_service(SERVICE_UUID) is None:
                return "the device has no GranBoard service (is it a GranBoard?)"
            await client.start_notify(NOTIFY_UUID, self._on_notification)
            self._connected()
            self._last = None
            # A BLE connection is a full handshake: one that got this far resets the delay.
            self.backoff.reset()
            await self._watch_battery(client, lost)
            return "the board disconnected (out of range or switched off)"
        except (BleakError, OSError, TimeoutError) as error:
            return f"Bluetooth error: {error or type(error).__name__}"
        finally:
            with contextlib.suppress(Exception):
                await client.disconnect()

    async def _watch_battery(self, client: Any, lost: asyncio.Event) -> None:
        """Report the battery level (if the board has one) until the link is lost."""
        battery = client.services.get_characteristic(BATTERY_LEVEL_UUID)
        if battery is not None:
            self._battery(await client.read_gatt_char(battery))
            if "notify" in battery.properties:
                await client.start_notify(battery, lambda _char, data: self._battery(data))
                battery = None
        while not lost.is_set():
            timeout = self.battery_poll if battery is not None else None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await lost.wait()
            if battery is not None and not lost.is_set():
                self._battery(await client.read_gatt_char(battery))

    def _battery(self, data: bytes | bytearray) -> None:
        if len(data) >= 1 and data[0] <= 100:
            self._emit(BatteryEvent(data[0]))
            return
        error = self.limiter.admit("battery", f"battery level {_quote(bytes(data))} is not 0-100")
        if error is not None:
            self._emit(error)

    # ------------------------------------------------------------ notifications

    def _on_notification(self, _characteristic: Any, data: bytearray) -> None:
        for event in self.events_for(bytes(data)):
            self._emit(event)

    def events_for(self, data: bytes) -> list[BoardEvent]:
        """The events one notification stands for (none for a duplicate)."""
        now = self.clock()
        last, self._last = self._last, (data, now)
        if last is not None and last[0] == data and now - last[1] < self.duplicate_window:
            self.duplicates += 1
            self._last = last  # the window runs from the first of the burst
            return []
        notification = parse_notification(data)
        if notification.cell is not None:
            row, col = notification.cell
            target = self.table.get(notification.cell)
            if isinstance(target, ButtonCell):
                return [ButtonEvent(target.name)]
            if target is not None:
                return [HitEvent(target, row, col)]
            kind, message = "unmapped-cell", f"GranBoard cell {row}.{col} is in no table"
        elif notification.word is not None and notification.word in BUTTONS:
            return [ButtonEvent(BUTTONS[notification.word])]
        else:
            kind, message = "garbage", "unknown GranBoard notification"
        error = self.limiter.admit(kind, f"{message}: {_quote(data)}")
        return [error] if error is not None else []
