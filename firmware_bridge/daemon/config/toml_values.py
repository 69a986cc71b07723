"""TOML values read and typed: a syntax error as ``line L, column C``, a
value checked against its key's type, and a ``--set`` value read as its key's
type (bare strings allowed). A bad value raises :class:`Invalid`."""

from __future__ import annotations

import math
import re
import tomllib
from typing import Any, get_args, get_origin

from firmware_bridge.daemon.config.errors import Invalid, describe, show_value

__all__ = ["override_value", "syntax_error", "typed"]


_TOML_ERROR_AT = re.compile(r"^(.*?)\s*\(at line (\d+), column (\d+)\)$", re.DOTALL)
_TOML_ERROR_EOF = re.compile(r"^(.*?)\s*\(at end of document\)$", re.DOTALL)


def syntax_error(error: tomllib.TOMLDecodeError) -> str:
    message = str(error)
    at = _TOML_ERROR_AT.match(message)
    if at:
        return f"line {at.group(2)}, column {at.group(3)}: not valid TOML: {at.group(1)}"
    eof = _TOML_ERROR_EOF.match(message)
    if eof:
        return f"end of file: not valid TOML: {eof.group(1)}"
    return f"not valid TOML: {message}"


_EXPECTED = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def typed(value: object, kind: type[Any]) -> object:
    """``value`` as ``kind`` (an integer is also a float; a table of strings for
    ``dict[str, str]``, of integers for ``dict[str, int]``, an array of
    strings or integers for ``tuple[str, ...]`` and ``tuple[int, ...]``), or
    :class:`Invalid`."""
    if get_origin(kind) is tuple:
        item_kind = get_args(kind)[0]
        what = "strings" if item_kind is str else "integers"
        if not isinstance(value, list | tuple):
            raise Invalid(f"expected an array of {what}, got {describe(value)}")
        for position, item in enumerate(value):
            if item_kind is int and (isinstance(item, bool) or not isinstance(item, int)):
                raise Invalid(f"[{position}]: expected an integer, got {describe(item)}")
            if item_kind is str and not isinstance(item, str):
                raise Invalid(f"[{position}]: expected a string, got {describe(item)}")
        return tuple(value)
    if get_origin(kind) is dict:
        item_kind = get_args(kind)[1]
        what = "strings" if item_kind is str else "integers"
        if not isinstance(value, dict):
            raise Invalid(f"expected a table of {what}, got {describe(value)}")
        for key, item in value.items():
            if item_kind is int and (isinstance(item, bool) or not isinstance(item, int)):
                raise Invalid(f"{key}: expected an integer, got {describe(item)}")
            if item_kind is str and not isinstance(item, str):
                raise Invalid(f"{key}: expected a string, got {describe(item)}")
        return dict(value)
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise Invalid(f"expected a finite number, got {value}")
        return float(value)
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise Invalid(f"expected {_EXPECTED[kind]}, got {describe(value)}")
    return value


def _toml_scalar(text: str) -> object:
    """``text`` read as a TOML value, or :class:`Invalid`."""
    if "\n" in text or "\r" in text:
        raise Invalid("a value must be on one line")
    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        raise Invalid(f"{show_value(text)} is not a valid value") from None
    if list(document) != ["value"]:
        raise Invalid(f"{show_value(text)} is not a valid value")
    return document["value"]


def override_value(text: str, kind: type[Any]) -> object:
    """A ``--set`` value read with its key's type: ``true``/``false``, numbers,
    and strings bare or in TOML quotes."""
    if get_origin(kind) in (dict, tuple):
        return typed(_toml_scalar(text), kind)
    if kind is str:
        if text[:1] in ('"', "'"):
            value = _toml_scalar(text)
            if not isinstance(value, str):
                raise Invalid(f"{show_value(text)} is not a quoted string")
            return value
        return text
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise Invalid(f"expected true or false, got {show_value(text)}")
    try:
        value = _toml_scalar(text)
    except Invalid:
        raise Invalid(f"expected {_EXPECTED[kind]}, got {show_value(text)}") from None
    if isinstance(value, str):  # e.g. a quoted number
        raise Invalid(f"expected {_EXPECTED[kind]}, got {show_value(text)}")
    return typed(value, kind)
