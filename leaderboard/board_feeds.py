"""What the service keeps retained on each board's own topics (docs/players.md):
``{base}/{board}/roster``, the board's venue's roster, for every board it
knows (the config's venue map, every board with a stored result, every board
whose state or availability it heard), sent on each (re)connection and again
whenever it changed (checked every :data:`ROSTER_CHECK_INTERVAL` seconds, so a
change by ``oche players`` in another process arrives within that, and soon
after each stored result, whose averages it moves); and
``{base}/{board}/result/lines`` once a result of the board is stored."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Iterable

from sqlalchemy import select

from leaderboard.database import Database
from leaderboard.models import Result
from leaderboard.result_lines import result_lines
from leaderboard.roster import roster_message
from leaderboard.snapshots import Publish
from leaderboard.venues import VenueMap
from mqtt_contract import board_id_problem, topic
from mqtt_contract.lobby_payload import RosterMessage

__all__ = ["ROSTER_CHECK_INTERVAL", "ROSTER_MIN_GAP", "BoardFeeds", "build_rosters"]

log = logging.getLogger(__name__)

ROSTER_CHECK_INTERVAL = 10.0
"""Seconds between two checks of every board's roster against what it was sent."""
ROSTER_MIN_GAP = 1.0
"""The shortest time between two roster builds (results arriving fast ask often)."""


def _content(message: RosterMessage) -> str:
    """What a roster says, without when it was built: equal means nothing to send."""
    document = message.to_json()
    document.pop("updated_at", None)
    return json.dumps(document, sort_keys=True)


def build_rosters(
    database: Database, venues: VenueMap, boards: Iterable[str], now: float | None = None
) -> dict[str, RosterMessage]:
    """Each board's roster (one build per venue). Blocking (database)."""
    at = time.time() if now is None else now
    by_venue: dict[str, RosterMessage] = {}
    with database.session() as session:
        for board in sorted(set(boards)):
            venue = venues.venue_of(board)
            if venue not in by_venue:
                by_venue[venue] = roster_message(session, venue, at)
    return {board: by_venue[venues.venue_of(board)] for board in boards}


def _result_boards(database: Database) -> set[str]:
    """The boards with a stored result (board ids only). Blocking (database)."""
    with database.session() as session:
        found = session.execute(select(Result.board).distinct()).scalars()
        return {board for board in found if board_id_problem(board) is None}


class BoardFeeds:
    """The rosters and after-game lines of every known board, published by
    :meth:`run` through the ``publish`` it is given. A message that cannot be
    built (database away) or published (broker away) is tried again on the
    next check; a fault here is logged and never stops the service."""

    def __init__(
        self,
        database: Database,
        base: str,
        venues: VenueMap,
        interval: float = ROSTER_CHECK_INTERVAL,
    ) -> None:
        self._database = database
        self._base = base
        self._venues = venues
        self._interval = interval
        self._boards: set[str] = {b for b in venues.boards if board_id_problem(b) is None}
        self._boards_loaded = False
        self._sent: dict[str, str] = {}
        """Each board's roster content as last published (cleared on a connection)."""
        self._lines: dict[str, str] = {}
        """Board -> the result id whose lines are to publish."""
        self._roster_due = True
        self._last_build = -1e18
        self._wake = asyncio.Event()

    def saw_board(self, board: str) -> None:
        """A board was heard (state, availability): it gets its roster."""
        if board not in self._boards and board_id_problem(board) is None:
            self._boards.add(board)
            self._roster_due = True
            self._wake.set()

    def connected(self) -> None:
        """A (re)connection: every roster is published again."""
        self._sent.clear()
        self._roster_due = True
        self._wake.set()

    def stored(self, result_id: str, board: str) -> None:
        """A result of ``board`` was stored: its lines now, the rosters soon."""
        if board_id_problem(board) is None:
            self._lines[board] = result_id
            self._boards.add(board)
        self._roster_due = True
        self._wake.set()

    async def run(self, publish: Publish) -> None:
        """Publish lines and rosters as they are due, until cancelled."""
        while True:
            since = time.monotonic() - self._last_build
            timeout = max(0.0, (ROSTER_MIN_GAP if self._roster_due else self._interval) - since)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self._publish_lines(publish)
                since = time.monotonic() - self._last_build
                if since >= self._interval or (self._roster_due and since >= ROSTER_MIN_GAP):
                    self._last_build = time.monotonic()
                    self._roster_due = False
                    await self._publish_rosters(publish)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away, or a bug: never the service's end
                log.warning("rosters or result lines not published: %s", _first_line(exc))
                self._roster_due = True

    async def _publish_lines(self, publish: Publish) -> None:
        for board, result_id in list(self._lines.items()):
            lines = await asyncio.to_thread(self._lines_of, result_id)
            if lines is None:
                self._lines.pop(board, None)
                continue
            published = await publish(topic(self._base, board, "result/lines"), lines)
            if published and self._lines.get(board) == result_id:
                del self._lines[board]

    def _lines_of(self, result_id: str) -> bytes | None:
        with self._database.session() as session:
            lines = result_lines(session, result_id)
        return None if lines is None else lines.payload()

    async def _publish_rosters(self, publish: Publish) -> None:
        if not self._boards_loaded:
            self._boards |= await asyncio.to_thread(_result_boards, self._database)
            self._boards_loaded = True
        boards = sorted(self._boards)
        rosters = await asyncio.to_thread(build_rosters, self._database, self._venues, boards)
        for board in boards:
            content = _content(rosters[board])
            if self._sent.get(board) == content:
                continue
            if await publish(topic(self._base, board, "roster"), rosters[board].payload()):
                self._sent[board] = content
            else:
                self._roster_due = True  # not connected: again on the next check


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
