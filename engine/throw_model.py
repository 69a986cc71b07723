"""The throw model: a dart lands at the aim point plus a bivariate normal error
(isotropic sigma by default, a full covariance optionally), on a board's real
geometry. Bed probabilities are computed, never sampled: deterministic.

How: the board is rasterised once per geometry and cell size h (1, 2, 4 or
8 mm, the largest <= sigma/4) into cells with the fraction of each cell every bed
covers (sub-sampled, so a cell across a wire is shared). The chance of a bed
is the sum over its cells of covered fraction x the normal's mass in the cell
(exact erf differences for a diagonal covariance), over the cells within 7sigma of
the aim: a few hundred microseconds. The expected-score map over every aim
point is the same sum for all aims at once, by FFT convolution.

numpy is imported here and by the bot modules only, never by ``engine`` itself.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.beds import ALL_BEDS, MISS, Bed
from engine.board_geometry import SECTOR_DEGREES, STEEL, BoardGeometry, bed_at

__all__ = [
    "BOARD_BEDS",
    "MIN_SIGMA_MM",
    "Aim",
    "ScoreMap",
    "Spread",
    "SpreadLike",
    "Throw",
    "as_spread",
    "bed_distribution",
    "bed_index",
    "bed_indices",
    "bed_probabilities",
    "best_scoring_aim",
    "clear_caches",
    "expected_points",
    "expected_score_map",
    "sample_beds",
    "sample_throw",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

BOARD_BEDS: tuple[Bed, ...] = tuple(bed for bed in ALL_BEDS if not bed.is_miss)
"""The 62 beds on the board, in the order of :func:`bed_probabilities`; index 62 is the miss."""

_MISS_INDEX = len(BOARD_BEDS)
_POINTS = np.array([bed.points for bed in BOARD_BEDS] + [0], dtype=np.float64)
_INDEX_OF = {bed: index for index, bed in enumerate(BOARD_BEDS)} | {MISS: _MISS_INDEX}

MIN_SIGMA_MM = 1.0
"""The smallest spread the model takes (a finer throw than any player's)."""
MAX_SIGMA_MM = 1000.0
_REACH = 7.0
"""Cells farther than this many sigma from the aim carry no mass worth counting (< 1e-11)."""
_CELL_SIZES = (1.0, 2.0, 4.0, 8.0)
_SUBSAMPLES = {1.0: 6, 2.0: 8, 4.0: 12, 8.0: 16}


@dataclass(frozen=True, slots=True)
class Spread:
    """The covariance of a dart's landing error in mm^2: ``xx``, ``yy`` and ``xy``.
    ``Spread.isotropic(sigma)`` is the usual round scatter of sigma mm each way."""

    xx: float
    yy: float
    xy: float = 0.0

    def __post_init__(self) -> None:
        values = (self.xx, self.yy, self.xy)
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"the spread must be finite numbers, not {values}")
        low = MIN_SIGMA_MM**2
        if self.xx < low or self.yy < low or self.xx * self.yy - self.xy**2 <= 0:
            raise ValueError(
                f"the spread must be a positive-definite covariance with each sigma at least "
                f"{MIN_SIGMA_MM} mm, not xx={self.xx}, yy={self.yy}, xy={self.xy}"
            )
        if max(self.xx, self.yy) > MAX_SIGMA_MM**2:
            raise ValueError(f"sigma must be at most {MAX_SIGMA_MM} mm")

    @classmethod
    def isotropic(cls, sigma_mm: float) -> Spread:
        """sigma mm of error in every direction."""
        if not (math.isfinite(sigma_mm) and MIN_SIGMA_MM <= sigma_mm <= MAX_SIGMA_MM):
            raise ValueError(
                f"sigma must be a number of mm from {MIN_SIGMA_MM} to {MAX_SIGMA_MM}, "
                f"not {sigma_mm}"
            )
        return cls(sigma_mm * sigma_mm, sigma_mm * sigma_mm)

    @property
    def is_diagonal(self) -> bool:
        return self.xy == 0.0

    @property
    def sigma(self) -> float:
        """The smaller principal standard deviation (what the raster must resolve)."""
        half_trace = (self.xx + self.yy) / 2
        gap = math.sqrt(((self.xx - self.yy) / 2) ** 2 + self.xy**2)
        return math.sqrt(half_trace - gap)

    @property
    def reach(self) -> tuple[float, float]:
        """How far (mm, in x and y) mass worth counting reaches from the aim."""
        return (_REACH * math.sqrt(self.xx), _REACH * math.sqrt(self.yy))


