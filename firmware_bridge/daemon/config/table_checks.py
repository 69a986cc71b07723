"""The tables inside sections that are not plain keys: ``[board.firmware]``
(each setting the host may change, in its range) and
``[[credits.happy_hour]]`` (each window's keys)."""

from __future__ import annotations

from drivers.protocol import SETTINGS, FirmwareSettings, check_setting
from firmware_bridge.daemon.config.errors import Checker, describe, either, show_value, suggest
from firmware_bridge.daemon.credits import DAYS, HappyHour, clock_minutes

__all__ = ["firmware_settings", "happy_hours"]


_HAPPY_HOUR_KEYS = ("days", "start", "end", "price_multiplier", "bonus_per_pulse")


def happy_hours(value: object, checker: Checker) -> tuple[HappyHour, ...] | None:
    """``[[credits.happy_hour]]``: each window's keys checked, every problem
    reported as ``credits.happy_hour[N].key``. ``None`` after reporting."""
    if not isinstance(value, list):
        checker.add(
            "credits.happy_hour",
            f"expected an array of tables ([[credits.happy_hour]]), got {describe(value)}",
        )
        return None
    windows: list[HappyHour] = []
    ok = True
    for index, table in enumerate(value):
        path = f"credits.happy_hour[{index}]"
        if not isinstance(table, dict):
            checker.add(path, f"expected a table, got {describe(table)}")
            ok = False
            continue
        problems = len(checker.errors)
        for key in table:
            if key not in _HAPPY_HOUR_KEYS:
                close = suggest(key, _HAPPY_HOUR_KEYS)
                hint = f'did you mean "{close}"?' if close else f"use {either(_HAPPY_HOUR_KEYS)}"
                checker.add(f"{path}.{key}", f"unknown key; {hint}")
        for key in ("start", "end"):
            if key not in table:
                checker.add(f"{path}.{key}", "missing: a window needs start and end (HH:MM)")
            elif not isinstance(table[key], str):
                checker.add(
                    f"{path}.{key}", f"expected a string (HH:MM), got {describe(table[key])}"
                )
            else:
                try:
                    clock_minutes(table[key])
                except ValueError as error:
                    checker.add(f"{path}.{key}", str(error))
        days = table.get("days", [])
        if not isinstance(days, list) or not all(isinstance(day, str) for day in days):
            checker.add(f"{path}.days", 'expected an array of days such as ["fri", "sat"]')
        else:
            for day in days:
                if day.lower() not in DAYS:
                    checker.add(
                        f"{path}.days", f"{show_value(day)} is not a day; use {', '.join(DAYS)}"
                    )
        multiplier = table.get("price_multiplier", 1.0)
        if isinstance(multiplier, bool) or not isinstance(multiplier, int | float):
            checker.add(
                f"{path}.price_multiplier", f"expected a number, got {describe(multiplier)}"
            )
        elif not 0 <= multiplier <= 10:
            checker.add(f"{path}.price_multiplier", f"must be 0 to 10, not {multiplier:g}")
        bonus = table.get("bonus_per_pulse", 0)
        if isinstance(bonus, bool) or not isinstance(bonus, int):
            checker.add(f"{path}.bonus_per_pulse", f"expected an integer, got {describe(bonus)}")
        elif not 0 <= bonus <= 1000:
            checker.add(f"{path}.bonus_per_pulse", f"must be 0 to 1000, not {bonus}")
        if len(checker.errors) != problems:
            ok = False
            continue
        windows.append(
            HappyHour(
                start=table["start"],
                end=table["end"],
                days=tuple(day.lower() for day in days),
                price_multiplier=float(multiplier),
                bonus_per_pulse=bonus,
            )
        )
    return tuple(windows) if ok else None


def firmware_settings(table: object, checker: Checker) -> FirmwareSettings | None:
    """``[board.firmware]`` checked against the settings table: each key a
    setting the host may change, each value in its range. ``None`` after
    reporting every problem."""
    if not isinstance(table, dict):
        checker.add("board.firmware", f"expected a table ([board.firmware]), got {describe(table)}")
        return None
    values: dict[str, int] = {}
    for key, value in table.items():
        path = f"board.firmware.{key}"
        if key not in SETTINGS:
            close = suggest(key, SETTINGS)
            checker.add(
                path,
                f'unknown setting; did you mean "{close}"?'
                if close
                else f"unknown setting; the host may change {either(SETTINGS)}, the others "
                "are set in the firmware's oche_config.py (docs/protocol.md#settings)",
            )
            continue
        try:
            values[key] = check_setting(key, value)
        except ValueError as problem:
            checker.add(path, str(problem).removeprefix(f"{key} "))
    return FirmwareSettings.of(values) if len(values) == len(table) else None
