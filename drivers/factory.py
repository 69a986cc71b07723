"""Build a board source from a description: the one place that knows every driver."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from drivers.board_decoder import PROTOCOLS
from drivers.card_readers import DEFAULT_TEST_CARD
from drivers.matrix_map import MatrixMap, load_map
from drivers.protocol import NO_FIRMWARE_SETTINGS, FirmwareSettings
from drivers.source import BoardSource

__all__ = [
    "BLE_ADDRESS",
    "DEFAULT_BAUDRATE",
    "DRIVERS",
    "PRESETS",
    "SENSORS",
    "BoardSpec",
    "Preset",
    "check_sensors",
    "open_board",
    "preset",
]

DRIVERS = ("serial", "usb", "simulated", "keyboard", "granboard")

DEFAULT_BAUDRATE = 115200
"""A serial board's speed unless its protocol's preset or the config says otherwise."""

SENSORS = ("button", "piezo", "ultrasonic")
"""What a board may sense besides hits: a button (next player), a piezo that
hears a dart miss every bed, an ultrasonic sensor that sees the darts being
taken out (the daemon drives its takeout watch)."""


@dataclass(frozen=True)
class Preset:
    """What a protocol name implies when the config or command line does not
    say otherwise: the serial speed and the board's sensors."""

    baudrate: int = DEFAULT_BAUDRATE
    sensors: tuple[str, ...] = ()


PRESETS: dict[str, Preset] = {
    "dascr": Preset(baudrate=9600, sensors=SENSORS),
}
"""Protocol -> its preset; a protocol not listed has the plain defaults. ``dascr``:
a DaSCR/dARts board (the dascr-machine firmware runs its serial port at 9600)."""


def preset(protocol: str) -> Preset:
    """What ``protocol`` implies: its entry in :data:`PRESETS`, else the plain defaults."""
    return PRESETS.get(protocol, Preset())


def check_sensors(sensors: tuple[str, ...]) -> str | None:
    """The problem with a list of sensors (an unknown name, one named twice), or ``None``."""
    for sensor in sensors:
        if sensor not in SENSORS:
            return f"unknown sensor {sensor!r}; a board may have {', '.join(SENSORS)}"
    twice = sorted({sensor for sensor in sensors if sensors.count(sensor) > 1})
    if twice:
        return f"sensor {twice[0]!r} is named twice"
    return None


log = logging.getLogger(__name__)

BLE_ADDRESS = re.compile(
    r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}"
)
"""A Bluetooth address (``D4:22:CD:00:12:34``) or the UUID macOS gives a device."""


@dataclass(frozen=True)
class BoardSpec:
    """Which board to read and how: the ``[board]`` config section or the
    command line's ``--driver``, ``--port``, ``--map``, ... options."""

    driver: str = "serial"
    port: str | None = None
    baudrate: int = DEFAULT_BAUDRATE
    protocol: str = "oche"
    map_path: str | None = None
    script: str = ""
    delay: float = 0.0
    usb_vid: int | None = None
    usb_pid: int | None = None
    usb_interface: int = 0
    usb_report: str = "line"
    firmware: FirmwareSettings = NO_FIRMWARE_SETTINGS
    """Firmware settings a serial board is sent at each connect."""
    sensors: tuple[str, ...] = ()
    """What the board senses besides hits (``button``, ``piezo``, ``ultrasonic``:
    a DaSCR board's); the daemon drives the takeout watch of one with ``ultrasonic``."""
    ble_address: str = ""
    """A Bluetooth LE board's address (GranBoard); empty: found by ``ble_name``."""
    ble_name: str = ""
    """A Bluetooth LE board's advertised name (or its start); empty: the first GranBoard."""

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        if self.driver not in DRIVERS:
            raise ValueError(
                f"unknown driver {self.driver!r}; the drivers are {', '.join(DRIVERS)}"
            )
        if self.protocol not in PROTOCOLS:
            raise ValueError(
                f"unknown protocol {self.protocol!r}; the protocols are {', '.join(PROTOCOLS)}"
            )
        problem = check_sensors(self.sensors)
        if problem is not None:
            raise ValueError(problem)
        if self.driver == "serial" and not self.port:
            raise ValueError("the serial driver needs a port (--port /dev/ttyACM0)")
        if self.driver == "usb" and (self.usb_vid is None or self.usb_pid is None):
            raise ValueError("the usb driver needs --vid and --pid")
        if self.ble_address and not BLE_ADDRESS.fullmatch(self.ble_address):
            raise ValueError(
                f"{self.ble_address!r} is not a Bluetooth address such as D4:22:CD:00:12:34 "
                "(or, on macOS, the board's UUID)"
            )
        if self.usb_report not in ("line", "cells"):
            raise ValueError(f"unknown USB report format {self.usb_report!r}; use line or cells")
        if self.firmware and self.driver == "serial" and self.protocol != "oche":
            raise ValueError(
                f"firmware settings are sent in the oche protocol; "
                f"a board speaking {self.protocol} has none"
            )


def open_board(
    spec: BoardSpec, matrix: MatrixMap | None = None, test_card: str = DEFAULT_TEST_CARD
) -> BoardSource:
    """A source for ``spec`` (not started yet). The matrix map is loaded from
    ``spec.map_path`` unless one is given; ``test_card`` is the card the
    keyboard source's ``card`` key taps (``[cards] test_card``)."""
    spec.check()
    if matrix is None and spec.map_path:
        matrix = load_map(spec.map_path)
    if spec.firmware and spec.driver != "serial":
        log.warning(
            "firmware settings (%s) are not sent: only a serial board takes them, not %s",
            spec.firmware,
            spec.driver,
        )
    if spec.driver == "serial":
        from drivers.serial_source import SerialSource

        assert spec.port is not None
        return SerialSource(
            spec.port,
            spec.baudrate,
            spec.protocol,
            matrix,
            firmware=spec.firmware,
            sensors=spec.sensors,
        )
    if spec.driver == "usb":
        from drivers.usb_source import UsbSource

        assert spec.usb_vid is not None and spec.usb_pid is not None
        return UsbSource(
            spec.usb_vid,
            spec.usb_pid,
            interface=spec.usb_interface,
            report=spec.usb_report,
            protocol=spec.protocol,
            matrix=matrix,
        )
    if spec.driver == "simulated":
        from drivers.simulated import SimulatedSource

        return SimulatedSource(spec.script, spec.delay, matrix)
    if spec.driver == "granboard":
        from drivers.granboard_source import GranboardSource

        return GranboardSource(spec.ble_address, spec.ble_name, matrix)
    from drivers.keyboard import KeyboardSource

    return KeyboardSource(test_card=test_card)
