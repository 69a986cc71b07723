"""Unix seconds as the pages print them, for any time a database holds: a
time outside the contract's bounds (before 1970, from 2100 on, not finite:
stored before the bound existed) prints as "date unknown", never an error."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from mqtt_contract import LATEST_TIMESTAMP

__all__ = ["UNKNOWN_DATE", "is_date", "utc_text"]

UNKNOWN_DATE = "date unknown"
"""What a page shows for a time that is no date."""


def is_date(at: float) -> bool:
    """Whether ``at`` (Unix seconds) is a date the contract allows."""
    return math.isfinite(at) and 0 <= at < LATEST_TIMESTAMP


def utc_text(at: float, pattern: str) -> str:
    """``at`` in UTC with the ``strftime`` ``pattern``, or :data:`UNKNOWN_DATE`."""
    if not is_date(at):
        return UNKNOWN_DATE
    return datetime.fromtimestamp(at, UTC).strftime(pattern)
