"""Whether the daemon's journal takes writes, and what the players are told.

The daemon counts nothing it cannot journal. When the storage refuses a
write (:class:`~firmware_bridge.daemon.journal.JournalWriteError`: an SD card
that filled up, a failing or read-only disk), the input is refused as a
whole and :class:`JournalHealth` turns the failure into what players and the
operator see: the state's ``journal`` block (``status`` ``full`` or
``failing`` and the line a screen shows), one ERROR line in the log when
writes start failing and one WARNING when they work again, and the ``error``
event of each refused input. It hears of every write from the journal
(``Journal(on_write=...)``), so any write that works again, an input's or
:meth:`retry`'s probe, clears it. It also keeps the line a screen shows
after a start that salvaged a damaged journal (docs/journal.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from firmware_bridge.daemon.journal import Journal, JournalError, JournalWriteError

__all__ = ["JOURNAL_MESSAGES", "RETRY_S", "JournalHealth"]

log = logging.getLogger(__name__)

RETRY_S = 5.0
"""How often a journal that refuses writes is tried again without any input."""

JOURNAL_MESSAGES = {
    "full": "the journal is full: darts are not counted",
    "failing": "the journal cannot be written: darts are not counted",
}
"""The state's ``journal.message`` for each ``journal.status`` but ``ok``."""

_HEADLINES = {"full": "the journal is full", "failing": "the journal cannot be written"}
_KINDS = {"full": "journal-full", "failing": "journal-failing"}


class JournalHealth:
    """The journal's health as the daemon shows it; ``on_change`` runs when
    the state's ``journal`` block changes (the daemon publishes its state)."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change
        self.trouble: JournalWriteError | None = None
        """The storage's last refusal while writes fail; ``None`` while they work."""
        self.salvaged: str | None = None
        """What a start that found the journal damaged did, until the next game."""
        self._failing = asyncio.Event()
        self.writable = asyncio.Event()
        """Set while writes work: what the loops that write by themselves
        (the takeout timer, a computer player) wait for after a refusal."""
        self.writable.set()

    @property
    def status(self) -> str:
        """``ok``, ``full`` (the file system is full) or ``failing`` (another refusal)."""
        if self.trouble is None:
            return "ok"
        return "full" if self.trouble.full else "failing"

    def state(self) -> dict[str, Any]:
        """The state's ``journal`` block (``mqtt_contract``'s ``journal`` schema)."""
        status = self.status
        return {
            "status": status,
            "message": JOURNAL_MESSAGES.get(status),
            "salvaged": self.salvaged,
        }

    def wrote(self, problem: JournalWriteError | None) -> None:
        """The journal's ``on_write``: a write was committed (``None``) or refused."""
        before = self.status
        self.trouble = problem
        if problem is None:
            self._failing.clear()
            self.writable.set()
        else:
            self.writable.clear()
            self._failing.set()
        after = self.status
        if after == before:
            return
        if before == "ok":
            log.error("%s: nothing is counted until it can write again", problem)
        elif after == "ok":
            log.warning("journal writes again: darts are counted")
        else:
            log.error("%s", problem)
        self._on_change()

    def refusal(self, what: str, error: JournalError) -> tuple[str, str]:
        """The ``error`` event's ``(kind, message)`` for ``what`` (``T20``,
        ``NEXT``, ``dart S5``) refused because the journal did not take it;
        the message is also the refused command's answer."""
        if isinstance(error, JournalWriteError):
            status = "full" if error.full else "failing"
            return _KINDS[status], f"{what} refused: {_HEADLINES[status]} ({error.reason})"
        return "journal", f"{what} refused: {error}"

    def salvage_done(self, line: str | None) -> None:
        """Show ``line`` (a start's salvage) until :meth:`game_started`."""
        self.salvaged = line

    def game_started(self) -> None:
        """A new game started: the salvage's line has been seen."""
        if self.salvaged is not None:
            self.salvaged = None
            self._on_change()

    async def retry(self, journal: Journal) -> None:
        """Until cancelled: while writes fail, try the journal every
        :data:`RETRY_S` seconds, so the board plays on by itself when space
        returns, without waiting for a dart to find out."""
        while True:
            await self._failing.wait()
            await asyncio.sleep(RETRY_S)
            if self.trouble is not None:
                with contextlib.suppress(JournalError):  # wrote() heard how it went
                    journal.probe()
