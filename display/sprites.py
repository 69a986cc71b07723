"""Pictures drawn once and blitted after: the scoreboard's render cache.

A frame is a pure function of the state, the size and the clock, but some of
its pictures cost more to draw than a whole frame may take (the dartboard's
face, supersampled: 20 ms at 1920x1080) and stay the same frame after frame.
A :class:`Sprites` keeps them, keyed by everything each depends on (the
board's size, the bed, a box's size and colours), least recently used first
out. It decides nothing about what is drawn, only how fast: a frame drawn
with an empty one has the same pixels. So it is not state, and no module of
the scenes or the dartboard keeps one of its own: a scene draws into the
``sprites`` it was given when made.

The app makes one for its window's lifetime and gives it to every scene it
makes; :data:`SHARED_SPRITES` serves the scenes made without one
(:func:`display.app.render_state`, for screenshots, tests and the benchmark).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["SHARED_SPRITES", "Sprites"]

T = TypeVar("T")


class Sprites:
    """A bounded cache of drawn pictures, by kind: at most ``limits[kind]``
    (else ``default_limit``) of each kind are kept."""

    def __init__(self, limits: dict[str, int] | None = None, default_limit: int = 256) -> None:
        self.limits = dict(limits) if limits is not None else {"board": 8, "bed": 64}
        self.default_limit = default_limit
        self._kinds: dict[str, OrderedDict[Hashable, Any]] = {}

    def get(self, kind: str, key: Hashable, make: Callable[[], T]) -> T:
        """The ``kind`` picture for ``key``: kept from before, or ``make()``
        now and kept (the oldest of the kind goes when there are too many)."""
        entries = self._kinds.setdefault(kind, OrderedDict())
        if key in entries:
            entries.move_to_end(key)
            value: T = entries[key]
            return value
        value = make()
        entries[key] = value
        if len(entries) > self.limits.get(kind, self.default_limit):
            entries.popitem(last=False)
        return value

    def count(self, kind: str) -> int:
        """How many ``kind`` pictures are kept."""
        return len(self._kinds.get(kind, ()))

    def clear(self) -> None:
        """Forget every picture (they are drawn again when next asked for)."""
        self._kinds.clear()


SHARED_SPRITES = Sprites()
"""The render cache of scenes made without one of their own."""
