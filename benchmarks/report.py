"""How every benchmark prints its figures: a two-column table, the measure
and its result, so docs/benchmarks.md quotes them all alike."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["print_rows"]


def print_rows(rows: Sequence[tuple[str, str]]) -> None:
    """``rows`` (measure, result) under a ``measure  result`` heading."""
    width = max(len(name) for name, _ in rows) + 2
    print(f"{'measure':<{width}}result")
    for name, value in rows:
        print(f"{name:<{width}}{value}")
