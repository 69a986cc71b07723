"""Checkout routes that suit a player's accuracy: the darts the X01 plan for
their spread sigma throws from a score (``engine.strategy.x01``), each dart
landing in the bed it aims at, instead of the fixed table of
``engine.checkout``. For a wide sigma the plan prefers big beds: 50 is
``S18 D16`` rather than ``DB``.

numpy (the plan) is imported here; the X01 game imports this module only
when a ``checkout_sigma_mm`` is set, and the skill test once a player is done.
"""

from __future__ import annotations

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.strategy.x01 import X01Plan, x01_plan
from engine.x01_rules import ALLOWED_MULTIPLIERS

__all__ = ["PLAN_START", "plan_for", "planned_route"]

PLAN_START = 170
"""The plans used for routes go up to this score: the highest finish in one
visit. A visit that began higher cannot finish, so it needs no route."""

_DARTS = 3


def plan_for(sigma_mm: float, out: str = "double", geometry: BoardGeometry = STEEL) -> X01Plan:
    """The X01 plan (solved once per sigma, cached) that routes come from."""
    return x01_plan(sigma_mm, geometry, out, "straight", PLAN_START)


def planned_route(
    sigma_mm: float,
    remaining: int,
    darts_left: int = _DARTS,
    visit_start: int | None = None,
    out: str = "double",
    geometry: BoardGeometry = STEEL,
    *,
    plan: X01Plan | None = None,
) -> tuple[Bed, ...] | None:
    """The plan's darts from ``remaining`` with ``darts_left`` (1-3) darts left
    in a visit that began at ``visit_start`` (``remaining`` when ``None``),
    each dart in the bed under its aim, up to the finish, a dart that would
    bust, or the visit's end. ``None`` when the visit cannot finish (it began
    above :data:`PLAN_START`, or nothing is left). The route may stop short of
    zero: then the plan sets up the next visit rather than trying to finish.
    ``plan``: the plan for these rules when the caller holds it already."""
    start = remaining if visit_start is None else visit_start
    if not 1 <= remaining <= start <= PLAN_START or not 1 <= darts_left <= _DARTS:
        return None
    plan = plan if plan is not None else plan_for(sigma_mm, out, geometry)
    finishing = ALLOWED_MULTIPLIERS[out]
    route: list[Bed] = []
    left = remaining
    for darts in range(darts_left, 0, -1):
        bed = plan.aim(left, darts, start).bed
        after = left - bed.points
        busts = after < 0 or (after == 1 and out != "straight")
        if busts or (after == 0 and bed.multiplier not in finishing) or bed.is_miss:
            break
        route.append(bed)
        left = after
        if left == 0:
            break
    return tuple(route)
