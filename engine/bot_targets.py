"""The three-dart averages the computer player's levels 1-10 are built for:
plain numbers, without numpy, so the MQTT contract can check a ``new_game``'s
``{"cpu": ...}`` without loading the throw model (``engine.bot_levels`` solves
each level's spread from these)."""

from __future__ import annotations

__all__ = ["LEVELS", "TARGET_AVERAGES"]

TARGET_AVERAGES = (20.0, 29.0, 38.0, 47.0, 56.0, 65.0, 74.0, 83.0, 92.0, 101.0)
"""The three-dart average each level 1-10 is built for: a beginner at 20, a
strong league player at 101, even steps between."""

LEVELS = tuple(range(1, len(TARGET_AVERAGES) + 1))
"""The level numbers, 1 to 10."""
