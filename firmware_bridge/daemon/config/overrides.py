"""``--set section.key=value`` options applied on top of the file's tables,
each problem reported and marked ``(from --set)``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from firmware_bridge.daemon.config.errors import Checker, Invalid
from firmware_bridge.daemon.config.schema import KINDS, PATH_KEYS, unknown_key, unknown_top
from firmware_bridge.daemon.config.sections import SECTIONS
from firmware_bridge.daemon.config.toml_values import override_value

__all__ = ["apply_overrides"]


def apply_overrides(
    raw: dict[str, Any], overrides: Sequence[str], checker: Checker, from_set: set[str]
) -> None:
    for override in overrides:
        name, sep, text = override.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            checker.add(f"--set {override}", "expected section.key=value")
            continue
        section, dot, key = name.partition(".")
        if section not in SECTIONS:
            if not dot:
                homes = [s for s, keys in KINDS.items() if name in keys]
                hint = f"did you mean {homes[0]}.{name}?" if homes else "expected section.key"
                checker.add(name, f"--set needs section.key=value; {hint}")
            else:
                checker.add(section, unknown_top(section, {}) + " (from --set)")
            continue
        if not key:
            checker.add(name, "--set needs section.key=value")
            continue
        if section == "board" and key.partition(".")[0] == "firmware":
            _firmware_override(raw, name, text, checker, from_set)
            continue
        if key not in KINDS[section]:
            checker.add(name, unknown_key(section, key) + " (from --set)")
            continue
        if name == "credits.happy_hour":
            checker.add(name, "happy-hour windows are tables: write them in the config file")
            continue
        from_set.add(name)
        try:
            value = override_value(text, KINDS[section][key])
        except Invalid as problem:
            checker.add(name, str(problem))
            from_set.discard(name)  # the file's value, if bad too, is not blamed on --set
            continue
        if (section, key) in PATH_KEYS and isinstance(value, str) and value:
            value = os.path.expanduser(value)  # relative to the current directory
        table = raw.setdefault(section, {})
        if isinstance(table, dict):
            table[key] = value


def _firmware_override(
    raw: dict[str, Any], name: str, text: str, checker: Checker, from_set: set[str]
) -> None:
    """``--set board.firmware.SETTING=VALUE``: one firmware setting, an integer."""
    setting = name.split(".", 2)[2] if name.count(".") >= 2 else ""
    if not setting:
        checker.add(name, "set one firmware setting at a time: board.firmware.debounce_ms=30")
        return
    from_set.add(name)
    try:
        value = override_value(text, int)
    except Invalid as problem:
        checker.add(name, str(problem))
        from_set.discard(name)
        return
    board = raw.setdefault("board", {})
    table = board.setdefault("firmware", {}) if isinstance(board, dict) else None
    if isinstance(table, dict):
        table[setting] = value
