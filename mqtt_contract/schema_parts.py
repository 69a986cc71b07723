"""The pieces every payload schema is built of: the draft, an index, a bed,
a timestamp (bounded before 2100), a bed in any case.
"""

from __future__ import annotations

from typing import Any

from engine.state_schema import BED_NOTATION_PATTERN

DRAFT = "https://json-schema.org/draft/2020-12/schema"
INDEX: dict[str, Any] = {"type": "integer", "minimum": 0}
BED: dict[str, Any] = {"type": "string", "pattern": BED_NOTATION_PATTERN}
LATEST_TIMESTAMP = 4102444800.0
"""2100-01-01 00:00 UTC: no time in any payload may be later (a bound, so that
a stored time never breaks a date calculation)."""

TIMESTAMP: dict[str, Any] = {
    "description": "Unix time in seconds (float), before 2100.",
    "type": "number",
    "minimum": 0,
    "maximum": LATEST_TIMESTAMP,
}
BED_ANY_CASE = r"^\s*([SsDdTt]([1-9]|1[0-9]|20)|[Ss][Bb]|[Dd][Bb]|[Mm])\s*$"  # what Bed.parse reads
