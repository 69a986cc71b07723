"""X01 for a bot: the aim that minimises the expected number of darts to
finish, with busts and the in and out rules, by dynamic programming.

State: the score left ``s``, the darts left in the visit ``d`` and the score
the visit started from ``u`` (a bust goes back to it). Cost: every dart thrown
counts 1 and a bust also forfeits the visit's remaining darts, so the value is
the darts (thrown or forfeited) until the finish. ``V(u)`` (the value at the
start of a visit) appears in its own equation through busts and scoreless
visits; for each ``u`` from low to high the scores below are solved already,
and ``V(u)`` is the fixed point of a concave piecewise-linear map, found
exactly by Newton (policy) iteration. Each dart chooses among the aim points
of ``engine.strategy.aims`` (every bed's centre, a point just inside each
double, the best scoring aim for sigma) with their bed chances. Solved
plans are cached per spread, geometry, out rule and start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.beds import Bed
from engine.board_geometry import STEEL, BoardGeometry, bed_at, fat_bull
from engine.strategy import StrategyError
from engine.strategy.aims import BEDS, aim_table, candidate_aims, clear_tables
from engine.throw_model import Aim, Spread, SpreadLike, as_spread
from engine.x01_rules import ALLOWED_MULTIPLIERS, FAT_BULL, RING_RULES, as_scored

__all__ = [
    "ExpectedLeg",
    "X01Plan",
    "X01Strategy",
    "candidate_aims",
    "clear_plans",
    "expected_leg",
    "x01_plan",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_POINTS = np.array([bed.points for bed in BEDS], dtype=np.int64)
_MULTIPLIERS = np.array([bed.multiplier for bed in BEDS], dtype=np.int64)
_MAX_DART = 60
DARTS = 3


@dataclass(frozen=True, slots=True)
class X01Plan:
    """A solved X01 plan for one spread, board, in/out rule and start.

    ``values[d][u, u - s]`` is the expected darts to finish from score ``s``
    with ``d`` darts left in a visit that started at ``u`` (``d`` = 1, 2) and
    ``policy[d]`` the index into ``aims`` to throw at; ``start_values[u]`` is the
    value at the start of a visit. ``closed_*`` are the same before the side
    has opened (double or master in), at the start score."""

    aims: tuple[tuple[float, float], ...]
    chances: FloatArray
    geometry: BoardGeometry
    out: str
    start: int
    start_values: FloatArray
    start_policy: IntArray
    values: dict[int, FloatArray]
    policy: dict[int, IntArray]
    closed_values: tuple[float, float, float]
    closed_policy: tuple[int, int, int]

    def _aim(self, index: int, expected: float) -> Aim:
        x, y = self.aims[index]
        return Aim(x, y, bed_at(x, y, self.geometry), expected)

    def aim(self, score: int, darts_left: int, visit_start: int, opened: bool = True) -> Aim:
        """Where to throw with ``score`` left, ``darts_left`` (1-3) darts left in
        the visit that began at ``visit_start``; ``expected`` is the expected
        darts still to throw (forfeited ones counted) to finish."""
        if darts_left not in (1, 2, 3):
            raise StrategyError(f"darts left in a visit is 1 to 3, not {darts_left}")
        if not opened:
            return self._aim(self.closed_policy[darts_left - 1], self.closed_values[darts_left - 1])
        if not 1 <= visit_start <= self.start or not np.isfinite(self.start_values[visit_start]):
            raise StrategyError(f"a visit cannot start at {visit_start} (start {self.start})")
        if darts_left == DARTS:
            if score != visit_start:
                raise StrategyError("with 3 darts left the score is the visit's start")
            return self._aim(
                int(self.start_policy[visit_start]), float(self.start_values[visit_start])
            )
        behind = visit_start - score
        if not 0 <= behind <= _MAX_DART * (DARTS - darts_left) or score < 1:
            raise StrategyError(
                f"score {score} with {darts_left} darts left cannot follow a visit "
                f"started at {visit_start}"
            )
        return self._aim(
            int(self.policy[darts_left][visit_start, behind]),
            float(self.values[darts_left][visit_start, behind]),
        )

    def expected_darts(self, score: int) -> float:
        """Expected darts to finish from ``score`` at the start of a visit."""
        return float(self.start_values[score])


def x01_plan(
    spread: SpreadLike,
    geometry: BoardGeometry = STEEL,
    out: str = "double",
    in_rule: str = "straight",
    start: int = 501,
) -> X01Plan:
    """The solved plan (cached) for these rules; bad rules are a StrategyError."""
    for name, rule in (("out", out), ("in", in_rule)):
        if rule not in RING_RULES:
            raise StrategyError(f"X01 {name} rule must be one of {', '.join(RING_RULES)}")
    if isinstance(start, bool) or not isinstance(start, int) or not 2 <= start <= 10_000:
        raise StrategyError(f"X01 start must be a whole number from 2 to 10000, not {start!r}")
    return _plan(as_spread(spread), geometry, out, in_rule, start)


@lru_cache(maxsize=16)
def _plan(spread: Spread, geometry: BoardGeometry, out: str, in_rule: str, start: int) -> X01Plan:
    table = aim_table(spread, geometry)
    aims, transposed = table.aims, table.chances.T.copy()  # (63, K)
    out_ok = np.isin(_MULTIPLIERS, sorted(ALLOWED_MULTIPLIERS[out]))
    one_busts = out != "straight"
    width = {1: _MAX_DART * 2 + 1, 2: _MAX_DART + 1}
    start_values = np.full(start + 1, np.inf)
    start_values[0] = 0.0
    start_policy = np.zeros(start + 1, dtype=np.int64)
    values = {d: np.full((start + 1, width[d]), np.inf) for d in (1, 2)}
    policy = {d: np.zeros((start + 1, width[d]), dtype=np.int64) for d in (1, 2)}
    first = 2 if one_busts else 1
    for u in range(first, start + 1):
        solved = _solve_visit(u, start_values, transposed, out_ok, one_busts)
        start_values[u], start_policy[u] = solved.value, solved.policy3
        for d in (1, 2):
            count = len(solved.values[d])
            values[d][u, :count] = solved.values[d]
            policy[d][u, :count] = solved.policies[d]
    closed = _solve_closed(start, start_values, values, transposed, out_ok, one_busts, in_rule)
    return X01Plan(
        aims=aims,
        chances=table.chances,
        geometry=geometry,
        out=out,
        start=start,
        start_values=start_values,
        start_policy=start_policy,
        values=values,
        policy=policy,
        closed_values=closed[0],
        closed_policy=closed[1],
    )


@dataclass(frozen=True, slots=True)
class ExpectedLeg:
    """What a plan's own policy throws on average from the start score: the
    darts thrown (a bust forfeits the visit's other darts, which are not
    thrown and not counted, as the game's statistics count them), the visits,
    and so the whole-leg three-dart average (3 x start / darts)."""

    darts: float
    visits: float
    start: int

    @property
    def three_dart_average(self) -> float:
        """3 x points per dart over the leg: what ``oche bot simulate`` converges to."""
        return 3 * self.start / self.darts


def expected_leg(plan: X01Plan) -> ExpectedLeg:
    """The darts and visits the plan's policy takes from its start (straight in),
    by evaluating that fixed policy exactly: no sampling, so a level's leg
    average is a deterministic figure. ``V(u)`` is linear in itself through
    busts and scoreless visits, so each visit start is one linear solve."""
    one_busts = plan.out != "straight"
    out_ok = np.isin(_MULTIPLIERS, sorted(ALLOWED_MULTIPLIERS[plan.out]))
    darts = _evaluate(plan, out_ok, one_busts, dart_cost=1.0, visit_cost=0.0)
    visits = _evaluate(plan, out_ok, one_busts, dart_cost=0.0, visit_cost=1.0)
    return ExpectedLeg(darts, visits, plan.start)


def _evaluate(
    plan: X01Plan,
    out_ok: npt.NDArray[np.bool_],
    one_busts: bool,
    dart_cost: float,
    visit_cost: float,
) -> float:
    """The expected total cost from the start score when each thrown dart costs
    ``dart_cost`` and each visit ``visit_cost``, following the plan's policy."""
    totals = np.full(plan.start + 1, np.inf)
    totals[0] = 0.0
    first = 2 if one_busts else 1
    for u in range(first, plan.start + 1):
        if not np.isfinite(plan.start_values[u]):
            continue
        scores1 = np.arange(u, max(0, u - 2 * _MAX_DART - 1), -1)
        scores1 = scores1[scores1 >= 1]
        scores2 = scores1[: _MAX_DART + 1]
        # Each state's cost is a + b * T(u): b is the chance of coming back to u.
        left1, bust1, done1 = _outcomes(scores1, out_ok, one_busts)
        loop1 = bust1 | (left1 == u)
        known = np.where(left1 > 0, totals[np.clip(left1, 0, None)], 0.0)
        chances1 = plan.chances[plan.policy[1][u, : len(scores1)]]
        a1 = dart_cost + (chances1 * np.where(done1 | loop1, 0.0, known)).sum(axis=1)
        b1 = (chances1 * loop1).sum(axis=1)
        left2, bust2, done2 = _outcomes(scores2, out_ok, one_busts)
        index2 = np.clip(u - left2, 0, len(a1) - 1)
        chances2 = plan.chances[plan.policy[2][u, : len(scores2)]]
        live2 = ~(done2 | bust2)
        a2 = dart_cost + (chances2 * np.where(live2, a1[index2], 0.0)).sum(axis=1)
        b2 = (chances2 * np.where(live2, b1[index2], bust2.astype(np.float64))).sum(axis=1)
        left3, bust3, done3 = _outcomes(np.array([u]), out_ok, one_busts)
        index3 = np.clip(u - left3, 0, len(a2) - 1)
        chances3 = plan.chances[int(plan.start_policy[u])]
        live3 = ~(done3[0] | bust3[0])
        a3 = dart_cost + visit_cost + float(chances3 @ np.where(live3, a2[index3[0]], 0.0))
        b3 = float(chances3 @ np.where(live3, b2[index3[0]], bust3[0].astype(np.float64)))
        totals[u] = a3 / (1.0 - b3)
    return float(totals[plan.start])


def clear_plans() -> None:
    """Forget every solved plan and aim table (to measure a cold solve)."""
    _plan.cache_clear()
    clear_tables()


@dataclass(frozen=True, slots=True)
class _Visit:
    value: float
    policy3: int
    values: dict[int, FloatArray]
    policies: dict[int, IntArray]


def _outcomes(
    scores: IntArray, out_ok: npt.NDArray[np.bool_], one_busts: bool
) -> tuple[IntArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """For each score (rows) and bed (columns): the score left, bust, finished."""
    left = scores[:, None] - _POINTS[None, :]
    bust = (left < 0) | (left == 0) & ~out_ok[None, :]
    if one_busts:
        bust |= left == 1
    finished = (left == 0) & ~bust
    return left, bust, finished


def _choose(
    outcome: FloatArray, slope: FloatArray, transposed: FloatArray
) -> tuple[FloatArray, FloatArray, IntArray]:
    """1 + the expected outcome of each aim, and the best aim per row."""
    q = 1.0 + outcome @ transposed
    best = np.argmin(q, axis=1)
    rows = np.arange(len(best))
    slopes = slope @ transposed
    return q[rows, best], slopes[rows, best], best.astype(np.int64)


def _solve_visit(
    u: int,
    start_values: FloatArray,
    transposed: FloatArray,
    out_ok: npt.NDArray[np.bool_],
    one_busts: bool,
) -> _Visit:
    """The visit starting at ``u``: its value V(u) and the policy of each dart."""
    scores1 = np.arange(u, max(0, u - 2 * _MAX_DART - 1), -1)  # u, u-1, ... (index = u - s)
    scores1 = scores1[scores1 >= 1]
    scores2 = scores1[: _MAX_DART + 1]
    left1, bust1, done1 = _outcomes(scores1, out_ok, one_busts)
    left2, bust2, done2 = _outcomes(scores2, out_ok, one_busts)
    left3, bust3, done3 = _outcomes(np.array([u]), out_ok, one_busts)
    known = np.where(left1 > 0, start_values[np.clip(left1, 0, None)], 0.0)
    again1 = left1 == u  # a scoreless last dart from the visit's start: back to V(u)
    x = float(start_values[u - 1]) if np.isfinite(start_values[u - 1]) else 10.0
    for _ in range(100):
        loop1 = bust1 | again1
        out1 = np.where(done1, 0.0, np.where(loop1, x, np.where(bust1, x, known)))
        w1, s1, p1 = _choose(out1, loop1.astype(np.float64), transposed)
        index2 = np.clip(u - left2, 0, len(w1) - 1)
        out2 = np.where(done2, 0.0, np.where(bust2, 1.0 + x, w1[index2]))
        slope2 = np.where(done2, 0.0, np.where(bust2, 1.0, s1[index2]))
        w2, s2, p2 = _choose(out2, slope2, transposed)
        index3 = np.clip(u - left3, 0, len(w2) - 1)
        out3 = np.where(done3, 0.0, np.where(bust3, 2.0 + x, w2[index3]))
        slope3 = np.where(done3, 0.0, np.where(bust3, 1.0, s2[index3]))
        w3, s3, p3 = _choose(out3, slope3, transposed)
        value, beta = float(w3[0]), float(s3[0])
        new = (value - beta * x) / (1.0 - beta)
        if abs(new - x) <= 1e-9 * max(1.0, abs(x)):
            x = new
            break
        x = new
    return _Visit(x, int(p3[0]), {1: w1, 2: w2}, {1: p1, 2: p2})


def _solve_closed(
    start: int,
    start_values: FloatArray,
    values: dict[int, FloatArray],
    transposed: FloatArray,
    out_ok: npt.NDArray[np.bool_],
    one_busts: bool,
    in_rule: str,
) -> tuple[tuple[float, float, float], tuple[int, int, int]]:
    """Before opening (double or master in) at the start score: darts that do
    not open leave the score alone; the opening dart scores."""
    if in_rule == "straight":
        v = float(start_values[start])
        return (v, v, v), (0, 0, 0)
    opens = np.isin(_MULTIPLIERS, sorted(ALLOWED_MULTIPLIERS[in_rule]))[None, :]
    left, bust, done = _outcomes(np.array([start]), out_ok, one_busts)
    index = np.clip(start - left, 0, _MAX_DART * 2)
    after = {
        1: np.where(bust, start_values[start], start_values[np.clip(left, 0, None)]),
        2: np.where(bust, 1.0 + start_values[start], values[1][start][index]),
        3: np.where(bust, 2.0 + start_values[start], values[2][start][np.clip(index, 0, 60)]),
    }
    for d in (1, 2, 3):
        after[d] = np.where(done, 0.0, after[d])
    x = float(start_values[start]) + 3.0
    for _ in range(100):
        results: list[tuple[float, float, int]] = []
        previous: tuple[float, float] = (x, 1.0)
        for d in (1, 2, 3):
            out = np.where(opens, after[d], previous[0])
            slope = np.where(opens, 0.0, previous[1])
            w, s, p = _choose(out, slope, transposed)
            previous = (float(w[0]), float(s[0]))
            results.append((float(w[0]), float(s[0]), int(p[0])))
        value, beta = results[2][0], results[2][1]
        new = (value - beta * x) / (1.0 - beta)
        done_iterating = abs(new - x) <= 1e-9 * max(1.0, abs(x))
        x = new
        if done_iterating:
            break
    return (
        (results[0][0], results[1][0], results[2][0]),
        (results[0][2], results[1][2], results[2][2]),
    )


@dataclass(frozen=True, slots=True)
class X01Strategy:
    """The X01 policy: reads the state JSON (options, the current player's
    score and whether they opened, the visit so far) and aims by the plan."""

    geometry: BoardGeometry = STEEL
    game_id: str = "x01"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        if state.get("game") != "x01":
            raise StrategyError(f"the X01 policy got a {state.get('game')!r} game")
        if state.get("finished"):
            raise StrategyError("the game is over")
        if state.get("visit_over") is not None:
            raise StrategyError(f"the visit is over ({state['visit_over']}): no dart to throw")
        options = state["options"]
        player = state["players"][state["current_player"]]
        bull = str(options.get("bull", "split"))
        visit = [as_scored(Bed.parse(notation), bull) for notation in state.get("visit") or []]
        score, opened = int(player["score"]), bool(player["opened"])
        in_rule = str(options["in"])
        geometry = fat_bull(self.geometry) if bull == FAT_BULL else self.geometry
        start = int(player.get("start", options["start"]))  # a handicap: the player's own
        plan = x01_plan(spread, geometry, str(options["out"]), in_rule, start)
        darts_left = DARTS - len(visit)
        return plan.aim(score, darts_left, _visit_start(score, visit, in_rule, start), opened)


def _visit_start(score: int, visit: list[Bed], in_rule: str, start: int) -> int:
    """The score the visit began at: the darts that counted added back. A side
    that opened during this visit began it at ``start`` and its darts before
    the opening one did not count."""
    every = score + sum(bed.points for bed in visit)
    if in_rule == "straight":
        return every
    allowed = ALLOWED_MULTIPLIERS[in_rule]
    opening = next((i for i, bed in enumerate(visit) if bed.multiplier in allowed), None)
    if opening is None:
        return every
    from_opening = score + sum(bed.points for bed in visit[opening:])
    return from_opening if from_opening == start else every
