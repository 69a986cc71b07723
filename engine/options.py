"""Typed game options: each game declares its options, callers pass values as
text (command line) or JSON values (MQTT), and get back checked, typed values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import OptionError

__all__ = ["Option", "OptionValue", "resolve_options"]

OptionValue = int | str | bool

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_INTEGER = re.compile(r"[+-]?[0-9]+")
_KIND_WORDS = {"bool": "true or false", "int": "a whole number", "str": "a word"}


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a game: its name, default (which fixes its type), the
    allowed values (``choices``) or bounds (``minimum``, ``maximum``), and a help line.
    A ``per_game`` option (a shuffle seed) is not a player's choice: a caller
    that starts games for players draws a fresh value for each game, within
    the bounds, and does not offer it. An option that is not ``offered`` is
    left out of a setup screen too: its value comes from elsewhere (X01's
    ``checkout_sigma_mm``, a player's measured spread), not from a few tiles."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    per_game: bool = False
    offered: bool = True

    @property
    def kind(self) -> str:
        """``bool``, ``int`` or ``str``: the type every value is coerced to."""
        return type(self.default).__name__

    def coerce(self, value: object) -> OptionValue:
        """Check and convert ``value`` (text or a JSON value) to this option's type."""
        typed = self._typed(value)
        number = typed if isinstance(typed, int) and not isinstance(typed, bool) else None
        too_small = number is not None and self.minimum is not None and number < self.minimum
        too_big = number is not None and self.maximum is not None and number > self.maximum
        if (self.choices and typed not in self.choices) or too_small or too_big:
            raise OptionError(f"option {self.name!r}: {value!r} is not {self.describe()}")
        return typed

    def describe(self) -> str:
        """What values the option takes, for help and error messages."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"a whole number from {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"a whole number from {self.minimum}"
        return _KIND_WORDS[self.kind]

    def _typed(self, value: object) -> OptionValue:
        bad = OptionError(f"option {self.name!r}: {value!r} is not {self.describe()}")
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise bad
        if isinstance(self.default, int):
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)  # JSON has one number type: 301.0 is 301
            if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
                return int(value.strip())
            raise bad
        if isinstance(value, str):
            return value.strip().lower()
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)  # JSON has numbers: 25 for a word option that takes "25"
        raise bad


def resolve_options(
    spec: tuple[Option, ...], given: Mapping[str, object] | None, game_id: str
) -> dict[str, OptionValue]:
    """Every option of ``spec`` with its value from ``given`` or its default.

    Names are read in any case. An unknown name is an error that lists the
    options the game has.
    """
    by_name = {option.name: option for option in spec}
    given = {str(name).strip().lower(): value for name, value in (given or {}).items()}
    for name in given:
        if name not in by_name:
            valid = ", ".join(by_name) or "none"
            raise OptionError(f"{game_id} has no option {name!r}; its options are: {valid}")
    return {
        option.name: option.coerce(given[option.name]) if option.name in given else option.default
        for option in spec
    }
