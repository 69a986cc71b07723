"""How the config says what is wrong: :class:`ConfigError` (every problem at
once), the :class:`Checker` that collects them, and the words for a value
(``show_value``, ``describe``, ``suggest``, ``either``) every message uses."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable

__all__ = [
    "SECRET_KEYS",
    "SECRET_PROBLEMS",
    "Checker",
    "ConfigError",
    "Invalid",
    "describe",
    "either",
    "show_value",
    "suggest",
]

SECRET_KEYS = frozenset({"cards.secret"})
"""Keys whose value no message may show: a problem says what is wrong, not what is there."""

SECRET_PROBLEMS = (
    "is shorter than 16 characters: make one with `oche cards secret`",
    "must be printable characters without spaces",
)
"""The problems a secret key's own check reports; any other is told as :data:`_SECRET_UNSHOWN`."""

_SECRET_UNSHOWN = (
    "expected a string of at least 16 characters (`oche cards secret` makes one); "
    "the value is a secret, so it is not shown"
)


class ConfigError(ValueError):
    """Everything wrong with a config, each as ``key.path: what is wrong``.

    ``str()`` gives one line per problem, each after ``<origin>: `` (the file,
    ``defaults`` or nothing when ``origin`` is empty)."""

    def __init__(self, errors: str | Iterable[str], origin: str = "") -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        self.origin = origin
        super().__init__(str(self))

    def __str__(self) -> str:
        prefix = f"{self.origin}: " if self.origin else ""
        return "\n".join(prefix + error for error in self.errors)


def show_value(value: object) -> str:
    """A value as TOML would spell it (strings in double quotes), shortened."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to ``word`` (for "did you mean"), ``None`` when none is close."""
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def either(names: Iterable[str]) -> str:
    """``a, b or c``."""
    *head, last = names
    return f"{', '.join(head)} or {last}" if head else last


class Invalid(Exception):
    """One value's problem, without its key path."""


def describe(value: object) -> str:
    """What a TOML value is, for "expected X, got Y"."""
    if isinstance(value, bool):
        return f"a boolean ({show_value(value)})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({show_value(value)})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a date/time ({value})"


class Checker:
    """Collects problems as ``key.path: message``, marking ``--set`` values."""

    def __init__(self, from_set: set[str]) -> None:
        self.errors: list[str] = []
        self.from_set = from_set

    def add(self, path: str, message: str) -> None:
        if path in SECRET_KEYS and message not in SECRET_PROBLEMS:
            message = _SECRET_UNSHOWN  # a type error would quote the value
        suffix = " (from --set)" if path in self.from_set else ""
        self.errors.append(f"{path}: {message}{suffix}")
