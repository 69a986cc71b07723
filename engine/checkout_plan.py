"""Checkout routes that suit a player's accuracy: the darts the X01 plan for
their spread sigma throws from a score (``engine.strategy.x01``), each dart
landing in the bed it aims at, instead of the fixed table of
``engine.checkout``. For a wide sigma the plan prefers big beds: 50 is
``S18 D16`` rather than ``DB``.

numpy (the plan) is imported here; the skill test imports this module once
a player is done, and the X01 game's ``checkout_sigma_mm`` hints come from
the plan's :func:`route_table`, solved where numpy may be loaded (a daemon's
solving process) and walked without it (``engine.checkout_routes``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry, bed_at
from engine.checkout_routes import DARTS, NO_AIM, PLAN_START, SPAN, RouteTable, walk_route
from engine.strategy.x01 import X01Plan, x01_plan

__all__ = ["PLAN_START", "plan_for", "planned_route", "route_table"]


def plan_for(sigma_mm: float, out: str = "double", geometry: BoardGeometry = STEEL) -> X01Plan:
    """The X01 plan (solved once per sigma, cached) that routes come from."""
    return x01_plan(sigma_mm, geometry, out, "straight", PLAN_START)


def planned_route(
    sigma_mm: float,
    remaining: int,
    darts_left: int = DARTS,
    visit_start: int | None = None,
    out: str = "double",
    geometry: BoardGeometry = STEEL,
    *,
    plan: X01Plan | None = None,
) -> tuple[Bed, ...] | None:
    """The plan's darts from ``remaining`` with ``darts_left`` (1-3) darts left
    in a visit that began at ``visit_start`` (``remaining`` when ``None``),
    each dart in the bed under its aim, up to the finish, a dart that would
    bust, or the visit's end (:func:`engine.checkout_routes.walk_route`).
    ``None`` when the visit cannot finish (it began above :data:`PLAN_START`,
    or nothing is left). ``plan``: the plan for these rules when the caller
    holds it already."""
    start = remaining if visit_start is None else visit_start
    if not 1 <= remaining <= start <= PLAN_START or not 1 <= darts_left <= DARTS:
        return None
    chosen = plan if plan is not None else plan_for(sigma_mm, out, geometry)
    return walk_route(
        lambda score, darts, begun: chosen.aim(score, darts, begun).bed,
        remaining,
        darts_left,
        visit_start,
        out,
    )


def route_table(plan: X01Plan, out: str) -> RouteTable:
    """``plan``'s beds as a :class:`~engine.checkout_routes.RouteTable` (its
    out rule ``out``): what the checkout hints need of it, without numpy."""
    aim_beds = [bed_at(x, y, plan.geometry) for x, y in plan.aims]
    beds = tuple(dict.fromkeys(aim_beds))
    codes = np.array([beds.index(bed) for bed in aim_beds], dtype=np.uint8)
    starts = np.isfinite(plan.start_values)  # no visit starts where the value is infinite

    def row(policy: npt.NDArray[np.int64], darts: int) -> bytes:
        table = codes[policy[: plan.start + 1, : SPAN[darts]]]
        table[~starts] = NO_AIM
        return bytes(table.astype(np.uint8).tobytes())

    three = codes[plan.start_policy]
    three[~starts] = NO_AIM
    return RouteTable(
        start=plan.start,
        out=out,
        beds=beds,
        three=three.astype(np.uint8).tobytes(),
        two=row(plan.policy[2], 2),
        one=row(plan.policy[1], 1),
    )
