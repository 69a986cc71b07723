"""The base of the errors board I/O raises on bad input (maps, scripts, settings)."""

from __future__ import annotations

__all__ = ["DriverError"]


class DriverError(ValueError):
    """Bad input to a driver: a matrix map, a simulated script, a board setting."""
