"""X01's ring rules: which darts may open (``in``) or finish (``out``) a side.
Apart from the game so the checkout table and the X01 strategy, which the
game itself asks for hints, need not import it (no import cycle)."""

from __future__ import annotations

__all__ = ["ALLOWED_MULTIPLIERS", "RING_RULES"]

RING_RULES = ("straight", "double", "master")

ALLOWED_MULTIPLIERS = {
    "straight": frozenset({0, 1, 2, 3}),
    "double": frozenset({2}),
    "master": frozenset({2, 3}),
}
"""Multipliers a dart needs to open (``in``) or finish (``out``) under each
rule of :data:`RING_RULES`. The inner bull has multiplier 2, so it is a
double everywhere."""
