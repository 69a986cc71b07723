"""What keys the sections have: each key's type (read from the dataclasses),
the keys holding file paths, and what an unknown key or section is told
(the closest name, or where the key belongs)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, get_type_hints

from firmware_bridge.daemon.config.errors import suggest
from firmware_bridge.daemon.config.sections import SECTIONS

__all__ = ["KINDS", "PATH_KEYS", "unknown_key", "unknown_top"]


KINDS: dict[str, dict[str, type[Any]]] = {
    name: {f.name: get_type_hints(cls)[f.name] for f in fields(cls)}
    for name, cls in SECTIONS.items()
}
"""Each section's keys and their types (str, int, float or bool; and
``board.firmware``, a table of :class:`FirmwareSettings`)."""

PATH_KEYS = {
    ("board", "map"),
    ("mqtt", "password_file"),
    ("mqtt", "ca_file"),
    ("journal", "path"),
    ("operator", "password_file"),
}
"""Keys holding file paths: ``~`` expanded, relative to the config file."""


def unknown_key(section: str, key: str) -> str:
    """The message for an unknown key of ``section``, with the best suggestion."""
    close = suggest(key, KINDS[section])
    if close:
        return f'unknown key; did you mean "{close}"?'
    elsewhere = [name for name, keys in KINDS.items() if key in keys]
    if elsewhere:
        return f"unknown key in [{section}]; did you mean {elsewhere[0]}.{key}?"
    return f"unknown key; the keys of [{section}] are {', '.join(KINDS[section])}"


def unknown_top(key: str, value: object) -> str:
    """The message for an unknown top-level key or section."""
    sections = ", ".join(SECTIONS)
    homes = [name for name, keys in KINDS.items() if key in keys]
    if homes and not isinstance(value, dict):
        return f"not in a section; did you mean {homes[0]}.{key} (under [{homes[0]}])?"
    close = suggest(key, SECTIONS)
    if close:
        return f'unknown section; did you mean "{close}"?'
    return f"unknown section; the sections are {sections}"
