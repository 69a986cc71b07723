"""A player's throw spread sigma from the beds they hit while aiming at one bed.

The board reports beds, not positions, so sigma is the maximum-likelihood value
over the bed probabilities of the throw model: the log-likelihood
sum log P_sigma(bed hit | aim) is maximised over log sigma by golden-section search,
and the 95% interval is the likelihood-ratio one (sigma where the log-likelihood
is 1.92 below its maximum, chi-squared(1) 0.95 / 2). The aim is the bed's centre
(``engine.board_geometry.bed_centre``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry, bed_centre
from engine.bot_levels import level_for_sigma
from engine.throw_model import MIN_SIGMA_MM, bed_index, bed_probabilities

__all__ = ["MAX_ESTIMATE_MM", "SkillEstimate", "SkillEstimateError", "estimate_sigma"]

MAX_ESTIMATE_MM = 400.0
"""The widest sigma the estimate reports (wider is "hardly hits the board")."""

_HALF_CHI2_95 = 3.841458820694124 / 2
_GOLDEN = (math.sqrt(5) - 1) / 2
_FLOOR = 1e-300


class SkillEstimateError(ValueError):
    """Darts that give no estimate (none at all, or an aim that is not a bed)."""


@dataclass(frozen=True, slots=True)
class SkillEstimate:
    """sigma (mm) by maximum likelihood, the darts it rests on, its 95% interval
    and the bot level that throws like it."""

    sigma_mm: float
    darts: int
    interval: tuple[float, float]
    level: int

    def as_json(self) -> dict[str, Any]:
        return {
            "sigma_mm": round(self.sigma_mm, 2),
            "darts": self.darts,
            "interval": [round(self.interval[0], 2), round(self.interval[1], 2)],
            "level": self.level,
        }


def estimate_sigma(
    aim_bed: Bed, hits: Sequence[Bed], geometry: BoardGeometry = STEEL
) -> SkillEstimate:
    """sigma from ``hits`` thrown at the centre of ``aim_bed``."""
    if aim_bed.is_miss:
        raise SkillEstimateError("the aim must be a bed on the board, not a miss (M)")
    if not hits:
        raise SkillEstimateError("no darts to estimate from")
    aim = bed_centre(aim_bed, geometry)
    counts = Counter(bed_index(bed) for bed in hits)
    indices = np.array(sorted(counts))
    weights = np.array([counts[i] for i in indices], dtype=np.float64)

    def log_likelihood(log_sigma: float) -> float:
        chances = bed_probabilities(aim, math.exp(log_sigma), geometry)[indices]
        return float(weights @ np.log(np.maximum(chances, _FLOOR)))

    low, high = math.log(MIN_SIGMA_MM), math.log(MAX_ESTIMATE_MM)
    best = _maximise(log_likelihood, low, high)
    peak = log_likelihood(best)
    threshold = peak - _HALF_CHI2_95

    def edge(outer: float) -> float:
        if log_likelihood(outer) >= threshold:
            return outer
        inside, outside = best, outer
        for _ in range(40):
            middle = (inside + outside) / 2
            if log_likelihood(middle) >= threshold:
                inside = middle
            else:
                outside = middle
        return (inside + outside) / 2

    sigma = math.exp(best)
    return SkillEstimate(
        sigma_mm=sigma,
        darts=len(hits),
        interval=(math.exp(edge(low)), math.exp(edge(high))),
        level=level_for_sigma(sigma, geometry),
    )


def _maximise(function: Any, low: float, high: float) -> float:
    """The maximum of ``function`` on [low, high]: a coarse scan for the best
    bracket, then golden-section search inside it."""
    grid = np.linspace(low, high, 25)
    values = [function(float(x)) for x in grid]
    top = int(np.argmax(values))
    a = float(grid[max(0, top - 1)])
    b = float(grid[min(len(grid) - 1, top + 1)])
    c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    fc, fd = function(c), function(d)
    while b - a > 1e-5:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - _GOLDEN * (b - a)
            fc = function(c)
        else:
            a, c, fc = c, d, fd
            d = a + _GOLDEN * (b - a)
            fd = function(d)
    candidates = [(function(x), x) for x in (a, b, float(grid[top]))]
    return max(candidates)[1]
