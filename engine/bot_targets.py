"""The whole-leg 501 averages the computer player's levels 1-10 play: plain
numbers, without numpy, so the MQTT contract can check a ``new_game``'s
``{"cpu": ...}`` without loading the throw model (``engine.bot_levels`` reads
each level's calibrated spread, benchmarks/calibrate_bots.py computes it)."""

from __future__ import annotations

__all__ = ["LEVELS", "MPR_SPAN", "TARGET_AVERAGES"]

TARGET_AVERAGES = (20.0, 29.0, 38.0, 47.0, 56.0, 65.0, 74.0, 83.0, 92.0, 101.0)
"""The three-dart average over whole legs of 501 double out (checkout included)
each level 1-10 plays: a beginner at 20, a top professional at 101, even steps
between."""

LEVELS = tuple(range(1, len(TARGET_AVERAGES) + 1))
"""The level numbers, 1 to 10."""

MPR_SPAN = (0.67, 4.3)
"""The Cricket marks per round (alone) a bot can be asked for
(``{"cpu": {"mpr": m}}``): level 1's to level 10's, rounded inward so that
every calibrated board reaches both ends."""
