"""Checkout routes walked from a spread's X01 plan without numpy: the
:class:`RouteTable` (the bed the plan aims at in each visit state, as bytes)
and :func:`walk_route` (the darts from a score to the finish, a bust or the
visit's end, each landing in the bed it aims at).

The X01 plan (``engine.strategy.x01``) is numpy arrays; a daemon solves it in
a process of its own and gets back only its table (``engine.checkout_plan.
route_table``), so the process that shows the hints never imports numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.beds import Bed
from engine.x01_rules import ALLOWED_MULTIPLIERS

__all__ = ["NO_AIM", "PLAN_START", "SPAN", "RouteTable", "walk_route"]

PLAN_START = 170
"""The plans used for routes go up to this score: the highest finish in one
visit. A visit that began higher cannot finish, so it needs no route."""

DARTS = 3

MAX_DART = 60

SPAN = {2: MAX_DART + 1, 1: 2 * MAX_DART + 1}
"""How far behind its start a visit can be with 2 and 1 darts left (a row's width)."""

NO_AIM = 255
"""A table's byte where the plan has no aim (no visit can start there)."""


@dataclass(frozen=True, slots=True)
class RouteTable:
    """The beds an X01 plan for one spread and out rule aims at: ``three[u]``
    with 3 darts left at the start ``u`` of a visit, ``two[u * SPAN[2] + b]``
    and ``one[u * SPAN[1] + b]`` with 2 and 1 left ``b`` points behind it;
    each byte an index into ``beds`` (:data:`NO_AIM`: none). Plain values:
    small to send from another process, read without numpy."""

    start: int
    out: str
    beds: tuple[Bed, ...]
    three: bytes
    two: bytes
    one: bytes

    def aimed(self, score: int, darts_left: int, visit_start: int) -> Bed | None:
        """The bed the plan aims at with ``score`` left and ``darts_left`` darts
        in the visit that began at ``visit_start``; ``None`` where it has none."""
        behind = visit_start - score
        if not 1 <= score <= visit_start <= self.start:
            return None
        if darts_left == DARTS:
            code = self.three[visit_start] if behind == 0 else NO_AIM
        elif darts_left in SPAN and behind < SPAN[darts_left]:
            row = self.two if darts_left == 2 else self.one
            code = row[visit_start * SPAN[darts_left] + behind]
        else:
            code = NO_AIM
        return None if code == NO_AIM else self.beds[code]

    def route(
        self, remaining: int, darts_left: int = DARTS, visit_start: int | None = None
    ) -> tuple[Bed, ...] | None:
        """The table's route (:func:`walk_route`)."""
        return walk_route(self.aimed, remaining, darts_left, visit_start, self.out, self.start)


def walk_route(
    aimed: Callable[[int, int, int], Bed | None],
    remaining: int,
    darts_left: int = DARTS,
    visit_start: int | None = None,
    out: str = "double",
    plan_start: int = PLAN_START,
) -> tuple[Bed, ...] | None:
    """The darts ``aimed(score, darts_left, visit_start)`` throws from
    ``remaining`` with ``darts_left`` (1-3) darts left in a visit that began at
    ``visit_start`` (``remaining`` when ``None``), each dart in the bed under its
    aim, up to the finish, a dart that would bust, or the visit's end. ``None``
    when the visit cannot finish (it began above ``plan_start``, or nothing is
    left). The route may stop short of zero: then the plan sets up the next
    visit rather than trying to finish."""
    start = remaining if visit_start is None else visit_start
    if not 1 <= remaining <= start <= plan_start or not 1 <= darts_left <= DARTS:
        return None
    finishing = ALLOWED_MULTIPLIERS[out]
    route: list[Bed] = []
    left = remaining
    for darts in range(darts_left, 0, -1):
        bed = aimed(left, darts, start)
        if bed is None:
            break
        after = left - bed.points
        busts = after < 0 or (after == 1 and out != "straight")
        if busts or (after == 0 and bed.multiplier not in finishing) or bed.is_miss:
            break
        route.append(bed)
        left = after
        if left == 0:
            break
    return tuple(route)
