"""Slow solves a state needs, kept once done, so a caller that must not wait
can build a state without them and have them solved elsewhere.

A skill test's report and the X01 plan behind a ``checkout_sigma_mm`` hint
take from a tenth of a second to seconds of numpy. A game asks for one with
:func:`solved`: outside :func:`deferring` it is computed here and now (the
CLI, tests and result documents get every figure); inside, a solve not yet
done gives ``None`` (the state's ``null``) and is listed for the caller, who
computes it elsewhere (``firmware_bridge.daemon.off_loop``: in a process of
its own, so a :class:`Solve` is a module-level function and its plain
arguments, both picklable, never a closure), hands the value back with
:func:`keep` and builds the state again. Solves are kept by key, the oldest
dropped past :data:`KEPT`; a dict store under a lock, safe from a worker thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

__all__ = ["KEPT", "Solve", "deferring", "is_solved", "keep", "solve", "solved"]

KEPT = 64
"""The most solves kept (a skill test's reports, a few spreads' plans)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Solve:
    """One slow computation a state needs: its key, and ``function(*args)``
    that computes it (a module-level function and plain values: picklable,
    so another process can compute it)."""

    key: Hashable
    function: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(default=(), compare=False)

    def compute(self) -> Any:
        """The value, computed here and now (slow)."""
        return self.function(*self.args)


_kept: OrderedDict[Hashable, Any] = OrderedDict()
_keeping = threading.Lock()
_deferred: ContextVar[list[Solve] | None] = ContextVar("deferred_solves", default=None)


def solved(key: Hashable, function: Callable[..., T], *args: Any) -> T | None:
    """``function(*args)``'s value, kept under ``key``. Inside :func:`deferring`,
    a value not kept yet is ``None`` and its :class:`Solve` is listed instead
    (``function`` module-level and ``args`` plain values: picklable)."""
    with _keeping:
        if key in _kept:
            _kept.move_to_end(key)
            return cast("T", _kept[key])
    pending = _deferred.get()
    if pending is not None:
        if all(wanted.key != key for wanted in pending):
            pending.append(Solve(key, function, args))
        return None
    return cast("T", solve(Solve(key, function, args)))


def solve(wanted: Solve) -> Any:
    """Compute ``wanted`` (at once if it is kept already) and keep its value.
    Slow: the one call a caller runs off its event loop."""
    with _keeping:
        if wanted.key in _kept:
            return _kept[wanted.key]
    value = wanted.compute()
    keep(wanted.key, value)
    return value


def keep(key: Hashable, value: Any) -> None:
    """Keep ``value``, the solve under ``key`` computed elsewhere (another
    process), so :func:`solved` returns it at once from now on."""
    with _keeping:
        _kept[key] = value
        _kept.move_to_end(key)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)


def is_solved(key: Hashable) -> bool:
    """Whether the solve under ``key`` is kept (so :func:`solved` returns at once)."""
    with _keeping:
        return key in _kept


@contextmanager
def deferring() -> Iterator[list[Solve]]:
    """Within the block :func:`solved` waits for nothing: the list it yields
    fills with the solves it left out, for the caller to :func:`solve` elsewhere."""
    pending: list[Solve] = []
    token = _deferred.set(pending)
    try:
        yield pending
    finally:
        _deferred.reset(token)
