"""Pieces of JSON Schema (draft 2020-12) that the state schema and the games'
own fragments share. Plain data, no I/O, no games: each game module builds its
``state_schema`` from these, and :mod:`engine.state_schema` puts them together."""

from __future__ import annotations

from typing import Any

__all__ = [
    "BED_NOTATION_PATTERN",
    "NON_NEGATIVE_INT",
    "NON_NEGATIVE_NUMBER",
    "TILE_NOTATION_PATTERN",
    "every_player",
]

BED_NOTATION_PATTERN = r"^(S|D|T)([1-9]|1[0-9]|20)$|^(SB|DB|M)$"
"""A dart in canonical notation: S1-S20, D1-D20, T1-T20, SB, DB or M."""

TILE_NOTATION_PATTERN = r"^[0-6]-[0-6]$"
"""A domino of the double-six set, low end first: 0-0 to 6-6."""

NON_NEGATIVE_INT: dict[str, Any] = {"type": "integer", "minimum": 0}
NON_NEGATIVE_NUMBER: dict[str, Any] = {"type": "number", "minimum": 0}


def every_player(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema that every item of the state's ``players`` also matches ``schema``."""
    return {"properties": {"players": {"items": schema}}}
