"""A TOML text made into a :class:`Config`: paths resolved, ``--set``
applied, every section and key typed and checked, every problem raised at
once in one :class:`ConfigError`, ordered by section."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import MISSING, Field, fields
from pathlib import Path
from typing import Any

from drivers.protocol import FirmwareSettings
from firmware_bridge.daemon.config.cross_checks import board_preset, cross_checks
from firmware_bridge.daemon.config.errors import Checker, ConfigError, Invalid, describe
from firmware_bridge.daemon.config.overrides import apply_overrides
from firmware_bridge.daemon.config.schema import KINDS, PATH_KEYS, unknown_key, unknown_top
from firmware_bridge.daemon.config.sections import SECTIONS, Config
from firmware_bridge.daemon.config.table_checks import firmware_settings, happy_hours
from firmware_bridge.daemon.config.toml_values import syntax_error, typed
from firmware_bridge.daemon.config.value_checks import CHECKS

__all__ = ["parse_config"]


def _default(key: Field[Any]) -> Any:
    """A key's default, made fresh when it is a table (``default_factory``)."""
    if key.default_factory is not MISSING:
        return key.default_factory()
    return key.default


def parse_config(
    text: str,
    origin: str,
    overrides: Sequence[str] = (),
    *,
    base_dir: Path | None = None,
) -> Config:
    """The config a TOML ``text`` describes, with ``overrides`` applied.

    ``origin`` names the text in errors and becomes ``Config.source``.
    Relative paths in ``text`` are taken relative to ``base_dir`` (when given);
    relative paths in ``overrides`` relative to the current directory.
    Raises :class:`ConfigError` listing every problem."""
    try:
        raw: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(syntax_error(error), origin=origin) from None

    # Paths in the file: ~ expanded, relative to the file's directory.
    for section, key in PATH_KEYS:
        table = raw.get(section)
        if isinstance(table, dict) and isinstance(table.get(key), str) and table[key]:
            path = os.path.expanduser(table[key])
            table[key] = os.path.join(base_dir, path) if base_dir is not None else path

    from_set: set[str] = set()
    checker = Checker(from_set)
    apply_overrides(raw, overrides, checker, from_set)

    for key, value in raw.items():
        if key not in SECTIONS:
            checker.add(key, unknown_top(key, value))

    values: dict[str, dict[str, Any]] = {}
    bad: set[str] = set()
    for section, cls in SECTIONS.items():
        defaults = {f.name: _default(f) for f in fields(cls)}
        values[section] = defaults
        table = raw.get(section, {})
        if not isinstance(table, dict):
            checker.add(section, f"expected a table ([{section}]), got {describe(table)}")
            bad.update(f"{section}.{key}" for key in defaults)
            continue
        for key in table:
            if key not in defaults:
                checker.add(f"{section}.{key}", unknown_key(section, key))
        for key, kind in KINDS[section].items():
            if key not in table:
                continue
            path = f"{section}.{key}"
            if kind is FirmwareSettings:
                settings = firmware_settings(table[key], checker)
                if settings is None:
                    bad.add(path)
                else:
                    defaults[key] = settings
                continue
            if path == "credits.happy_hour":
                windows = happy_hours(table[key], checker)
                if windows is None:
                    bad.add(path)
                else:
                    defaults[key] = windows
                continue
            try:
                value = typed(table[key], kind)
            except Invalid as problem:
                checker.add(path, str(problem))
                bad.add(path)
                continue
            check = CHECKS[section].get(key)
            problem_text = check(value) if check is not None else None
            if problem_text is not None:
                checker.add(path, problem_text)
                bad.add(path)
                continue
            if path in ("board.usb_vid", "board.usb_pid", "log.level"):
                value = str(value).lower()
            defaults[key] = value
    board_preset(values["board"], raw.get("board"), bad)
    cross_checks(values, bad, checker)

    if checker.errors:
        order = {section: index for index, section in enumerate(SECTIONS, 1)}
        errors = sorted(checker.errors, key=lambda error: order.get(re.split("[.:]", error)[0], 0))
        raise ConfigError(errors, origin=origin)
    built = {section: cls(**values[section]) for section, cls in SECTIONS.items()}
    return Config(**built, source=origin)
