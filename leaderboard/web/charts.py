"""Server-rendered SVG charts for the pages (no JavaScript, no CDN): pure
functions from numbers to an SVG string, every label escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from leaderboard.web.dates import is_date, utc_text

__all__ = ["ChartPoint", "line_chart", "nice_ceiling"]

ChartPoint = tuple[float, float]
"""``(x, y)``: x in Unix seconds, y the value."""


def nice_ceiling(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that is >= ``value`` (1 for 0 or less)."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * power * (1 + 1e-9):
            return step * power
    return 10.0 * power  # pragma: no cover - the loop ends at 10 * power >= value


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _date(at: float) -> str:
    return utc_text(at, "%Y-%m-%d")


def line_chart(
    points: Sequence[ChartPoint],
    *,
    title: str,
    y_label: str,
    width: int = 640,
    height: int = 260,
) -> str:
    """A line chart of ``points`` in time order, y from 0: an ``<svg>`` whose
    ``<path class="line">`` joins the points, with a dot (and tooltip) at each.
    No points gives the frame and a "no games yet" note."""
    left, right, top, bottom = 56, 16, 36, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    ordered = sorted(points)
    # A time that is no date (stored before the contract bounded them) has no place.
    finite = [(x, y) for x, y in ordered if is_date(x) and math.isfinite(y)]
    top_y = nice_ceiling(max((y for _, y in finite), default=0.0))
    x_min = min((x for x, _ in finite), default=0.0)
    x_max = max((x for x, _ in finite), default=0.0)

    def px(x: float) -> float:
        if x_max == x_min:
            return left + plot_w / 2
        return left + (x - x_min) / (x_max - x_min) * plot_w

    def py(y: float) -> float:
        return top + plot_h - max(0.0, y) / top_y * plot_h

    label = escape(title)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{label}">',
        f"<title>{label}</title>",
        f'<text class="chart-title" x="{left}" y="22">{label}</text>',
    ]
    for tick in range(5):
        value = top_y * tick / 4
        y = py(value)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">'
            f"{_number(value)}</text>"
        )
    parts.append(
        f'<text class="axis-label" x="14" y="{top + plot_h / 2:.1f}" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.1f})" text-anchor="middle">'
        f"{escape(y_label)}</text>"
    )
    if not finite:
        parts.append(
            f'<text class="empty" x="{left + plot_w / 2:.1f}" y="{top + plot_h / 2:.1f}" '
            'text-anchor="middle">no games yet</text></svg>'
        )
        return "".join(parts)
    coordinates = [(px(x), py(y)) for x, y in finite]
    path = " ".join(
        f"{'M' if index == 0 else 'L'}{x:.1f},{y:.1f}" for index, (x, y) in enumerate(coordinates)
    )
    parts.append(f'<path class="line" d="{path}"/>')
    for (x, y), (at, value) in zip(coordinates, finite, strict=True):
        parts.append(
            f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="4">'
            f"<title>{_date(at)}: {_number(value)}</title></circle>"
        )
    first, last = _date(x_min), _date(x_max)
    base = top + plot_h + 24
    parts.append(f'<text class="tick" x="{left}" y="{base}">{first}</text>')
    if last != first:
        parts.append(
            f'<text class="tick" x="{left + plot_w}" y="{base}" text-anchor="end">{last}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
