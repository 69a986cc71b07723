"""The firmware obeys the one settings table of docs/protocol.md: its checks
of ``oche_config.py`` and of ``C`` frames take exactly minimum..maximum, and
every default (the table, the host's, the firmware's, the shipped
``oche_config.py``) is the same. The range checks of the host are in
tests/drivers/test_protocol.py; here they run under CPython and under the real
MicroPython."""

from __future__ import annotations

import inspect
import re
import sys
import types
from pathlib import Path

import pytest

from drivers import protocol
from tests.firmware.mcu import MCU_DIR, coins, debounce, frames, main, matrix_scan, oche_config
from tests.firmware.test_firmware_loop import COLS, ROWS, Rig, kinds
from tests.firmware.test_micropython import run, tool
from tests.protocol_vectors import SettingRow, settings_table

SETTINGS = settings_table()
SCRIPT = Path(__file__).with_name("micropython_settings.py")
UNITS = {"ms": "ms", "hz": "Hz", "us": "µs"}
"""The unit each name's suffix promises."""


def by_name(row: SettingRow) -> str:
    return row.name


def test_the_firmware_has_the_documented_table() -> None:
    assert [row.name for row in SETTINGS] == list(main.SETTINGS)
    for row in SETTINGS:
        assert main.SETTINGS[row.name] == (row.minimum, row.maximum, row.default), row.name
        assert UNITS[row.name.rsplit("_", 1)[1]] == row.unit, row.name
    assert tuple(row.name for row in SETTINGS if row.host_may_set) == main.HOST_SETTINGS
    assert main.HOST_SETTINGS == protocol.CONFIG_KEYS


@pytest.mark.parametrize("row", SETTINGS, ids=by_name)
def test_oche_config_takes_exactly_the_documented_range(row: SettingRow) -> None:
    for value in (row.minimum, row.maximum):
        assert getattr(main.Config(ROWS, COLS, **{row.name: value}), row.name) == value
    refused = f"oche_config: {row.name} must be a whole number from {row.minimum} to {row.maximum}"
    for value in (row.minimum - 1, row.maximum + 1):
        with pytest.raises(ValueError, match=refused):
            main.Config(ROWS, COLS, **{row.name: value})


@pytest.mark.parametrize("row", [row for row in SETTINGS if row.host_may_set], ids=by_name)
def test_a_c_frame_takes_exactly_the_documented_range(row: SettingRow) -> None:
    """Through the whole firmware: the host's frame, the firmware's host input,
    its answer read by the host's decoder."""
    for value in (row.minimum, row.maximum):
        rig = Rig()
        rig.boot()
        assert rig.send(protocol.Configure(1, row.name, value)) == []
        assert getattr(rig.firmware, row.name) == value
    for value in (row.minimum - 1, row.maximum + 1):
        rig = Rig()
        rig.boot()
        assert kinds(rig.send(protocol.Configure(1, row.name, value))) == [
            ("E", frames.ERR_OUT_OF_RANGE)
        ]
        assert getattr(rig.firmware, row.name) == row.default


@pytest.mark.parametrize("row", [row for row in SETTINGS if not row.host_may_set], ids=by_name)
def test_a_c_frame_cannot_set_what_only_oche_config_holds(row: SettingRow) -> None:
    rig = Rig()
    rig.boot()
    assert kinds(rig.send(protocol.Configure(1, row.name, row.minimum))) == [
        ("E", frames.ERR_UNKNOWN_SETTING)
    ]
    assert oche_config_value(rig.firmware, row.name) == row.default


def oche_config_value(firmware: object, name: str) -> int:
    """What the firmware runs with for a setting only ``oche_config.py`` holds."""
    if name.startswith("coin_"):
        return int(getattr(firmware.coins, name.removeprefix("coin_")))  # type: ignore[attr-defined]
    return int(firmware.scanner.settle_us)  # type: ignore[attr-defined]


@pytest.mark.parametrize("row", SETTINGS, ids=by_name)
def test_every_default_is_the_documented_one(row: SettingRow) -> None:
    assert getattr(oche_config, row.name) == row.default  # the shipped file
    assert getattr(main.Config(ROWS, COLS), row.name) == row.default
    bare = types.SimpleNamespace(row_pins=ROWS, col_pins=COLS)  # an oche_config without it
    assert getattr(main.Config.from_module(bare), row.name) == row.default
    if row.host_may_set:
        assert protocol.SETTINGS[row.name].default == row.default
        firmware = Rig().firmware
        assert getattr(firmware, row.name) == row.default
        if row.name in inspect.signature(debounce.Debouncer).parameters:
            assert inspect.signature(debounce.Debouncer).parameters[row.name].default == (
                row.default
            )
    elif row.name.startswith("coin_"):
        parameter = row.name.removeprefix("coin_")
        assert inspect.signature(coins.CoinFilter).parameters[parameter].default == row.default
    else:
        assert inspect.signature(matrix_scan.MatrixScanner).parameters[row.name].default == (
            row.default
        )


@pytest.mark.parametrize("row", SETTINGS, ids=by_name)
def test_oche_config_comments_give_the_documented_range(row: SettingRow) -> None:
    """A builder edits oche_config.py on the board: its comment on each setting
    states the range, which must be the table's."""
    text = (MCU_DIR / "oche_config.py").read_text("utf-8")
    comment = re.search(rf"((?:^#.*\n)+)^{row.name} = ", text, re.MULTILINE)
    assert comment is not None, row.name
    assert f"({row.minimum}-{row.maximum})" in comment.group(1), comment.group(1)


def expected_settings_output() -> str:
    """What micropython_settings.py must print, from the table alone."""
    lines = []
    for row in SETTINGS:
        lines.append(f"{row.name} default {row.default}")
        for value in (row.minimum - 1, row.minimum, row.maximum, row.maximum + 1):
            inside = row.minimum <= value <= row.maximum
            answer = "-"
            if value >= 0:
                if not row.host_may_set:
                    code = frames.ERR_UNKNOWN_SETTING
                else:
                    code = 0 if inside else frames.ERR_OUT_OF_RANGE
                answer = (
                    protocol.encode_frame(protocol.FirmwareError(0, code)).decode().strip()
                    if code
                    else "applied"
                )
            lines.append(f"{row.name} {value} config {'ok' if inside else 'refused'} c {answer}")
    return "\n".join(lines) + "\n"


def settings_arguments() -> list[str]:
    return [f"{row.name}:{row.minimum}:{row.maximum}:{int(row.host_may_set)}" for row in SETTINGS]


def test_cpython_runs_the_settings_check_as_the_table_says() -> None:
    command = [sys.executable, "-B", str(SCRIPT), *settings_arguments()]
    assert run(command, "CPython") == expected_settings_output()


def test_micropython_obeys_the_settings_table() -> None:
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    command = [micropython, str(SCRIPT), *settings_arguments()]
    assert run(command, "MicroPython") == expected_settings_output()
