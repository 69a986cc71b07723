"""The journal's errors: what it refuses, a write the storage refused, a damaged file."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["JournalDamaged", "JournalError", "JournalWriteError", "WriteListener"]


class JournalError(ValueError):
    """The journal cannot do what was asked: a corrupt or foreign file, an
    unknown game id, a game in the wrong status, a failed write. The message
    names the journal's path."""


class JournalWriteError(JournalError):
    """The storage refused a write (nothing of it was written): its file
    system is full (``full``), or the disk failed, is read-only or the file is
    damaged. Unlike a refusal of what was asked, the same write may succeed
    later. ``reason`` is SQLite's words (``database or disk is full``)."""

    def __init__(self, message: str, reason: str, full: bool) -> None:
        super().__init__(message)
        self.reason = reason
        self.full = full


class JournalDamaged(JournalError):
    """:meth:`Journal.open` found the file damaged (SQLite reads it as corrupt,
    or not as a database at all): what ``firmware_bridge.daemon.journal_salvage``
    salvages. ``problems`` are what SQLite said, at most a few lines."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


WriteListener = Callable[[JournalWriteError | None], None]
"""Told the outcome of every write to the storage: ``None`` when it was
committed, the :class:`JournalWriteError` when the storage refused it."""
