"""What a skill test tells a player: their spread sigma from the beds they hit,
the level that throws like them, where they should aim for points and how
they should take common finishes (docs/games/skill-test.md).

It joins :func:`engine.skill_estimate.estimate_sigma`,
:func:`engine.throw_model.best_scoring_aim` and the X01 plan's checkout routes
(:mod:`engine.checkout_plan`) into the JSON the ``skill-test`` game puts in its
state (and so in the result document). Like them it imports numpy, so the game
imports this module only when a player has thrown all their darts: importing
``engine`` still loads no numpy. Reports are cached per target, hits and board.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from engine.beds import Bed
from engine.board_geometry import GEOMETRIES, BoardGeometry
from engine.checkout import checkout
from engine.checkout_plan import plan_for, planned_route
from engine.skill_estimate import estimate_sigma
from engine.throw_model import best_scoring_aim

__all__ = ["CHECKOUT_SCORES", "skill_report"]

CHECKOUT_SCORES = (40, 32, 36, 50, 60, 100, 170)
"""The finishes a report gives advice for: the favourite doubles, the bull
and a few common two- and three-dart finishes (double out)."""

_DARTS = 3


def skill_report(
    target: Bed, hits: Iterable[Bed], geometry: BoardGeometry | str = "steel"
) -> dict[str, Any]:
    """The report (JSON) for ``hits`` thrown at the centre of ``target``: the
    estimate, the best scoring aim and checkout advice for that sigma."""
    board = GEOMETRIES[geometry] if isinstance(geometry, str) else geometry
    counts = Counter(bed.notation for bed in hits)
    return copy.deepcopy(_report(target, tuple(sorted(counts.items())), board))


@lru_cache(maxsize=64)
def _report(
    target: Bed, counts: tuple[tuple[str, int], ...], geometry: BoardGeometry
) -> dict[str, Any]:
    hits = [Bed.parse(notation) for notation, count in counts for _ in range(count)]
    estimate = estimate_sigma(target, hits, geometry)
    sigma = estimate.sigma_mm
    plan = plan_for(sigma, "double", geometry)
    checkouts = []
    for score in CHECKOUT_SCORES:
        first = plan.aim(score, _DARTS, score)
        route = planned_route(sigma, score, geometry=geometry) or ()
        checkouts.append(
            {
                "score": score,
                "aim": first.bed.notation,
                "aim_mm": [round(first.x_mm, 2), round(first.y_mm, 2)],
                "route": [bed.notation for bed in route],
                "finishes": sum(bed.points for bed in route) == score,
                "table": [bed.notation for bed in checkout(score) or ()],
                "expected_darts": round(plan.expected_darts(score), 2),
            }
        )
    best = best_scoring_aim(sigma, geometry)
    return {
        **estimate.as_json(),
        "geometry": geometry.name,
        "best_aim": best.as_json(),
        "best_average": round(3 * best.expected, 2),
        "checkouts": checkouts,
    }
