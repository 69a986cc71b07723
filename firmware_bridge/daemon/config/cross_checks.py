"""What one key cannot tell alone: ``[board]``'s protocol preset for the keys
the config does not set, and the checks that involve more than one key."""

from __future__ import annotations

from typing import Any

from drivers.board_decoder import DARTS_CODE_PROTOCOLS
from drivers.factory import PRESETS
from firmware_bridge.daemon.config.errors import Checker, either
from mqtt_contract import parse_broker_url

__all__ = ["board_preset", "cross_checks"]


def board_preset(values: dict[str, Any], given: object, bad: set[str]) -> None:
    """``[board]``'s protocol preset (drivers.factory.PRESETS; ``dascr``: 9600
    baud and the button, piezo and ultrasonic sensors) for the keys the
    config does not set; a key set in the file or by ``--set`` wins."""
    if "board.protocol" in bad or values["protocol"] not in PRESETS:
        return
    preset = PRESETS[values["protocol"]]
    table = given if isinstance(given, dict) else {}
    if "baudrate" not in table:
        values["baudrate"] = preset.baudrate
    if "sensors" not in table:
        values["sensors"] = preset.sensors


def cross_checks(values: dict[str, dict[str, Any]], bad: set[str], checker: Checker) -> None:
    """Checks that involve more than one key (skipped when a key involved is bad)."""
    board, mqtt = values["board"], values["mqtt"]
    reads_lines = board["driver"] in ("serial", "usb")
    sensors_known = reads_lines and not {"board.driver", "board.protocol", "board.sensors"} & bad
    ultrasonic = sensors_known and "ultrasonic" in board["sensors"]
    if ultrasonic and board["protocol"] not in DARTS_CODE_PROTOCOLS:
        checker.add(
            "board.sensors",
            f"an ultrasonic takeout sensor is a DaSCR board's (protocol "
            f"{either(DARTS_CODE_PROTOCOLS)}); a board speaking {board['protocol']} "
            "has none",
        )
    if "board.driver" not in bad:
        if board["driver"] == "serial" and "board.port" not in bad and not board["port"]:
            checker.add("board.port", "the serial driver needs a port, such as /dev/oche-board")
        if board["driver"] == "usb":
            for key in ("usb_vid", "usb_pid"):
                if f"board.{key}" not in bad and not board[key]:
                    checker.add(f"board.{key}", "the usb driver needs usb_vid and usb_pid")
    serial_board = board["driver"] == "serial" and not {"board.driver", "board.protocol"} & bad
    if board["firmware"] and serial_board and board["protocol"] != "oche":
        checker.add(
            "board.firmware",
            f"firmware settings are sent in the oche protocol; a board speaking "
            f'{board["protocol"]} has none (set board.protocol = "oche" or drop them)',
        )
    operator = values["operator"]
    if operator["password_file"] and not operator["username"] and "operator.username" not in bad:
        checker.add("operator.password_file", "a password needs its account: set operator.username")
    tls = bool(mqtt["url"]) and "mqtt.url" not in bad and parse_broker_url(mqtt["url"]).tls
    if mqtt["ca_file"] and not ({"mqtt.url", "mqtt.ca_file"} & bad) and not tls:
        checker.add(
            "mqtt.ca_file",
            "a CA file is only used with TLS: make mqtt.url mqtts:// or wss://",
        )