SpreadLike = float | Spread
"""A sigma in mm (isotropic) or a full :class:`Spread`."""


def as_spread(spread: SpreadLike) -> Spread:
    """A :class:`Spread` from a sigma in mm or a spread; a bad value is a ValueError."""
    if isinstance(spread, Spread):
        return spread
    if isinstance(spread, bool) or not isinstance(spread, int | float):
        raise ValueError(f"sigma must be a number of mm, not {spread!r}")
    return Spread.isotropic(float(spread))


@dataclass(frozen=True, slots=True)
class Aim:
    """An aim point (mm), the bed under it and what the aim was chosen for:
    expected points per dart for a scoring aim, expected darts to finish for an
    X01 aim."""

    x_mm: float
    y_mm: float
    bed: Bed
    expected: float

    def as_json(self) -> dict[str, Any]:
        return {
            "x_mm": round(self.x_mm, 2),
            "y_mm": round(self.y_mm, 2),
            "bed": self.bed.notation,
            "expected": round(self.expected, 3),
        }


@dataclass(frozen=True, slots=True)
class Throw:
    """Where a sampled dart landed and the bed it scored."""

    x_mm: float
    y_mm: float
    bed: Bed


def bed_indices(xs: npt.ArrayLike, ys: npt.ArrayLike, geometry: BoardGeometry = STEEL) -> IntArray:
    """:func:`engine.board_geometry.bed_at` for arrays of points, as indices
    into :data:`BOARD_BEDS` (62 for a miss); same wire rule."""
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    r = np.round(np.hypot(x, y), 9)
    angle = np.round((np.degrees(np.arctan2(x, y)) + SECTOR_DEGREES / 2) % 360.0, 9) % 360.0
    sector = (angle // SECTOR_DEGREES).astype(np.int64) % 20
    number = np.asarray(geometry.numbers, dtype=np.int64)[sector]
    g = geometry
    multiplier = np.where(
        (r > g.treble_inner) & (r <= g.treble_outer), 3, np.where(r > g.double_inner, 2, 1)
    )
    # BOARD_BEDS: singles 0-19, doubles 20-39, trebles 40-59, SB 60, DB 61.
    ring_base = (multiplier - 1) * 20  # np.choose's equal: it holds the GIL long on a raster
    index: IntArray = (ring_base + number - 1).astype(np.int64)
    index = np.where(r <= g.outer_bull, 60, index)
    index = np.where(r <= g.inner_bull, 61, index)
    index = np.where(r > g.double_outer, _MISS_INDEX, index)
    return index


def _check_order() -> None:
    expected = [*(Bed(n, m) for m in (1, 2, 3) for n in range(1, 21))]
    assert list(BOARD_BEDS[:60]) == expected and BOARD_BEDS[60].points == 25


_check_order()


@dataclass(frozen=True, slots=True)
class _Raster:
    """The board cut into square cells of ``h`` mm centred on multiples of h:
    per (cell, bed) the fraction of the cell that bed covers, sorted by row."""

    h: float
    n: int
    rows: IntArray
    cols: IntArray
    beds: IntArray
    fractions: FloatArray
    moment_x: FloatArray
    moment_y: FloatArray
    row_starts: IntArray

    @property
    def centres(self) -> FloatArray:
        return np.asarray((np.arange(self.n) - self.n // 2) * self.h, dtype=np.float64)

    def points_grids(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Points a dart scores averaged over each cell, and their first moments
        in x and y (mm): the maps to convolve."""
        where = self.rows * self.n + self.cols
        points = _POINTS[self.beds]
        grids: list[FloatArray] = []
        for values in (self.fractions, self.moment_x, self.moment_y):
            grid = np.bincount(where, weights=values * points, minlength=self.n * self.n)
            grids.append(np.asarray(grid, dtype=np.float64).reshape(self.n, self.n))
        return grids[0], grids[1], grids[2]


@lru_cache(maxsize=8)
def _raster(geometry: BoardGeometry, h: float) -> _Raster:
    sub = _SUBSAMPLES[h]
    half = math.ceil((geometry.radius + h) / h)
    n = 2 * half + 1
    centres = (np.arange(n) - half) * h
    offsets = ((np.arange(sub) + 0.5) / sub - 0.5) * h
    rows_out: list[IntArray] = []
    cols_out: list[IntArray] = []
    beds_out: list[IntArray] = []
    fracs_out: list[FloatArray] = []
    mx_out: list[FloatArray] = []
    my_out: list[FloatArray] = []
    chunk = max(1, 400_000 // (n * sub * sub))
    labels = _MISS_INDEX + 1
    sx = (centres[:, None] + offsets[None, :]).ravel()  # n*sub x positions
    for start in range(0, n, chunk):
        rows = np.arange(start, min(n, start + chunk))
        sy = (centres[rows][:, None] + offsets[None, :]).ravel()  # rows*sub y positions
        index = bed_indices(sx[None, :], sy[:, None], geometry)  # (rows*sub, n*sub)
        index = (
            index.reshape(len(rows), sub, n, sub)
            .transpose(0, 2, 1, 3)
            .reshape(len(rows) * n, sub * sub)
        )
        cell = np.repeat(np.arange(len(rows) * n), sub * sub)
        key = cell * labels + index.ravel()
        size = len(rows) * n * labels
        counts = np.bincount(key, minlength=size).reshape(len(rows) * n, labels)
        dx = np.tile(np.tile(offsets, sub), len(rows) * n)  # x offset of each sub-sample
        dy = np.tile(np.repeat(offsets, sub), len(rows) * n)
        sum_x = np.bincount(key, weights=dx, minlength=size).reshape(len(rows) * n, labels)
        sum_y = np.bincount(key, weights=dy, minlength=size).reshape(len(rows) * n, labels)
        cell_ids, bed_ids = np.nonzero(counts[:, :_MISS_INDEX])
        rows_out.append(rows[0] + cell_ids // n)
        cols_out.append(cell_ids % n)
        beds_out.append(bed_ids)
        fracs_out.append(counts[cell_ids, bed_ids] / (sub * sub))
        mx_out.append(sum_x[cell_ids, bed_ids] / (sub * sub))
        my_out.append(sum_y[cell_ids, bed_ids] / (sub * sub))
    all_rows = np.concatenate(rows_out).astype(np.int64)
    return _Raster(
        h=h,
        n=n,
        rows=all_rows,
        cols=np.concatenate(cols_out).astype(np.int64),
        beds=np.concatenate(beds_out).astype(np.int64),
        fractions=np.concatenate(fracs_out).astype(np.float64),
        moment_x=np.concatenate(mx_out).astype(np.float64),
        moment_y=np.concatenate(my_out).astype(np.float64),
        row_starts=np.searchsorted(all_rows, np.arange(n + 1)).astype(np.int64),
    )


def _cell_size(spread: Spread) -> float:
    fitting = [h for h in _CELL_SIZES if h <= spread.sigma / 4]
    return fitting[-1] if fitting else _CELL_SIZES[0]


_SQRT2 = math.sqrt(2.0)


def _cell_masses(centres: FloatArray, mean: float, sd: float, h: float) -> FloatArray:
    """The normal(mean, sd) mass of each cell [c - h/2, c + h/2]."""
    edges = np.concatenate([centres - h / 2, centres[-1:] + h / 2])
    cdf = np.array([math.erf(float(e - mean) / (sd * _SQRT2)) for e in edges]) / 2
    return np.asarray(np.diff(cdf), dtype=np.float64)


def bed_probabilities(
    aim: tuple[float, float], spread: SpreadLike, geometry: BoardGeometry = STEEL
) -> FloatArray:
    """The chance of each bed of :data:`BOARD_BEDS` and then the miss (63
    numbers summing to 1) for a dart aimed at ``aim`` (mm)."""
    s = as_spread(spread)
    ax, ay = _check_aim(aim)
    raster = _raster(geometry, _cell_size(s))
    h, n = raster.h, raster.n
    reach_x, reach_y = s.reach
    half = n // 2
    r0 = max(0, math.floor((ay - reach_y) / h) + half)
    r1 = min(n - 1, math.ceil((ay + reach_y) / h) + half)
    c0 = max(0, math.floor((ax - reach_x) / h) + half)
    c1 = min(n - 1, math.ceil((ax + reach_x) / h) + half)
    result = np.zeros(_MISS_INDEX + 1)
    if r0 <= r1 and c0 <= c1:
        lo, hi = raster.row_starts[r0], raster.row_starts[r1 + 1]
        rows = raster.rows[lo:hi]
        cols = raster.cols[lo:hi]
        keep = (cols >= c0) & (cols <= c1)
        rows, cols = rows[keep], cols[keep]
        part = raster.fractions[lo:hi][keep]
        moment_x = raster.moment_x[lo:hi][keep]
        moment_y = raster.moment_y[lo:hi][keep]
        beds = raster.beds[lo:hi][keep]
        centres = raster.centres
        dx, dy = centres[cols] - ax, centres[rows] - ay
        if s.is_diagonal:
            my = _cell_masses(centres[r0 : r1 + 1], ay, math.sqrt(s.yy), h)
            mx = _cell_masses(centres[c0 : c1 + 1], ax, math.sqrt(s.xx), h)
            weights = my[rows - r0] * mx[cols - c0]
        else:
            weights = _density(dx, dy, s) * h * h
        gx, gy = _log_gradient(dx, dy, s)
        result[:_MISS_INDEX] = np.bincount(
            beds, weights=weights * (part + gx * moment_x + gy * moment_y), minlength=_MISS_INDEX
        )
    result[_MISS_INDEX] = max(0.0, 1.0 - float(result[:_MISS_INDEX].sum()))
    return result


def _density(dx: FloatArray, dy: FloatArray, s: Spread) -> FloatArray:
    det = s.xx * s.yy - s.xy**2
    quad = (s.yy * dx * dx - 2 * s.xy * dx * dy + s.xx * dy * dy) / det
    return np.asarray(np.exp(-quad / 2) / (2 * math.pi * math.sqrt(det)), dtype=np.float64)


def _log_gradient(dx: FloatArray, dy: FloatArray, s: Spread) -> tuple[FloatArray, FloatArray]:
    """The gradient of the normal's log density at offset (dx, dy) from the aim:
    with a bed's first moment in a cell it corrects the cell's mass to first order."""
    det = s.xx * s.yy - s.xy**2
    return (-(s.yy * dx - s.xy * dy) / det, -(s.xx * dy - s.xy * dx) / det)


def _check_aim(aim: tuple[float, float]) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in aim)
    except (TypeError, ValueError):
        raise ValueError(f"an aim is two numbers (x_mm, y_mm), not {aim!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)) or math.hypot(x, y) > 1000:
        raise ValueError(f"an aim must be within 1000 mm of the centre, not {aim!r}")
    return x, y


def bed_distribution(
    aim: tuple[float, float], spread: SpreadLike, geometry: BoardGeometry = STEEL
) -> dict[Bed, float]:
    """Bed -> probability (every bed and the miss, summing to 1) for a dart aimed at ``aim``."""
    probabilities = bed_probabilities(aim, spread, geometry)
    return {bed: float(p) for bed, p in zip((*BOARD_BEDS, MISS), probabilities, strict=True)}


def expected_points(
    aim: tuple[float, float], spread: SpreadLike, geometry: BoardGeometry = STEEL
) -> float:
    """The points one dart aimed at ``aim`` scores on average."""
    return float(bed_probabilities(aim, spread, geometry) @ _POINTS)


@dataclass(frozen=True, slots=True)
class ScoreMap:
    """Expected points per dart for aims at the centres ``xs`` x ``ys`` (mm,
    rising); ``values[row, col]`` is the aim ``(xs[col], ys[row])``."""

    xs: FloatArray
    ys: FloatArray
    values: FloatArray


def expected_score_map(spread: SpreadLike, geometry: BoardGeometry = STEEL) -> ScoreMap:
    """Expected points per dart for every aim on a grid over the board (the
    heat map), by FFT convolution of the cell points with the normal."""
    s = as_spread(spread)
    return _score_map(s, geometry)


@lru_cache(maxsize=16)
def _score_map(s: Spread, geometry: BoardGeometry) -> ScoreMap:
    raster = _raster(geometry, _cell_size(s))
    h, n = raster.h, raster.n
    reach_x, reach_y = s.reach
    kx = min(math.ceil(reach_x / h), 4 * n)
    ky = min(math.ceil(reach_y / h), 4 * n)
    offsets_x = np.arange(-kx, kx + 1, dtype=np.float64) * h
    offsets_y = np.arange(-ky, ky + 1, dtype=np.float64) * h
    if s.is_diagonal:
        kernel = np.outer(
            _cell_masses(offsets_y, 0.0, math.sqrt(s.yy), h),
            _cell_masses(offsets_x, 0.0, math.sqrt(s.xx), h),
        )
    else:
        kernel = _density(offsets_x[None, :], offsets_y[:, None], s) * h * h
    # The map at aim a sums, over cells c = a + d: cell points x k(d) plus the
    # first moments x k(d) x the log-density gradient at d (a convolution each).
    grid_x, grid_y = np.meshgrid(offsets_x, offsets_y)
    gx, gy = _log_gradient(grid_x, grid_y, s)
    shape = (n + 2 * ky, n + 2 * kx)
    points, moment_x, moment_y = raster.points_grids()
    spectrum = np.fft.rfft2(points, shape) * np.fft.rfft2(kernel, shape)
    spectrum += np.fft.rfft2(moment_x, shape) * np.fft.rfft2((kernel * gx)[::-1, ::-1], shape)
    spectrum += np.fft.rfft2(moment_y, shape) * np.fft.rfft2((kernel * gy)[::-1, ::-1], shape)
    full = np.fft.irfft2(spectrum, shape)
    values = np.asarray(full[ky : ky + n, kx : kx + n], dtype=np.float64)
    centres = raster.centres
    return ScoreMap(xs=centres, ys=centres, values=np.maximum(values, 0.0))


def best_scoring_aim(spread: SpreadLike, geometry: BoardGeometry = STEEL) -> Aim:
    """The aim with the most expected points per dart for this spread: T20 for a
    tight throw, moving toward T19/T7 and then the centre as sigma grows."""
    s = as_spread(spread)
    return _best_scoring_aim(s, geometry)


@lru_cache(maxsize=64)
def _best_scoring_aim(s: Spread, geometry: BoardGeometry) -> Aim:
    grid = _score_map(s, geometry)
    row, col = np.unravel_index(int(np.argmax(grid.values)), grid.values.shape)
    x, y = float(grid.xs[col]), float(grid.ys[row])
    best = expected_points((x, y), s, geometry)
    step = float(grid.xs[1] - grid.xs[0]) / 2
    while step > 0.05:
        moved = False
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
            candidate = (x + dx * step, y + dy * step)
            value = expected_points(candidate, s, geometry)
            if value > best + 1e-12:
                (x, y), best, moved = candidate, value, True
        if not moved:
            step /= 2
    return Aim(x, y, bed_at(x, y, geometry), best)


def sample_throw(
    aim: tuple[float, float],
    spread: SpreadLike,
    rng: random.Random | np.random.Generator,
    geometry: BoardGeometry = STEEL,
) -> Throw:
    """One dart thrown at ``aim``: where it lands and the bed it scores. The
    caller's ``rng`` makes it reproducible."""
    s = as_spread(spread)
    ax, ay = _check_aim(aim)
    if isinstance(rng, random.Random):
        u, v = rng.gauss(0.0, 1.0), rng.gauss(0.0, 1.0)
    else:
        u, v = (float(z) for z in rng.standard_normal(2))
    dx, dy = _correlate(s, u, v)
    x, y = ax + dx, ay + dy
    return Throw(x, y, bed_at(x, y, geometry))


def _correlate(s: Spread, u: float, v: float) -> tuple[float, float]:
    """Standard normals (u, v) turned into the spread's error (Cholesky)."""
    l11 = math.sqrt(s.xx)
    l21 = s.xy / l11
    l22 = math.sqrt(s.yy - l21 * l21)
    return (l11 * u, l21 * u + l22 * v)


def sample_beds(
    aim: tuple[float, float],
    spread: SpreadLike,
    count: int,
    generator: np.random.Generator,
    geometry: BoardGeometry = STEEL,
) -> list[Bed]:
    """``count`` darts thrown at ``aim`` at once (for simulations and tests)."""
    s = as_spread(spread)
    ax, ay = _check_aim(aim)
    u, v = generator.standard_normal((2, count))
    l11 = math.sqrt(s.xx)
    l21 = s.xy / l11
    l22 = math.sqrt(s.yy - l21 * l21)
    index = bed_indices(ax + l11 * u, ay + l21 * u + l22 * v, geometry)
    beds = (*BOARD_BEDS, MISS)
    return [beds[i] for i in index.tolist()]


def bed_index(bed: Bed) -> int:
    """The position of ``bed`` in :func:`bed_probabilities`."""
    return _INDEX_OF[bed]


def clear_caches() -> None:
    """Forget every board raster, heat map and best aim (to measure a cold start)."""
    _raster.cache_clear()
    _score_map.cache_clear()
    _best_scoring_aim.cache_clear()
