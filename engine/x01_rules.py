"""X01's ring rules: which darts may open (``in``) or finish (``out``) a side,
and how the bull scores (``bull``). Apart from the game so the checkout table
and the X01 strategy, which the game itself asks for hints, need not import it
(no import cycle)."""

from __future__ import annotations

from engine.beds import DB, SB, Bed

__all__ = ["ALLOWED_MULTIPLIERS", "BULL_RULES", "FAT_BULL", "RING_RULES", "as_scored"]

RING_RULES = ("straight", "double", "master")

ALLOWED_MULTIPLIERS = {
    "straight": frozenset({0, 1, 2, 3}),
    "double": frozenset({2}),
    "master": frozenset({2, 3}),
}
"""Multipliers a dart needs to open (``in``) or finish (``out``) under each
rule of :data:`RING_RULES`. The inner bull has multiplier 2, so it is a
double everywhere."""

BULL_RULES = ("split", "fat")
"""How the bull scores: ``split`` (the steel rules: outer bull 25, inner bull
50) or ``fat`` (the soft-tip default: the whole bull 50)."""

FAT_BULL = "fat"


def as_scored(bed: Bed, bull: str) -> Bed:
    """The bed a dart counts as under the ``bull`` rule: with the fat bull the
    outer bull is the inner bull (50, and a double for the in and out rules, as
    soft-tip machines count it: docs/games/x01.md, "The bull"); else ``bed``."""
    return DB if bull == FAT_BULL and bed == SB else bed
